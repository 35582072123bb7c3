"""Dropin: Euphrates & Tigris and its ``et`` line-protocol front end."""
from twisted.plugin import IPlugin
from zope.interface import implementer

from gamehall.interfaces import IFrontEnd, IGameView
from gamehall_et.game import EuphratesTigrisGame
from gamehall_et.view import EuphratesTigrisView


@implementer(IPlugin)
class _EtPlugin(EuphratesTigrisGame):
    pass


@implementer(IPlugin, IFrontEnd)
class EtFrontEnd:
    name = "et"
    description = "Euphrates & Tigris clients and telnet (CRLF lines, the ioctl.org e+t protocol)"
    # The original server's port is not recorded in the protocol text: an
    # unprivileged port, free of the hall's other front ends.
    default_endpoint = "tcp:6464"

    def build_factory(self, hall):
        from gamehall_et.wire.protocol import build_factory
        return build_factory(hall)


@implementer(IPlugin, IGameView)
class _EtViewPlugin(EuphratesTigrisView):
    pass


et = _EtPlugin()
etFrontEnd = EtFrontEnd()
etView = _EtViewPlugin()
