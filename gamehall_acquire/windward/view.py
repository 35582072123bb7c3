"""What a browser may see of a Windward Acquire game: the classic view plus the power-up cards.

The Windward protocol sends every player's unplayed cards ("powers") to
every client, so they are public here too; a player's hand of tiles is only
its own seat's, as in the protocol (``tiles`` only in that player's entry).
The score shown is the engine's (cash + shares + bonuses due now).
"""
from __future__ import annotations

from zope.interface import implementer

from gamehall.interfaces import IGameView
from gamehall.viewtools import keyed

from ..view import AcquireView, money
from .rules import CARD, MERGE_PHASE, NONE, TILE, TILE_PURCHASE

CARD_TEXT = {NONE: "no card", "DRAW_5_TILES": "draw 5 tiles", "PLACE_4_TILES": "place 4 tiles",
             "FREE_3_STOCK": "3 free shares", "BUY_5_STOCK": "buy up to 5 shares",
             "TRADE_2_STOCK": "trade 2 for 1 share"}


def _placement_label(p: dict) -> str:
    if p.get("tile") is None:
        return "No playable tile"
    label = f"Place {p['tile']}"
    if "created_hotel" in p:
        label += f", found {p['created_hotel']}"
    if "merge_survivor" in p:
        label += f", {p['merge_survivor']} survives"
    return label


@implementer(IGameView)
class WindwardView(AcquireView):
    game = "windward"
    script = ("gamehall_acquire", "static/acquire.js")

    def _worths(self, engine) -> list[int]:
        return engine.scores()

    def _extra_player(self, engine, seat: int) -> dict:
        return {"cards": engine.cards(seat)}

    def _last_tile(self, engine) -> str | None:
        for a in reversed(engine.actions):
            for kind in (TILE, TILE_PURCHASE):
                p = a.get(kind)
                if isinstance(p, dict) and p.get("tile"):
                    return p["tile"]
        return None

    def _merger(self, engine) -> dict | None:
        m = engine.merger
        if m is None:
            return None
        chains = engine.rules.chains
        out = {"survivor": chains[m["survivor"]], "defunct": [chains[c] for c in m["defunct"]]}
        if engine.phase == MERGE_PHASE and m.get("queue"):
            out["disposing"] = chains[m["queue"][0][1]]
        return out

    def _decide(self, engine, kind: str, o: dict, legal) -> dict:
        if kind == CARD:
            choices = [{"label": f"Play {a[CARD]} ({CARD_TEXT[a[CARD]]})" if a[CARD] != NONE else "Play no card",
                        "action": a} for a in legal]
            return {"prompt": "Play a card before your turn?", "kind": kind, "choices": keyed(choices)}
        if kind == TILE:
            choices = [{"label": _placement_label(a[TILE]), "action": a} for a in legal]
            return {"prompt": f"Place a tile ({o['placement']} of {o['placements']})", "kind": kind,
                    "choices": keyed(choices), "tiles": o["tiles"]}
        if kind == TILE_PURCHASE:
            choices = [{"label": _placement_label(a[kind]) + ", buy nothing", "action": a}
                       for a in legal if a[kind]["card"] == NONE]
            return {"prompt": f"Place a tile and buy shares (cash {money(o['cash'])})", "kind": kind,
                    "choices": keyed(choices), "board": True, "tiles": o["tiles"],
                    "form": {"type": "tile_purchase", "tiles": o["tiles"], "found": o["found"],
                             "survivor": o["survivor"], "cards": o["cards"], "allowance": o["allowance"],
                             "cash": o["cash"], "prices": o["prices"], "available": o["available"],
                             "max_trades": o["max_trades"],
                             "card_text": {c: CARD_TEXT[c] for c in o["cards"]}}}
        opts = {"chain": o["defunct"], "survivor": o["survivor"], "shares": o["shares"],
                "survivor_available": o["survivor_available"], "price": o["price"]}
        return self._dispose_decision(legal, opts, MERGE_PHASE)
