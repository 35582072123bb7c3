"""A table depends on ITableHost alone, not on gamehall.hall: the Hall provides it, and
any other host that does can run a table."""
import ast
import inspect

from twisted.internet.task import Clock
from zope.interface import implementer
from zope.interface.verify import verifyObject

import gamehall.table
from gamehall.interfaces import ITableHost
from gamehall.lobby import User
from gamehall.store import MemoryStore
from gamehall.table import FINISHED, PLAYING, Table
from tests.helpers import RecordingSink, install_example_plugin, make_hall


def test_the_hall_provides_the_table_host():
    assert verifyObject(ITableHost, make_hall())


def test_the_table_module_does_not_import_the_hall():
    tree = ast.parse(inspect.getsource(gamehall.table))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert "gamehall.hall" not in imported


@implementer(ITableHost)
class Host:
    """The least a table needs: settings, a store, and ears for what it tells."""

    def __init__(self):
        self.clock = Clock()
        self.store = MemoryStore(self.clock)
        self.store.open()
        self.seat_hold = 30.0
        self.bot_delay = 0.5
        self.heard: list[tuple[str, int]] = []
        self.services = {}               # game name -> IGameService (IGame.attach)

    def service(self, game_name):
        return self.services[game_name]

    def new_seed(self):
        return 7

    def name_in_use(self, nickname):
        return False

    def check_claim(self, table, index, address, secret=None):
        pass

    def table_changed(self, table):
        self.heard.append(("changed", table.id))

    def table_finished(self, table):
        self.heard.append(("finished", table.id))

    def table_stalled(self, table):
        self.heard.append(("stalled", table.id))

    def table_removed(self, table):
        self.heard.append(("removed", table.id))

    def table_fenced(self, table):
        self.heard.append(("fenced", table.id))

    def action_applied(self, table):
        self.heard.append(("action", table.id))


def test_a_table_plays_a_whole_game_for_a_host_that_is_not_a_hall():
    install_example_plugin()
    from twisted.plugins.gamehall_nim_plugin import nim
    host = Host()
    host.services["nim"] = nim.attach(host)
    assert verifyObject(ITableHost, host)
    ann, bob = (User(nickname=name, frontend="nim", sink=RecordingSink()) for name in ("Ann", "Bob"))
    table = Table(hall=host, id=5, game=nim, variant=nim.variants[0], max_seats=2, creator="Ann")
    table.join(ann)
    table.join(bob)
    table.start(ann)
    assert table.state == PLAYING and table.seed == 7
    for _ in range(200):
        if table.state != PLAYING:
            break
        table.act(table.seats[table.engine.pending_seat()].user, {"take": 1})
    assert table.state == FINISHED
    actions = sum(1 for what, _ in host.heard if what == "action")
    assert actions == table.seq > 0 and ("finished", 5) in host.heard and ("changed", 5) in host.heard
    stored = []
    host.store.load_table(table.store_id).addCallback(stored.append)
    assert len(stored[0]["actions"]) == table.seq and stored[0]["state"] == FINISHED
