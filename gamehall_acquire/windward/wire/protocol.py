"""The Windward connection: frames -> XML messages -> the player's :class:`~.contestant.Contestant`.

One :class:`WindwardProtocol` per TCP connection.  The first frame must be a
``join`` (§3): anything else, or XML that cannot be parsed, closes an unknown
connection (§7).  Once joined, the connection belongs to a contestant --
the player, who outlives its connections for the whole series -- and:

* ``<ready/>`` answers the last ``setup``;
* ``<reply msg-id=...>`` answers the query with that msg-id (``cmd`` is not
  looked at: the Java sample's merge replies say ``query-card``, §5.5);
* XML that cannot be parsed, a second ``join``, any other root: logged,
  counted and ignored, so the seat is played by the timeout rules (§7).

A refused join (or a first message that is none) is counted, logged in
summary (``service.RefusalLog``) and closed ``REFUSAL_DELAY`` seconds later.

A frame with a negative or oversized length cannot be resynchronised: the
connection is closed and the player may join again under its name (rejoin).
"""
from __future__ import annotations


from gamehall.connection import FramedProtocol, FrontEndFactory, client_text
from gamehall.logger import SharedLogger

from .codec import Join, Ready, Reply, XmlError, decode_client
from .framing import WindwardFramer

__all__ = ["WindwardProtocol", "WindwardFactory", "build_factory", "FRONTEND"]

FRONTEND = "windward"
REFUSAL_DELAY = 2.0     # seconds a refused connection stays open (input ignored) before it is closed
_log = SharedLogger()


class WindwardProtocol(FramedProtocol):
    """One client connection (Java, Python, C#... sample or contestant)."""

    framer_class = WindwardFramer
    # not FramedProtocol's Logger(): it would make each connection the log_source of
    # its events, kept alive by any observer that keeps events (see gamehall.logger)
    log = _log

    def __init__(self) -> None:
        super().__init__()
        self.contestant = None
        self.refused = False            # a refused join: closed after REFUSAL_DELAY
        self._refusal_close = None
        # (a hall of several processes) (process, relay id) of the process whose series this
        # connection plays in (``relay``), and the frames that wait while the join is offered
        self.relayed = None
        self._offering: list | None = None
        self.opening = None             # the claim to open the hall's series (``relay.place``)

    @property
    def service(self):
        return self.factory.service

    def send_payload(self, payload: bytes) -> None:
        """One frame (the framer refuses empty payloads: §1, never a zero-length frame)."""
        self.send_frame(payload)

    def send_payloads(self, payloads: list) -> None:
        """Several frames in ONE transport write (each frame is already length and body
        in one piece): messages of one event leave in one segment."""
        if self.closing or self.transport is None:
            return
        self.hall.stats.messages_out[self.frontend] += len(payloads)
        self.transport.write(b"".join(self.framer.encode(p) for p in payloads))

    def refuse(self) -> None:
        """A refused connection is closed ``REFUSAL_DELAY`` seconds later, its input ignored
        meanwhile: a client that reconnects at once when closed (the Java sample does)
        was refused about 18 times a second."""
        self.refused = True
        self._refusal_close = self.hall.clock.callLater(REFUSAL_DELAY, self.close)

    def frame_received(self, frame: bytes) -> None:
        if self.refused:
            return
        if self._offering is not None:
            self._offering.append(frame)
            return
        if self.relayed is not None:
            self.service.relay.send_in(self, frame)
            return
        try:
            msg = decode_client(frame)
        except XmlError as exc:
            if self.contestant is None:
                self.service.refused(self, None, f"unreadable first message ({client_text(exc, 80)})")
                self.refuse()
            else:
                self.contestant.malformed(str(exc), frame)
            return
        if self.contestant is None:
            if not isinstance(msg, Join):
                tag = client_text(getattr(msg, "tag", type(msg).__name__.lower()), 40)
                self.service.refused(self, None, f"first message <{tag}> is not a join")
                self.refuse()
                return
            relay = self.service.relay
            if relay is not None and not relay.here(msg.name):
                self._offer(relay, frame, msg)
                return
            if self.service.join(self, msg) is None:
                self.refuse()
            return
        dispatch(self.contestant, msg)

    def _offer(self, relay, frame: bytes, msg) -> None:
        """The hall's series may be another process's: the join is offered to it first, and
        opens a series here only when this process claims the opening (``relay.place``)."""
        self._offering = []

        def offered(taken):
            later, self._offering = self._offering, None
            opening, self.opening = self.opening, None
            if self.closing or self.transport is None:
                if self.relayed is not None:
                    relay.lost(self)
                if opening is not None:
                    opening.release()
                return
            if not taken:
                if self.service.join(self, msg) is None:
                    if opening is not None:     # no series opened: another process may
                        opening.release()
                    self.refuse()
                    return
            for f in later:
                self.frame_received(f)
        relay.place(self, frame, msg.name).addCallback(offered).addErrback(
            lambda f: self.log.failure("windward: a join offered to the hall failed", f))

    def idle_timed_out(self) -> None:
        # A seated player may legitimately be silent for long (operator pause,
        # other players' turns): only connections that never joined time out.
        if self.contestant is not None and not self.closing:
            self.reset_idle()
            return
        super().idle_timed_out()

    def connection_gone(self) -> None:
        if self._refusal_close is not None and self._refusal_close.active():
            self._refusal_close.cancel()
        self._refusal_close = None
        contestant, self.contestant = self.contestant, None
        if contestant is not None:
            contestant.connection_lost(self)
        if self.relayed is not None:
            self.service.relay.lost(self)


def dispatch(contestant, msg) -> None:
    """A seated contestant's message (from its connection here or relayed from another process)."""
    if isinstance(msg, Reply):
        contestant.on_reply(msg)
    elif isinstance(msg, Ready):
        contestant.on_ready()
    else:
        contestant.unexpected(msg)


class WindwardFactory(FrontEndFactory):
    """The ``windward`` front end of one hall; ``service`` seats the joins."""

    def __init__(self, hall, service) -> None:
        super().__init__(hall, FRONTEND, WindwardProtocol)
        self.service = service


def build_factory(hall, settings=None, **callbacks) -> WindwardFactory:
    """The factory for ``hall``: the hall's one :class:`~.service.WindwardService`
    (created on first use; ``settings`` replace its settings)."""
    from .service import service_for
    service = service_for(hall)
    if settings is not None:
        service.settings = settings
    for name, fn in callbacks.items():
        setattr(service, name, fn)
    service.relay                           # (a hall of several processes: it hears joins offered)
    return WindwardFactory(hall, service)
