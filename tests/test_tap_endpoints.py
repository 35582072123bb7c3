"""gamehall.tap reads an endpoint's interface from its string description, not from the
parsed endpoint's private attributes."""
from __future__ import annotations

import pytest

from gamehall.tap import LISTEN_BACKLOG, endpoint_arguments, is_loopback, parse_endpoint


@pytest.mark.parametrize("description, loopback", [
    ("tcp:8023:interface=127.0.0.1", True),
    ("tcp:8023:interface=localhost", True),
    ("tcp:8023:127.0.0.1", True),                 # the interface given by position
    ("tcp:8023", False),                          # every interface
    ("tcp:8023:interface=10.0.0.1", False),
    ("tcp:8023:interface=0.0.0.0", False),
    ("tcp6:8023:interface=\\:\\:1", True),
    ("tcp6:8023:50:\\:\\:1", True),               # tcp6:PORT:BACKLOG:INTERFACE
    ("tcp6:8023", False),                         # :: by default
    ("ssl:8443:privateKey=k.pem:interface=127.0.0.1", True),
    ("ssl:8443:k.pem", False),
    ("unix:/tmp/admin.sock", True),
    ("unix:/tmp/admin.sock:mode=600", True),
    ("systemd:domain=INET:index=0", False),       # unknown: not taken for loopback
])
def test_is_loopback(description, loopback):
    assert is_loopback(description) is loopback


def test_endpoint_arguments_reads_escapes_and_keywords():
    assert endpoint_arguments("ssl:8443:privateKey=C\\:\\\\k.pem:interface=\\:\\:1") == (
        "ssl", ["8443"], {"privateKey": "C:\\k.pem", "interface": "::1"})
    assert endpoint_arguments("unix:/tmp/a\\=b") == ("unix", ["/tmp/a=b"], {})


@pytest.mark.parametrize("description, backlog", [
    ("tcp:8023:interface=127.0.0.1", LISTEN_BACKLOG),      # none given: the hall's
    ("tcp:8023", LISTEN_BACKLOG),
    ("tcp:8023:backlog=7", 7),                              # given: kept
    ("tcp:8023:127.0.0.1:9", 9),                            # tcp:PORT:INTERFACE:BACKLOG
    ("tcp6:8023", LISTEN_BACKLOG),
    ("tcp6:8023:9", 9),                                     # tcp6:PORT:BACKLOG:INTERFACE
    ("unix:/tmp/gamehall-test.sock", LISTEN_BACKLOG),
    ("unix:/tmp/gamehall-test.sock:666:9", 9),              # unix:ADDRESS:MODE:BACKLOG
])
def test_ports_queue_more_connections_than_twisteds_default(description, backlog):
    # a process of the hall dies: its players all connect again at once (bench/cluster_load.py
    # found clients left unanswered behind Twisted's default queue of 50)
    assert LISTEN_BACKLOG > 50
    assert parse_endpoint(description)._backlog == backlog


def test_a_proxied_port_queues_more_too():
    assert parse_endpoint("haproxy:tcp:8023")._wrappedEndpoint._backlog == LISTEN_BACKLOG
