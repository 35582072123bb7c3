"""(A hall of several processes.)  One Windward series for the whole hall: a contestant that
connects to a process other than the one holding the series is relayed to it.

A series (its waiting table, its contestants' queries, their timeouts, the games one after
another) lives in the memory of the process whose ``WindwardService`` runs it.  A ``join``
that reaches another process is offered, on the bus, to the processes that run a live
Windward table (a waiting series first): the first that knows the name (a contestant of
its series coming back, a seat held for it) or has a waiting series takes it; if none
does, the join opens a series, on one process of the hall: this one if it claims the
opening on the bus (``gamehall.cluster.firstjoin``), else the one that did, once its series
is listed here (``place``).
From then on the connection's frames go to that process as they come (``ww.in``) and
what its contestant is sent comes back (``ww.out``), in order; a close either way is
told (``ww.close``, ``ww.gone``).  The contestant is that process's user in the lobby.
"""
from __future__ import annotations

from twisted.internet.defer import inlineCallbacks

from gamehall.logger import SharedLogger
from gamehall.players import split_key
from gamehall.table import PLAYING, WAITING

from .codec import XmlError, decode_client
from .match import GAME

_log = SharedLogger()


def _text(payload: bytes) -> str:
    return payload.decode("latin-1")          # (bytes as they are, in the bus's JSON)


def _bytes(text: str) -> bytes:
    return str(text).encode("latin-1")


class RemoteConnection:
    """Where the series runs: the connection of a contestant connected to another process
    (what a ``Contestant`` needs of its ``WindwardProtocol``)."""

    def __init__(self, relay: "WindwardRelay", pid: str, rid: int, peer: str) -> None:
        self.relay, self.pid, self.rid, self.peer = relay, pid, rid, peer
        self.closing = False
        self.contestant = None

    def send_payload(self, payload: bytes) -> None:
        self.send_payloads([payload])

    def send_payloads(self, payloads: list) -> None:
        if not self.closing and payloads:
            self.relay.node.tell(self.pid, "ww.out", {"rid": self.rid, "payloads": [_text(p) for p in payloads]})

    def close(self) -> None:
        if not self.closing:
            self.closing = True
            self.relay.remote.pop((self.pid, self.rid), None)
            self.relay.node.tell(self.pid, "ww.close", {"rid": self.rid})

    def count_bad(self, what: str, detail) -> None:
        _log.info("windward: {what} from {peer} (through process {pid}): {detail}", what=what, peer=self.peer,
                  pid=self.pid, detail=detail)

    def received(self, frame: bytes) -> None:
        contestant = self.contestant
        if contestant is None:
            return
        try:
            msg = decode_client(frame)
        except XmlError as exc:
            contestant.malformed(str(exc), frame)
            return
        from .protocol import dispatch
        dispatch(contestant, msg)

    def gone(self) -> None:
        self.closing = True
        contestant, self.contestant = self.contestant, None
        if contestant is not None:
            contestant.connection_lost(self)


class WindwardRelay:
    """This process's part of the hall's one Windward series (see the module docstring)."""

    def __init__(self, service, node) -> None:
        self.service, self.node = service, node
        self.remote: dict[tuple[str, int], RemoteConnection] = {}   # (pid, rid) -> relayed here
        self.local: dict[int, object] = {}                           # rid -> our protocol relayed away
        self._rids = 0
        node.on_request("ww.join", self._join)
        node.on_message("ww.in", self._in)
        node.on_message("ww.gone", self._gone)
        node.on_message("ww.out", self._out)
        node.on_message("ww.close", self._close)
        node.on_peer_gone.append(self._peer_gone)

    # -- where the connection is -------------------------------------------------
    def owners(self) -> list[str]:
        """The other processes running a live Windward table, those with a waiting one first."""
        tables = [t for t in self.service.hall.tables.values()
                  if t.remote and t.game.name == GAME and t.state in (WAITING, PLAYING)]
        tables.sort(key=lambda t: (t.state != WAITING, t.id))
        owners: list[str] = []
        for table in tables:
            if table.owner not in owners:
                owners.append(table.owner)
        return owners

    def here(self, name: str) -> bool:
        """Whether this process takes a join of ``name`` (it knows it, or a series waits here)."""
        service = self.service
        name = split_key(name)[0]
        return (name.casefold() in service.contestants or service.vacant_seat(name)[0] is not None
                or service.waiting_match() is not None)

    @inlineCallbacks
    def offer(self, protocol, frame: bytes, name: str):
        """Offer the join to the processes that run a series; True if one took it (the
        protocol is relayed to it from now on), False if it is this process's."""
        for pid in self.owners():
            self._rids += 1
            rid = self._rids
            self.local[rid] = protocol
            protocol.relayed = (pid, rid)
            try:
                answer = yield self.node.request(pid, "ww.join", {"rid": rid, "frame": _text(frame),
                                                                  "peer": getattr(protocol, "peer", "")})
            except Exception as exc:
                _log.debug("windward: process {pid} does not take {name}: {why}", pid=pid, name=name, why=exc)
                self.local.pop(rid, None)
                protocol.relayed = None
                continue
            if answer.get("refused"):
                self.local.pop(rid, None)
                protocol.relayed = None
                protocol.refuse()
            return True
        return False

    def waiting_elsewhere(self) -> dict:
        """The waiting Windward series of other processes listed here: table id -> the
        version of its owner's state last heard."""
        return {t.id: t.version for t in self.service.hall.tables.values()
                if t.remote and t.game.name == GAME and t.state == WAITING}

    @inlineCallbacks
    def place(self, protocol, frame: bytes, name: str):
        """Where a join of ``name`` (not this process's: ``here``) goes: True if another
        process took it (``offer``), False if it is this process's.  A join that no process
        takes would open a series: only the process that claims the opening on the bus does
        (``FirstJoin``); the others wait for its series to be listed and offer the join to it
        (so two first joins at two processes at once make one series).  ``protocol.opening``
        is the claim held, to release if the join is refused here after all."""
        from gamehall.cluster.firstjoin import FirstJoin

        def alive():
            return not protocol.closing and protocol.transport is not None

        while alive():
            if self.here(name):
                return False
            offered_to = self.waiting_elsewhere()
            if (yield self.offer(protocol, frame, name)):
                return True

            def find():
                # (a waiting series that did not take the join counts once its owner's word changed)
                fresh = self.waiting_elsewhere().items() - offered_to.items()
                return True if self.here(name) or fresh else None
            wait = FirstJoin(self.service.hall, "windward", find=find, alive=alive)
            found = yield wait.wait()
            if found is None:                   # ours to open (claimed, or the bus is down)
                protocol.opening = wait
                return False
        return False

    def send_in(self, protocol, frame: bytes) -> None:
        pid, rid = protocol.relayed
        self.node.tell(pid, "ww.in", {"rid": rid, "frame": _text(frame)})

    def lost(self, protocol) -> None:
        pid, rid = protocol.relayed
        if self.local.pop(rid, None) is not None:
            self.node.tell(pid, "ww.gone", {"rid": rid})

    # -- handlers ---------------------------------------------------------------------
    def _join(self, pid: str, body: dict):
        frame = _bytes(body.get("frame") or "")
        msg = decode_client(frame)           # (the other process read it as a join already)
        if not self.here(msg.name):
            raise ValueError("no Windward series here for that name")
        conn = RemoteConnection(self, pid, int(body["rid"]), str(body.get("peer") or ""))
        self.remote[(pid, conn.rid)] = conn
        if self.service.join(conn, msg) is None:
            self.remote.pop((pid, conn.rid), None)
            conn.closing = True
            return {"refused": True}
        return {"ok": True}

    def _in(self, pid: str, body: dict) -> None:
        conn = self.remote.get((pid, body.get("rid")))
        if conn is not None:
            conn.received(_bytes(body.get("frame") or ""))

    def _gone(self, pid: str, body: dict) -> None:
        conn = self.remote.pop((pid, body.get("rid")), None)
        if conn is not None:
            conn.gone()

    def _out(self, pid: str, body: dict) -> None:
        protocol = self.local.get(body.get("rid"))
        if protocol is not None:
            protocol.send_payloads([_bytes(p) for p in body.get("payloads") or ()])

    def _close(self, pid: str, body: dict) -> None:
        protocol = self.local.pop(body.get("rid"), None)
        if protocol is not None:
            protocol.relayed = None
            protocol.close()

    def _peer_gone(self, pid: str) -> None:
        for key in [k for k in self.remote if k[0] == pid]:
            self.remote.pop(key).gone()
        for rid, protocol in list(self.local.items()):
            if protocol.relayed is not None and protocol.relayed[0] == pid:
                del self.local[rid]
                protocol.relayed = None
                protocol.close()
