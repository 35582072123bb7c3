"""Auctions of a declined property.

Every player may bid, the decliner too.  A higher bid is announced to all; a
bid at or below the current one gets the current bid back privately; the
leader may neither bid nor pass.  A pass can be taken back by bidding again.
When every player but the leader has passed the leader buys at their bid; when
everyone has passed with no bid the auction is void.
"""
from __future__ import annotations

from .core import AUCTION, BUY, MOVED
from .state import Auction, PimpError, unexpected


class AuctionMixin:
    def _on_AUCTION_PROPERTY(self, pid: int) -> None:
        self._require_turn(pid, BUY, "AUCTION_PROPERTY")
        prop, self.sale = self.sale, -1
        self.phase = AUCTION
        self.auction = Auction(prop)
        self._all("PROPERTY_AUCTION", prop)

    def _bidder(self, pid: int, code: str) -> Auction:
        a = self.auction
        if a is None or self.phase != AUCTION or pid not in self.users or not self.users[pid].playing:
            raise unexpected(code, "there is no auction for you")
        if pid == a.leader:
            raise unexpected(code, "you lead the auction")
        return a

    def _on_BID(self, pid: int, amount: int) -> None:
        a = self._bidder(pid, "BID")
        if amount <= a.high:
            self._to(pid, "PROPERTY_AUCTION_BID", a.leader, a.high)
            return
        if amount > self.users[pid].cash:
            raise PimpError("you cannot afford that bid",
                            ("ERROR_PROPERTY_TOO_EXPENSIVE", a.property, amount))
        a.high, a.leader = amount, pid
        a.passed.discard(pid)
        self._all("PROPERTY_AUCTION_BID", pid, amount)
        self._close_auction_if_done()      # the others may all have passed already

    def _on_NO_BID(self, pid: int) -> None:
        a = self._bidder(pid, "NO_BID")
        if pid not in a.passed:
            a.passed.add(pid)
            self._all("PROPERTY_AUCTION_NO_BID", pid)
        self._close_auction_if_done()

    def _close_auction_if_done(self) -> None:
        a = self.auction
        if a is None or any(p not in a.passed and p != a.leader for p in self.playing()):
            return
        self.auction = None
        self.phase = MOVED
        prop = self.board.properties[a.property]
        if a.leader and self.users[a.leader].playing and self.users[a.leader].cash >= a.high:
            self._all("PROPERTY_AUCTION_WON", a.leader)
            self._all("SQUARE_TAKES_CASH", a.leader, prop.square, a.high)
            self._cash(a.leader, 0, a.high)
            self._give_property(prop.id, a.leader)
        else:
            self._all("PROPERTY_AUCTION_VOID")
        self._settle()
