"""The operator console across processes: what one process's console asks of another.

Requests (``ClusterNode.on_request``), answered by the process asked:

- ``hall.stats``: its ``stats`` text (gamehall.admin.commands.stats_text);
- ``hall.close`` ``{"table"}``: close a table it runs; ``hall.bot`` ``{"table", "seat",
  "bot"}``: a bot takes a seat of a table it runs.  A table of another process is found in
  ``hall.tables`` as an entry whose ``owner`` names that process (the tables of the other
  processes are listed there by gamehall.cluster's table part); the console forwards these
  two to the owner.

A refusal there (no such table, a seat that is not a player's) comes back as a LobbyError
with its text; a process that does not answer, as a LobbyError saying so.
"""
from __future__ import annotations

from twisted.internet.defer import Deferred, gatherResults

from gamehall.bus import BusUnavailable
from gamehall.lobby import LobbyError
from gamehall.table import TableError

from .node import NoAnswer, RemoteRefusal


class OperatorRequests:
    """This process's side of the console's requests between processes."""

    def __init__(self, hall, node) -> None:
        self.hall, self.node = hall, node

    def start(self) -> None:
        self.node.on_request("hall.stats", self._on_stats)
        self.node.on_request("hall.close", self._on_close)
        self.node.on_request("hall.bot", self._on_bot)

    # -- asking ------------------------------------------------------------
    def owner_elsewhere(self, table_id: int) -> str | None:
        """The process that runs table ``table_id`` when it is another one, else None."""
        owner = getattr(self.hall.tables.get(table_id), "owner", None)
        return owner if isinstance(owner, str) and owner != self.node.process_id else None

    def close_table(self, owner: str, table_id: int, reason: str) -> Deferred:
        """Ask ``owner`` to close the table: a Deferred of its number."""
        d = self._ask(owner, "hall.close", {"table": table_id, "reason": reason})
        return d.addCallback(lambda body: int(body["table"]))

    def put_bot(self, owner: str, table_id: int, seat: int, bot: str | None) -> Deferred:
        """Ask ``owner`` to put a bot on a seat: a Deferred of {"table", "seat", "name", "bot"}."""
        return self._ask(owner, "hall.bot", {"table": table_id, "seat": seat, "bot": bot})

    def peer_stats(self) -> Deferred:
        """Every other process's ``stats`` text: a Deferred of [(process, text or None)]."""

        def one(pid):
            d = self.node.request(pid, "hall.stats", {})
            d.addCallback(lambda text: (pid, str(text)))
            d.addErrback(lambda f: (pid, None))
            return d
        return gatherResults([one(pid) for pid in sorted(self.node.peers)])

    def _ask(self, pid: str, kind: str, body: dict) -> Deferred:
        d = self.node.request(pid, kind, body)

        def failed(failure):
            if failure.check(RemoteRefusal):
                raise LobbyError(f"{failure.getErrorMessage()} (on process {pid})")
            if failure.check(NoAnswer, BusUnavailable):
                raise LobbyError(f"process {pid}, which runs it, did not answer ({failure.getErrorMessage()})")
            return failure
        return d.addErrback(failed)

    # -- answering -----------------------------------------------------------
    def _on_stats(self, pid: str, body: dict) -> str:
        from gamehall.admin.commands import stats_text     # the console's own figures
        return stats_text(self.hall)

    def _local_table(self, body: dict) -> int:
        table_id = body.get("table")
        if not isinstance(table_id, int) or self.owner_elsewhere(table_id) is not None:
            raise TableError(f"No game #{table_id}")
        return table_id

    def _on_close(self, pid: str, body: dict) -> dict:
        reason = body.get("reason") if isinstance(body.get("reason"), str) else "Closed by the operator"
        table = self.hall.close_table(self._local_table(body), reason)
        self.hall.log.info("game #{id} closed at the request of process {pid}", id=table.id, pid=pid)
        return {"table": table.id}

    def _on_bot(self, pid: str, body: dict) -> dict:
        seat, bot = body.get("seat"), body.get("bot")
        if not isinstance(seat, int) or seat < 1 or not (bot is None or isinstance(bot, str)):
            raise TableError("SEAT counts from 1")
        table = self.hall.put_bot(self._local_table(body), seat, bot)
        taken = table.seats[seat - 1]
        self.hall.log.info("a bot takes seat {seat} of game #{id} at the request of process {pid}",
                           seat=seat, id=table.id, pid=pid)
        return {"table": table.id, "seat": seat, "name": taken.name, "bot": taken.bot}
