"""A registered name over each old protocol's real wire: its owner comes in with
``NAME+KEY`` (the key stripped before anyone sees the name), anyone else is refused in
the protocol's own words, a guest's name works as before."""
from __future__ import annotations

from twisted.internet.defer import maybeDeferred
from twisted.python.failure import Failure

from gamehall.players import key_hash


def _done(d):
    out = []
    d.addBoth(out.append)
    if isinstance(out[0], Failure):
        out[0].raiseException()
    return out[0]


def register(hall, name="Alice"):
    """``name`` registered in ``hall`` (Argon2 on the test thread), and a key for it."""
    hall.players.run = lambda f, *a: maybeDeferred(f, *a)
    player = _done(hall.players.register(name, "correct horse", "10.0.0.1"))
    return _done(hall.players.make_key(player, "old client"))


# -- NetAcquire ------------------------------------------------------------------------
def test_netacquire():
    from tests.netacquire.harness import Conn, acquire_hall, pump_all
    from gamehall_acquire.wire.protocol import build_factory
    hall = acquire_hall()
    key = register(hall)
    factory = build_factory(hall)
    watcher = Conn(factory, "watcher", 1)
    owner = Conn(factory, "alice+" + key, 2)
    pump_all([watcher, owner])
    user = hall.lobby.find("alice")
    assert (user.nickname, user.registered, user.frontend) == ("Alice", True, "netacquire")
    assert owner.logic.lm[0] == "Welcome to gamehall, Alice!"
    assert not owner.closed and key.encode() not in watcher.raw + owner.raw
    assert hall.players.get("alice").keys[key_hash(key)].last_used is not None
    impostor = Conn(factory, "ALICE", 3)
    assert impostor.logic.boxes[0].startswith("E;Registered Nickname;Nickname Alice is registered")
    assert impostor.closed
    lookalike = Conn(factory, "AIice", 4)                 # capital I for l
    assert "looks too much like Alice, a registered name" in lookalike.logic.boxes[0] and lookalike.closed
    again = Conn(factory, "Alice+" + key, 5, host="10.9.9.9")    # the key, elsewhere, at the same time
    assert again.logic.boxes[0].startswith("E;Duplicate user Nickname;Duplicate user Nickname Alice: "
                                           "Alice is logged in already") and again.closed
    wrong = Conn(factory, "Alice+aaaaaaaaaaaa", 6)
    assert wrong.logic.boxes[0].startswith("E;Invalid Nickname;Wrong or revoked key for Alice") and wrong.closed
    guest = Conn(factory, "bob", 7)
    assert not guest.closed and hall.lobby.find("bob").registered is False


# -- Euphrates & Tigris ---------------------------------------------------------------
def test_euphrates_tigris():
    from gamehall_et.wire.protocol import build_factory
    from tests.et.harness import Conn, et_hall
    hall = et_hall()
    key = register(hall)
    factory = build_factory(hall)
    watcher, owner = Conn(factory), Conn(factory)
    hall.clock.advance(factory.window)
    watcher.lines()
    assert owner.send(f"name alice+{key}") == [f"name {owner.id} Alice"]
    assert hall.lobby.find("Alice").registered
    hall.clock.advance(factory.window)
    assert watcher.lines() == [f"name {owner.id} Alice"]
    other = Conn(factory)
    assert other.send("name alice") == ["ERROR nickname Alice is registered. Its owner types it with their key "
                                        "(Alice+KEY) or signs in with the password on the web page"]
    assert other.send(f"name Alice+{key}")[0].startswith("ERROR duplicate user Nickname Alice: Alice is "
                                                         "logged in already")
    assert other.send("name bob") == [f"name {other.id} bob"]
    assert not hall.lobby.find("bob").registered
    # a session taken over keeps its registered name (the session password proves it)
    owner.send("password sesame")
    owner.drop()
    new = Conn(factory)
    new.send(f"takeover {owner.id} sesame")
    user = hall.lobby.find("alice")
    assert (user.nickname, user.registered, user.sink) == ("Alice", True, new.proto)
    assert all(key not in line for line in watcher.seen + other.seen + new.seen)


# -- Windward -------------------------------------------------------------------------
def test_windward():
    from gamehall_acquire.windward.wire.codec import encode_join
    from tests.windward.test_wire_protocol import Harness, table_of
    h = Harness()
    key = register(h.hall)
    ann = h.join("Ann")
    assert h.join("").refused()            # (the first refusal is logged at once; the rest are counted)
    assert h.join("Alice").refused()                          # the name without its key
    assert h.join("AIice").refused()                          # a lookalike
    owner = h.join("alice+" + key)
    assert not owner.refused()
    user = h.hall.lobby.find("alice")
    assert (user.nickname, user.registered, user.frontend) == ("Alice", True, "windward")
    assert table_of(h).players() == ["Ann", "Alice"]
    assert h.join("Alice+" + key).refused()                   # the key again while its owner is in
    reasons = h.service.refusals.counts
    assert reasons["duplicate"] == 1
    assert [why for why in reasons if "registered" in why] == [
        "Nickname Alice is registered. Its owner types it with their key (Alice+KEY) or signs in with the "
        "password on the web page", "Nickname AIice looks too much like Alice, a registered name"]
    # the owner's connection drops: coming back as the contestant needs the key too
    owner.drop()
    assert h.join("Alice").refused()
    back = h.connect()
    back.send(encode_join("Alice+" + key))
    assert not back.refused() and h.service.contestants["alice"].connected
    seats = table_of(h).seats
    assert [s.registered for s in seats] == [False, True]
    everything = b"".join(c.transport.value() for c in (ann, back)) + b"".join(ann.frames + back.frames)
    assert key.encode() not in everything


# -- DAIDE (Diplomacy) --------------------------------------------------------------------
def test_daide():
    from tests.daide.test_server_wire import replies
    from tests.daide.client import initial
    from tests.daide.wire import Link, daide_hall, factory_of
    hall = daide_hall(bot_delay=0.5)
    key = register(hall)
    factory = factory_of(hall)

    def link(host="127.0.0.1"):
        new = Link(factory, host=host)
        new.raw(initial())
        return new

    owner = link()
    assert replies(owner, f"NME ( 'alice+{key}' ) ( 'v1' )")[0] == ["YES", "(", "NME", "(", "'alice+" + key + "'",
                                                                     ")", "(", "'v1'", ")", ")"]
    user = hall.lobby.find("alice")
    assert (user.nickname, user.registered, user.frontend) == ("Alice", True, "daide")
    table = user.table
    assert table.options["daide_clients"] == {"Alice": ["alice", "v1"]}     # as typed, without the key
    assert key not in str(table.summary()) and [s.registered for s in table.seats] == [True]
    # the key again, from elsewhere, while its owner is in: REJ (DAIDE's only word for it)
    other = link("10.9.9.9")
    assert replies(other, f"NME ( 'Alice+{key}' ) ( 'v1' )")[0][:3] == ["REJ", "(", "NME"]
    assert replies(other, "NME ( 'Alice+aaaaaaaaaaaa' ) ( 'v1' )")[0][:3] == ["REJ", "(", "NME"]
    assert hall.lobby.find("Alice") is user
    # without the key the name is not given: a guest gets a numbered name, as for any name in use
    assert replies(other, "NME ( 'alice' ) ( 'v1' )")[0][:3] == ["YES", "(", "NME"]
    guest = other.proto.user
    assert (guest.nickname, guest.registered) == ("alice2", False)


# -- PIMP (Monopoly) ------------------------------------------------------------------------
def test_pimp(monkeypatch):
    from tests.pimp.test_wire_players import MORE_LAYOUTS, Client, Room, players_joined
    monkeypatch.setitem(MORE_LAYOUTS, 0xF2, ("ERROR_NAME_IN_USE", ""))
    room = Room(1)
    key = register(room.hall)
    kerz, owner = Client("kerz", 7), Client("alice+" + key, 4)
    players_joined(room, kerz, owner)
    user = room.hall.lobby.find("alice")
    assert (user.nickname, user.registered, user.frontend) == ("Alice", True, "pimp")
    table = room.conns[owner].proto.table          # (the two clients play it out at once)
    g = table.engine.game
    assert g.users[owner.me].name == "Alice"                  # the game shows the name without the key
    seat = table.seats[owner.me - 1]
    assert (seat.name, seat.registered, seat.stored()["registered"]) == ("Alice", True, True)
    everyone = b"".join(b"".join(c.frames) for c in (kerz, owner))
    assert key.encode() not in everyone and b"Alice" in everyone
    for typed in ("alice", "AIice", "alice+aaaaaaaaaaaa"):    # no key, a lookalike, a wrong key
        impostor = room.connect(Client(typed, 2))
        room.settle()
        assert impostor.received[-1] == ("ERROR_NAME_IN_USE",) and not impostor.me, typed
    assert [u.name for u in g.users.values()] == ["kerz", "Alice"]


def test_daide_power_taken_back_with_iam_stays_registered():
    """A registered player's power, lost with its connection, is taken back with IAM (the
    passcode proves the seat; no NME, so no key): the player comes back registered, the seat
    stays registered and so the game still rates them."""
    from tests.daide.client import Client
    from tests.daide.wire import Link, daide_hall, factory_of, pump
    from gamehall.table import PLAYING
    hall = daide_hall(seat_hold=3600.0)
    key = register(hall)
    factory = factory_of(hall)
    links = [Link(factory, Client("alice+" + key if i == 0 else f"bot{i}", seed=i, moves=False))
             for i in range(7)]
    pump(links)
    table = next(t for t in hall.tables.values() if t.state == PLAYING)
    hlo = links[0].client.last("HLO")
    power, code = hlo[1][0], hlo[2][0]
    seat = table.seats[table.engine.powers.index(power)]
    assert (seat.name, seat.registered) == ("Alice", True)
    # the start told every power the ratings in an ADM from the server (a newcomer's 0.0)
    assert ["ADM", ["'Server'"], ["'Ratings at this table (diplomacy/standard, mean - 3 deviations): "
                                  "Alice 0.0 provisional'"]] in links[1].client.received
    links[0].lose()
    pump(links[1:])
    assert hall.lobby.find("alice") is None and seat.user is None
    back = Link(factory, Client("again", moves=False))
    back.client.outbox = [back.client.outbox[0]]          # the initial message only: no NME
    back.pump()
    back.client.outbox = []
    back.client.send(f"IAM ( {power} ) ( {code} )")
    pump(links[1:] + [back])
    assert back.client.received[0] == ["YES", ["IAM", [power], [code]]]
    user = hall.lobby.find("alice")
    assert (user.nickname, user.registered, user.frontend) == ("Alice", True, "daide")
    assert seat.user is user and seat.registered
    assert table.seats[table.engine.powers.index(power)].stored()["registered"] is True
