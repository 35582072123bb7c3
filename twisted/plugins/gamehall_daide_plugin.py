"""Dropin: Diplomacy (game ``diplomacy``) and its DAIDE front end (``daide``, tcp:16713)."""
from twisted.plugin import IPlugin
from zope.interface import implementer

from gamehall.interfaces import IFrontEnd
from gamehall_daide.game import DiplomacyGame


@implementer(IPlugin)
class _DiplomacyPlugin(DiplomacyGame):
    """The engine helper's game, with the service the daide front end runs on: the hall's
    ``DaideRooms`` (engines from the table's options, table events, restore, the operator's
    commands)."""

    def attach(self, hall):
        from gamehall_daide.wire.protocol import DaideRooms
        return DaideRooms(hall, self)


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
