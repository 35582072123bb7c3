"""A third-party game (tests/guessing_game.py) that uses every hook through the declared
interfaces only, played through a real Hall and Table and restarted from the store: its
service (engine for the table, seating at the start, table events, restore, an admin
command) and its engine's abilities (simultaneous seats, actions out of turn, a record)."""
from __future__ import annotations

import pytest
from twisted.internet.task import Clock
from zope.interface.verify import verifyObject

from gamehall.admin import Console
from gamehall.hall import Hall
from gamehall.interfaces import (IGame, IGameService, IOutOfTurnEngine, IRecordingEngine,
                                 ISimultaneousEngine)
from gamehall.table import FINISHED, PLAYING, TableError
from tests.guessing_game import GuessingGame, GuessingService
from tests.hallstores import flush, settle
from tests.helpers import RecordingSink, make_hall


def decisions(sink) -> int:
    return sink.names().count("decision")


def run(console, line) -> str:
    out = []
    console.execute(line).addCallback(out.append)
    return out[0]


def test_a_third_party_game_uses_every_hook_and_survives_a_restart(hall_store):
    game = GuessingGame()
    assert verifyObject(IGame, game)
    hall = make_hall(games={"guess": game}, store=hall_store.open())
    service = hall.service("guess")
    assert isinstance(service, GuessingService) and verifyObject(IGameService, service)
    sinks = {name: RecordingSink() for name in ("Ann", "Bob")}
    ann, bob = (hall.login(name, "test", sink) for name, sink in sinks.items())
    table = hall.create_table("guess", max_seats=3, creator=ann, options={"rounds": 2})
    table.join(bob)
    table.add_bot()
    table.start(ann)
    flush(table)                                        # (told once stored)

    # the engine is the service's, from the table's options; the seated are admitted by it,
    # as recorded actions of nobody's seat, seat i first
    engine = table.engine
    for ability in (ISimultaneousEngine, IOutOfTurnEngine, IRecordingEngine):
        assert verifyObject(ability, engine)
    assert (engine.rounds, engine.players) == (2, ["Ann", "Bob", "HunchBot1"])
    assert table.seq == 3 and table.players() == engine.players
    # simultaneous: both humans are asked at once (and the bot's call is set), untimed
    assert decisions(sinks["Ann"]) >= 1 and decisions(sinks["Bob"]) >= 1
    assert table.turn_deadline() is None
    assert engine.pending_seats() == [0, 1, 2]

    table.act(ann, {"guess": 40})
    assert engine.pending_seats() == [1, 2]
    # out of turn: Ann doubles the stakes while the round waits for the others
    table.act(ann, {"double": True})
    assert engine.stakes == 2
    flush(table)
    hall.clock.advance(hall.bot_delay)                  # the bot guesses
    assert engine.pending_seats() == [1]
    table.act(bob, {"guess": 60})
    flush(table)
    assert engine.round == 1 and engine.history[0]["stakes"] == 2

    # the service saw every broadcast (not what is told to one player); its console command
    # is the operator's
    seen = {event for _, event in service.seen}
    assert {"joined", "started", "game"} <= seen and "decision" not in seen
    assert run(Console(hall), "guesses") == f"guessing tables [{table.id}]: {len(service.seen)} events seen, 0 tables restored"

    # restart: the store's actions replayed into the service's engine, the service told
    store_id = table.store_id
    settle(hall.quiesce())
    store = hall_store.restart(hall.store)
    again = Hall(Clock(), store, {"guess": GuessingGame()}, seat_hold=30.0, bot_delay=0.5)
    assert settle(again.restore()) == 1
    service2 = again.service("guess")
    table2 = again.tables[table.id]
    assert service2.restored == [table2.id] and service.restored == []
    engine2 = table2.engine
    assert (engine2.rounds, engine2.players, engine2.round, engine2.secrets) == \
           (2, engine.players, 1, engine.secrets)
    # the bot plays with nobody connected: the service still sees the table's events
    again.clock.advance(again.bot_delay)
    flush(table2)
    assert engine2.pending_seats() == [0, 1] and (table2.id, "game") in service2.seen
    users = {name: again.login(name, "test", RecordingSink()) for name in ("Ann", "Bob")}
    for user in users.values():
        table2.reconnect(user)
    with pytest.raises(TableError, match="not your turn"):
        table2.act_for(5, {"guess": 1})                 # no such seat: may_act says no
    table2.act(users["Bob"], {"guess": 10})
    assert table2.state == PLAYING
    flush(table2)
    table2.act(users["Ann"], {"guess": 90})
    flush(table2)
    assert table2.state == FINISHED and (table2.id, "finished") in service2.seen
    records = [settle(store.get_record(store_id))]
    assert records == [engine2.record()]
    assert [r["stakes"] for r in records[0]["rounds"]] == [2, 1]
    assert [r["guesses"][:2] for r in records[0]["rounds"]] == [[40, 60], [90, 10]]


HOOKS = {"attach", "admin_commands", "table_event", "table_restored", "new_engine_for_table",
         "admit_seated", "may_act", "pending_seats", "record", "greeting", "script_data", "shows_chat"}


def _sources(*packages):
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            yield path.relative_to(root), path.read_text()


def test_the_core_reads_game_hooks_through_interfaces_not_attribute_probes():
    import ast
    probes = []
    for path, text in _sources("gamehall"):
        for node in ast.walk(ast.parse(text)):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("getattr", "hasattr") and len(node.args) >= 2
                    and isinstance(node.args[1], ast.Constant) and node.args[1].value in HOOKS):
                probes.append(f"{path}:{node.lineno} {node.func.id}(..., {node.args[1].value!r})")
    assert probes == []


def test_no_game_keeps_state_per_hall_in_a_module_global():
    import ast
    found = []
    packages = ("gamehall", "gamehall_acquire", "gamehall_daide", "gamehall_et", "gamehall_pimp", "gamehall_web")
    for path, text in _sources(*packages):
        for node in ast.parse(text).body:           # module level only
            value = getattr(node, "value", None)
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(value, ast.Call) and \
                    "WeakKeyDictionary" in ast.unparse(value.func):
                found.append(f"{path}:{node.lineno}")
    assert found == []
