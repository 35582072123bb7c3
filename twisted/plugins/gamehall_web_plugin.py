"""Dropin: the ``web`` front end (the hall in a browser: JSON over a WebSocket, pages from the package)."""
from twisted.plugin import IPlugin
from zope.interface import implementer

from gamehall.interfaces import IGreetingFrontEnd


@implementer(IPlugin, IGreetingFrontEnd)
class WebFrontEnd:
    name = "web"
    description = "Web browsers: the lobby, every table and the records at http://HOST:PORT/ (JSON over WebSocket at /ws)"
    default_endpoint = "tcp:8080"

    def greeting(self, endpoint: str) -> str | None:
        """The line the hall logs once it listens: where a newcomer points a browser."""
        from gamehall_web.site import address_for_people
        address = address_for_people(endpoint)
        return f"open {address} in a browser" if address else None

    def build_factory(self, hall):
        from gamehall_web.site import build_site
        return build_site(hall)


webFrontEnd = WebFrontEnd()
