"""Dropin: Monopoly under PIMP's house rules (game ``pimp``) and its front end (``pimp``)."""
from twisted.plugin import IPlugin
from zope.interface import implementer

from gamehall.interfaces import IFrontEnd, IGameView
from gamehall_pimp.game import PimpGame
from gamehall_pimp.view import PimpView


@implementer(IPlugin)
class _PimpPlugin(PimpGame):
    pass


@implementer(IPlugin, IFrontEnd)
class PimpFrontEnd:
    name = "pimp"
    description = "PIMP clients (Monopoly, 2-byte headers; TLS with an ssl: endpoint)"
    default_endpoint = "tcp:13220"      # the reference server's port

    def build_factory(self, hall):
        from gamehall_pimp.wire.protocol import build_factory
        return build_factory(hall)


@implementer(IPlugin, IGameView)
class _PimpViewPlugin(PimpView):
    pass


pimp = _PimpPlugin()
pimpFrontEnd = PimpFrontEnd()
pimpView = _PimpViewPlugin()
