"""What a browser may see of an Acquire game (classic), and the script that draws it.

Pure: reads the engine, writes plain JSON-able dicts (``IGameView``).  Public
in Acquire, as NetAcquire shows it: the board, the chains (size, price,
shares left, majority holders), every player's cash and shares and how many
tiles each holds.  Private: a player's rack (only its own seat sees it, with
each tile's status), the tile bag (nobody: only its size), and the
``tile_drawn`` events (only the seat that drew).
"""
from __future__ import annotations

from zope.interface import implementer

from gamehall.interfaces import IGameView
from gamehall.viewtools import keyed

#: chain colours by position in the rules' chain tuple (NetAcquire's palette order)
CHAIN_COLOURS = ("#d62728", "#e6b800", "#1f4fb4", "#2ca02c", "#8c564b", "#17becf", "#e377c2")
#: engine events a front end may show only to their seat
PRIVATE_EVENTS = frozenset({"tile_drawn"})
STATUS_TEXT = {"playable": "", "found": "founds a chain", "grow": "grows a chain", "merge": "merges",
               "unplayable_now": "not playable now", "dead": "never playable"}
BUY_STEP = "purchase"


def money(n: int) -> str:
    return f"${n:,}"


@implementer(IGameView)
class AcquireView:
    game = "acquire"
    script = ("gamehall_acquire", "static/acquire.js")

    # -------------------------------------------------------------- state
    def spectator(self, engine) -> dict:
        rules = engine.rules
        chains = rules.chains
        cells = {}
        for tile, chain in engine.board.items():
            cells[tile] = chain or ""
        chain_rows = []
        for c, name in enumerate(chains):
            size = engine.chain_size(c)
            firsts, seconds, bonus = [], [], {}
            for seat, amount, kind in engine.bonus_holders(c):
                (firsts if kind in ("first", "both", "split_first") else seconds).append(seat)
                bonus[str(seat)] = amount
            chain_rows.append({
                "name": name, "colour": CHAIN_COLOURS[c % len(CHAIN_COLOURS)], "size": size,
                "price": engine.price(c), "available": engine.available(c),
                "safe": size >= rules.safe_size, "first": firsts, "second": seconds, "bonus": bonus,
                "price_if_founded": rules.price(c, 2)})
        over = engine.is_over()
        worths = self._worths(engine)
        players = []
        for seat, name in enumerate(engine.players):
            players.append({
                "seat": seat, "name": name, "cash": engine.cash[seat],
                "shares": {chains[c]: n for c, n in enumerate(engine.shares_of(seat)) if n},
                "worth": worths[seat], "tiles": self._rack_count(engine, seat),
                **self._extra_player(engine, seat)})
        pending = engine.pending_seat()
        state = {
            "game": self.game, "variant": rules.variant, "players": players,
            "board": {"columns": 12, "rows": "ABCDEFGHI", "cells": cells, "dead": sorted(engine.dead)},
            "chains": chain_rows, "order": list(engine.order), "current": engine.current,
            "pending": pending, "phase": engine.phase, "last_tile": self._last_tile(engine),
            "bag": self._bag_count(engine), "can_end": (not over) and engine.can_end(),
            "merger": self._merger(engine), "over": engine.result() if over else None,
        }
        return state

    def seat(self, engine, seat: int) -> dict:
        state = self.spectator(engine)
        state["seat"] = seat
        state["rack"] = [{"tile": t, "status": engine.tile_status(t)} for t in self._rack(engine, seat)]
        return state

    def _worths(self, engine) -> list[int]:
        """Each seat's net worth (cash + shares + bonuses due now; the final cash at the end)."""
        return [engine.net_worth(s) for s in range(len(engine.players))]

    def _rack(self, engine, seat: int) -> list[str]:
        return [t for t in engine.racks[seat] if t is not None]

    def _rack_count(self, engine, seat: int) -> int:
        return engine.rack_size(seat)

    def _bag_count(self, engine) -> int:
        return engine.tiles_left

    def _extra_player(self, engine, seat: int) -> dict:
        return {}

    def _last_tile(self, engine) -> str | None:
        for a in reversed(engine.actions):
            if "play_tile" in a:
                return a["play_tile"]
        return None

    def _merger(self, engine) -> dict | None:
        m = engine.merger
        if m is None:
            return None
        chains = engine.rules.chains
        out = {"chains": [chains[c] for c in m["chains"]],
               "survivor": chains[m["survivor"]] if m["survivor"] >= 0 else None,
               "defunct": [chains[c] for c in m["defunct"]]}
        if engine.phase == "dispose":
            out["disposing"] = chains[m["defunct"][m["ci"]]]
        return out

    # ------------------------------------------------------------ decisions
    def decision(self, engine, seat: int) -> dict | None:
        d = engine.pending()
        if d is None or d.seat != seat:
            return None
        return self._decide(engine, d.kind, d.options, engine.legal_actions())

    def _decide(self, engine, kind: str, o: dict, legal) -> dict:
        """The decision of kind ``kind`` (options ``o``, legal actions ``legal``)."""
        if kind == "play_tile":
            choices = [{"label": f"Play {a['play_tile']}" + self._status_note(engine, a["play_tile"]),
                        "action": a} for a in legal]
            return {"prompt": "Play a tile (or click it on the board)", "kind": kind,
                    "choices": keyed(choices), "tiles": [a["play_tile"] for a in legal]}
        if kind in ("found_chain", "choose_survivor", "choose_defunct"):
            verb = {"found_chain": "Found", "choose_survivor": "Keep", "choose_defunct": "Dispose of"}[kind]
            prompt = {"found_chain": "Name the chain you found",
                      "choose_survivor": "The largest chains tie: which one survives?",
                      "choose_defunct": "Which defunct chain is disposed of next?"}[kind]
            choices = [{"label": f"{verb} {a[kind]}", "action": a} for a in legal]
            return {"prompt": prompt, "kind": kind, "choices": keyed(choices)}
        if kind == "dispose":
            return self._dispose_decision(legal, o, "dispose")
        return self._purchase_decision(engine, legal, o)

    def _status_note(self, engine, tile: str) -> str:
        note = STATUS_TEXT.get(engine.tile_status(tile), "")
        return f" ({note})" if note else ""

    def _dispose_decision(self, legal, o: dict, kind: str) -> dict:
        held, defunct, survivor = o["shares"], o["chain"], o["survivor"]
        top = min(held, 2 * o["survivor_available"])
        top -= top % 2
        wanted = [(0, 0, f"Keep all {held} {defunct}"), (held, 0, f"Sell all {held} {defunct}")]
        if top:
            wanted.append((0, top, f"Trade {top} for {top // 2} {survivor}, keep {held - top}"))
            wanted.append((held - top, top, f"Trade {top} for {top // 2} {survivor}, sell {held - top}"))
        choices, seen = [], set()
        by_pair = {}
        for a in legal:
            p = a[kind]
            by_pair[(p["sell"], p["trade"])] = a
        for sell, trade, label in wanted:
            a = by_pair.get((sell, trade))
            if a is not None and (sell, trade) not in seen:
                seen.add((sell, trade))
                choices.append({"label": label, "action": a})
        return {"prompt": f"{defunct} merges into {survivor}: you hold {held} {defunct} shares "
                          f"(sold at {money(o['price'])} each, traded 2 for 1)",
                "kind": kind, "choices": keyed(choices), "board": True,
                "form": {"type": "dispose", "held": held, "max_trade": top, "chain": defunct,
                         "survivor": survivor, "price": o["price"]}}

    def _purchase_decision(self, engine, legal, o: dict) -> dict:
        wanted = [({}, False)]
        if o["can_end"]:
            wanted.append(({}, True))
        for chain, most in o["chains"].items():
            if most:
                wanted.append(({chain: most}, False))
        index = {}
        for a in legal:
            index[(tuple(sorted(a["purchase"].items())), bool(a.get("end_game")))] = a
        choices = []
        for buy, end in wanted:
            a = index.get((tuple(sorted(buy.items())), end))
            if a is None:
                continue
            what = ", ".join(f"{n} {c} ({money(n * o['prices'][c])})" for c, n in buy.items()) or "nothing"
            choices.append({"label": f"Buy {what}" + (" and end the game" if end else ""), "action": a})
        return {"prompt": f"Buy up to {engine.rules.max_buy} shares (cash {money(o['cash'])})",
                "kind": BUY_STEP, "choices": keyed(choices), "board": True,
                "form": {"type": "buy", "max": engine.rules.max_buy, "cash": o["cash"], "can_end": o["can_end"],
                         "chains": o["chains"], "prices": o["prices"]}}

    # ----------------------------------------------------------- event lines
    def describe(self, engine, seat: int | None, events: list) -> list[str]:
        names = engine.players
        out = []
        for e in events:
            t = e.get("type")
            if t in PRIVATE_EVENTS and e.get("seat") != seat:
                continue
            line = self._line(names, e)
            if line:
                out.append(line)
        return out

    def _line(self, names, e: dict) -> str | None:
        t = e["type"]
        who = names[e["seat"]] if isinstance(e.get("seat"), int) and 0 <= e["seat"] < len(names) else ""
        if t == "position_tile":
            return f"{who} draws {e['tile']} for the play order"
        if t == "turn":
            return f"{who}'s turn"
        if t == "tile_played":
            return f"{who} plays {e['tile']}"
        if t == "no_playable_tile":
            return f"{who} has no playable tile"
        if t == "chain_founded":
            free = " and gets a free share" if e.get("free_share") else ""
            return f"{who} founds {e['chain']} ({len(e['tiles'])} tiles){free}"
        if t == "chain_grew":
            return f"{e['chain']} grows by {len(e['tiles'])}"
        if t == "merger":
            return f"{who} merges {', '.join(e['defunct'])} into {e['survivor']}"
        if t in ("bonus", "final_bonus"):
            kind = e["kind"].replace("_", " ")
            final = "final " if t == "final_bonus" else ""
            return f"{names[e['seat']]} gets the {final}{kind} bonus of {e['chain']}: {money(e['amount'])}"
        if t == "disposed":
            return (f"{who} sells {e['sold']}, trades {e['traded']}, keeps {e['kept']} {e['chain']}"
                    f" (cash {money(e['cash'])})")
        if t == "merger_done":
            return f"{e['survivor']} now has {len(e['tiles'])} tiles"
        if t == "purchased":
            shares = e["shares"]
            items = shares.items() if isinstance(shares, dict) else shares
            what = ", ".join(f"{n} {c}" for c, n in items if n) or "nothing"
            card = f" with {e['card']}" if e.get("card") not in (None, "NONE") else ""
            return f"{who} buys {what}{card} for {money(e['cost'])}"
        if t == "tile_drawn":
            return f"you draw {e['tile']}"
        if t == "tile_dead":
            return f"{who} sets aside the dead tile {e['tile']}"
        if t == "bag_empty":
            return "the last tile has been drawn"
        if t == "last_round":
            return "nobody could play a tile for a round: one last round of purchases"
        if t == "card_played":
            return f"{who} plays the card {e['card']}"
        if t == "traded":
            return f"{who} trades " + ", ".join(f"2 {g} for 1 {r}" for g, r in e["trades"])
        if t == "game_over":
            winners = " and ".join(names[s] for s in e["winners"])
            return f"game over ({e['reason']}): {winners} wins with {money(max(e['scores']))}"
        return None

    def scores(self, engine) -> list[float]:
        return [float(w) for w in self._worths(engine)]
