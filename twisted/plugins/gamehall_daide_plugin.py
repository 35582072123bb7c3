"""Dropin: Diplomacy (game ``diplomacy``) and its DAIDE front end (``daide``, tcp:16713)."""
from twisted.plugin import IPlugin
from zope.interface import implementer

from gamehall.interfaces import IFrontEnd
from gamehall_daide.game import DiplomacyGame


@implementer(IPlugin)
class _DiplomacyPlugin(DiplomacyGame):
    """The engine helper's game, plus what the hall asks of a game with a front end of its own:
    the table hooks the daide front end runs on, and the operator's commands."""

    @property
    def admin_commands(self):
        from gamehall_daide.admin import COMMANDS
        return COMMANDS

    def new_engine_for_table(self, table):
        from gamehall_daide.wire.protocol import engine_for
        return engine_for(table)

    def table_event(self, table, event, detail):
        from gamehall_daide.wire.protocol import rooms_of
        rooms_of(table.hall).table_event(table, event, detail)

    def table_restored(self, hall, table):
        from gamehall_daide.wire.protocol import rooms_of
        rooms_of(hall).restored(table)


@implementer(IPlugin, IFrontEnd)
class DaideFrontEnd:
    name = "daide"
    description = "DAIDE clients and bots (Diplomacy, binary tokens; syntax levels 0 and 10+)"
    default_endpoint = "tcp:16713"      # the port DAIDE servers use

    def build_factory(self, hall):
        from gamehall_daide.wire.protocol import build_factory
        return build_factory(hall)


diplomacy = _DiplomacyPlugin()
daideFrontEnd = DaideFrontEnd()
