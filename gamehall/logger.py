"""``SharedLogger``: a class attribute logger whose events do not keep the instance alive.

A plain ``Logger()`` class attribute is a descriptor: read from an instance, it is a
new Logger whose events carry that instance as ``log_source``.  An observer that keeps
events (the buffer that holds them until logging begins, as in tests) then keeps every
instance that logged alive: whole halls, tables, series.  A ``SharedLogger`` is read as
itself, so its events carry no instance, and the namespace is the one it was made with.
"""
from __future__ import annotations

from twisted.logger import Logger


class SharedLogger(Logger):
    """A Logger that, as a class attribute, stays one logger shared by every instance."""

    def __get__(self, instance: object, owner: type | None = None) -> "SharedLogger":
        return self
