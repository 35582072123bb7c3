"""The tables of a hall of several processes: one owner each, replicas everywhere else.

A table is run by the process that created it (or restored it, or took it over from a
process that is gone): its engine, bots, turn timers and store writes, exactly as in a
one-process hall.  This module carries it to the other processes:

- **the owner's table channel** ``table.<id>``: after the owner's local sinks are told
  (so after the store write, as for every event), one message per event: for a "game"
  event the applied action itself (``{"t": "act", "seq", "seat", "action"}``; the replicas
  apply it to their own engines and get the same events), for the others the event with
  the table's state (``{"t": "ev", "event", "detail", "state"}``), and the events the
  table tells one remote user alone ("decision", "timeout", a seat given to a bot) as
  ``{"t": "to", "pid", "nick", ...}``.  One channel keeps them in the owner's order, so a
  decision never overtakes the action it follows.  What one turn of the reactor makes for a
  table (an action and the decision that follows it) goes as one bus message,
  ``{"t": "many", "m": [...]}``, published at the end of the turn or before any other
  message of this process, whichever comes first, so that nothing this process publishes
  overtakes it.  Only processes showing the table to someone listen (``show``).
- **the hall channel**: the owner's table states, gathered for ``ANNOUNCE_DELAY`` seconds
  (``tables``), so that every process lists every table (``hall.tables``) without
  following its play; a new process is sent the whole list.
- **requests to the owner** (``ClusterNode.request``, kind ``table``): what a user of
  another process does at the table (``ReplicaTable`` checks it first); the owner plays it
  for a ``User`` of its own standing for the remote one, whose sink forwards what is told
  to that user alone.
- **table numbers**: unique in the hall: each process numbers from a block of
  ``ID_BLOCK`` numbers it claims on the bus (``table-ids.<n>``), above every stored table.
  A number a user names that is not listed here yet (a table made on another process a
  moment ago, before its announcement) is looked for (``awaits``, ``find``): the holder of
  its block is asked for the table, then, if the store has it unfinished (taken over, or
  being taken over), every process, for up to ``FIND_WAIT`` seconds.
- **ownership**: the table's lease in the store (``gamehall.store.leases``), held and
  renewed by this process's ``LeaseKeeper`` (owner: the process id and a part random to
  this run).  A table is started
  with its lease (``Table.lease``: created with it, epoch 1); a restored or taken-over table
  has its lease taken first and is read from the store only then; every store write of an
  owned table carries its epoch, so a process that lost a lease can never write to that
  table again (``StoreFenced``).  A lost lease (the keeper's ``lost``, or a fenced write)
  stops the table here at once (``Table.fence``); the other processes' replicas wait for
  the new owner's word.  Take-over is the store's: every ``SCAN_INTERVAL`` seconds (and at
  once when a process is gone) this process takes the leases that lapsed or were released
  (``LeaseKeeper.take_lapsed``: one taker per table, the store decides) and restores those
  tables.  Cut off from the store, the keeper gives the leases up before they can lapse;
  cut off from the bus for ``BUS_CUT_LIMIT`` seconds, this process stops its tables and
  releases their leases (another process, which its players can reach, takes them at
  once), and takes none until the bus is back.  The bus has no say in ownership.
"""
from __future__ import annotations

import uuid

from twisted.internet.defer import Deferred, gatherResults, inlineCallbacks, succeed
from zope.interface import implementer

from gamehall.cluster.leases import LeaseKeeper
from gamehall.cluster.node import NoAnswer
from gamehall.cluster.replica import ReplicaTable, personal, seat_players_back
from gamehall.interfaces import IOutOfTurnEngine, ISimultaneousEngine, IUserSink
from gamehall.lobby import User
from gamehall.logger import SharedLogger
from gamehall.store.interface import END_STATES
from gamehall.table import ABORTED, PLAYING, WAITING, Table, TableError

ID_BLOCK = 1000            # table numbers a process claims at a time
ANNOUNCE_DELAY = 0.2       # seconds table states are gathered before they go to the hall
END_GRACE = 1.0            # seconds a shown table's end may take on its channel after its removal
CLAIM_TTL = 3              # heartbeats a claimed block of table numbers lives without renewal
# A table's lease lives LEASE_TTL seconds without renewal; the keeper renews every third of
# it and gives a lease up two thirds of it after its last renewal (the store cannot be
# reached).  After a SIGKILL the lease lapses within LEASE_TTL and the next scan (every
# SCAN_INTERVAL) of another process takes the table: failover within about 8 seconds.
LEASE_TTL = 6.0
SCAN_INTERVAL = 2.0        # seconds between looks for tables whose lease lapsed or was released
BUS_CUT_LIMIT = 5.0        # seconds without the bus after which this process stops its tables
FIND_WAIT = 5.0            # seconds a number named here, not listed here, is looked for in the hall
BUS_CUT_TEXT = "This process of the hall lost touch with the others; reconnect to continue."

_log = SharedLogger(namespace="gamehall.cluster.tables")


def table_channel(table_id: int) -> str:
    return f"table.{table_id}"


@implementer(IUserSink)
class RemoteSink:
    """The sink of a user of another process, at a table this process owns: what the table
    tells that user alone goes to its process on the table's channel; broadcasts reach it
    through its process's replica."""

    def __init__(self, tables: "ClusterTables", pid: str, nickname: str) -> None:
        self.tables, self.pid, self.nickname = tables, pid, nickname

    def table_event(self, table, event, detail) -> None:
        if personal(event, detail):
            self.tables.tell_one(table, self.pid, self.nickname, event, detail)

    def lobby_chat(self, sender, text) -> None:
        pass

    def lobby_changed(self, event, detail) -> None:
        pass

    def disconnect(self, reason) -> None:
        self.tables.node.tell(self.pid, "table.kick", {"nick": self.nickname, "reason": reason})


class ClusterTables:
    """This process's part of the hall's tables (see the module docstring)."""

    log = _log

    def __init__(self, hall, node, lease_ttl: float = LEASE_TTL, scan_interval: float = SCAN_INTERVAL,
                 bus_cut_limit: float = BUS_CUT_LIMIT) -> None:
        self.hall, self.node = hall, node
        self.clock = hall.clock
        # the leases of the tables run here; their owner is this process's id and a part
        # random to this run, so that a process restarted under the same id (a container's
        # pid 1) is never taken for its former self: what the dead one still had in flight
        # is refused at the new epoch
        self.lease_owner = f"{node.process_id}#{uuid.uuid4().hex[:8]}"
        self.leases = LeaseKeeper(self.clock, hall.store, self.lease_owner, lease_ttl,
                                  lost=self._lease_lost, regained=self._lease_regained)
        self.scan_interval, self.bus_cut_limit = scan_interval, bus_cut_limit
        self._leased: dict[int, Table] = {}              # store id -> owned table run under its lease
        self._taking: dict[int, int] = {}                # store id -> epoch of the table being restored
        self._starting: set[int] = set()                 # store ids being taken or restored here
        self._scan_call = None
        self._scanning = False
        self._bus_ok_at: float | None = None             # the last bus call that succeeded
        self.bus_cut = False                             # tables stopped for a bus cut: none taken
        self.remote: dict[tuple[str, str], User] = {}   # (pid, key) -> stand-in at our tables
        self._versions: dict[int, int] = {}
        self._dirty: dict[int, Table | None] = {}       # id -> owned table to announce (None: removed)
        self._announce_call = None
        self._ids: list[int] = []                       # [next, end) of the block in use
        self._spare: list[int] | None = None            # the next block, claimed ahead
        self._claiming = False
        self._blocks: list[str] = []                    # claimed block keys
        self._renew_call = None
        self._loads: set[int] = set()
        self._unwatched: set[int] = set()               # owned tables no other process shows
        self._shows: dict[int, int] = {}                # owned table id -> table.show messages heard
        self._following: dict[int, ReplicaTable] = {}    # replicas whose channel we follow, by id
        self._held: dict[int, list[dict]] = {}           # table id -> its channel's messages to publish
        self._held_call = None
        node.before_publish = self.publish_held          # (before any other message of this process)
        self._finding: dict[int, tuple[list[Deferred], object]] = {}   # id -> (waiters, timeout)
        self._settled: set[int] = set()                 # ids looked for, their ask being done again
        self.stopped = False
        node.on_request("table", self._request)
        node.on_request("table.describe", self._describe)
        node.on_message("table.show", self._shown)
        # the bus back after a cut: what the replicas here missed is in the store
        self._bus_state, node.bus.on_state = node.bus.on_state, self._bus_changed
        node.on_message("tables", self._announced)
        node.on_message("table.kick", self._kicked)
        node.on_message("tables.ask", lambda pid, body: self._peer_joined(pid, {}))
        node.on_peer_joined.append(self._peer_joined)
        node.on_peer_gone.append(self._peer_gone)

    @property
    def pid(self) -> str:
        return self.node.process_id

    # -- life ----------------------------------------------------------------
    @inlineCallbacks
    def start(self):
        """Claim a block of table numbers; keep the claims and the leases renewed; look for
        tables to take over every ``scan_interval`` seconds."""
        self._ids = yield self._claim_block()
        self._bus_ok_at = self.clock.seconds()
        self._renew()
        self.leases.start()
        if self._scan_call is None:
            self._scan_call = self.clock.callLater(self.scan_interval, self._scan)

    def halt(self) -> None:
        """Stop every timer (renewals, scans): what a killed process leaves (its leases lapse)."""
        for call in (self._renew_call, self._scan_call):
            if call is not None and call.active():
                call.cancel()
        self._renew_call = self._scan_call = None
        self.leases.stop()

    def stop(self) -> Deferred:
        """A clean stop (after ``Hall.quiesce``): every table run here stops and its lease is
        released, so that another process takes it over at once."""
        self.halt()
        self.stopped = True                 # stopping: the tables of a process gone are another's
        released = [self._hand_over(table, "the process is stopping") for table in list(self._leased.values())]
        return gatherResults(released, consumeErrors=True)

    def _hand_over(self, table: Table, why: str) -> Deferred:
        """Stop ``table`` here (nothing more is written under its epoch), then release its
        lease: the next scan of another process takes it."""
        store_id, epoch = table.store_id, table.lease_epoch
        if not table.fenced:
            self.log.info("table {id}: stopped here and its lease released ({why})", id=table.id, why=why)
            table.fence()
        d = self.hall.store.release_lease(store_id, self.lease_owner, epoch)
        d.addErrback(lambda f: self.log.warn("table {id}: lease not released: {why}", id=table.id,
                                             why=f.getErrorMessage()))
        return d

    def _renew(self) -> None:
        # (every block stays claimed while this process lives: a waiting table's number in it
        # is in no store row yet, and must not be given again by another process)
        self._renew_call = self.clock.callLater(self.node.heartbeat, self._renew)
        if self._blocks:
            d = self.node.bus.renew(self._blocks, self.pid, self.node.heartbeat * CLAIM_TTL)
            d.addCallbacks(self._bus_ok, lambda f: self.log.warn("claims not renewed: {why}",
                                                                 why=f.getErrorMessage()))
        if (not self.bus_cut and self._bus_ok_at is not None
                and self.clock.seconds() - self._bus_ok_at >= self.bus_cut_limit):
            self._cut_off()

    def _bus_ok(self, renewed) -> None:
        self._bus_ok_at = self.clock.seconds()
        for key in [k for k in self._blocks if k not in (renewed or ())]:
            self._block_lapsed(key)
        if self.bus_cut:
            self.bus_cut = False
            self.log.info("the bus is back: this process takes tables over again")
            # the tables of the others, listed again (they may not have seen this process go)
            self.node.broadcast("tables.ask", {}).addErrback(lambda f: None)

    def _cut_off(self) -> None:
        """No bus for ``bus_cut_limit`` seconds: nobody on another process can reach the
        tables run here, nor can this process's players reach the others' tables.  Stop the
        tables run here and release their leases (another process takes them at once, and
        their players reconnect there), release this process's players from the replicas,
        and take no table over until the bus is back."""
        self.bus_cut = True
        self.log.error("no bus for {s:.0f} s: the tables run here are stopped and handed over",
                       s=self.clock.seconds() - self._bus_ok_at)
        for table in list(self._leased.values()):
            self._hand_over(table, "cut off from the bus")
        for replica in [t for t in self.hall.tables.values() if isinstance(t, ReplicaTable)]:
            users = replica.audience() + list(replica.pending.values())
            for user in users:
                try:
                    user.sink.table_event(replica, "chat", {"nickname": "*", "text": BUS_CUT_TEXT,
                                                            "notice": "moved"})
                except Exception:
                    self.log.failure("sink failed")
            self._drop(replica)

    # -- leases ------------------------------------------------------------------
    def lease_held(self, table: Table, since: float | None) -> None:
        """``table`` (started here) was stored with its lease, by a call sent at ``since``."""
        self._leased[table.store_id] = table
        self.leases.hold(table.store_id, table.lease_epoch, since)

    def _lease_lost(self, table_id: int, epoch: int) -> None:
        """The keeper could not renew the lease (another process holds it, or the store was
        out of reach too long): the table stops here at once."""
        table = self._leased.get(table_id)
        if table is not None and table.lease_epoch == epoch and not table.fenced:
            self.log.error("table {id}: its lease (epoch {epoch}) is lost; stopped here", id=table.id,
                           epoch=epoch)
            table.fence()

    def _lease_regained(self, table_id: int, epoch: int) -> None:
        """A lease given up while the store was out of reach, taken back: run it again."""
        if self.bus_cut:
            self.leases.release(table_id).addErrback(lambda f: None)
            return
        self._run_taken(table_id, epoch)

    def _scan(self) -> None:
        """Take the tables whose lease lapsed or was released, and run them."""
        self._scan_call = self.clock.callLater(self.scan_interval, self._scan)
        if self.bus_cut or self._scanning:
            return
        self._scanning = True
        d = self.leases.take_lapsed()

        def taken(leases: dict[int, int]) -> None:
            for table_id, epoch in sorted(leases.items()):
                self._run_taken(table_id, epoch)

        def done(result):
            self._scanning = False
            return result
        d.addCallbacks(taken, lambda f: self.log.warn("no take-over scan: {why}", why=f.getErrorMessage()))
        d.addBoth(done)

    def _take_now(self, table_id: int) -> None:
        """Take ``table_id``'s lease if it is free (its owner released it, or it lapsed)."""
        if self.bus_cut or table_id in self._starting:
            return
        self._starting.add(table_id)
        d = self.leases.take(table_id)

        def taken(epoch):
            self._starting.discard(table_id)
            if epoch is not None:
                self._run_taken(table_id, epoch)

        def failed(failure):
            self._starting.discard(table_id)
            self.log.warn("table {id}: lease not taken: {why}", id=table_id, why=failure.getErrorMessage())
        d.addCallbacks(taken, failed)

    @inlineCallbacks
    def _run_taken(self, table_id: int, epoch: int):
        """The lease of ``table_id`` is ours at ``epoch``: read the table (only now: nothing
        more can be added to it under an older epoch) and run it here."""
        if self.stopped:                    # stopping: its store is closing; the others take it
            self.leases.release(table_id).addErrback(lambda f: None)
            return
        running = self._leased.get(table_id)
        if table_id in self._starting or (running is not None and running.lease_epoch == epoch
                                          and not running.fenced):
            return
        self._starting.add(table_id)
        try:
            row = yield self.hall.store.load_table(table_id)
        except Exception as exc:
            self.log.warn("table {id}: not read for a take-over ({why}); its lease is released",
                          id=table_id, why=exc)
            self.leases.release(table_id).addErrback(lambda f: None)
            return
        finally:
            self._starting.discard(table_id)
        if self.leases.epoch(table_id) != epoch:
            return                          # lost meanwhile
        state = None if row is None else row.get("state")
        if state == WAITING:
            # its start never completed (its process stopped or lost the store first): nobody
            # was told it started; it is ended so that no scan takes it again
            self.log.info("stored table {id}: its start never completed; aborted", id=table_id)
            d = self.hall.store.finish_table(table_id, ABORTED, None, None, epoch=epoch)
            d.addErrback(lambda f: self.log.warn("table {id}: not aborted: {why}", id=table_id,
                                                 why=f.getErrorMessage()))
            self.leases.forget(table_id)
            return
        if state != PLAYING:
            self.leases.forget(table_id)
            return
        if self.bus_cut:
            self.leases.release(table_id).addErrback(lambda f: None)
            return
        if running is not None and not running.fenced:
            running.fence()                 # an older holding of ours (its lease lapsed)
        return self._run(row, epoch)

    def _run(self, row: dict, epoch: int):
        """Run the stored table ``row`` here under its lease ``epoch``; the users here who
        were at its replica are at it again."""
        replica = self.hall.tables.get(row["id"])
        users, asked = [], {}
        if isinstance(replica, ReplicaTable):
            # players who asked for their seat here after its owner was gone: the seat's rule
            asked = {key: replica.secrets.get(key) for key in replica.pending}
            users = [(u, None) for _, u in replica.local_seated()]
            users += [(u, True) for u in replica.spectators]
            for user, _ in users:
                user.table, user.watching = None, False
            self.hall.tables.pop(replica.id, None)
            self.unshow(replica)
            self.log.info("taking over table {id} from {pid}", id=replica.id, pid=replica.owner)
        else:
            self.log.info("taking over table {id}", id=row["id"])
        self._taking[row["id"]] = epoch
        try:
            table = self.hall.restore_row(row)
        finally:
            self._taking.pop(row["id"], None)
        if table is None:                    # set aside: the lease stays here, nobody retries it
            if isinstance(replica, ReplicaTable):
                self.hall.lobby.table_notice("table_removed", replica)
            return None
        for user, watching in users:         # those here who were at it are at it again
            try:
                if watching:
                    table.watch(user)
                elif user.key in asked:     # asked for its seat here, not given yet: the seat's rule
                    table.reconnect(user, asked[user.key])
                else:                       # connected here all along: no password asked again
                    table.reconnect(user, vouched=True)
            except TableError as exc:
                self.log.info("{nick} not back at game #{id}: {why}", nick=user.nickname, id=table.id, why=exc)
        # players who signed in here before this process ran the table (a worker started
        # in place of the dead owner): their seats, as at a sign-in
        seat_players_back(table)
        return table

    # -- numbers -------------------------------------------------------------
    @inlineCallbacks
    def _claim_block(self):
        """Claim the first free block of numbers above every stored table: Deferred [first, end)."""
        last = max([(yield self.hall.store.last_table_id()), *self.hall.tables])
        block = last // ID_BLOCK
        while not (yield self.node.bus.claim(f"table-ids.{block}", self.pid, self.node.heartbeat * CLAIM_TTL)):
            block += 1
        self._blocks.append(f"table-ids.{block}")
        return [max(block * ID_BLOCK + 1, last + 1), (block + 1) * ID_BLOCK + 1]

    def _block_lapsed(self, key: str) -> None:
        """A claimed block of numbers was not renewed (the bus lost it, e.g. a long cut):
        claim it again; if another process took it meanwhile, stop numbering from it (numbers
        already given stay with their tables) and take a new block."""
        def reclaimed(ours: bool) -> None:
            if ours:
                return
            self.log.error("the block of table numbers {key} went to another process while the bus "
                           "was cut; numbering from a new block", key=key)
            if key in self._blocks:
                self._blocks.remove(key)
            block = int(key.rsplit(".", 1)[1])
            for ids in (self._ids, self._spare):
                if ids and (ids[1] - 2) // ID_BLOCK == block:    # its last number is end - 1
                    ids[0] = ids[1]                 # used up: take_id moves on to the next block
            if not self._spare:
                self._claim_spare()

        d = self.node.bus.claim(key, self.pid, self.node.heartbeat * CLAIM_TTL)
        d.addCallbacks(reclaimed, lambda f: self.log.warn("block {key} not claimed again: {why}",
                                                         key=key, why=f.getErrorMessage()))

    def take_id(self) -> int:
        if (not self._ids or self._ids[0] >= self._ids[1]) and self._spare:
            self._ids, self._spare = self._spare, None
        if not self._ids or self._ids[0] >= self._ids[1]:
            raise TableError("The hall is still taking table numbers; try again in a moment")
        number = self._ids[0]
        self._ids[0] += 1
        if self._ids[1] - self._ids[0] <= ID_BLOCK // 10 and self._spare is None:
            self._claim_spare()            # the next block, before this one runs out
        return number

    def _claim_spare(self) -> None:
        """Claim the next block of numbers (``_spare``), unless a claim is under way."""
        if self._claiming:
            return
        self._claiming = True
        d = self._claim_block()
        d.addCallback(lambda ids: setattr(self, "_spare", ids))
        d.addErrback(lambda f: self.log.warn("no new block of table numbers: {why}", why=f.getErrorMessage()))
        d.addBoth(lambda _: setattr(self, "_claiming", False))

    # -- a number named here, not listed here ------------------------------------
    def awaits(self, table_id: int, again) -> bool:
        """A user here named table ``table_id`` (to join or watch it), which is not listed
        here: True when it is being looked for in the hall (``find``), and ``again()``, the
        user's request done again, follows once it is listed here or known to be nowhere;
        False (go on at once) when it is listed, or when ``again`` is that retry."""
        if table_id in self.hall.tables or table_id in self._settled or self.stopped:
            return False

        def retry(_) -> None:
            self._settled.add(table_id)
            try:
                again()
            except Exception:
                self.log.failure("table {id}: a request waiting for it failed", id=table_id)
            finally:
                self._settled.discard(table_id)
        self.find(table_id).addCallback(retry)
        return True

    def find(self, table_id: int) -> Deferred:
        """Deferred[Table | None]: table ``table_id`` once it is listed here, or None when it
        is nowhere in the hall (or not found within ``FIND_WAIT`` seconds)."""
        table = self.hall.tables.get(table_id)
        if table is not None:
            return succeed(table)
        d = Deferred()
        if table_id in self._finding:
            self._finding[table_id][0].append(d)
            return d
        self._finding[table_id] = ([d], self.clock.callLater(FIND_WAIT, self._found, table_id))
        self._look_for(table_id).addErrback(
            lambda f: (self.log.warn("table {id} not looked for: {why}", id=table_id, why=f.getErrorMessage()),
                       self._found(table_id)))
        return d

    @inlineCallbacks
    def _look_for(self, table_id: int):
        # the process holding the number's block made it: it has the table (waiting tables
        # are in no store row) or had it (taken over since, or over)
        holder = yield self.node.bus.owner(f"table-ids.{(table_id - 1) // ID_BLOCK}")
        asked = set()
        if holder in self.node.peers:
            asked.add(holder)
            if (yield self._describe_from(holder, table_id)):
                return
        if table_id not in self._finding:
            return
        row = yield self.hall.store.load_table(table_id)
        if table_id not in self._finding:
            return
        if row is None or row.get("state") not in (WAITING, PLAYING):
            self._found(table_id)               # nowhere: made by nobody, or over
            return
        # unfinished in the store: another process runs it (took it over), or will (its
        # owner is gone): asked, and its announcement awaited until FIND_WAIT
        for pid in [p for p in self.node.peers if p not in asked]:
            self._describe_from(pid, table_id)

    def _describe_from(self, pid: str, table_id: int) -> Deferred:
        """Deferred[bool]: ``pid`` runs table ``table_id`` and it is listed here now."""
        d = self.node.request(pid, "table.describe", {"id": table_id}, timeout=FIND_WAIT)

        def answered(state) -> bool:
            if isinstance(state, dict) and table_id in self._finding:
                self.mirror(state)
            return table_id in self.hall.tables
        d.addCallbacks(answered, lambda f: False)
        return d

    def _describe(self, pid: str, body: dict):
        """Another process asks for one of our tables by number: its state, or None."""
        table = self.hall.tables.get(body.get("id"))
        return self.state_of(table) if table is not None and self.owns(table) else None

    def _found(self, table_id: int) -> None:
        entry = self._finding.pop(table_id, None)
        if entry is None:
            return
        waiters, call = entry
        if call.active():
            call.cancel()
        table = self.hall.tables.get(table_id)
        for d in waiters:
            d.callback(table)

    # -- owned tables ----------------------------------------------------------
    def owns(self, table) -> bool:
        return table.relay is self

    def hosting(self, table: Table) -> None:
        """``table`` is run here (created, restored, taken over): relay it; a new table is
        stored with its lease when it starts, a restored one runs under the epoch its lease
        was taken at (``claim``, ``_run``)."""
        table.relay = self
        if table.store_id is None:
            table.lease = (self.lease_owner, self.leases.ttl)
        else:
            table.lease_epoch = self._taking.pop(table.store_id, None)
            if table.lease_epoch is None:
                self.log.error("table {id} restored without its lease", id=table.id)
            else:
                self._leased[table.store_id] = table
        self.changed(table)
        self._found(table.id)

    @inlineCallbacks
    def claim(self, row: dict):
        """Deferred[dict | None]: ``row`` read again once this process holds its lease (its
        restore runs under it), or None when another process runs the table."""
        table_id = row["id"]
        if table_id in self._starting or table_id in self._leased:
            return None
        self._starting.add(table_id)
        try:
            epoch = yield self.leases.take(table_id)
            if epoch is None:
                return None
            fresh = yield self.hall.store.load_table(table_id)
        except Exception as exc:
            self.log.warn("table {id}: not restored here: {why}", id=table_id, why=exc)
            self.leases.release(table_id).addErrback(lambda f: None)
            return None
        finally:
            self._starting.discard(table_id)
        if fresh is None or fresh.get("state") != PLAYING:
            self.leases.release(table_id).addErrback(lambda f: None)
            return None
        self._taking[table_id] = epoch
        return fresh

    def changed(self, table: Table) -> None:
        if self.owns(table):
            self._announce(table.id, table)

    def removed(self, table: Table) -> None:
        if self.owns(table):
            store_id = table.store_id
            if self._leased.get(store_id) is table:
                del self._leased[store_id]
            if table.fenced:
                # stopped here: another process runs it now (or will); the replicas keep it
                # listed until its word comes (its versions go on if it comes back here)
                if self.leases.epoch(store_id) == table.lease_epoch:
                    self.leases.forget(store_id)
                self._dirty.pop(table.id, None)
            else:
                self._announce(table.id, None)
                self._versions.pop(table.id, None)
                if store_id is not None and table.lease_epoch is not None:
                    epoch = table.lease_epoch

                    def forget() -> None:   # once its end is stored: no lease needed
                        if self.leases.epoch(store_id) == epoch:
                            self.leases.forget(store_id)
                    table.after_stored(forget)
            self._unwatched.discard(table.id)
            self._shows.pop(table.id, None)
            for key in [k for k, u in self.remote.items() if u.table is None]:
                del self.remote[key]

    def _next_version(self, table_id: int) -> int:
        version = self._versions.get(table_id, 0) + 1
        self._versions[table_id] = version
        return version

    def state_of(self, table: Table) -> dict:
        """What a replica mirrors of an owned table."""
        return {"owner": self.pid, "epoch": table.lease_epoch or 0, "v": self._next_version(table.id),
                "summary": table.summary(),
                "seed": table.seed, "options": table.options, "store_id": table.store_id,
                "seq": table._told, "connected": [s.user is not None for s in table.seats]}

    def _announce(self, table_id: int, table: Table | None) -> None:
        self._dirty[table_id] = table
        if self._announce_call is None:
            self._announce_call = self.clock.callLater(ANNOUNCE_DELAY, self._flush_announcements)

    def _flush_announcements(self) -> None:
        self._announce_call = None
        dirty, self._dirty = self._dirty, {}
        states = [self.state_of(t) for t in dirty.values() if t is not None]
        removed = [i for i, t in dirty.items() if t is None]
        self.node.broadcast("tables", {"states": states, "removed": removed}).addErrback(
            lambda f: self.log.warn("table list not announced: {why}", why=f.getErrorMessage()))

    def _peer_joined(self, pid: str, info: dict) -> None:
        owned = [t for t in self.hall.tables.values() if self.owns(t)]
        if owned:
            self.node.tell(pid, "tables", {"states": [self.state_of(t) for t in owned], "removed": []})

    def table_told(self, table: Table, event: str, detail: dict, users, action) -> None:
        """Table.emit's relay: a broadcast of an owned table, for its replicas."""
        if users is not None:
            return                                 # one user's: its RemoteSink tells it
        if event == "chat" and detail.get("notice") == "moved":
            return                                 # (Table.fence's, for the users here: a replica follows the new owner)
        if event == "game" and action is not None:
            message = {"t": "act", "seq": detail["seq"], "seat": action[0], "action": action[1]}
        else:
            message = {"t": "ev", "event": event, "detail": detail, "state": self.state_of(table)}
        self._publish(table, message)

    def tell_one(self, table: Table, pid: str, nickname: str, event: str, detail: dict) -> None:
        message = {"t": "to", "pid": pid, "nick": nickname, "event": event, "detail": detail,
                   "seq": table._told}
        if event == "decision":
            message["deadline"] = table.turn_deadline()
        self._publish(table, message)

    def _publish(self, table: Table, message: dict) -> None:
        """``message`` for the table's channel: held until the end of this turn of the
        reactor, or until this process publishes anything else (``publish_held``), so that
        what one move causes (the action, the next player's decision) is one bus message."""
        if table.id in self._unwatched:
            return                     # nobody elsewhere shows it (a table.show says when one does)
        held = self._held.get(table.id)
        if held is not None:
            held.append(message)
            return
        self._held[table.id] = [message]
        if self._held_call is None:
            self._held_call = self.clock.callLater(0, self.publish_held)

    def publish_held(self) -> None:
        """Publish the table channels' held messages: one message per table, in the order
        they were made (several as ``{"t": "many", "m": [...]}``)."""
        if self._held_call is not None and self._held_call.active():
            self._held_call.cancel()
        self._held_call = None
        held, self._held = self._held, {}
        for table_id, messages in held.items():
            self._send(table_id, messages[0] if len(messages) == 1 else {"t": "many", "m": messages},
                       any(m.get("t") != "to" for m in messages))

    def _send(self, table_id: int, message: dict, broadcast: bool) -> None:
        d = self.node.bus.publish(table_channel(table_id), message)
        shows = self._shows.get(table_id, 0)

        def counted(receivers) -> None:
            # nobody heard it, and no process said it follows the table since it was sent
            if receivers == 0 and broadcast and self._shows.get(table_id, 0) == shows:
                self._unwatched.add(table_id)
        d.addCallbacks(counted, lambda f: self.log.warn("table {id}: replicas not told: {why}", id=table_id,
                                                        why=f.getErrorMessage()))

    def _shown(self, pid: str, body: dict) -> None:
        """Another process follows the channel of one of our tables now."""
        table_id = body.get("id")
        self._shows[table_id] = self._shows.get(table_id, 0) + 1
        self._unwatched.discard(table_id)

    def _bus_changed(self, up: bool) -> None:
        if self._bus_state is not None:
            self._bus_state(up)
        if up:
            self.caught_up()

    def caught_up(self) -> None:
        """After a bus cut: the owners of the tables shown here are told again, and each
        replica reads what it missed from the store (asking its players again if needed)."""
        for table in list(self.hall.tables.values()):
            if isinstance(table, ReplicaTable) and table.shown:
                self.node.tell(table.owner, "table.show", {"id": table.id})
                table.recheck = True
                if table.state == PLAYING:
                    self.load(table)

    # -- requests from other processes -------------------------------------------
    def remote_user(self, pid: str, body: dict) -> User:
        """The ``User`` standing for ``body["nick"]`` of process ``pid`` (made once, kept)."""
        nickname = body["nick"]
        key = (pid, nickname.casefold())
        user = self.remote.get(key)
        if user is None:
            user = User(nickname=nickname, frontend=str(body.get("frontend") or "remote"),
                        sink=RemoteSink(self, pid, nickname), address=str(body.get("address") or ""),
                        connected_at=self.clock.seconds())
            user.process = pid
            self.remote[key] = user
        return user

    def _request(self, pid: str, body: dict):
        """A request of another process's user: done here, answered once it is stored."""
        table = self.hall.tables.get(body.get("id"))
        result = self._do(table, pid, body)
        if table is None or not self.owns(table):
            return result
        done = Deferred()
        table.after_stored(lambda: done.callback(result))
        return done

    def _do(self, table, pid: str, body: dict):
        if table is None or not self.owns(table):
            raise TableError(f"No game #{body.get('id')} here")
        op = body.get("op")
        user = self.remote_user(pid, body) if body.get("nick") else None
        if op == "join":
            return table.join(user, body.get("secret"))
        if op == "rejoin":                   # the table was taken over: the player never left
            return table.reconnect(user, vouched=True)
        if op == "watch":
            if user.table is table:
                return None
            return table.watch(user)
        if op == "leave":
            if user.table is table:
                table.leave(user, release=bool(body.get("release")))
            return None
        if op == "disconnected":
            if user.table is table:
                table.user_disconnected(user)
            return None
        if op == "chat":
            return table.chat(user, str(body.get("text") or ""))
        if op == "act":
            # turn by turn, a move checked at another move number is stale (the turn timer,
            # a bot played first); where seats act at once, the engine judges it as it is now
            turn_by_turn = not (IOutOfTurnEngine.providedBy(table.engine) or ISimultaneousEngine.providedBy(table.engine))
            if turn_by_turn and table.seq != body.get("seq"):
                raise TableError("another move came first")
            table.act(user, body["action"])
            return None
        if op == "act_for":
            table.act_for(int(body["seat"]), body["action"])
            return None
        if op == "start":
            if body.get("fill"):             # (ReplicaTable.fill_and_start)
                while table.state == WAITING and len(table.seats) < table.game.min_seats:
                    table.add_bot()
            return table.start(user)
        if op == "add_bot":
            return table.add_bot(body.get("bot"), body.get("name"))
        if op == "remove_bot":
            return table.remove_bot(int(body["index"]))
        if op == "set_secret":
            return table.set_secret(int(body["index"]), body.get("secret"))
        if op == "claimed":
            return table.claimed(int(body["index"]), str(body.get("address") or ""), body.get("secret"))
        if op == "bot_takeover":
            return table.bot_takeover(int(body["index"]), body.get("bot"))
        if op == "abort":
            self.hall.close_table(table.id, str(body.get("reason") or "Closed by the operator"))
            return None
        if op in ("pause", "resume", "step"):
            return getattr(table, op)()
        if op == "speed":
            return table.set_speed(body.get("tps"))
        if op == "service":                  # the game's own step where the table runs
            handler = getattr(table.service, "cluster_request", None)
            if handler is None:
                raise TableError(f"{table.game.title} takes no requests from other processes")
            return handler(table, user, body.get("request") or {})
        if op == "merge_options":
            for key, value in (body.get("options") or {}).items():
                if isinstance(value, dict) and isinstance(table.options.get(key), dict):
                    table.options[key].update(value)
                else:
                    table.options[key] = value
            table.persist_options()
            table._changed()                 # (the other processes list it with them)
            return None
        raise TableError(f"unknown table request {op!r}")

    def _kicked(self, pid: str, body: dict) -> None:
        user = self.hall.lobby.find(str(body.get("nick") or ""))
        if user is not None and getattr(user, "process", None) is None:
            self.hall.kick(user.nickname, str(body.get("reason") or "Kicked"))

    # -- replicas ------------------------------------------------------------------
    def _announced(self, pid: str, body: dict) -> None:
        for state in body.get("states") or ():
            self.mirror(state)
        for table_id in body.get("removed") or ():
            table = self.hall.tables.get(table_id)
            if isinstance(table, ReplicaTable) and table.owner == pid:
                if table.shown:
                    # its end comes on its own channel (no order between the two): a moment
                    # for it, then from the store if it was lost
                    self.clock.callLater(END_GRACE, self._end_from_store, table)
                else:
                    self._drop(table)

    def mirror(self, state: dict) -> ReplicaTable | None:
        """The replica of the table ``state`` describes (made when new here)."""
        summary = state["summary"]
        table = self.hall.tables.get(summary["id"])
        if table is not None and not isinstance(table, ReplicaTable):
            return None                      # ours (an old owner's late word)
        epoch = state.get("epoch") or 0
        if table is not None and epoch < table.owner_epoch:
            return table                     # a former owner's late word (its lease was taken)
        if table is None:
            game = self.hall.games.get(summary["game"])
            if game is None or summary["state"] not in (WAITING, PLAYING):
                return None                  # a game not installed here: not listed
            table = ReplicaTable(hall=self.hall, id=summary["id"], game=game, variant=summary["variant"],
                                 max_seats=summary["max_seats"])
            table.cluster, table.owner, table.owner_epoch = self, state["owner"], epoch
            table.apply_state(state)
            self.hall.tables[table.id] = table
            self.hall.lobby.table_notice("table_added", table)
            table.seat_players_back()
            self._found(table.id)
            return table
        table.owner_epoch = epoch
        if table.shown and table.owner == state.get("owner"):
            # its own channel carries its state in order with its events: a list's copy may be late
            if state.get("v", 0) > table.version and state["summary"]["state"] == table.state:
                table.apply_state(state)
                table._changed()
            return table
        table.apply_state(state)
        table._changed()
        return table

    @inlineCallbacks
    def _end_from_store(self, table: ReplicaTable):
        if not table.shown:
            if self.hall.tables.get(table.id) is table:
                self._drop(table)
            return
        row = yield self.hall.store.load_table(table.store_id or table.id)
        if not table.shown:
            return
        if row is not None and row.get("state") in END_STATES:
            if table.engine is not None and not table.loading:
                table.loaded(row)            # the moves it missed, then the end
                if not table.shown:
                    return                   # (its end was among them)
            event = "finished" if row["state"] == "finished" else "aborted"
            table.end(event, {"result": row.get("result")} if event == "finished"
                      else {"reason": "The game was stopped"})
        else:
            self._drop(table)

    def _drop(self, table: ReplicaTable) -> None:
        for user in table.audience() + list(table.pending.values()):
            user.table, user.watching = None, False
        table.pending.clear()
        self.hall.remove_table(table)
        self.unshow(table)

    def show(self, table: ReplicaTable) -> Deferred:
        """Someone here is at ``table``: follow its channel (the owner is told once we do:
        it publishes only for tables someone elsewhere shows), keep an engine of it."""
        if table.shown:
            return table.subscribed
        table.shown = True
        self._following[table.id] = table
        d = table.subscribed = self.node.bus.subscribe(table_channel(table.id), self._on_table_message)
        d.addCallback(lambda _: self.node.tell(table.owner, "table.show", {"id": table.id}))
        d.addErrback(lambda f: self.log.warn("table {id} not followed: {why}", id=table.id, why=f.getErrorMessage()))
        if table.state == PLAYING:
            self.load(table)
        return d

    def unshow_if_unseen(self, table: ReplicaTable) -> None:
        if table.shown and not table.local_audience():
            self.unshow(table)

    def unshow(self, table: ReplicaTable) -> None:
        if table.shown:
            self.unfollow(table)
            table.drop_engine()

    def unfollow(self, table: ReplicaTable) -> None:
        """Stop following the table's channel (nobody here shows it, or it is over)."""
        if self._following.get(table.id) is table:
            del self._following[table.id]
        if table.shown:
            table.shown = False
            self.node.bus.unsubscribe(table_channel(table.id), self._on_table_message)

    def _on_table_message(self, channel: str, message: dict) -> None:
        try:
            # (a followed table the lists dropped already still hears its end)
            table = self._following.get(int(channel.split(".", 1)[1]))
        except ValueError:
            return
        if isinstance(table, ReplicaTable) and message.get("t") in ("act", "ev", "to", "many"):
            try:
                table.received(message)
            except Exception:
                # (a replica that disagrees with its owner: built again from the store)
                self.log.failure("table {id}: the owner's message could not be applied; the replica "
                                 "is built again from the store", id=table.id)
                table.drop_engine()
                if table.state == PLAYING and table.shown:
                    self.load(table)

    def load(self, table: ReplicaTable) -> None:
        """Build or catch up the replica's engine from the store (which has what the owner told)."""
        if table.loading and table.id in self._loads:
            return
        table.loading = True
        self._loads.add(table.id)
        d = self.hall.store.load_table(table.store_id or table.id)

        def loaded(row):
            self._loads.discard(table.id)
            if not table.shown or self.hall.tables.get(table.id) is not table:
                table.loading = False
                return
            if row is None or row.get("state") == WAITING:   # not stored yet: again shortly
                self._loads.add(table.id)
                self.clock.callLater(0.1, lambda: (self._loads.discard(table.id), self.load(table)))
                return
            table.loaded(row)

        def failed(failure):
            self._loads.discard(table.id)
            self.log.warn("table {id}: replica not loaded: {why}; again in 1 s", id=table.id,
                          why=failure.getErrorMessage())
            self.clock.callLater(1.0, self.load, table)
        d.addCallbacks(loaded, failed)

    def forward(self, table: ReplicaTable, op: str, user: User | None, body: dict, on_refusal=None) -> None:
        """A request of a user here to the owner; its outcome comes back as the owner's broadcast."""
        shown = None
        if user is not None:
            if user.table is table or table.pending.get(user.key) is user:
                shown = self.show(table)
            body = dict(body, nick=user.nickname, frontend=user.frontend, address=user.address)
        body = dict(body, id=table.id, op=op)
        table.inflight += 1
        owner = table.owner
        if shown is not None and not shown.called:
            # asked once the channel is followed, so that the owner's answer is heard
            d = Deferred()
            shown.addBoth(lambda _: self.node.request(table.owner, "table", body).chainDeferred(d))
        else:
            d = self.node.request(table.owner, "table", body)

        def refused(failure):
            reason = failure.getErrorMessage()
            if failure.check(NoAnswer) and (table.owner != owner or table.owner_lost or owner not in self.node.peers):
                # lost with its owner, which is gone (not refused): whoever takes the table
                # over asks the users here again (their seats, their decisions: _owner_changed,
                # _run); what the old owner stored before it died is in the store, which decides
                self.log.info("table {id}: {op} lost with its owner {pid}, which is gone", id=table.id,
                              op=op, pid=owner)
                return
            self.log.info("table {id}: {op} refused by its owner {pid}: {why}", id=table.id, op=op,
                          pid=owner, why=reason)
            if on_refusal is not None:
                on_refusal(reason)
        d.addErrback(refused)
        d.addBoth(lambda _: table.request_done())

    # -- failover ----------------------------------------------------------------------
    def _peer_gone(self, pid: str) -> None:
        if self.stopped:
            return
        for key in [k for k in self.remote if k[0] == pid]:
            user = self.remote.pop(key)
            if user.table is not None:
                user.table.user_disconnected(user)
        for table in [t for t in self.hall.tables.values() if isinstance(t, ReplicaTable) and t.owner == pid]:
            if table.state == PLAYING:
                # taken at once if it released its leases (a clean stop); else its leases
                # lapse and a scan takes them (the store gives each to one process)
                table.owner_gone()          # its seats free for their players' asks meanwhile
                self._take_now(table.store_id or table.id)
            else:
                self._drop(table)           # a waiting table lived only in its owner's memory
