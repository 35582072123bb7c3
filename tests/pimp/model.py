"""A client's view of a PIMP game, built only from the messages one user receives,
and the engine invariants.  The tests compare the view with the engine after every action:
what the server says and what it holds must agree (cash, ownership, buildings, pot, cards)."""
from __future__ import annotations

from gamehall_pimp.board import COLOUR, HOTEL
from gamehall_pimp.state import AGREED, SETUP


class ClientModel:
    def __init__(self, viewer: int = 1):
        self.viewer = viewer
        self.cash: dict[int, int] = {}
        self.square: dict[int, int] = {}
        self.playing: set[int] = set()
        self.owner = [0] * 28
        self.mortgaged = [False] * 28
        self.level = [0] * 28
        self.bank = (32, 12)
        self.pot = 0
        self.cards: dict[int, int] = {}
        self.winner = 0

    def feed(self, msgs) -> None:
        for m in msgs:
            if m.to is None or self.viewer in m.to:
                getattr(self, "on_" + m.name, lambda *a: None)(*m.args)

    # state dump
    def on_STATE_PLAYER(self, pid, piece, name, square, cash, jail):
        self.playing.add(pid)
        self.cash[pid], self.square[pid] = cash, square

    def on_STATE_OBSERVER(self, pid, piece, name):
        self.playing.discard(pid)
        self.cash[pid] = 0

    def on_STATE_PROPERTY(self, prop, owner, mortgaged, houses, hotels):
        self.owner[prop], self.mortgaged[prop] = owner, mortgaged
        self.level[prop] = HOTEL if hotels else houses

    def on_STATE_CARD(self, card, owner):
        self.cards[card] = owner

    def on_STATE_POT(self, pot):
        self.pot = pot

    # people
    def on_WELCOME_PLAYER(self, pid, piece, name):
        self.playing.add(pid)
        self.cash[pid], self.square[pid] = 0, 0

    def on_WELCOME_OBSERVER(self, pid, piece, name):
        self.cash[pid] = 0

    def on_OBSERVER_BECAME_PLAYER(self, pid):
        self.playing.add(pid)
        self.square[pid] = 0

    def on_PLAYER_TAKEOVER(self, new, old):
        self.playing.add(new)
        self.square[new] = self.square.get(old, 0)

    def _leaves(self, pid):
        self.playing.discard(pid)

    on_PLAYER_BECAME_OBSERVER_BANKRUPT = on_PLAYER_BECAME_OBSERVER_TRANSFER = _leaves
    on_PLAYER_BECAME_OBSERVER_KICKED = _leaves

    def on_PLAYER_WON(self, pid):
        self.winner = pid

    # movement
    def on_PLAYER_LANDING_ON_SQUARE(self, pid, square):
        self.square[pid] = square

    # ownership
    def on_DELTA_CASH(self, src, dst, amount):
        assert amount > 0
        if src:
            self.cash[src] -= amount
        if dst:
            self.cash[dst] = self.cash.get(dst, 0) + amount

    def on_DELTA_PROPERTY(self, src, dst, prop):
        assert self.owner[prop] == src, (prop, self.owner[prop], src)
        self.owner[prop] = dst

    def on_DELTA_PROPERTY_MORTGAGED(self, prop):
        self.mortgaged[prop] = True

    def on_DELTA_PROPERTY_UNMORTGAGED(self, prop):
        self.mortgaged[prop] = False

    def on_DELTA_HOUSES_PURCHASED(self, pid, prop, houses, hotels):
        self.level[prop] = HOTEL if hotels else houses

    def on_DELTA_BANK(self, houses, hotels):
        self.bank = (houses, hotels)

    def on_DELTA_CARD(self, src, dst, card):
        assert self.cards.get(card, 0) == src
        if dst:
            self.cards[card] = dst
        else:
            self.cards.pop(card, None)

    def on_DELTA_POT(self, pot):
        self.pot = pot

    def check(self, g) -> None:
        for pid, u in g.users.items():
            if u.playing or pid in self.cash:
                assert self.cash.get(pid, 0) == u.cash, (pid, self.cash.get(pid), u.cash)
        assert self.playing == set(g.playing())
        for pid in g.playing():
            assert self.square[pid] == g.users[pid].square, pid
        assert self.owner == g.owner
        assert self.mortgaged == g.mortgaged
        assert self.level == g.level
        assert self.bank == g.bank_supply()
        assert self.pot == g.pot
        assert self.cards == g.card_owner
        assert self.winner == g.winner


def check_invariants(g) -> None:
    b = g.board
    for pid, u in g.users.items():
        assert u.cash >= 0
        if not u.playing:
            assert u.cash == 0 and not g.owned_by(pid) and not g.cards_of(pid) and not u.escrow
        for tid in u.escrow:
            assert tid in g.transactions and g.transactions[tid].a == pid
    for prop, owner in enumerate(g.owner):
        assert owner == 0 or g.users[owner].playing
        if not owner:
            assert not g.mortgaged[prop] and g.level[prop] == 0
        if g.level[prop]:
            p = b.properties[prop]
            assert p.kind == COLOUR and not g.mortgaged[prop]
            group = b.groups[p.group]
            assert all(g.owner[q] == owner for q in group)
            levels = [g.level[q] for q in group]
            assert max(levels) - min(levels) <= 1
            if g.options["strict_groups"]:
                assert not any(g.mortgaged[q] for q in group)
    houses, hotels = g.bank_supply()
    assert 0 <= houses <= 32 and 0 <= hotels <= 12
    every = g.decks["chance"] + g.decks["chest"] + list(g.card_owner)
    assert sorted(every) == list(range(32))
    for card, owner in g.card_owner.items():
        assert b.cards[card].kind == "jail_free" and g.users[owner].playing
    for tx in g.transactions.values():
        for s in tx.sides():
            assert s == 0 or g.users[s].playing
        stages = [tx.stage[s] for s in (tx.a, tx.b)]
        assert not (AGREED in stages and SETUP in stages), tx
    for c in g.claims:
        assert g.users[c.claimant].playing
    if g.phase not in ("lobby", "over"):
        assert g.users[g.turn].playing
        assert (g.sale >= 0) == (g.phase == "buy")
        assert (g.auction is not None) == (g.phase == "auction")
    if g.phase == "over":
        assert g.winner
