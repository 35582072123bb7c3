"""E&T invitations between connections of different processes of one hall (issue 22).

An invitation lives on the inviter's process, which makes the game once everyone asked has
accepted, as for an invitation within one process; an invitee connected to another process
is a :class:`RemoteMember` there, and that process keeps a :class:`RemoteInvitation` on the
invitee's connection.  Each process renders the protocol's lines itself, with the ids it
gave (``who`` numbers other processes' users per process), so what travels between them
names users by nickname:

- ``et.invite`` (request, inviter's process -> invitee's): the invitee, the members in
  order and the bots.  Refused (the usual ``<name> is busy``...) or the invitee is asked
  (``state asked``); the inviter's local members are asked once every process answered.
- ``et.answer`` (told, invitee's -> inviter's): ``accept`` (with the seat's password),
  ``decline`` or ``gone`` (the invitee's connection closed); told to the other members as
  ``accepts``/``declines`` and ``state connected`` as within one process.
- ``et.tell`` (told, inviter's -> invitee's): ``accepts``/``declines`` of another member,
  ``connected`` (the invitation is over: cancelled, or its inviter gone).
- ``et.commence`` (told, inviter's -> invitee's): the game is made, run by the inviter's
  process, with the invitee seated (the owner's stand-in user, ``ClusterTables``); its
  process mirrors the table (``ReplicaTable``), seats the invitee's connection on it,
  follows it and sends ``state commence`` and, once the replica's engine is built from the
  store, the game as it stands.  From there on the invitee plays through the replica path
  (moves checked on the replica and forwarded to the owner; the owner's events rendered as
  a local table's).

A process that goes away (its heartbeat lapses) ends the invitations that involve it: the
other members get ``state connected``, as when a member's connection closes.
"""
from __future__ import annotations

import itertools

from twisted.internet.defer import gatherResults
from twisted.logger import Logger

from gamehall.table import TableError

from .codec import encode_server


class RemoteMember:
    """An invitee connected to another process, as the inviter's process keeps it."""

    table = None
    closing = False
    view = None
    replaying = None

    def __init__(self, across: "EtAcross", user) -> None:
        self.across = across
        self.lobby_user = user              # the hall-wide lobby's entry for it (user.process)
        self.pid, self.nick = user.process, user.nickname
        self.invitation = None
        self.key: str | None = None         # its invitation's (EtAcross.reserve)
        self.password: str | None = None   # its seat's password, given with its accept

    @property
    def conn_id(self) -> int:
        return self.across.factory.id_for_name(self.nick)

    @property
    def user(self):
        """The stand-in user the table seats for it (its process renders the game)."""
        return self.across.stand_in(self.pid, self.nick)

    def same(self, other) -> bool:
        return isinstance(other, RemoteMember) and other.pid == self.pid and \
            other.nick.casefold() == self.nick.casefold()

    # what the members of an invitation are told; its own process says it in its words
    def told(self, kind: str, who=None) -> None:
        body = {"inv": self.key, "nick": self.nick, "kind": kind}
        if who is not None:
            body["who"] = who.nick
        self.across.tell(self.pid, "et.tell", body)


class RemoteInvitation:
    """On an invitee's process: the invitation of another process's user it was asked to."""

    def __init__(self, pid: str, key: str, members: list[str], bots: int) -> None:
        self.pid, self.key, self.members, self.bots = pid, key, members, bots
        self.accepted = False


class EtAcross:
    """The ``et`` front end's part in a hall of several processes (see the module docstring)."""

    log = Logger()

    def __init__(self, factory, cluster) -> None:
        self.factory, self.cluster, self.node = factory, cluster, cluster.node
        self.invitations: dict[str, object] = {}     # key -> Invitation made here with remote members
        self.made: dict[str, object] = {}            # key -> the table its invitation made here
        self._keys = itertools.count(1)
        self.node.on_request("et.invite", self._on_invite)
        self.node.on_message("et.answer", self._on_answer)
        self.node.on_message("et.tell", self._on_tell)
        self.node.on_message("et.commence", self._on_commence)
        self.node.on_message("et.stopped", self._on_stopped)
        self.node.on_peer_gone.append(self._peer_gone)

    def tell(self, pid: str, kind: str, body: dict) -> None:
        self.node.tell(pid, kind, body).addErrback(
            lambda f: self.log.warn("et: {kind} not told to {pid}: {why}", kind=kind, pid=pid,
                                    why=f.getErrorMessage()))

    def stand_in(self, pid: str, nick: str):
        # (the owner's user for a player of another process: ClusterTables keeps them)
        return self.cluster.tables.remote_user(pid, {"nick": nick, "frontend": "et"})

    def member(self, user) -> RemoteMember:
        return RemoteMember(self, user)

    # -- the inviter's process ------------------------------------------------------
    def reserve(self, inv, asked, failed) -> None:
        """Ask the processes of ``inv``'s remote invitees to invite them: ``asked()`` when all
        are, else ``failed(reason)`` (those already asked are told the invitation is over)."""
        inv.key = f"{self.node.process_id}/{next(self._keys)}"
        self.invitations[inv.key] = inv
        remote = [m for m in inv.invitees if isinstance(m, RemoteMember)]
        for m in remote:
            m.key = inv.key
        body = {"inv": inv.key, "members": [m.nick for m in inv.members], "bots": inv.bots}
        answers = [self.node.request(m.pid, "et.invite", dict(body, nick=m.nick)) for m in remote]
        done = gatherResults([d.addErrback(lambda f, m=m: (m, f)) for d, m in zip(answers, remote)])

        def answered(results) -> None:
            refusals = [r for r in results if isinstance(r, tuple)]
            if self.invitations.get(inv.key) is not inv:
                return                          # cancelled meanwhile (told to every one of them)
            if not refusals:
                asked()
                return
            m, failure = refusals[0]
            for other in remote:
                if not any(r[0] is other for r in refusals):
                    other.told("connected")
            del self.invitations[inv.key]
            reason = failure.getErrorMessage()
            if not failure.check(TableError, ValueError):
                reason = f"no answer from the process of the hall {m.nick} is connected to ({reason}); try again"
            failed(reason)
        done.addCallback(answered)

    def forget(self, inv) -> None:
        if self.invitations.get(getattr(inv, "key", None)) is inv:
            del self.invitations[inv.key]

    def _on_answer(self, pid: str, body: dict) -> None:
        inv = self.invitations.get(body.get("inv"))
        if inv is None:
            table = self.made.get(body.get("inv"))
            if table is not None and body.get("answer") == "gone":
                # it left between its accept and the game's start, before its process seated it
                user = self.stand_in(pid, str(body.get("nick") or ""))
                if user.table is table:
                    table.user_disconnected(user)
            return                              # over already (its end crossed this answer)
        nick = str(body.get("nick") or "").casefold()
        member = next((m for m in inv.invitees if isinstance(m, RemoteMember) and m.pid == pid
                       and m.nick.casefold() == nick), None)
        if member is None or member.invitation is not inv:
            return
        what = body.get("answer")
        if what == "accept":
            member.password = body.get("secret")
            inv.inviter.accepted_by(inv, member)
        elif what == "decline":
            inv.inviter.declined_by(inv, member)
        elif what == "gone":
            inv.inviter.gone_from(inv, member)

    def commenced(self, inv, table) -> None:
        """The game of ``inv`` started here: each remote member's process seats it."""
        state = self.cluster.tables.state_of(table)
        by_pid: dict[str, list[str]] = {}
        for m in inv.invitees:
            if isinstance(m, RemoteMember):
                by_pid.setdefault(m.pid, []).append(m.nick)
        body = {"inv": inv.key, "state": state}
        if inv.restore is not None:          # told once the replica has every replayed action
            body["restored"] = {"id": inv.restore.get("id"), "actions": len(inv.restore["actions"])}
        for pid, nicks in by_pid.items():
            self.tell(pid, "et.commence", dict(body, nicks=nicks))
        self.forget(inv)
        tables = self.factory.hall.tables
        for key in [k for k, t in self.made.items() if tables.get(t.id) is not t]:
            del self.made[key]                  # (games over: nothing more can cross their start)
        self.made[inv.key] = table

    # -- an invitee's process ---------------------------------------------------------
    def _conn(self, nick: str):
        from .protocol import EtProtocol
        user = self.factory.hall.lobby.find(str(nick))
        if user is None or user.process is not None or not isinstance(user.sink, EtProtocol):
            return None
        conn = user.sink
        return conn if conn.user is user and self.factory.conns.get(conn.conn_id) is conn else None

    def _invited_conn(self, pid: str, body: dict):
        conn = self._conn(body.get("nick"))
        if conn is None:
            return None
        inv = conn.invitation
        if isinstance(inv, RemoteInvitation) and inv.pid == pid and inv.key == body.get("inv"):
            return conn
        return None

    def _on_invite(self, pid: str, body: dict):
        nick = str(body.get("nick") or "")
        conn = self._conn(nick)
        if conn is None:
            raise TableError(f"{nick} is not connected any more")
        if conn.table is not None or conn.invitation is not None:
            raise TableError(f"{conn.nick} is busy")
        inv = RemoteInvitation(pid, str(body["inv"]), [str(n) for n in body.get("members") or ()],
                               int(body.get("bots") or 0))
        conn.invitation = inv
        conn.send(encode_server("state asked", users=self.listing(inv)))
        return True

    def listing(self, inv: RemoteInvitation) -> list[tuple[int, str]]:
        from .protocol import BOT_ID, wire_name
        out = [(self.factory.id_for_name(n), wire_name(n)) for n in inv.members]
        return out + [(BOT_ID, f"StrongBot{i + 1}") for i in range(inv.bots)]

    def answer(self, conn, answer: str) -> None:
        """``conn`` (invited by another process's user) accepts, declines or is gone."""
        inv = conn.invitation
        body = {"inv": inv.key, "nick": conn.nick, "answer": answer}
        if answer == "accept":
            body["secret"] = conn.password
        self.tell(inv.pid, "et.answer", body)

    def _on_tell(self, pid: str, body: dict) -> None:
        from .protocol import wire_name
        conn = self._invited_conn(pid, body)
        if conn is None:
            return
        kind, who = body.get("kind"), str(body.get("who") or "")
        if kind in ("accepts", "declines"):
            conn.send(encode_server(kind, id=self.factory.id_for_name(who), name=wire_name(who)))
        elif kind == "connected":
            conn.invitation = None
            conn.send(encode_server("state connected"))

    def _on_commence(self, pid: str, body: dict) -> None:
        conns = [c for c in (self._invited_conn(pid, {"nick": n, "inv": body.get("inv")})
                             for n in body.get("nicks") or ()) if c is not None]
        if not conns:
            return
        tables = self.cluster.tables
        replica = tables.mirror(body["state"])
        seated = {}
        for conn in conns:
            conn.invitation = None
            conn.send(encode_server("state commence"))
            if replica is None:
                conn.error("the game could not be started: it is not in this process's list")
                conn.send(encode_server("state connected"))
                continue
            seated[conn.user] = conn.password
            conn.view = None
        if replica is None:
            return
        restored = body.get("restored")
        if restored:
            for conn in conns:
                conn.replaying, conn.replayed = replica, restored
        replica.seated_by_owner(seated)
        tables.show(replica)

        def loaded() -> None:
            for conn in conns:
                if conn.replaying is replica:
                    conn.caught_up(replica)
                elif conn.user is not None and conn.user.table is replica and conn.view is None:
                    conn._refresh(replica)
        if replica.engine is not None and not replica.loading:
            loaded()
        else:
            replica.on_loaded.append(loaded)

    # -- a game stopped (``abort``, ``quit``) ---------------------------------------------
    def stopped(self, nick: str, store_id, seats: list[dict]) -> None:
        """Tell ``nick``'s process how ``nick`` goes on with the game stopped here."""
        user = self.factory.hall.lobby.find(nick)
        if user is not None and user.process is not None:
            self.tell(user.process, "et.stopped", {"nick": nick, "game": store_id, "seats": seats})

    def _on_stopped(self, pid: str, body: dict) -> None:
        conn = self._conn(body.get("nick"))
        if conn is None:
            return
        key, store_id = conn.nick.casefold(), body.get("game")
        others = [str(0 if s.get("bot") else self.factory.id_for_name(str(s.get("name"))))
                  for s in body.get("seats") or () if str(s.get("name")).casefold() != key]
        others += ["-"] * (3 - len(others))
        table = conn.table if conn.table is not None and conn.table.store_id == store_id else None
        conn.stopped_hint(table, f"game {store_id} is stopped; to go on later: ask {' '.join(others)} "
                                 f"e+t restore {store_id}")

    # -- a process gone ---------------------------------------------------------------
    def _peer_gone(self, pid: str) -> None:
        for inv in [i for i in self.invitations.values()
                    if any(isinstance(m, RemoteMember) and m.pid == pid for m in i.invitees)]:
            member = next(m for m in inv.invitees if isinstance(m, RemoteMember) and m.pid == pid)
            inv.inviter.gone_from(inv, member)
        for conn in list(self.factory.conns.values()):
            inv = conn.invitation
            if isinstance(inv, RemoteInvitation) and inv.pid == pid:
                conn.invitation = None
                conn.send(encode_server("state connected"))
