"""Dropin: the ``web`` front end (the hall in a browser: JSON over a WebSocket, pages from the package)."""
from twisted.plugin import IPlugin
from zope.interface import implementer

from gamehall.interfaces import IFrontEnd


@implementer(IPlugin, IFrontEnd)
class WebFrontEnd:
    name = "web"
    description = "Web browsers: the lobby, every table and the records at http://HOST:PORT/ (JSON over WebSocket at /ws)"
    default_endpoint = "tcp:8080"

    def build_factory(self, hall):
        from gamehall_web.site import build_site
        return build_site(hall)


webFrontEnd = WebFrontEnd()
