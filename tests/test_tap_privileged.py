"""A front end left on a default port that needs root is skipped with a warning; a chosen one is fatal."""
from __future__ import annotations

import errno
import socket

import pytest
from twisted.application.service import Service
from twisted.internet.error import CannotListenError

from gamehall.tap import HallService, _permission_denied


class RefusedListen(Service):
    """A listening service whose bind is refused like a non-root bind of port 1001."""

    def __init__(self, name: str, defaulted: bool, error: int = errno.EACCES, description: str = "tcp:1001") -> None:
        self.setName(name)
        self.description, self.defaulted, self.error = description, defaulted, error

    def privilegedStartService(self) -> None:
        raise CannotListenError("", 1001, socket.error(self.error, "refused"))


def service_with(child) -> HallService:
    top = HallService(hall=None, reactor=None)
    child.setServiceParent(top)
    return top


def test_a_default_endpoint_refused_for_privileges_is_skipped_with_a_warning(capsys):
    top = service_with(RefusedListen("netacquire", defaulted=True))
    top.privilegedStartService()
    assert list(top) == []
    err = capsys.readouterr().err
    assert "netacquire not started: tcp:1001 needs root" in err
    assert "--listen netacquire=tcp:11001" in err


def test_the_suggested_port_is_itself_above_1024(capsys):
    service_with(RefusedListen("web", defaulted=True, description="tcp:80")).privilegedStartService()
    assert "--listen web=tcp:10080" in capsys.readouterr().err


def test_an_endpoint_given_with_listen_stays_fatal():
    with pytest.raises(SystemExit, match="cannot listen on tcp:1001"):
        service_with(RefusedListen("netacquire", defaulted=False)).privilegedStartService()


def test_a_busy_default_port_stays_fatal():
    with pytest.raises(SystemExit, match="cannot listen on tcp:1001"):
        service_with(RefusedListen("netacquire", defaulted=True, error=errno.EADDRINUSE)).privilegedStartService()


def test_permission_denied_reads_the_wrapped_socket_error():
    assert _permission_denied(CannotListenError("", 1, socket.error(errno.EACCES, "x")))
    assert not _permission_denied(CannotListenError("", 1, socket.error(errno.EADDRINUSE, "x")))
