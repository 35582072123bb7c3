"""The level-0 conversation in-process (hall on a Clock, connections on StringTransports):
a whole game, observers, reconnects, deadlines with a vanished client, press."""
import pytest

from gamehall.table import FINISHED, PLAYING
from gamehall_daide.wire.protocol import rooms_of
from tests.daide.client import Client, text_of
from tests.daide.wire import Link, daide_hall, factory_of, pump


def seven(hall, factory, quiet=(), **kw):
    """Seven clients join and the game starts; those in ``quiet`` order nothing."""
    links = [Link(factory, Client(f"bot{i}", seed=i, play=i not in quiet, **kw)) for i in range(7)]
    pump(links)
    return links


def test_a_whole_game_to_a_draw():
    hall = daide_hall()
    factory = factory_of(hall)
    obs = Link(factory, Client("watcher", observer=True))
    pump([obs])
    links = seven(hall, factory, draw_year=1903)
    everyone = links + [obs]
    pump(everyone)
    for _ in range(200):
        pump(everyone)
        if all(l.client.closed_by_server for l in links):
            break
    first = links[0].client
    names = first.names()
    assert names[:2] == ["YES", "MAP"] and "HLO" in names
    assert names.index("HLO") < names.index("SCO") < names.index("NOW")
    assert "THX" in names and "ORD" in names
    assert all(m[2] == ["MBV"] for m in first.all("THX")), [text_of(m) for m in first.all("THX") if m[2] != ["MBV"]][:3]
    assert names[-3:] == ["DRW", "SMR", "OFF"] or names[-4:-1] == ["DRW", "SMR", "NOW"] or "SMR" in names
    assert "OFF" in names and first.closed_by_server
    powers = {l.client.power for l in links}
    assert len(powers) == 7
    smr = first.last("SMR")
    assert len(smr) == 9 and {entry[0] for entry in smr[2:]} == powers
    # every power saw every ORD: the same ORD lists everywhere
    assert all(l.client.all("ORD") == first.all("ORD") for l in links)
    assert obs.client.all("ORD") == first.all("ORD") and obs.client.last("HLO")[1] == ["UNO"]
    table = next(iter(hall.store.tables.values())) if hasattr(hall.store, "tables") else None
    assert not [t for t in hall.tables.values() if t.state == PLAYING]


def deadline_game(quiet=(), **options):
    hall = daide_hall(seat_hold=3600.0)
    rooms_of(hall).default_options.update(options)
    factory = factory_of(hall)
    links = seven(hall, factory, quiet=quiet, moves=False)
    return hall, factory, links


def test_deadline_with_a_vanished_client_ccd_defaults_and_iam():
    hall, factory, links = deadline_game(quiet=(6,), MTL=60, RTL=30, BTL=30)
    gone = links[6]
    hlo = gone.client.last("HLO")
    power, code = hlo[1][0], hlo[2][0]
    assert hlo[3] == [["LVL", 0], ["MTL", 60], ["RTL", 30], ["BTL", 30]]
    assert links[0].client.last("TME") == ["TME", [60]]
    gone.lose()
    rest = links[:6]
    pump(rest)
    assert rest[0].client.last("CCD") == ["CCD", [power]]
    table = next(t for t in hall.tables.values() if t.state == PLAYING)
    assert table.engine.turn() == ("SPR", 1901)          # waits for the missing orders
    hall.clock.advance(59)
    pump(rest)
    assert table.engine.turn() == ("SPR", 1901)
    hall.clock.advance(1)
    pump(rest)
    assert table.engine.turn() == ("FAL", 1901)
    seen = rest[0].client
    assert ["CCD", [power], ["SPR", 1901]] in seen.received
    holds = [m for m in seen.all("ORD") if m[2][0][0] == power]
    assert holds and all(m[2][1] == "HLD" for m in holds)  # its units held by default
    fall = next(i for i, m in enumerate(seen.received) if m[0] == "NOW" and m[1] == ["FAL", 1901])
    assert seen.received[fall + 1] == ["TME", [60]]
    # it comes back with its passcode: no MAP or HLO, NOT (CCD) to everyone
    back = Link(factory, Client("again", moves=False))
    back.client.outbox = [back.client.outbox[0]]
    back.client.power = power
    back.pump()
    back.client.outbox = []
    back.client.send(f"IAM ( {power} ) ( {code} )")
    pump(rest + [back])
    assert back.client.received[0] == ["YES", ["IAM", [power], [code]]]
    assert "MAP" not in back.client.names() and "HLO" not in back.client.names()
    assert ["NOT", ["CCD", [power]]] in seen.received
    back.client.send("NOW")
    back.client.send("HLO")
    pump(rest + [back])
    assert back.client.last("HLO")[1:3] == [[power], [code]]
    assert table.engine.turn() == ("WIN", 1901) or table.engine.turn()[0] in ("SPR", "FAL")


def test_iam_with_a_wrong_passcode_or_before_the_start_is_refused():
    hall = daide_hall()
    factory = factory_of(hall)
    early = Link(factory, Client("x"))
    early.pump()
    early.client.outbox = []
    early.client.send("IAM ( ENG ) ( 12 )")
    early.pump()
    assert early.client.received[-1] == ["REJ", ["IAM", ["ENG"], [12]]]
    links = seven(hall, factory, moves=False)
    power, code = links[0].client.power, links[0].client.passcode
    links[0].lose()
    wrong = Link(factory, Client("y"))
    wrong.pump()
    wrong.client.outbox = []
    wrong.client.send(f"IAM ( {power} ) ( {code % 8191 + 1} )")
    wrong.pump()
    assert wrong.client.received[-1][0] == "REJ"


def test_dsd_stops_the_deadline_while_a_player_is_away():
    hall, factory, links = deadline_game(quiet=(3,), MTL=60, DSD=True)
    power, code = links[3].client.power, links[3].client.passcode
    hall.clock.advance(10)
    links[3].lose()
    pump(links[:3] + links[4:])
    seen = links[0].client
    assert seen.received[-2:] == [["CCD", [power]], ["NOT", ["TME", [50]]]]
    hall.clock.advance(500)
    table = next(t for t in hall.tables.values() if t.state == PLAYING)
    assert table.engine.turn() == ("SPR", 1901)
    back = Link(factory, Client("back", moves=False))
    back.pump()
    back.client.outbox = []
    back.client.send(f"IAM ( {power} ) ( {code} )")
    pump([back, links[0]])
    assert seen.received[-2:] == [["NOT", ["CCD", [power]]], ["TME", [50]]]
    hall.clock.advance(50)
    assert table.engine.turn() == ("FAL", 1901)


def test_not_gof_holds_the_turn_until_gof_or_the_deadline_and_alarms():
    hall, factory, links = deadline_game(quiet=(2,), MTL=100)
    table = next(t for t in hall.tables.values() if t.state == PLAYING)
    waiter = links[2].client
    waiter.send("NOT ( GOF )")
    waiter.send("TME ( 20 )")
    waiter.send("TME ( 500 )")
    pump(links)
    assert ["YES", ["NOT", ["GOF"]]] in waiter.received
    assert ["YES", ["TME", [20]]] in waiter.received and ["REJ", ["TME", [500]]] in waiter.received
    mine = table.engine.default_orders(waiter.power)
    waiter.send("SUB " + " ".join(f"( {o} )" for o in mine))
    pump(links)
    assert table.engine.turn() == ("SPR", 1901)            # complete, but held by NOT (GOF)
    waiter.send("TME")
    pump(links)
    assert waiter.received[-1] == ["TME", [100]]
    hall.clock.advance(80)
    pump(links)
    assert waiter.received[-1] == ["TME", [20]]            # the alarm
    waiter.send("GOF")
    pump(links)
    assert table.engine.turn() == ("FAL", 1901)
    assert ["YES", ["GOF"]] in waiter.received
    waiter.send("NOT ( TME ( 20 ) )")
    waiter.send("NOT ( TME ( 20 ) )")
    pump(links)
    assert waiter.received[-2:] == [["YES", ["NOT", ["TME", [20]]]], ["REJ", ["NOT", ["TME", [20]]]]]


def test_observer_joining_a_game_in_play():
    hall = daide_hall()
    factory = factory_of(hall)
    links = seven(hall, factory, moves=False)
    obs = Link(factory, Client("eye", observer=True))
    pump(links + [obs])
    names = obs.client.names()
    assert names[:3] == ["YES", "MAP", "MDF"] and obs.client.received[0] == ["YES", ["OBS"]]
    assert obs.client.last("HLO") == ["HLO", ["UNO"], [0], [["LVL", 0]]]
    assert "NOW" in names and "SCO" in names
    obs.client.send("SUB ( ( ENG FLT LON ) HLD )")
    obs.client.send("DRW")
    pump([obs])
    assert obs.client.received[-2][0] == "REJ" and obs.client.received[-1] == ["REJ", ["DRW"]]


def test_re_requests_at_any_time():
    hall = daide_hall()
    factory = factory_of(hall)
    links = seven(hall, factory, quiet=range(7))
    table = next(t for t in hall.tables.values() if t.state == PLAYING)
    for link in links:                                    # one turn of holds, then nothing
        link.client.send("SUB " + " ".join(f"( {o} )" for o in table.engine.default_orders(link.client.power)))
    pump(links)
    assert table.engine.turn() == ("FAL", 1901)
    c = links[0].client
    n = len(c.received)
    for text in ("HLO", "MAP", "MDF", "NOW", "SCO", "ORD", "MIS", "TME", "HST ( SPR 1901 )", "HST ( SPR 1950 )"):
        c.send(text)
    pump(links)
    got = [m[0] for m in c.received[n:]]
    assert got[:4] == ["HLO", "MAP", "MDF", "NOW"] and got[4] == "SCO"
    assert "ORD" in got                                   # SPR 1901 processed (everyone held)
    hst = got.index("ORD", got.index("MIS"))              # HST: ORD..., then SCO and NOW after it
    assert got[hst:].count("SCO") == 1 and got[hst:].count("NOW") == 1
    assert ["REJ", ["HST", ["SPR", 1950]]] in c.received[n:]
    assert ["REJ", ["TME"]] in c.received[n:]             # no deadline in a bot game


def test_press_at_level_10_and_not_at_level_0():
    hall = daide_hall()
    rooms_of(hall).default_options.update({"LVL": 10, "NPB": True})
    factory = factory_of(hall)
    links = seven(hall, factory, quiet=range(7))
    a, b = links[0].client, links[1].client
    assert a.last("HLO")[3] == [["LVL", 10], ["NPB"]]
    a.send(f"SND ( {b.power} ) ( PRP ( PCE ( {a.power} {b.power} ) ) )")
    a.send(f"SND ( {b.power} ) ( PRP ( XDO ( ( {a.power} AMY VIE ) HLD ) ) )")
    pump(links)
    assert a.received[-2][0] == "YES" and a.received[-2][1][0] == "SND"
    assert a.received[-1][0] == "HUH" and "ERR" in text_of(a.received[-1])
    frm = b.last("FRM")
    assert frm == ["FRM", [a.power], [b.power], ["PRP", ["PCE", [a.power, b.power]]]]
    links[2].lose()
    a.send(f"SND ( {b.power} {links[2].client.power} ) ( PRP ( PCE ( {a.power} {b.power} ) ) )")
    pump(links[:2])
    assert a.received[-1][:2] == ["CCD", [links[2].client.power]]
    assert len(b.all("FRM")) == 1                          # delivered to nobody


def test_press_is_huh_at_level_0():
    hall = daide_hall()
    factory = factory_of(hall)
    links = seven(hall, factory, quiet=range(7))
    a = links[0].client
    a.send("SND ( ENG ) ( PRP ( PCE ( ENG FRA ) ) )")
    pump(links)
    assert a.received[-1][0] == "HUH" and a.received[-1][1][0] == "ERR"


def test_admin_say_reaches_daide_users_as_adm_and_adm_is_chat():
    hall = daide_hall()
    factory = factory_of(hall)
    links = seven(hall, factory, moves=False)
    hall.say("server going down soon")
    links[0].client.send("ADM ( 'bot0' ) ( 'hello all' )")
    pump(links)
    assert ["ADM", ["'Server'"], ["'server going down soon'"]] in links[3].client.received
    assert ["ADM", ["'bot0'"], ["'hello all'"]] in links[3].client.received
    assert {u.nickname for u in hall.who()} >= {"bot0", "bot6"}


def test_random_messages_from_players_never_raise():
    """Well-framed DMs of random known tokens, brackets, numbers and text, from players of a game
    in play and from a connection that has not joined: answered (or ignored), never a traceback."""
    import random

    from twisted.logger import globalLogPublisher

    from gamehall_daide.wire import tokens
    from tests.daide.client import DM, header
    failures = []

    def observe(event):
        if event.get("log_failure") is not None:
            failures.append(event)
    globalLogPublisher.addObserver(observe)
    try:
        hall = daide_hall()
        factory = factory_of(hall)
        links = seven(hall, factory, quiet=range(7))
        stranger = Link(factory, Client("s"))
        stranger.pump()
        rng = random.Random(7)
        names = list(tokens.CODES.values())
        heads = [tokens.CODES[n] for n in ("SUB", "NOT", "SND", "GOF", "DRW", "TME", "HST", "IAM", "NME",
                                           "OBS", "YES", "REJ", "ADM", "MIS", "ORD", "HLO", "SMR")]
        for n in range(3000):
            codes = [rng.choice(heads)]
            for _ in range(rng.randrange(0, 14)):
                codes.append(rng.choice([0x4000, 0x4001, rng.choice(names), rng.randrange(0, 0x4000),
                                         0x4B41 + rng.randrange(26)]))
            if n % 2:                                     # mostly balanced, to get past PRN
                depth = 0
                fixed = []
                for c in codes:
                    if c == 0x4001 and depth == 0:
                        continue
                    depth += (c == 0x4000) - (c == 0x4001)
                    fixed.append(c)
                codes = fixed + [0x4001] * depth
            body = b"".join(c.to_bytes(2, "big") for c in codes)
            link = links[n % 7] if n % 5 else stranger
            if link.closed:
                continue
            link.proto.dataReceived(header(DM, len(body)) + body)
            link.out()
    finally:
        globalLogPublisher.removeObserver(observe)
    assert failures == []


def unit_orders(client, verb="HLD"):
    now = client.last("NOW")
    return [f"( {text_of(u)} {verb} )" for u in now[2:] if u[0] == client.power]


def test_not_sub_answers_yes_then_mis_or_rej():
    hall = daide_hall()
    factory = factory_of(hall)
    links = seven(hall, factory, quiet=range(7))
    c = links[0].client
    orders = unit_orders(c)
    c.send("SUB " + " ".join(orders))
    pump(links)
    c.send(f"NOT ( SUB {orders[0]} )")
    pump(links)
    yes = c.received[-2]
    assert yes[0] == "YES" and yes[1][0] == "NOT" and yes[1][1][0] == "SUB" and len(yes[1][1]) == 2
    assert c.received[-1][0] == "MIS" and len(c.received[-1]) == 2          # that unit is missing
    c.send(f"NOT ( SUB {orders[0]} )")                   # not there any more
    c.send("NOT ( SUB )")
    pump(links)
    assert c.received[-4][0] == "REJ" and c.received[-2] == ["YES", ["NOT", ["SUB"]]]
    assert c.received[-1][0] == "MIS" and len(c.received[-1]) == 1 + len(orders)


def test_partial_draw_under_pda():
    hall = daide_hall()
    rooms_of(hall).default_options.update({"LVL": 10, "PDA": True})
    factory = factory_of(hall)
    links = seven(hall, factory, quiet=range(7))
    a, b = links[0].client.power, links[1].client.power
    assert links[0].client.last("HLO")[3] == [["LVL", 10], ["PDA"]]
    for link in links[1:]:
        link.client.send(f"DRW ( {a} {b} )")
    links[0].client.send(f"DRW ( {a} {a} )")              # a power twice: refused
    pump(links)
    assert links[0].client.received[-1][0] == "REJ"
    links[0].client.send(f"DRW ( {b} {a} )")              # the last one: declared at once
    pump(links)
    seen = links[3].client
    assert sorted(seen.last("DRW")[1]) == sorted([a, b]) and "SMR" in seen.names() and seen.names()[-1] == "OFF"
    assert "ORD" not in seen.names()                       # no phase was processed for it


def test_aoa_accepts_an_impossible_move():
    hall = daide_hall()
    rooms_of(hall).default_options.update({"AOA": True})
    factory = factory_of(hall)
    links = seven(hall, factory, quiet=range(7))
    c = links[0].client
    assert c.last("HLO")[3] == [["LVL", 0], ["AOA"]]
    unit = next(u for u in c.last("NOW")[2:] if u[0] == c.power and u[1] == "AMY")
    far = next(p for p in ("NAF", "SYR", "CLY", "FIN") if p not in c.adjacent.get(("AMY", unit[2]), []))
    c.send(f"SUB ( {text_of(unit)} MTO {far} )")
    pump(links)
    assert c.received[-2][0] == "THX" and c.received[-2][2] == ["MBV"]
