"""(A hall of several processes.)  Tables that open on a first join are one for the hall.

Some games open a table when a player arrives and none is there to join (PIMP's current
table, Windward's waiting series).  Two first players reaching two processes at the same
moment would each find nothing and open one each.  So a process opens such a table only
under a claim on the bus (``open.<what>``, atomic: of two processes exactly one gets it);
the other waits until the winner's table shows in its ``hall.tables`` (the owner's list
announcement, a fifth of a second later) and sends its player there.

The claim is never renewed: it lives ``OPEN_CLAIM_TTL`` seconds, longer than the winner's
table takes to be listed everywhere, so a process that died holding it blocks nobody for
longer than that (the waiting process claims again once it has lapsed).  With the bus
down nobody is locked out: the process opens the table itself and says so in the log
(another process may then open one too).
"""
from __future__ import annotations

from typing import Callable

from twisted.internet.defer import Deferred

from gamehall.logger import SharedLogger

OPEN_CLAIM_TTL = 5.0      # seconds an opening claim lives (never renewed)
POLL_INTERVAL = 0.1       # seconds between looks for the winner's table while waiting

_log = SharedLogger(namespace="gamehall.cluster.firstjoin")


class FirstJoin:
    """One player's wait for the hall's table of ``what`` (e.g. ``"pimp"``).

    ``find()`` returns what the player should go to (a table listed here, of this process or
    another), or None while there is none.  ``wait()`` is a Deferred that fires with that,
    or with None when this process is to open the table (``claimed``: it holds the claim;
    not claimed: the bus could not be asked).  It fires with None too, at once, when
    ``alive()`` turns false (the player left): call ``release()`` then, and when opening
    failed, so that the others need not wait for the claim to lapse.
    """

    def __init__(self, hall, what: str, find: Callable, alive: Callable = lambda: True,
                 ttl: float = OPEN_CLAIM_TTL, poll: float = POLL_INTERVAL) -> None:
        self.hall, self.what, self.find, self.alive = hall, what, find, alive
        self.node = hall.cluster.node
        self.key = f"open.{what}"
        self.ttl, self.poll = ttl, poll
        self.claimed = False
        self._waited = 0.0
        self._done: Deferred | None = None
        self._call = None

    def wait(self) -> Deferred:
        done = self._done = Deferred()
        self._look()
        return done

    def release(self) -> None:
        if self.claimed:
            self.claimed = False
            self.node.bus.release(self.key, self.node.process_id).addErrback(lambda f: None)

    def _finish(self, result) -> None:
        if self._call is not None and self._call.active():
            self._call.cancel()
        self._call = None
        done, self._done = self._done, None
        if done is not None:
            done.callback(result)

    def _settled(self) -> bool:
        """Done when the player left (None) or the hall's table is listed here (it)."""
        if not self.alive():
            self._finish(None)
            return True
        found = self.find()
        if found is not None:
            self._finish(found)
            return True
        return False

    def _look(self) -> None:
        if self._settled():
            return
        d = self.node.bus.claim(self.key, self.node.process_id, self.ttl)
        d.addCallbacks(self._claim_answered, self._claim_failed)

    def _claim_answered(self, won: bool) -> None:
        if self._done is None:
            return
        found = self.find()            # (one listed meanwhile: a player here opened it, say)
        if won:
            self.claimed = True
            if found is not None or not self.alive():
                self.release()
                self._finish(found)
            else:
                self._finish(None)
            return
        if found is not None:
            self._finish(found)
            return
        # another process opens it: wait for its table, and claim again if the claim lapses
        # without one (its process died, its table filled or could not open)
        self._waited = 0.0
        self._call = self.hall.clock.callLater(self.poll, self._poll)

    def _poll(self) -> None:
        self._call = None
        if self._settled():
            return
        self._waited += self.poll
        if self._waited >= self.ttl:
            self._look()
        else:
            self._call = self.hall.clock.callLater(self.poll, self._poll)

    def _claim_failed(self, failure) -> None:
        if self._done is None:
            return
        _log.warn("the bus could not be asked who opens the hall's {what} table ({why}); this process "
                  "opens one itself, and another process may open one too",
                  what=self.what, why=failure.getErrorMessage())
        found = self.find()
        self._finish(found)
