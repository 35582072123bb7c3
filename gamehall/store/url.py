"""Store URLs: where a hall keeps its tables.

- ``sqlite:PATH``: a SQLite file (``SQLiteStore``); ``twistd gamehall --db PATH`` is
  short for ``--store sqlite:PATH``.
- ``postgresql://user:pass@host:port/db`` (or ``postgres://``): a PostgreSQL database
  (``PostgresStore``), any URL libpq takes.
"""
from __future__ import annotations

import re
from typing import Any, NamedTuple

from gamehall.store import StoreError


class StoreURL(NamedTuple):
    kind: str        # 'sqlite' or 'postgresql'
    target: str      # the file's path, or the libpq URL

    def __str__(self) -> str:
        return f"sqlite:{self.target}" if self.kind == "sqlite" else shown(self.target)


def parse(url: str) -> StoreURL:
    """Parse a store URL, or raise StoreError with a one-line reason."""
    if url.startswith("sqlite:"):
        path = url[len("sqlite:"):]
        if path.startswith("//"):               # sqlite:///abs/path, as some tools write it
            path = path[2:]
        if not path:
            raise StoreError(f"bad store URL {url!r}: sqlite: wants a file path (sqlite:PATH)")
        return StoreURL("sqlite", path)
    if url.startswith(("postgresql://", "postgres://")):
        try:
            from psycopg.conninfo import conninfo_to_dict
        except ImportError as e:
            raise StoreError(f"a PostgreSQL store needs psycopg and psycopg-pool ({e})") from None
        try:
            params = conninfo_to_dict(url)
        except Exception as e:
            why = str(e).splitlines()[0].replace(url, shown(url))
            raise StoreError(f"bad store URL {shown(url)!r}: {why}") from None
        port = params.get("port")
        if port is not None and not (str(port).isdigit() and 0 < int(port) < 65536):
            raise StoreError(f"bad store URL {shown(url)!r}: port {port!r} is not a port number")
        return StoreURL("postgresql", url)
    raise StoreError(
        f"bad store URL {shown(url)!r}: use sqlite:PATH or postgresql://user:pass@host/db")


def shown(url: str) -> str:
    """The URL with its password, if any, replaced by ***: fit for a log or a terminal."""
    return re.sub(r"^(\w+://[^:/@]*:)[^@/]*@", r"\1***@", url)


def make_store(url: StoreURL, reactor: Any = None) -> Any:
    """The (not yet opened) store a URL names."""
    if url.kind == "sqlite":
        from gamehall.store import SQLiteStore
        return SQLiteStore(url.target, reactor)
    from gamehall.store.postgres import PostgresStore
    return PostgresStore(url.target, reactor)
