"""What a browser may see of a Euphrates & Tigris game, and the script that draws it.

Pure: reads the engine, writes JSON-able dicts (``IGameView``).  As the line
protocol tells it: everyone sees the board (tiles, leaders, monuments,
treasures, catastrophes), each player's hand *size*, leaders in hand and
catastrophes left, the conflicts and what was committed to them.  A seat also
sees its own hand by colour and its own score by colour; nobody sees another
player's hand or score (the protocol sends opponents' scores only as
``otherscore+`` deltas, "not intended" to be totalled), so the event lines
carry those deltas and the state carries no totals but one's own, until the
game is over.  The bag: only how many tiles are left.
"""
from __future__ import annotations

from zope.interface import implementer

from gamehall.interfaces import IGameView
from gamehall.viewtools import keyed

from .board import COLOUR_NAMES, COLOURS, HEIGHT, LEADER_TITLES, MONUMENTS, RIVER, WIDTH, xy
from .engine import ACTION, ADD, MONUMENT, RESOLVE, TREASURE

NAMES = [COLOUR_NAMES[c] for c in COLOURS]
TITLES = {COLOUR_NAMES[c]: t for c, t in LEADER_TITLES.items()}
_RIVER = sorted(list(xy(c)) for c in RIVER)


def _xy(c: int) -> list[int]:
    return list(xy(c))


@implementer(IGameView)
class EuphratesTigrisView:
    game = "et"
    script = ("gamehall_et", "static/et.js")

    def spectator(self, engine) -> dict:
        pos = engine.pos
        tiles, leaders, treasures, catastrophes = [], [], [], []
        for c in range(WIDTH * HEIGHT):
            x, y = xy(c)
            if pos.tile[c] is not None:
                tiles.append([x, y, COLOUR_NAMES[pos.tile[c]]])
            if pos.leader[c] is not None:
                seat, colour = pos.leader[c]
                leaders.append([x, y, seat, COLOUR_NAMES[colour]])
            if pos.treasure[c]:
                treasures.append([x, y, pos.treasure[c] == 2])
            if pos.catastrophe[c]:
                catastrophes.append([x, y])
        monuments = [{"x": xy(tl)[0], "y": xy(tl)[1], "colours": [COLOUR_NAMES[k] for k in MONUMENTS[i]],
                      "main": COLOUR_NAMES[main]} for i, (tl, main) in sorted(pos.monuments.items())]
        players = [{"seat": s, "name": name, "hand": engine.hand_size(s),
                    "leaders": [COLOUR_NAMES[c] for c in engine.leaders_in_hand(s)],
                    "catastrophes": engine.catastrophes[s], "treasures": engine.wild[s]}
                   for s, name in enumerate(engine.players)]
        state = {
            "game": self.game, "width": WIDTH, "height": HEIGHT, "river": _RIVER,
            "tiles": tiles, "leaders": leaders, "treasures": treasures, "catastrophes": catastrophes,
            "monuments": monuments,
            "monuments_left": [[COLOUR_NAMES[a], COLOUR_NAMES[b]] for i, (a, b) in enumerate(MONUMENTS)
                               if i not in pos.monuments],
            "players": players, "order": list(engine.order), "bag": engine.bag_left,
            "active": engine.active if not engine.is_over() else None,
            "pending": engine.pending_seat(), "phase": engine.phase, "action": engine.action_no,
            "conflict": self._conflict(engine), "war": self._war(engine),
            "over": None,
        }
        if engine.is_over():
            state["over"] = {"reason": engine.end_reason, "final": engine.final,
                             "winners": engine.result()["winners"]}
        return state

    def seat(self, engine, seat: int) -> dict:
        state = self.spectator(engine)
        state["seat"] = seat
        state["hand"] = {COLOUR_NAMES[c]: engine.hands[seat][c] for c in COLOURS}
        state["score"] = {**{COLOUR_NAMES[c]: engine.scores[seat][c] for c in COLOURS},
                          "treasures": engine.wild[seat]}
        return state

    def _conflict(self, engine) -> dict | None:
        k = engine.conflict
        if k is None:
            return None
        att, dfn = engine.strengths()
        return {"kind": k["kind"], "colour": COLOUR_NAMES[k["colour"]],
                "commit": COLOUR_NAMES[engine.commit_colour()],
                "attacker": k["attacker"], "defender": k["defender"],
                "attacker_cell": _xy(k["att_cell"]), "defender_cell": _xy(k["def_cell"]),
                "strength": [att, dfn], "attacker_added": k["att_add"]}

    def _war(self, engine) -> dict | None:
        w = engine.war
        if w is None:
            return None
        return {"tile": _xy(w["tile"]), "remaining": [COLOUR_NAMES[c] for c in w["remaining"]]}

    # ------------------------------------------------------------ decisions
    def decision(self, engine, seat: int) -> dict | None:
        d = engine.pending()
        if d is None or d.seat != seat:
            return None
        legal = engine.legal_actions()
        o = d.options
        if d.kind == ACTION:
            return self._action_decision(engine, seat, legal, o)
        if d.kind == ADD:
            k = engine.conflict
            att, dfn = engine.strengths()
            attacking = seat == k["attacker"]
            mine, other = (att, dfn) if attacking else (dfn, att + (k["att_add"] or 0))
            what = "revolt" if o["conflict"] == "revolt" else f"{o['war_colour']} war"
            prompt = (f"In the {what}: commit {o['colour']} tiles (your strength {mine}, theirs {other}"
                      f"{' before they commit' if attacking else ''}; ties go to the defender)")
            choices = [{"label": f"Commit {a['add']['n']} {o['colour']}", "action": a} for a in legal]
            return {"prompt": prompt, "kind": d.kind, "choices": keyed(choices)}
        if d.kind == RESOLVE:
            choices = [{"label": f"Fight the {a['resolve']['colour']} war", "action": a} for a in legal]
            return {"prompt": "Kingdoms united: which war is fought first?", "kind": d.kind,
                    "choices": keyed(choices)}
        if d.kind == MONUMENT:
            choices = []
            for a in legal:
                if "decline" in a:
                    choices.append({"label": "Build no monument", "action": a})
                else:
                    b = a["build"]
                    choices.append({"label": f"Build the {'-'.join(b['colours'])} monument at "
                                             f"{b['x']},{b['y']}", "action": a})
            return {"prompt": "A square of four: build a monument?", "kind": d.kind, "choices": keyed(choices)}
        choices = [{"label": f"Take the treasure at {a['take']['x']},{a['take']['y']}", "action": a}
                   for a in legal]
        return {"prompt": "Your trader takes a treasure", "kind": TREASURE, "choices": keyed(choices),
                "targets": {"take": [[a["take"]["x"], a["take"]["y"]] for a in legal]}}

    def _action_decision(self, engine, seat: int, legal: list, o: dict) -> dict:
        """A turn's action: too many to list (any tile anywhere), so the board takes clicks on
        the targets listed per piece; the choices are pass, the engine bot's suggestion,
        taking a leader back, and discarding the whole hand."""
        targets: dict[str, list] = {}
        choices = []
        for a in legal:
            (verb, p), = a.items()
            if verb == "tile":
                targets.setdefault("tile:" + p["colour"], []).append([p["x"], p["y"]])
            elif verb == "leaderadd":
                targets.setdefault("leader:" + p["colour"], []).append([p["x"], p["y"]])
            elif verb == "leadermove":
                targets.setdefault(f"move:{p['x']},{p['y']}", []).append([p["to_x"], p["to_y"]])
            elif verb == "catastrophe":
                targets.setdefault("catastrophe", []).append([p["x"], p["y"]])
            elif verb == "pass":
                choices.append({"label": "Pass", "action": a})
            elif verb == "leadertake":
                who = engine.pos.leader[p["y"] * WIDTH + p["x"]]
                choices.append({"label": f"Take your {TITLES[COLOUR_NAMES[who[1]]]} back into your hand",
                                "action": a})
        hand = engine.hands[seat]
        if sum(hand.values()):
            whole = {"discard": {COLOUR_NAMES[c]: hand[c] for c in COLOURS}}
            if whole in legal:
                choices.append({"label": f"Discard all {sum(hand.values())} tiles and draw anew",
                                "action": whole})
        suggestion = self._suggest(engine, seat)
        if suggestion is not None and suggestion in legal and "pass" not in suggestion:
            choices.insert(0, {"label": "Suggested: " + self._action_text(engine, suggestion),
                               "action": suggestion})
        return {"prompt": f"Action {o['number']} of 2: choose a piece, then click where it goes",
                "kind": ACTION, "choices": keyed(choices), "board": True, "targets": targets}

    def _suggest(self, engine, seat: int) -> dict | None:
        # the strong bot sees what this seat sees (its own hand, the board): a fair hint
        from .bots import make_bot
        return make_bot("strong", 0).choose(engine.copy(), seat)

    def _action_text(self, engine, a: dict) -> str:
        (verb, p), = a.items()
        if verb == "tile":
            return f"a {p['colour']} tile at {p['x']},{p['y']}"
        if verb == "leaderadd":
            return f"your {TITLES[p['colour']]} ({p['colour']} leader) at {p['x']},{p['y']}"
        if verb == "leadermove":
            return f"move your leader from {p['x']},{p['y']} to {p['to_x']},{p['to_y']}"
        if verb == "leadertake":
            return f"take back your leader at {p['x']},{p['y']}"
        if verb == "catastrophe":
            return f"a catastrophe at {p['x']},{p['y']}"
        if verb == "discard":
            return "discard " + ", ".join(f"{n} {c}" for c, n in p.items() if n)
        return verb

    # ----------------------------------------------------------- event lines
    def describe(self, engine, seat: int | None, events: list) -> list[str]:
        names = engine.players
        out = []
        for e in events:
            line = self._line(names, seat, e)
            if line:
                out.append(line)
        return out

    def _line(self, names, seat, e: dict) -> str | None:
        t = e["type"]

        def who(k="seat"):
            s = e.get(k)
            return names[s] if isinstance(s, int) and 0 <= s < len(names) else "?"
        if t == "turn":
            return f"{who()}'s turn"
        if t == "tile_placed":
            return f"{who()} places a {e['colour']} tile at {e['x']},{e['y']}" + (
                " uniting two kingdoms" if e.get("unites") else "")
        if t == "scored":
            return f"{who()} scores {e['points']} {e['colour']} ({e['why']})"
        if t == "leader_placed":
            return f"{who()} places the {TITLES[e['colour']]} ({e['colour']} leader) at {e['x']},{e['y']}"
        if t == "leader_moved":
            return f"{who()} moves the {TITLES[e['colour']]} to {e['to_x']},{e['to_y']}"
        if t == "leader_withdrawn":
            why = {"taken": "takes back", "revolt": "loses (revolt)", "war": "loses (war)",
                   "catastrophe": "loses (catastrophe)"}.get(e.get("why"), "loses")
            return f"{who()} {why} the {TITLES[e['colour']]} at {e['x']},{e['y']}"
        if t == "catastrophe":
            gone = f", destroying a {e['removed']} tile" if e.get("removed") else ""
            return f"{who()} drops a catastrophe at {e['x']},{e['y']}{gone}"
        if t == "tile_removed":
            return f"the {e['colour']} tile at {e['x']},{e['y']} is lost"
        if t == "discarded":
            return f"{who()} discards {e['count']} tiles"
        if t == "drew":
            return f"{who()} draws {e['count']} tiles" if e.get("seat") != seat else f"you draw {e['count']} tiles"
        if t == "revolt":
            return (f"revolt: {who('attacker')}'s {e['colour']} leader challenges {who('defender')}'s "
                    f"at {e['x']},{e['y']}")
        if t == "war_pending":
            return f"war in {', '.join(e['colours'])}: {who()} chooses the order"
        if t == "war":
            return f"{e['colour']} war: {who('attacker')} attacks {who('defender')}"
        if t == "committed":
            return f"{who()} commits {e['n']} {e['colour']}"
        if t == "conflict_won":
            a, d = e["strength"]
            return f"{who('winner')} wins the {e['colour']} {e['kind']} ({a} to {d})"
        if t == "monument_built":
            return f"{who()} builds the {'-'.join(e['colours'])} monument at {e['x']},{e['y']}"
        if t == "treasure_taken":
            return f"{who()} takes the treasure at {e['x']},{e['y']}"
        if t == "game_over":
            winners = " and ".join(names[s] for s in e["winners"])
            return f"game over ({e['reason']}): {winners} wins"
        return None

    def scores(self, engine) -> list[float]:
        """Each seat's score as the final reckoning counts it (weakest colour, treasures wild).

        Only the replay page shows it, after the game: while a game runs nobody
        sees the others' totals."""
        from .scoring import with_treasures
        return [float(with_treasures(engine.scores[s], engine.wild[s])[0]) for s in range(len(engine.players))]
