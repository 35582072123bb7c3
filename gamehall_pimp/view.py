"""What a browser may see of a Monopoly (PIMP) game, and the script that draws it.

Pure: reads the engine, writes JSON-able dicts (``IGameView``).  Seat ``i`` is
PIMP user ``i + 1`` (as ``game.HallEngine`` maps them).  Public, as PIMP
broadcasts it: the board with owners, houses, hotels and mortgages, positions,
cash, escrow, get-out-of-jail cards held, the pot, the bank's houses and hotels,
dice, auctions.  Private: a user's password (nobody), the order of the card
decks and the dice's random state (nobody), transactions (trades and debts:
only their two sides, as PIMP sends them only to those), rent and Go claims
(only the claimant, whose own move it is) and join votes (only the voters).

PIMP has no list of legal actions: the choices offered are the moves a client
has (roll, buy, bid, pay, claim, vote...), and each one is kept only if a copy
of the engine accepts it.
"""
from __future__ import annotations

from zope.interface import implementer

from gamehall.interfaces import IGameView, IllegalAction
from gamehall.viewtools import keyed

from .board import COLOUR, HOTEL
from .core import AUCTION, BUY, JAIL, ROLL, TAX
from .state import FINISHED, SETUP

GROUP_COLOURS = {"brown": "#8b4513", "light_blue": "#8fd3f4", "pink": "#d63384", "orange": "#f08c00",
                 "red": "#d62828", "yellow": "#f5d000", "green": "#1e9e4a", "dark_blue": "#1b3fa0",
                 "railroad": "#333333", "utility": "#7d8a96"}
SQUARE_NAMES = {"go": "Go", "chest": "Community Chest", "chance": "Chance", "income_tax": "Income Tax",
                "jail": "Jail", "free_parking": "Free Parking", "go_to_jail": "Go to Jail",
                "luxury_tax": "Luxury Tax"}
#: messages never shown, whoever they are addressed to: they carry a password
SECRET_MESSAGES = frozenset({"WELCOME_DETAILS", "WELCOME_BACK", "REJOIN"})
BID_STEPS = (1, 10, 50, 100)


def _game(engine):
    """The ``Monopoly`` behind a hall engine (or the game itself)."""
    return getattr(engine, "game", engine)


def _seat(pid: int) -> int | None:
    return pid - 1 if pid else None


def _money(n: int) -> str:
    return f"${n:,}"


def _act(msg: str, *args) -> dict:
    return {"msg": msg, "args": list(args)}


def _copy(g):
    """An independent copy to try an action on (the action log is not needed, nor shared)."""
    d = g.to_dict()
    d["log"] = []
    return type(g).from_dict(d)


def square_name(g, s: int) -> str:
    kind, prop = g.board.squares[s]
    return g.board.properties[prop].name if prop is not None else SQUARE_NAMES.get(kind, kind)


@implementer(IGameView)
class PimpView:
    game = "pimp"
    script = ("gamehall_pimp", "static/pimp.js")

    # -------------------------------------------------------------- state
    def spectator(self, engine) -> dict:
        g = _game(engine)
        b = g.board
        squares = []
        # one entry per square, in board order; a property's defaults (no owner, no
        # buildings, not mortgaged) are left out: the state goes out at every event
        for s, (kind, prop) in enumerate(b.squares):
            sq = {"kind": kind, "name": square_name(g, s)}
            if prop is not None:
                p = b.properties[prop]
                sq.update({"prop": prop, "colour": GROUP_COLOURS.get(p.group, "#999"), "price": p.price})
                level = g.level[prop]
                if g.owner[prop]:
                    sq["owner"] = _seat(g.owner[prop])
                if g.mortgaged[prop]:
                    sq["mortgaged"] = True
                if level == HOTEL:
                    sq["hotel"] = True
                elif level:
                    sq["houses"] = level
            squares.append(sq)
        players = []
        for pid, u in g.users.items():
            players.append({
                "seat": pid - 1, "name": u.name, "playing": u.playing, "cash": u.cash, "square": u.square,
                "jail": u.jail, "afk": u.afk, "escrow": sum(u.escrow.values()),
                "properties": len(g.owned_by(pid)),
                "cards": [b.cards[c].text for c in g.cards_of(pid)],
                "worth": g.net_worth(pid) if u.playing else 0})
        a = g.auction
        houses, hotels = g.bank_supply()
        return {
            "game": self.game, "squares": squares, "players": players,
            "turn": _seat(g.turn), "pending": engine.pending_seat() if engine is not g else _seat(g.turn),
            "phase": g.phase, "dice": list(g.dice), "pot": g.pot if g.options["pot"] else None,
            "sale": b.properties[g.sale].name if g.phase == BUY and g.sale >= 0 else None,
            "auction": None if a is None else {
                "property": b.properties[a.property].name, "high": a.high, "leader": _seat(a.leader),
                "passed": sorted(_seat(p) for p in a.passed)},
            "bank": {"houses": houses, "hotels": hotels}, "turns": g.turns,
            "winner": _seat(g.winner), "over": g.is_over(), "reason": g.end_reason or None,
        }

    def seat(self, engine, seat: int) -> dict:
        g = _game(engine)
        state = self.spectator(engine)
        state["seat"] = seat
        pid = seat + 1
        if pid not in g.users:
            return state
        b = g.board
        state["transactions"] = [self._transaction(g, pid, tx) for tx in g.transactions_of(pid)]
        state["claims"] = [self._claim_text(g, c) for c in g.claims if c.claimant == pid]
        state["candidates"] = [{"name": c.name, "play": c.play} for c in g.candidates
                               if g.users[pid].playing and c.user != pid]
        state["mine"] = [{"prop": p, "name": b.properties[p].name} for p in g.owned_by(pid)]
        return state

    def _transaction(self, g, pid: int, tx) -> dict:
        b = g.board

        def side(s):
            return {"name": g.users[s].name if s in g.users else "the bank", "cash": tx.cash.get(s, 0),
                    "properties": [b.properties[p].name for p in sorted(tx.props.get(s, ()))],
                    "props": sorted(tx.props.get(s, ())),
                    "cards": [b.cards[c].text for c in sorted(tx.cards.get(s, ()))],
                    "stage": ("open", "finished", "agreed")[tx.stage.get(s, 0)]}
        out = {"id": tx.id, "kind": tx.kind, "you": side(pid), "required": tx.required}
        other = tx.other(pid)
        if other:
            out["other"] = side(other)
        return out

    def _claim_text(self, g, c) -> str:
        if c.kind == "go":
            return f"Claim your Go salary of {_money(c.amount)}"
        return (f"Claim {_money(c.amount)} rent from {g.users[c.debtor].name} "
                f"for {g.board.properties[c.property].name}")

    # ------------------------------------------------------------ decisions
    def decision(self, engine, seat: int) -> dict | None:
        g = _game(engine)
        pid = seat + 1
        if g.is_over() or pid not in g.users:
            return None
        main, per_property = self._candidates(g, pid)
        base = g.to_dict()
        base["log"] = []

        def legal(action: dict) -> bool:
            trial = type(g).from_dict(dict(base))
            try:
                trial.apply(pid, action)
            except IllegalAction:
                return False
            return True
        choices = [{"label": label, "action": a} for label, a in main if legal(a)]
        props: dict[str, list] = {}
        for prop, label, a in per_property:
            if legal(a):
                props.setdefault(str(prop), []).append({"label": label, "action": a})
        if not choices:
            return None         # nothing asked of this user now (its properties wait for its turn)
        prompt = self._prompt(g, pid)
        out = {"prompt": prompt, "kind": g.phase, "choices": keyed(choices)}
        if props:
            out["board"] = True
            out["properties"] = props
        return out

    def _prompt(self, g, pid: int) -> str:
        if g.phase == AUCTION and g.auction is not None:
            a = g.auction
            return f"Auction of {g.board.properties[a.property].name}: high bid {_money(a.high)}"
        if pid == g.turn:
            return {ROLL: "Your turn: roll the dice", JAIL: "You are in jail: pay bail or roll for doubles",
                    BUY: f"Buy {g.board.properties[g.sale].name if g.sale >= 0 else ''} or put it to auction",
                    TAX: "Income tax: flat fee or 10%"}.get(g.phase, "Your turn")
        return "You may act now"

    def _candidates(self, g, pid: int) -> tuple[list, list]:
        """(label, action) moves to offer, and (property, label, action) moves on one's properties."""
        b = g.board
        u = g.users[pid]
        main: list = []
        if g.candidates:
            c = g.candidates[0]
            if u.playing and c.user != pid and pid not in c.yes and pid not in c.no:
                what = "play" if c.play else "watch"
                main.append((f"Let {c.name} {what}", _act("ACCEPT_JOIN", c.id)))
                main.append((f"Refuse {c.name}", _act("REFUSE_JOIN", c.id)))
        for c in g.claims:
            if c.claimant == pid:
                action = _act("CLAIM_GO", c.property) if c.kind == "go" else _act("CLAIM_RENT", c.debtor, c.property)
                main.append((self._claim_text(g, c), action))
        if pid == g.turn:
            if g.phase == ROLL:
                main.append(("Roll the dice", _act("THROW_DICE")))
            elif g.phase == JAIL:
                main.append(("Roll for doubles", _act("JAIL_ROLL_DICE")))
                main.append((f"Pay bail ({_money(b.bail)}) or use a card", _act("JAIL_PAY_BAIL")))
            elif g.phase == BUY and g.sale >= 0:
                p = b.properties[g.sale]
                main.append((f"Buy {p.name} for {_money(p.price)}", _act("BUY_PROPERTY")))
                main.append(("Put it to auction", _act("AUCTION_PROPERTY")))
            elif g.phase == TAX:
                main.append((f"Pay the flat fee ({_money(b.income_tax_flat)})", _act("TAX_PAY_FLAT_FEE")))
                main.append((f"Pay 10% ({_money(g.income_tax_percent(pid))})", _act("TAX_PAY_TEN_PERCENT")))
        a = g.auction
        if g.phase == AUCTION and a is not None and u.playing and pid != a.leader and pid not in a.passed:
            for step in BID_STEPS:
                if a.high + step <= u.cash:
                    main.append((f"Bid {_money(a.high + step)}", _act("BID", a.high + step)))
            main.append(("No bid", _act("NO_BID")))
        for tx in g.transactions_of(pid):
            main.extend(self._transaction_moves(g, pid, tx))
        per_property: list = []
        for p in g.owned_by(pid):
            prop = b.properties[p]
            if g.mortgaged[p]:
                per_property.append((p, f"Unmortgage {prop.name} ({_money(prop.unmortgage_cost)})",
                                     _act("UNMORTGAGE_PROPERTY", p)))
            else:
                per_property.append((p, f"Mortgage {prop.name} (+{_money(prop.mortgage)})",
                                     _act("MORTGAGE_PROPERTY", p)))
            if prop.kind == COLOUR:
                lv = g.level[p]
                if lv < 4:
                    per_property.append((p, f"Build a house on {prop.name} ({_money(prop.house_cost)})",
                                         _act("PURCHASE_HOUSES", [[p, 1, 0]])))
                elif lv == 4:
                    per_property.append((p, f"Build a hotel on {prop.name} ({_money(prop.house_cost)})",
                                         _act("PURCHASE_HOUSES", [[p, 0, 1]])))
                if lv == HOTEL:
                    per_property.append((p, f"Sell the hotel of {prop.name}", _act("PURCHASE_HOUSES", [[p, 0, -1]])))
                elif lv:
                    per_property.append((p, f"Sell a house of {prop.name}", _act("PURCHASE_HOUSES", [[p, -1, 0]])))
        if u.playing and not g.transactions_of(pid) and pid == g.turn and g.phase in (ROLL, JAIL):
            for other in g.playing():
                if other != pid:
                    main.append((f"Propose a trade to {g.users[other].name}",
                                 _act("TRANSACTION_REQUEST_TRADE", other)))
        return main, per_property

    def _transaction_moves(self, g, pid: int, tx) -> list:
        other = tx.other(pid)
        who = g.users[other].name if other in g.users else "the bank"
        tid = tx.id
        out = []
        stage = tx.stage.get(pid, SETUP)
        if tx.is_debt and tx.a == pid:
            what = f"{_money(tx.required)} {tx.kind} debt to {who}"
            if tx.cash.get(pid, 0) < tx.required:
                out.append((f"Offer {_money(tx.required)} for the {what}", _act("TRANSACTION_SET_CASH", tid, tx.required)))
            if stage == SETUP:
                out.append((f"Settle the {what} (finish)", _act("TRANSACTION_FINISH", tid)))
            elif stage == FINISHED:
                out.append((f"Agree to pay the {what}", _act("TRANSACTION_AGREE", tid)))
            out.append((f"Go bankrupt over the {what}", _act("BANKRUPT_TRANSACTION", tid)))
            return out
        kind = "debt" if tx.is_debt else "trade"
        if stage == SETUP:
            out.append((f"Finish your side of the {kind} with {who}", _act("TRANSACTION_FINISH", tid)))
        elif stage == FINISHED:
            out.append((f"Agree to the {kind} with {who}", _act("TRANSACTION_AGREE", tid)))
            out.append((f"Reopen the {kind} with {who}", _act("TRANSACTION_REOPEN", tid)))
        if not tx.is_debt:
            out.append((f"Cancel the trade with {who}", _act("TRANSACTION_CANCEL", tid)))
        return out

    # ----------------------------------------------------------- event lines
    def describe(self, engine, seat: int | None, events: list) -> list[str]:
        g = _game(engine)
        pid = None if seat is None else seat + 1
        out = []
        for m in events:
            name, args, to = m[0], tuple(m[1]), (m[2] if len(m) > 2 else None)
            if name in SECRET_MESSAGES:
                continue
            if to is not None and (pid is None or pid not in to):
                continue
            line = self._line(g, name, args)
            if line:
                out.append(line)
        return out

    def _line(self, g, name: str, a: tuple) -> str | None:
        b = g.board

        def who(pid):
            if pid == 0:
                return "the bank"
            u = g.users.get(pid)
            return u.name if u is not None else f"user {pid}"

        def prop(p):
            return b.properties[p].name if 0 <= p < len(b.properties) else f"property {p}"

        def sq(s):
            return square_name(g, s) if 0 <= s < b.n_squares else f"square {s}"
        if name == "START_OF_TURN":
            return f"{who(a[0])}'s turn"
        if name == "DICE_ROLLED":
            return f"{who(a[0])} rolls {a[1]} and {a[2]}"
        if name in ("DICE_MOVED_PLAYER", "CARD_MOVED_PLAYER", "SQUARE_MOVED_PLAYER"):
            return f"{who(a[0])} moves to {sq(a[2] if name != 'DICE_MOVED_PLAYER' else a[1])}"
        if name == "PLAYER_LANDING_ON_SQUARE":
            return f"{who(a[0])} lands on {sq(a[1])}"
        if name == "GOING_TO_JAIL":
            return f"{who(a[0])} goes to jail"
        if name == "THREE_DOUBLES":
            return f"{who(a[0])} rolled three doubles"
        if name == "JAIL_FREE":
            return f"{who(a[0])} is out of jail"
        if name == "PROPERTY_SALE":
            return f"{prop(a[1])} is for sale at {_money(a[2])}"
        if name == "DELTA_PROPERTY":
            return f"{prop(a[2])} passes from {who(a[0])} to {who(a[1])}"
        if name == "DELTA_CASH":
            return f"{who(a[0])} pays {who(a[1])} {_money(a[2])}"
        if name == "PROPERTY_AUCTION":
            return f"{prop(a[0])} goes to auction"
        if name == "PROPERTY_AUCTION_BID":
            return f"{who(a[0])} bids {_money(a[1])}"
        if name == "PROPERTY_AUCTION_NO_BID":
            return f"{who(a[0])} passes"
        if name == "PROPERTY_AUCTION_WON":
            return f"{who(a[0])} wins the auction"
        if name == "PROPERTY_AUCTION_VOID":
            return "the auction is void"
        if name == "DELTA_HOUSES_PURCHASED":
            level = "a hotel" if a[3] else f"{a[2]} house" + ("s" if a[2] > 1 else "")
            return f"{prop(a[1])} now has {level}" if a[2] or a[3] else f"{prop(a[1])} has no buildings now"
        if name == "DELTA_PROPERTY_MORTGAGED":
            return f"{prop(a[0])} is mortgaged"
        if name == "DELTA_PROPERTY_UNMORTGAGED":
            return f"{prop(a[0])} is unmortgaged"
        if name == "GOT_CARD":
            return f"{who(a[0])} draws: {b.cards[a[2]].text}" if 0 <= a[2] < len(b.cards) else None
        if name == "PLAYER_CLAIMED_RENT":
            return f"{who(a[0])} claims {_money(a[3])} rent from {who(a[1])} for {prop(a[2])}"
        if name == "PLAYER_CLAIMED_GO":
            return f"{who(a[0])} claims {_money(a[2])} salary"
        if name == "TAX_SELECT_OPTION":
            return f"{who(a[0])} must pay income tax"
        if name == "DELTA_POT":
            return f"the pot holds {_money(a[0])}"
        if name == "RENT_COLLECTION_MORATORIUM":
            return "rent unclaimed before the roll is forfeit"
        if name == "PLAYER_BECAME_OBSERVER_BANKRUPT":
            return f"{who(a[0])} is bankrupt"
        if name == "PLAYER_WON":
            return f"{who(a[0])} wins the game"
        if name == "OBSERVER_BECAME_PLAYER":
            return f"{who(a[0])} joins the game"
        if name == "JOIN_REFUSED":
            return f"{a[1]} was refused"
        if name == "WAITING_FOR_TRANSACTION":
            return f"waiting for {who(a[0])} to settle a debt"
        if name.startswith("TRANSACTION_") and a:
            return f"{name[12:].replace('_', ' ').lower()} (transaction {a[0]})"
        return None

    def scores(self, engine) -> list[float]:
        g = _game(engine)
        return [float(g.net_worth(pid)) if u.playing else 0.0 for pid, u in g.users.items()]
