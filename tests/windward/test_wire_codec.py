"""The Windward XML codec: safe parsing, client messages, the server's messages and their format."""
from __future__ import annotations

import base64
import random
import xml.etree.ElementTree as ET

import pytest

from gamehall_acquire.windward.rules import CHAINS, WindwardGame
from gamehall_acquire.windward.wire import codec, render
from gamehall_acquire.windward.wire.codec import (EXIT, Join, Ready, Reply, Unknown, XmlError, decode_client,
                                                     encode_join, encode_ready, encode_reply, parse)
from tests.windward.scenario import NAMES6, scenario
from tests.windward.wire_client import AVATAR

GUIDS = [f"11111111-aaaa-4aaa-8aaa-00000000000{i}" for i in range(6)]


def seating(order=None, boards=None):
    return render.Seating(guids=GUIDS, order=order or list(range(6)), scoreboards=boards or [[] for _ in range(6)])


# -- parsing: safe and lenient --------------------------------------------------------
@pytest.mark.parametrize("payload, reason", [
    (b'<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]><r>&b;</r>', "DOCTYPE"),
    (b'<!DOCTYPE r SYSTEM "file:///etc/passwd"><r/>', "DOCTYPE"),
    (b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "http://example.invalid/">]><r>&x;</r>', "DOCTYPE"),
    (b"<r>&undefined;</r>", "malformed"),
    (b"<reply cmd='x'", "malformed"),
    (b"<a><b></a>", "malformed"),
    (b"not xml at all", "malformed"),
    (b"<a/><b/>", "malformed"),
    (b"", "empty"),
    (b"   \r\n", "empty"),
    (b"<r>\xff\xfe</r>", "malformed"),
    (b"<a>" * 40 + b"</a>" * 40, "nesting"),
    (b"<r>" + b"<e/>" * 6000 + b"</r>", "more than"),
])
def test_unsafe_or_malformed_xml_is_refused(payload, reason):
    with pytest.raises(XmlError, match=reason):
        parse(payload)


def test_java_declaration_bom_and_surrounding_whitespace_are_accepted():
    for payload in [b'<?xml version="1.0" encoding="UTF-8"?>\n<ready/>', b"\xef\xbb\xbf<ready/>",
                    b"  \r\n<ready/>\r\n\x00", '<?xml version="1.0" encoding="UTF-8"?><ready/>'.encode()]:
        assert parse(payload).tag == "ready"


def test_random_bytes_only_ever_raise_xmlerror():
    rng = random.Random(5)
    pieces = [b"<", b">", b"/", b"reply", b" a=", b'"', b"&", b";", b"<!", b"DOCTYPE", b"<?xml", b"?>", b"\x00",
              b"\xc3", b"]]>", b"<![CDATA[", b"x"]
    for _ in range(2000):
        data = b"".join(rng.choice(pieces) for _ in range(rng.randrange(1, 12)))
        if rng.random() < 0.3:
            data = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 30)))
        try:
            decode_client(data)
        except XmlError:
            pass


# -- client messages (§3, §6) ------------------------------------------------------------
def test_join_with_java_style_avatar_line_breaks():
    b64 = base64.b64encode(AVATAR).decode()
    lines = "\r\n".join(b64[i:i + 76] for i in range(0, len(b64), 76))
    assert "\n" in lines
    payload = ('<?xml version="1.0" encoding="UTF-8"?>\n<join name="JavaBot1" school="Purdue CS" '
               f'language="Java"><avatar>{lines}</avatar></join>').encode()
    msg = decode_client(payload)
    assert msg == Join(name="JavaBot1", school="Purdue CS", language="Java", avatar=AVATAR, avatar_note=None)


def test_join_is_lenient_about_school_and_avatar():
    assert decode_client(b'<join name="A" language="C#"/>') == Join(name="A", school="", language="C#")
    long = decode_client(b'<join name="A" school="A school with a very long name"/>')
    assert long.school == "A school with a very long name"[:18]
    bad = decode_client(b'<join name="A"><avatar>!!!not base64!!!</avatar></join>')
    assert bad.avatar is None and "not base64" in bad.avatar_note
    big = decode_client(encode_join("A", avatar=b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + (64).to_bytes(4, "big")
                                    + (64).to_bytes(4, "big") + b"\x08\x02\x00\x00\x00"))
    assert "64x64" in big.avatar_note and big.avatar is not None
    assert decode_client(b'<join><avatar>  </avatar></join>') == Join(name="")


def test_client_messages_round_trip():
    assert decode_client(encode_ready()) == Ready()
    assert decode_client(encode_join("Anders Hejlsberg", "Windward", "Python", AVATAR, line_length=76)) == \
        Join("Anders Hejlsberg", "Windward", "Python", AVATAR, None)
    r = decode_client(encode_reply("query-tile-purchase", "m-1", card=0, tile_x=5, tile_y=3,
                                   merge_survivor="Windward", buy="Windward:2;"))
    assert r == Reply("query-tile-purchase", "m-1", {"cmd": "query-tile-purchase", "msg-id": "m-1", "card": "0",
                                                     "tile-x": "5", "tile-y": "3", "merge-survivor": "Windward",
                                                     "buy": "Windward:2;"})
    # the Python sample: alphabetical attributes, no declaration; the Java merge bug: cmd query-card
    r = decode_client(b'<reply cmd="query-card" keep="1" msg-id="0b0b" sell="1" trade="2" />')
    assert r.msg_id == "0b0b" and r.attrs["keep"] == "1"
    assert decode_client(b"<status/>") == Unknown("status")
    assert decode_client(b"<reply/>") == Reply("", None, {})


# -- server messages (§4, §5) ------------------------------------------------------------
def test_setup_format_like_dotnet_xdocument():
    g = WindwardGame.new(NAMES6, seed=1)
    text = render.setup(g, 2, seating(), 12345).decode()
    assert not text.startswith("<?xml")
    assert "\r\n  <map width=\"12\" height=\"9\" />\r\n" in text
    assert text.startswith('<setup game-start="true" my-guid="%s" msg-id="12345">' % GUIDS[2])
    assert "\n" not in text.replace("\r\n", "")
    root = ET.fromstring(text)
    assert root.find("map").findall("column") == []
    players = root.find("players").findall("player")
    assert [p.get("name") for p in players] == NAMES6
    assert [p.find("tiles") is not None for p in players] == [s == 2 for s in range(6)]
    assert all(p.findtext("powers") == "1;2;3;4;5;" for p in players)
    assert all(p.find("stock") is None and p.find("scoreboard") is None for p in players)
    hotels = root.find("hotels").findall("hotel")
    assert [h.get("name") for h in hotels] == list(CHAINS)
    assert hotels[0].attrib == {"name": "Amazon", "start-price": "200", "num-tiles": "0", "is-active": "false",
                                "is-safe": "false", "stock-price": "200", "first-majority": "0",
                                "second-majority": "0", "num-avail-shares": "25"}


def test_queries_carry_the_columns_with_a_colon_in_every_cell_and_only_my_tiles():
    g, _ = scenario(chains={"Windward": ["3D", "4D", "5D"], "Google": ["7D", "8D"]}, lone=["10H"],
                    hands={0: ["6D", "1A", "12I", "2G", "9I", "11B"]},
                    shares={0: {"Windward": 3, "Google": 2}, 1: {"Google": 4}, 2: {"Windward": 1}})
    q = render.query(g, 0, seating(), "6f0c1d2e-0000-4000-8000-00000000c0de")
    root = ET.fromstring(q)
    assert root.tag == "query-card" and root.get("msg-id") == "6f0c1d2e-0000-4000-8000-00000000c0de"
    cols = root.find("map").findall("column")
    assert [c.get("x") for c in cols] == [str(x) for x in range(12)]
    assert cols[2].text == "1:;1:;1:;2:Windward;1:;1:;1:;1:;1:;"
    assert cols[9].text == "1:;1:;1:;1:;1:;1:;1:;3:;1:;"
    assert all(len(c.text.split(";")) == 10 and all(":" in cell for cell in c.text.split(";")[:9]) for c in cols)
    me = root.find("players").findall("player")[0]
    assert me.findtext("tiles") == "5:3;0:0;11:8;1:6;8:8;10:1;"
    assert me.findtext("stock") == "Google:2;Windward:3;"
    assert [p.find("tiles") is None for p in root.find("players").findall("player")] == [False] + [True] * 5
    google = root.find("hotels").findall("hotel")[1]
    assert [(o.get("guid"), o.get("num-shares")) for o in google.find("owners")] == [(GUIDS[0], "2"), (GUIDS[1], "4")]
    assert [o.get("guid") for o in google.find("first-majority")] == [GUIDS[1]]
    assert [o.get("guid") for o in google.find("second-majority")] == [GUIDS[0]]


def test_query_merge_names_survivor_and_defunct_first():
    g, _ = scenario(chains={"Windward": ["3D", "4D", "5D"], "Google": ["7D", "8D"]},
                    hands={0: ["6D", "1A", "12I", "2G", "9I", "11B"]},
                    shares={0: {"Windward": 3, "Google": 2}, 1: {"Google": 4}}, cards={})
    g.apply(0, {"tile_purchase": {"tile": "6D", "card": "NONE", "buy": [], "trade": []}})
    assert g.pending().kind == "merge"
    text = render.query(g, 0, seating(), "a11ce").decode()
    assert text.startswith('<query-merge survivor="Windward" defunct="Google" msg-id="a11ce">')
    root = ET.fromstring(text)
    assert root.find("map").findall("column")[5].text == "1:;1:;1:;2:Windward;1:;1:;1:;1:;1:;"


def test_series_order_is_kept_whatever_the_table_order():
    """Game k is played with the seats rotated; messages list players in the series' order."""
    g = WindwardGame.new(NAMES6[2:] + NAMES6[:2], seed=3)      # table seat j = series seat (j + 2) % 6
    s = seating(order=[(j + 2) % 6 for j in range(6)], boards=[[10 * i] for i in range(6)])
    root = ET.fromstring(render.setup(g, 0, s, 1))
    assert root.get("my-guid") == GUIDS[2]
    players = root.find("players").findall("player")
    assert [p.get("name") for p in players] == NAMES6
    assert [p.get("guid") for p in players] == GUIDS
    assert [p.findtext("scoreboard") for p in players] == [f"{10 * i};" for i in range(6)]
    assert players[2].find("tiles") is not None


def test_names_are_escaped_and_echoed_exactly():
    names = ['Bits & "Bytes" <3', "Zoë O'Brien", "李小龍", "a\tb", "e", "f"]
    g = WindwardGame.new(names, seed=1)
    root = ET.fromstring(render.setup(g, 0, seating(), 1))
    assert [p.get("name") for p in root.iter("player")] == names


def test_control_characters_never_make_invalid_xml():
    g = WindwardGame.new(["bad\x01name", "b", "c", "d", "e", "f"], seed=1)
    root = ET.fromstring(render.setup(g, 0, seating(), 1))
    assert root.find("players")[0].get("name") == "bad?name"


def test_exit_is_the_bare_element():
    assert EXIT == b"<exit/>"
    assert parse(EXIT).tag == "exit"


def test_the_fast_renderer_writes_exactly_what_the_generic_serialiser_writes():
    """Queries are written directly as text (the hot path); the element tree is the reference."""
    from gamehall_acquire.windward.bots import make_bot
    names = ['Bits & "Bytes"', "Zoë O'Brien", "c", "d", "e", "f"]
    g = WindwardGame.new(names, seed=11)
    bots = [make_bot("simple", i) for i in range(6)]
    rng = random.Random(2)
    checked = 0
    while not g.is_over():
        seat = g.pending_seat()
        if rng.random() < 0.2:
            order = [(j + rng.randrange(6)) % 6 for j in range(6)]
            order = order if len(set(order)) == 6 else list(range(6))
            s = seating(order=order, boards=[[rng.randrange(90000)] * rng.randrange(3) for _ in range(6)])
            assert render.query(g, seat, s, "m<&>") == codec.encode(render.query_tree(g, seat, s, "m<&>"))
            assert render.setup(g, seat, s, 7) == codec.encode(render.setup_tree(g, seat, s, 7))
            checked += 1
        g.apply(seat, bots[seat].choose(g, seat))
    assert checked > 10
