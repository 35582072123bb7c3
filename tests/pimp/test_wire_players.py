"""Kicks, takeovers by an observer, switching to play and AFK, over the wire through the hall.

In process (StringTransport connections, the hall on a ``Clock`` that moves only when a test
says so, a seeded hall), wire clients that parse every frame by the protocol text's layouts
(and fail on a payload of the wrong length or an unknown code) check each message by its bytes.
"""
from __future__ import annotations

import random

from gamehall_pimp.game import PimpGame
from gamehall_pimp.wire.protocol import LINK_DEAD_AFTER, PING_EVERY, build_factory, game_number, rooms_of
from tests.helpers import make_hall
from tests.pimp.test_frontend import Conn
from tests.pimp.wireclient import LAYOUTS, WireClient, parse_exact, u32

# what the server may send beyond what WireClient reads (pimp-protocol.txt, "Changing Status")
MORE_LAYOUTS = {0x0C: ("PLAYER_TAKEOVER", "BB"), 0x0E: ("OBSERVER_BECAME_PLAYER", "B"),
                0xDC: ("PLAYER_BECAME_OBSERVER_KICKED", "B")}

# client messages, as bytes (type, length, payload)
AFK = bytes((0xD5, 0))
SWITCH_PLAY = bytes((0x0D, 0))
REQUEST_STATE = bytes((0x11, 0))
THROW_DICE = bytes((0x21, 0))


def kick(pid: int) -> bytes:
    return bytes((0xD3, 1, pid))


def transfer(pid: int) -> bytes:
    return bytes((0xD4, 1, pid))


def accept(cid: int) -> bytes:
    return bytes((0x08, 4)) + u32(cid)


def refuse(cid: int) -> bytes:
    return bytes((0x09, 4)) + u32(cid)


def rejoin(pid: int, password: int) -> bytes:
    return bytes((0x0A, 5, pid)) + u32(password)


def pimp_string(s: str) -> bytes:
    raw = s.encode("utf-8")
    return bytes((len(raw),)) + raw


def msg(code: int, *fields) -> bytes:
    """A server frame built from the protocol text: ints as bytes unless given as u32(...)."""
    payload = b"".join(f if isinstance(f, bytes) else bytes((f,)) for f in fields)
    return bytes((code, len(payload))) + payload


class Client(WireClient):
    """A WireClient that keeps every frame's bytes, parses strictly (a payload exactly as long
    as the protocol text's fields), and may stall on its turn or leave votes to the test."""

    def __init__(self, name, piece=0, play=True, auto_vote=True):
        super().__init__(name, piece=piece, play=play)
        self.frames: list[bytes] = []
        self.auto_vote = auto_vote
        self.stall = False                       # do not roll on my turn
        self.stall_when = None                   # ... or from the first turn this says so

    def decode(self, code: int, payload: bytes) -> tuple:
        self.frames.append(bytes((code, len(payload))) + payload)
        name, layout = LAYOUTS.get(code) or MORE_LAYOUTS[code]
        return (name, *parse_exact(layout, payload, name))

    def raw(self, data: bytes) -> None:
        self.outbox.append(data)

    def on_QUERY_JOIN_PLAY(self, cid, name):
        if self.auto_vote:
            super().on_QUERY_JOIN_PLAY(cid, name)

    on_QUERY_JOIN_OBSERVE = on_QUERY_JOIN_PLAY

    def on_START_OF_TURN(self, pid, throw):
        if pid == self.me and self.stall_when is not None and self.stall_when():
            self.stall, self.stall_when = True, None
        if not self.stall:
            super().on_START_OF_TURN(pid, throw)

    def since(self, mark: int) -> list[bytes]:
        return self.frames[mark:]


class Room:
    """A seeded hall with the pimp front end on a Clock, and its connections."""

    def __init__(self, seed: int, seat_hold: float = 10_000, **kw):
        self.hall = make_hall(games={"pimp": PimpGame()}, idle_timeout=0, seat_hold=seat_hold,
                              rng=random.Random(seed), **kw)
        self.factory = build_factory(self.hall)
        self.conns: dict[Client, Conn] = {}
        self.port = 5000

    def connect(self, client: Client) -> Client:
        self.port += 1
        self.conns[client] = Conn(self.factory, client, self.port)
        return client

    def drop(self, client: Client) -> None:
        self.conns.pop(client).proto.connectionLost(None)

    def settle(self, until=None, rounds: int = 200_000) -> None:
        """Pump bytes both ways until nobody has anything to say (the clock stands still)."""
        for _ in range(rounds):
            if until is not None and until():
                return
            busy = False
            for conn in list(self.conns.values()):
                busy = conn.pump() or busy
            if not busy:
                if until is None:
                    return
                raise AssertionError("settled before the condition held")
        raise AssertionError("did not settle")

    def marks(self) -> dict:
        return {c: len(c.frames) for c in self.conns}

    @property
    def table(self):
        return rooms_of(self.hall).current()

    @property
    def game(self):
        return self.table.engine.game


def players_joined(room: Room, *clients: Client) -> None:
    """Connect ``clients`` one by one; each is voted in (or admitted first) before the next."""
    for c in clients:
        room.connect(c)
        room.settle()
        assert c.me, c.name


def estate_to(pid: int, heir: int, g) -> list[bytes]:
    """The DELTA_* frames of ``pid``'s estate going to ``heir`` (no buildings, nothing mortgaged:
    the positions these tests reach), built from the protocol text's layouts."""
    assert not any(g.level[p] or g.mortgaged[p] for p in g.owned_by(pid))
    out = [msg(0xC0, pid, heir, u32(g.users[pid].cash))] if g.users[pid].cash else []
    out += [msg(0xC1, pid, heir, p) for p in g.owned_by(pid)]
    out += [msg(0xC2, pid, heir, card) for card in g.cards_of(pid)]
    return out


def test_a_kick_vote_against_a_player_who_stalls_on_his_turn():
    """PIMP_KICK "only has an effect if it is that player's turn", the "kick count gets reset
    when the turn ends", a majority moves the estate to the bank, then START_OF_TURN(next),
    then PLAYER_BECAME_OBSERVER_KICKED (pimp-server-behaviour.md); the kicked one stays on as
    an observer and is told the same as everyone."""
    room = Room(1)
    kerz, pavlov, ann = Client("kerz", 7), Client("pavlov", 4), Client("ann", 2)
    obs = Client("obs", 9, play=False)
    # pavlov plays until he owns something, then sits on his turn without rolling
    pavlov.stall_when = lambda: any(o == pavlov.me for o in pavlov.owner.values())
    players_joined(room, kerz, pavlov, ann, obs)
    g = room.game
    assert (kerz.me, pavlov.me, ann.me, obs.me) == (1, 2, 3, 4)
    assert g.turn == 2 and g.phase == "roll" and pavlov.stall
    everyone = [kerz, pavlov, ann, obs]

    # a KICK of a player whose turn it is not does nothing; an unknown player is an invalid id
    m = room.marks()
    ann.raw(kick(1))
    room.settle()
    assert all(c.since(m[c]) == [] for c in everyone)
    ann.raw(kick(99))
    room.settle()
    assert ann.since(m[ann]) == [msg(0xFC, 0xD3)]
    assert all(c.since(m[c]) == [] for c in everyone if c is not ann)

    # one vote of the two other players is no majority: nothing happens, nobody hears of it
    m = room.marks()
    kerz.raw(kick(2))
    room.settle()
    assert all(c.since(m[c]) == [] for c in everyone) and g.users[2].playing

    # pavlov rolls after all: his turn ends and kerz's vote with it; on his next turn he stalls
    pavlov.stall, pavlov.stall_when = False, (lambda: True)
    pavlov.raw(THROW_DICE)
    room.settle()
    assert g.turn == 2 and g.phase == "roll" and pavlov.stall
    m = room.marks()
    ann.raw(kick(2))
    room.settle()
    assert all(c.since(m[c]) == [] for c in everyone) and g.users[2].playing

    # kerz votes again: two of two, pavlov is kicked
    for c in everyone:
        c.stall = True                  # the game stands still after the kick, to read it
    estate = estate_to(2, 0, g)
    assert estate[1:] == [msg(0xC1, 2, 0, 11), msg(0xC2, 2, 0, 7)]     # a property and a card
    assert kerz.cash[2] == ann.cash[2] == obs.cash[2] == g.users[2].cash
    m = room.marks()
    kerz.raw(kick(2))
    room.settle()
    told = estate + [msg(0x20, 3, 1), msg(0xDC, 2)]
    assert all(c.since(m[c]) == told for c in everyone)
    assert not g.users[2].playing and g.owned_by(2) == [] and g.turn == 3

    # pavlov is an observer now: a state dump says so, and he cannot roll
    m = room.marks()
    pavlov.raw(REQUEST_STATE)
    room.settle()
    dump = pavlov.since(m[pavlov])
    assert msg(0x14, 2, 4, pimp_string("pavlov")) in dump
    assert not any(f[0] == 0x13 and f[2] == 2 for f in dump)          # no STATE_PLAYER for 2
    assert dump[-1] == msg(0x20, 3, 1)                                # catch-up: ann's turn
    m = room.marks()
    pavlov.raw(THROW_DICE)
    room.settle()
    assert pavlov.since(m[pavlov]) == [msg(0xFE, 0x21)]
    assert all(c.since(m[c]) == [] for c in everyone if c is not pavlov)
    # ... and still watches the game
    m = room.marks()
    ann.stall = False
    ann.raw(THROW_DICE)
    room.settle(until=lambda: any(f[0] == 0x22 for f in pavlov.since(m[pavlov])))
    assert pavlov.since(m[pavlov])[0][:3] == bytes((0x22, 3, 3))      # DICE_ROLLED(ann, ...)


def back_with_password(room: Room, name: str, pid: int, password: int) -> Client:
    """A new connection that rejoins as ``pid`` (HANDSHAKE, then REJOIN with the password)."""
    c = Client(name)
    c.me = -1                                    # no JOIN on the acknowledgement
    c.stall = True
    c.outbox = [bytes((0x00, 1, 1)), rejoin(pid, password)]
    room.connect(c)
    room.settle()
    return c


def test_a_kick_vote_against_a_player_who_left_and_his_return_as_an_observer():
    """pavlov's connection drops on his turn (the hall holds his seat); the two others kick
    him; when he comes back with his password he is an observer: WELCOME_BACK(..., playing
    false) and a state dump that lists him with STATE_OBSERVER.  His held seat meanwhile went
    to a server bot, which, at an observer's seat, does nothing."""
    room = Room(2, seat_hold=100)
    kerz, pavlov, ann = Client("kerz", 7), Client("pavlov", 4), Client("ann", 2)
    pavlov.stall_when = lambda: any(o == pavlov.me for o in pavlov.owner.values())
    players_joined(room, kerz, pavlov, ann)
    g, table = room.game, room.table
    assert g.turn == 2 and g.phase == "roll" and g.owned_by(2) == [9]
    password = pavlov.password
    room.drop(pavlov)
    assert table.seats[1].user is None and table.seats[1].kind == "human"       # held
    kerz.stall = ann.stall = True
    estate = estate_to(2, 0, g)
    m = room.marks()
    kerz.raw(kick(2))
    room.settle()
    assert kerz.since(m[kerz]) == ann.since(m[ann]) == []
    ann.raw(kick(2))
    room.settle()
    told = estate + [msg(0x20, 3, 1), msg(0xDC, 2)]
    assert kerz.since(m[kerz]) == ann.since(m[ann]) == told
    assert not g.users[2].playing and g.playing() == [1, 3]

    # the hold expires: a server bot takes the seat of an observer, and nothing happens
    m = room.marks()
    room.hall.clock.advance(100)
    room.settle()
    assert table.seats[1].kind == "bot"
    pings = {c: [f for f in c.since(m[c]) if f[0] != 0xD0] for c in (kerz, ann)}
    assert pings == {kerz: [], ann: []}                   # only the hall's PINGs went out
    assert g.turn == 3 and g.phase == "roll" and not g.users[2].playing

    # pavlov comes back with his password: an observer, told so by WELCOME_BACK and the dump
    back = back_with_password(room, "pavlov", 2, password)
    frames = back.frames
    assert frames[0] == msg(0x01, u32(game_number(room.table)))                     # the handshake's ack
    assert frames[1] == msg(0x0B, 2, 4, pimp_string("pavlov"), 0)          # WELCOME_BACK, observing
    assert frames[2] == msg(0x12, 0)                                       # STATE_BOARD
    assert msg(0x14, 2, 4, pimp_string("pavlov")) in frames
    players = [f for f in frames if f[0] == 0x13]
    assert [f[2] for f in players] == [1, 3]
    assert frames[-1] == msg(0x20, 3, 1)
    assert table.seats[1].kind == "human" and table.seats[1].user.nickname == "pavlov"
    assert "pavlov" in {u.nickname for u in room.hall.who()}



def test_an_observer_takes_over_the_piece_of_a_player_who_dropped():
    """PIMP has no message for an observer to take a seat: PLAYER_TAKEOVER is the result of the
    leaving player's TRANSFER to an observer ("PIMP_TRANSFER PIMP_PLAYER_TAKEOVER PIMP_DELTA_*
    PIMP_PLAYER_BECAME_OBSERVER_TRANSFER").  pavlov drops on his turn; obs cannot take his place
    by itself; pavlov comes back with his password and transfers everything to obs, who then
    has pavlov's piece, square, cash, property and card, and his turn."""
    room = Room(1)
    kerz, pavlov, obs = Client("kerz", 7), Client("pavlov", 4), Client("obs", 9, play=False)
    pavlov.stall_when = lambda: any(o == pavlov.me for o in pavlov.owner.values())
    players_joined(room, kerz, pavlov, obs)
    g, table = room.game, room.table
    assert (kerz.me, pavlov.me, obs.me) == (1, 2, 3)
    assert g.turn == 2 and g.phase == "roll" and not g.claims and not g.transactions
    square, cash = g.users[2].square, g.users[2].cash
    assert g.owned_by(2) == [11] and g.cards_of(2) == [7]
    password = pavlov.password
    room.drop(pavlov)
    kerz.stall = obs.stall = True

    # an observer has nothing to transfer and no way to claim the dropped player's seat
    m = room.marks()
    obs.raw(transfer(2))
    room.settle()
    assert obs.since(m[obs]) == [msg(0xFC, 0xD4)] and kerz.since(m[kerz]) == []

    # pavlov comes back and hands everything to obs
    back = back_with_password(room, "pavlov", 2, password)
    assert back.received[1] == ("WELCOME_BACK", 2, 4, "pavlov", True)
    estate = estate_to(2, 3, g)
    m = room.marks()
    back.raw(transfer(3))
    room.settle()
    told = [msg(0x0C, 3, 2)] + estate + [msg(0xDA, 2)]
    assert kerz.since(m[kerz]) == obs.since(m[obs]) == back.since(m[back]) == told
    assert g.turn == 3 and g.users[3].playing and not g.users[2].playing
    # the takeover "implies that player X has the piece player Y had": a state dump agrees
    kerz.raw(REQUEST_STATE)
    room.settle()
    dump = kerz.since(m[kerz])[len(told):]
    assert msg(0x13, 3, 4, pimp_string("obs"), square, u32(cash), 0) in dump    # STATE_PLAYER
    assert msg(0x14, 2, 4, pimp_string("pavlov")) in dump                       # STATE_OBSERVER
    assert msg(0x15, 11, 3, 0, 0, 0) in dump and msg(0x16, 7, 3) in dump
    assert dump[-1] == msg(0x20, 3, 1)                    # obs's turn (no START_OF_TURN was sent)
    assert table.seats[2].user.nickname == "obs" and table.engine.pending_seat() == 2

    # obs plays on pavlov's turn, from pavlov's square
    m = room.marks()
    obs.raw(THROW_DICE)
    room.settle()
    rolled = kerz.since(m[kerz])
    assert rolled[0][:3] == bytes((0x22, 3, 3))                              # DICE_ROLLED(3, d1, d2)
    total = rolled[0][3] + rolled[0][4]
    assert rolled[1] == msg(0x24, 3, (square + total) % 40, total)            # DICE_MOVED_PLAYER


def test_an_observer_switches_to_play_before_the_game_starts_and_moves_first():
    """SWITCH_PLAY "runs through the 0x06, 0x08, 0x09, 0x0F thing with the players, but if
    successful responds to everyone with 0x0E instead of 0x03 to the requester and 0x04 to
    everyone"; "more such messages are silently ignored".  obs came first, as an observer;
    kerz is the only player, so nothing starts until obs becomes the second player, who (like a
    second joiner) moves first."""
    room = Room(3)
    obs = Client("obs", 9, play=False)
    kerz = Client("kerz", 7, auto_vote=False)
    room.connect(obs)
    room.settle()
    assert obs.me == 1 and "JOIN_PENDING" not in obs.names()        # the first joiner: no vote
    room.connect(kerz)
    room.settle()                                     # obs (auto vote) lets kerz in
    assert kerz.me == 2 and room.game.phase == "lobby" and "START_OF_TURN" not in kerz.names()

    m = room.marks()
    obs.raw(SWITCH_PLAY)
    room.settle()
    assert obs.since(m[obs]) == []                    # the requester is not asked about itself
    assert kerz.since(m[kerz]) == [msg(0x06, u32(3), pimp_string("obs"))]       # QUERY_JOIN_PLAY
    obs.raw(SWITCH_PLAY)                              # a second request while one is pending
    kerz.raw(SWITCH_PLAY)                             # a player asking to play
    room.settle()
    assert obs.since(m[obs]) == [] and kerz.since(m[kerz]) == [msg(0x06, u32(3), pimp_string("obs"))]

    obs.stall = kerz.stall = True
    m = room.marks()
    kerz.raw(accept(3))
    room.settle()
    told = [msg(0x0E, 1), msg(0xC0, 0, 1, u32(1500)), msg(0x20, 1, 1)]
    assert obs.since(m[obs]) == kerz.since(m[kerz]) == told
    assert room.game.users[1].playing and room.game.turn == 1
    m = room.marks()
    kerz.raw(REQUEST_STATE)
    room.settle()
    dump = kerz.since(m[kerz])
    # the piece obs preferred, at Go, with the starting cash
    assert msg(0x13, 1, 9, pimp_string("obs"), 0, u32(1500), 0) in dump
    assert not any(f[0] == 0x14 for f in dump)                                  # no observer left


def test_an_observer_switching_to_play_mid_game_is_refused_then_accepted():
    """Mid-game: the players refuse obs (JOIN_REFUSED to all, and to obs ERROR_NOT_WELCOME, as
    for a refused join), obs stays an observer and asks again; accepted, it has a piece at Go
    with 1500 and gets its turns."""
    room = Room(4)
    kerz, pavlov = Client("kerz", 7, auto_vote=False), Client("pavlov", 4, auto_vote=False)
    obs = Client("obs", 9, play=False)
    room.connect(kerz)
    room.settle()
    room.connect(pavlov)
    room.settle()
    kerz.raw(accept(2))
    room.settle(until=lambda: room.game.turns > 6)    # the game is under way
    for c in (kerz, pavlov):
        c.stall = True
    room.settle()
    room.connect(obs)
    room.settle()
    kerz.raw(accept(3))
    room.settle()
    assert obs.me == 3 and not room.game.users[3].playing
    everyone = [kerz, pavlov, obs]

    m = room.marks()
    obs.raw(SWITCH_PLAY)
    room.settle()
    query = msg(0x06, u32(4), pimp_string("obs"))
    assert kerz.since(m[kerz]) == pavlov.since(m[pavlov]) == [query] and obs.since(m[obs]) == []
    kerz.raw(refuse(4))
    room.settle()
    assert all(c.since(m[c]) == ([query] if c is not obs else []) for c in everyone)   # 1 of 2: no
    pavlov.raw(refuse(4))
    room.settle()
    refused = msg(0x0F, u32(4), pimp_string("obs"))
    assert kerz.since(m[kerz]) == pavlov.since(m[pavlov]) == [query, refused]
    assert obs.since(m[obs]) == [refused, msg(0xF3)]
    assert not room.game.users[3].playing

    m = room.marks()
    obs.raw(SWITCH_PLAY)
    room.settle()
    query = msg(0x06, u32(5), pimp_string("obs"))
    assert kerz.since(m[kerz]) == pavlov.since(m[pavlov]) == [query]
    pavlov.raw(accept(5))                             # one yes of two voters is enough
    room.settle()
    told = [msg(0x0E, 3), msg(0xC0, 0, 3, u32(1500))]
    assert kerz.since(m[kerz]) == pavlov.since(m[pavlov]) == [query] + told
    assert obs.since(m[obs]) == told
    assert room.game.users[3].playing and obs.cash[3] == kerz.cash[3] == 1500
    # everyone plays on; obs gets its turn and rolls
    for c in everyone:
        c.stall = False
    g = room.game
    {c.me: c for c in everyone}[g.turn].raw(THROW_DICE)
    room.settle(until=lambda: any(m[0] == "DICE_ROLLED" and m[1] == 3 for m in kerz.received))


def three_players(seed: int, **kw) -> tuple:
    """kerz, pavlov and ann, voted in by hand; the game stands at pavlov's first turn."""
    room = Room(seed, **kw)
    kerz, pavlov, ann = (Client(n, p, auto_vote=False) for n, p in (("kerz", 7), ("pavlov", 4), ("ann", 2)))
    for c in (kerz, pavlov, ann):
        c.stall = True
    room.connect(kerz)
    room.settle()
    room.connect(pavlov)
    room.settle()
    kerz.raw(accept(2))
    room.settle()
    room.connect(ann)
    room.settle()
    kerz.raw(accept(3))                   # one yes of two voters
    room.settle()
    assert (kerz.me, pavlov.me, ann.me) == (1, 2, 3) and room.game.turn == 2
    return room, kerz, pavlov, ann


def test_afk_users_do_not_count_in_votes_and_any_other_message_brings_them_back():
    """AFK (0xD5, no payload) "tells the server to ignore this player when it comes to votes.
    Any other message sent from the client will cancel this notice (including PIMP_PONG!)".
    The others are told nothing: the message names nobody and the protocol has no notice of it.
    A vote pending when a voter goes AFK is decided on the spot if the rest suffice."""
    room, kerz, pavlov, ann = three_players(5)
    users = [kerz, pavlov, ann]

    # dan asks to play: three voters, so kerz's yes is not enough
    dan = room.connect(Client("dan", 3))
    dan.stall = True
    room.settle()
    assert dan.frames[-1] == msg(0x10)                                     # JOIN_PENDING
    assert all(c.since(len(c.frames) - 1) == [msg(0x06, u32(4), pimp_string("dan"))] for c in users)
    m = room.marks()
    kerz.raw(accept(4))
    room.settle()
    assert all(c.since(m[c]) == [] for c in room.conns)
    # ann goes AFK: nobody hears of it, but two voters are left and kerz's yes decides
    ann.raw(AFK)
    room.settle()
    welcome = [msg(0x04, 4, 3, pimp_string("dan")), msg(0xC0, 0, 4, u32(1500))]
    assert all(c.since(m[c]) == welcome for c in users)
    assert dan.since(m[dan])[0] == msg(0x03, 4, u32(room.game.users[4].password))   # WELCOME_DETAILS
    assert room.game.users[3].afk

    # the hall's ping: every client answers PONG, ann's cancels her AFK
    m = room.marks()
    room.hall.clock.advance(PING_EVERY)
    room.settle()
    assert all(c.since(m[c]) == [msg(0xD0, u32(1))] for c in room.conns)
    assert not room.game.users[3].afk
    # eve: four voters again (ann counts), two refusals are not more than half
    eve = room.connect(Client("eve", 5))
    room.settle()
    m = room.marks()
    kerz.raw(refuse(5))
    pavlov.raw(refuse(5))
    room.settle()
    assert all(c.since(m[c]) == [] for c in room.conns) and room.game.candidates
    ann.raw(refuse(5))
    room.settle()
    refused = msg(0x0F, u32(5), pimp_string("eve"))
    assert all(c.since(m[c]) == [refused] for c in (kerz, pavlov, ann, dan))
    assert eve.since(m[eve]) == [msg(0xF3)]                       # ERROR_NOT_WELCOME


def test_a_refused_message_or_a_state_request_ends_afk_too_and_a_restart_keeps_it():
    """"Any other message" ends AFK, also one the server refuses and a state request; the hall
    stores that like an action, so the game restored after a restart counts the same voters."""
    from gamehall.hall import Hall
    from gamehall.store import MemoryStore
    store = MemoryStore()
    room, kerz, pavlov, ann = three_players(6, store=store)
    g = room.game
    m = room.marks()
    ann.raw(AFK)
    kerz.raw(AFK)
    room.settle()
    assert all(c.since(m[c]) == [] for c in room.conns) and g.users[3].afk and g.users[1].afk
    ann.raw(THROW_DICE)                                   # not her turn: refused
    kerz.raw(REQUEST_STATE)
    room.settle()
    assert ann.since(m[ann]) == [msg(0xFE, 0x21)] and kerz.since(m[kerz])[0] == msg(0x12, 0)
    assert pavlov.since(m[pavlov]) == []
    assert not g.users[3].afk and not g.users[1].afk
    pavlov.raw(AFK)
    room.settle()
    before = g.to_dict()
    hall2 = Hall(room.hall.clock, store, {"pimp": PimpGame()}, seat_hold=30.0, idle_timeout=0)
    hall2.restore()
    after = rooms_of(hall2).current().engine.game.to_dict()
    assert [u["afk"] for u in after["users"]] == [False, True, False]
    assert after == before


def test_an_afk_user_is_no_kick_voter_and_a_silent_one_is_announced_link_dead():
    """AFK users are ignored "when it comes to votes": with ann AFK, kerz alone is the majority
    that kicks pavlov.  The server does not announce AFK ("may ... send the LINK_DEAD message
    but doesn't need to"); a client that then stops answering is announced by LINK_DEAD after
    the hall's ping goes unanswered, and nothing else happens."""
    room, kerz, pavlov, ann = three_players(7)
    g = room.game
    ann.on_PING = lambda number: None                     # away: her client answers nothing
    m = room.marks()
    ann.raw(AFK)
    room.settle()
    estate = estate_to(2, 0, g)
    kerz.raw(kick(2))
    room.settle()
    told = estate + [msg(0x20, 3, 1), msg(0xDC, 2)]
    assert all(c.since(m[c]) == told for c in room.conns)
    assert g.users[3].afk and g.turn == 3                 # her turn all the same

    m = room.marks()
    room.hall.clock.advance(PING_EVERY)
    room.settle()
    assert all(c.since(m[c]) == [msg(0xD0, u32(1))] for c in room.conns)
    room.hall.clock.advance(LINK_DEAD_AFTER)
    room.settle()
    assert all(c.since(m[c]) == [msg(0xD0, u32(1)), msg(0xD2, 3)] for c in room.conns)
    assert g.users[3].afk and g.turn == 3 and g.users[3].playing


def test_a_player_sending_moves_is_alive_without_answering_ping():
    """Any message from a client is a sign of life: pavlov's client does not answer PING but
    plays on; he is not announced LINK_DEAD.  Ann, silent, is; a late PONG is still accepted."""
    room, kerz, pavlov, ann = three_players(8)
    pavlov.on_PING = lambda number: None
    ann.on_PING = lambda number: None
    room.hall.clock.advance(PING_EVERY)
    room.settle()
    m = room.marks()
    pavlov.raw(THROW_DICE)                        # his move, after the ping, no PONG
    room.settle()
    room.hall.clock.advance(LINK_DEAD_AFTER)
    room.settle()
    dead = [f for f in kerz.since(m[kerz]) if f[0] == 0xD2]
    assert dead == [msg(0xD2, 3)]                 # ann only
    pavlov.raw(bytes((0xD1, 4)) + u32(1))          # PONG 1, late: accepted silently
    room.settle()
    assert all(f[0] != 0xFE for f in pavlov.frames)
