"""Dropin: the Acquire game and its NetAcquire front end."""
from twisted.plugin import IPlugin
from zope.interface import implementer

from gamehall.interfaces import IFrontEnd, IGame
from gamehall_acquire.game import AcquireGame


@implementer(IPlugin)
class _AcquirePlugin(AcquireGame):
    pass


@implementer(IPlugin, IFrontEnd)
class NetAcquireFrontEnd:
    name = "netacquire"
    description = "NetAcquire clients (Acquire, ';:' directives)"
    default_endpoint = "tcp:1001"     # the NetAcquire clients' default host port

    def build_factory(self, hall):
        from gamehall_acquire.netacquire.protocol import build_factory
        return build_factory(hall)


acquire = _AcquirePlugin()
netacquireFrontEnd = NetAcquireFrontEnd()
