"""Engine state -> the protocol's messages (§4, §5): ``setup`` and the four queries.

A series keeps its six players in one seat order for all its games (§8.8),
but the hall starts every engine with its seat 0, so each game of a series is
played at a table whose seats are the series' seats rotated (game k: table
seat 0 is series seat k).  :class:`Seating` maps the two; every message lists
players, owners and majorities in the *series'* seat order, so a client sees
the same order in every game, as with the original server.

Choices where the document is silent: ``<powers>``, ``<stock>`` and
``<scoreboard>`` are written only when non-empty, like ``<tiles>`` and the
hotels' owner lists (the worked example has no ``<scoreboard>`` in game 1);
``<stock>`` lists chains in the protocol's chain order.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..rules import MERGE_PHASE, QUERY_OF_KIND
from .codec import E, attr

__all__ = ["Seating", "setup", "query", "setup_tree", "query_tree", "state_children"]


@dataclass
class Seating:
    guids: list                 # series seat -> guid
    order: list                 # table (engine) seat -> series seat
    scoreboards: list           # series seat -> final scores of earlier games

    def engine_seat(self, series_seat: int) -> int:
        return self.order.index(series_seat)


def _owner_list(tag: str, owners, seating: Seating) -> E | None:
    if not owners:
        return None
    rows = sorted(((seating.order[s], n) for s, n in owners), key=lambda r: r[0])
    return E(tag, children=[E("owner", [("guid", seating.guids[s]), ("num-shares", n)]) for s, n in rows])


def state_children(engine, engine_seat: int, seating: Seating, columns: bool) -> list:
    """``map``, ``hotels``, ``players`` for the player at ``engine_seat``."""
    view = engine.view(engine_seat)
    m = view["map"]
    map_el = E("map", [("width", m["width"]), ("height", m["height"])])
    if columns:
        for x, col in enumerate(m["columns"]):
            map_el.children.append(E("column", [("x", x)], text="".join(f"{k}:{h};" for k, h in col)))
    hotels = E("hotels")
    for h in view["hotels"]:
        el = E("hotel", [("name", h["name"]), ("start-price", h["start_price"]), ("num-tiles", h["num_tiles"]),
                         ("is-active", h["is_active"]), ("is-safe", h["is_safe"]),
                         ("stock-price", h["stock_price"]), ("first-majority", h["first_majority"]),
                         ("second-majority", h["second_majority"]),
                         ("num-avail-shares", h["num_avail_shares"])])
        for tag, key in (("owners", "owners"), ("first-majority", "first_majority_owners"),
                         ("second-majority", "second_majority_owners")):
            child = _owner_list(tag, h[key], seating)
            if child is not None:
                el.children.append(child)
        hotels.children.append(el)
    players = E("players")
    by_engine = view["players"]
    for series_seat in range(len(seating.order)):
        p = by_engine[seating.engine_seat(series_seat)]
        el = E("player", [("cash", p["cash"]), ("guid", seating.guids[series_seat]), ("name", p["name"]),
                          ("score", p["score"])])
        tiles = p.get("tiles")
        if tiles:
            el.children.append(E("tiles", text="".join(f"{x}:{y};" for x, y in tiles)))
        if p["powers"]:
            el.children.append(E("powers", text="".join(f"{c};" for c in p["powers"])))
        if p["stock"]:
            el.children.append(E("stock", text="".join(f"{c}:{n};" for c, n in p["stock"].items())))
        board = seating.scoreboards[series_seat]
        if board:
            el.children.append(E("scoreboard", text="".join(f"{v};" for v in board)))
        players.children.append(el)
    return [map_el, hotels, players]


def setup_tree(engine, engine_seat: int, seating: Seating, msg_id) -> E:
    """``<setup game-start="true" my-guid=... msg-id=...>`` with a map without columns (§5.1)."""
    my_guid = seating.guids[seating.order[engine_seat]]
    return E("setup", [("game-start", True), ("my-guid", my_guid), ("msg-id", msg_id)],
             children=state_children(engine, engine_seat, seating, columns=False))


def query_tree(engine, engine_seat: int, seating: Seating, msg_id: str) -> E:
    """The query for the engine's pending decision (which must be ``engine_seat``'s)."""
    d = engine.pending()
    attrs = [("msg-id", msg_id)]
    if d.kind == MERGE_PHASE:
        attrs = [("survivor", d.options["survivor"]), ("defunct", d.options["defunct"])] + attrs
    return E(QUERY_OF_KIND[d.kind], attrs, children=state_children(engine, engine_seat, seating, columns=True))


# -- the fast path: the same text as serialise(setup_tree(...)), written directly -------------
# (a query is rendered for every decision of every remote player: this is the
# front end's hot loop; test_wire_codec checks both paths give the same bytes)

@lru_cache(maxsize=4096)
def _esc(value) -> str:
    return attr(value)


def _b(flag: bool) -> str:
    return "true" if flag else "false"


def _owners_text(tag: str, owners, seating: Seating, out: list) -> None:
    if not owners:
        return
    order, guids = seating.order, seating.guids
    rows = sorted((order[s], n) for s, n in owners)
    out.append(f"      <{tag}>")
    out.extend(f'        <owner guid="{_esc(guids[s])}" num-shares="{n}" />' for s, n in rows)
    out.append(f"      </{tag}>")


def _state_text(engine, engine_seat: int, seating: Seating, columns: bool, out: list) -> None:
    view = engine.view(engine_seat)
    m = view["map"]
    if columns:
        out.append(f'  <map width="{m["width"]}" height="{m["height"]}">')
        for x, col in enumerate(m["columns"]):
            cells = "".join([f"{k}:{h};" for k, h in col])
            out.append(f'    <column x="{x}">{cells}</column>')
        out.append("  </map>")
    else:
        out.append(f'  <map width="{m["width"]}" height="{m["height"]}" />')
    out.append("  <hotels>")
    for h in view["hotels"]:
        head = (f'    <hotel name="{_esc(h["name"])}" start-price="{h["start_price"]}" num-tiles="{h["num_tiles"]}" '
                f'is-active="{_b(h["is_active"])}" is-safe="{_b(h["is_safe"])}" stock-price="{h["stock_price"]}" '
                f'first-majority="{h["first_majority"]}" second-majority="{h["second_majority"]}" '
                f'num-avail-shares="{h["num_avail_shares"]}"')
        if h["owners"] or h["first_majority_owners"] or h["second_majority_owners"]:
            out.append(head + ">")
            _owners_text("owners", h["owners"], seating, out)
            _owners_text("first-majority", h["first_majority_owners"], seating, out)
            _owners_text("second-majority", h["second_majority_owners"], seating, out)
            out.append("    </hotel>")
        else:
            out.append(head + " />")
    out.append("  </hotels>")
    out.append("  <players>")
    by_engine = view["players"]
    order = seating.order
    for series_seat in range(len(order)):
        p = by_engine[order.index(series_seat)]
        head = (f'    <player cash="{p["cash"]}" guid="{_esc(seating.guids[series_seat])}" '
                f'name="{_esc(p["name"])}" score="{p["score"]}"')
        inner = []
        tiles = p.get("tiles")
        if tiles:
            inner.append("      <tiles>" + "".join([f"{x}:{y};" for x, y in tiles]) + "</tiles>")
        if p["powers"]:
            inner.append("      <powers>" + "".join([f"{c};" for c in p["powers"]]) + "</powers>")
        if p["stock"]:
            inner.append("      <stock>" + "".join([f"{_esc(c)}:{n};" for c, n in p["stock"].items()]) + "</stock>")
        board = seating.scoreboards[series_seat]
        if board:
            inner.append("      <scoreboard>" + "".join([f"{v};" for v in board]) + "</scoreboard>")
        if inner:
            out.append(head + ">")
            out.extend(inner)
            out.append("    </player>")
        else:
            out.append(head + " />")
    out.append("  </players>")


def setup(engine, engine_seat: int, seating: Seating, msg_id) -> bytes:
    """The ``setup`` frame payload (§5.1): game-start, my-guid, msg-id; the map without columns."""
    my_guid = seating.guids[seating.order[engine_seat]]
    out = [f'<setup game-start="true" my-guid="{_esc(my_guid)}" msg-id="{attr(msg_id)}">']
    _state_text(engine, engine_seat, seating, False, out)
    out.append("</setup>")
    return "\r\n".join(out).encode("utf-8")


def query(engine, engine_seat: int, seating: Seating, msg_id: str) -> bytes:
    """The frame payload of the query for the engine's pending decision (``engine_seat``'s)."""
    d = engine.pending()
    tag = QUERY_OF_KIND[d.kind]
    if d.kind == MERGE_PHASE:
        head = (f'<{tag} survivor="{_esc(d.options["survivor"])}" defunct="{_esc(d.options["defunct"])}" '
                f'msg-id="{attr(msg_id)}">')
    else:
        head = f'<{tag} msg-id="{attr(msg_id)}">'
    out = [head]
    _state_text(engine, engine_seat, seating, True, out)
    out.append(f"</{tag}>")
    return "\r\n".join(out).encode("utf-8")
