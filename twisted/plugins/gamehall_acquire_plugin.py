"""Dropin: the Acquire games (classic, Windward) and their front ends (NetAcquire, Windward)."""
from twisted.plugin import IPlugin
from zope.interface import implementer

from gamehall.interfaces import IFrontEnd, IGameView
from gamehall_acquire.game import AcquireGame
from gamehall_acquire.view import AcquireView
from gamehall_acquire.windward.game import WindwardAcquireGame
from gamehall_acquire.windward.view import WindwardView


@implementer(IPlugin)
class _AcquirePlugin(AcquireGame):
    pass


@implementer(IPlugin, IFrontEnd)
class NetAcquireFrontEnd:
    name = "netacquire"
    description = "NetAcquire clients (Acquire, ';:' directives)"
    default_endpoint = "tcp:1001"     # the NetAcquire clients' default host port

    def build_factory(self, hall):
        from gamehall_acquire.wire.protocol import build_factory
        return build_factory(hall)


@implementer(IPlugin)
class _WindwardPlugin(WindwardAcquireGame):
    pass


@implementer(IPlugin, IFrontEnd)
class WindwardFrontEnd:
    name = "windward"
    description = "Windward Code Wars 2016 clients (Acquire II, length-prefixed XML)"
    default_endpoint = "tcp:1707"     # hard-coded in the Java and Python sample clients

    def build_factory(self, hall):
        from gamehall_acquire.windward.wire.protocol import build_factory
        return build_factory(hall)


@implementer(IPlugin, IGameView)
class _AcquireViewPlugin(AcquireView):
    pass


@implementer(IPlugin, IGameView)
class _WindwardViewPlugin(WindwardView):
    pass


acquire = _AcquirePlugin()
netacquireFrontEnd = NetAcquireFrontEnd()
windward = _WindwardPlugin()
windwardFrontEnd = WindwardFrontEnd()
acquireView = _AcquireViewPlugin()
windwardView = _WindwardViewPlugin()
