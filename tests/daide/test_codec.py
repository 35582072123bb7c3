"""Tokens, the DM codec and the client syntax check (HUH positions, PRN, levels)."""
import pytest

from gamehall_daide.text import Text, parse, render
from gamehall_daide.wire import codec, syntax
from gamehall_daide.wire import tokens as T


def test_token_table():
    assert len(T.CODES) == 212
    assert T.CODES["ENG"] == 0x4101 and T.CODES["SMR"] == 0x481E and T.CODES["STP"] == 0x574A
    assert T.NAMES[0x4818] == "SUB"


@pytest.mark.parametrize("value", [0, 1, 8191, -1, -8192, 1901, -42])
def test_integers_round_trip(value):
    code = T.encode_integer(value)
    assert 0 <= code < 0x4000 and T.decode_integer(code) == value


def test_integer_out_of_range():
    with pytest.raises(ValueError):
        T.encode_integer(8192)


def test_encode_known_bytes():
    # SUB ( ( ENG FLT LON ) MTO NTH )
    payload = codec.encode_text("SUB ((ENG FLT LON) MTO NTH)")
    assert payload == bytes.fromhex("4818 4000 4000 4101 4201 553A 4001 4323 521C 4001".replace(" ", ""))


@pytest.mark.parametrize("text", [
    "NME ( 'DumbBot' ) ( '1.0' )", "IAM ( ENG ) ( 1234 )", "HST ( SPR 1901 )",
    "SUB ( ( ENG FLT LON ) MTO NTH ) ( ( ENG AMY LVP ) HLD )", "TME ( -5 )",
    "NOW ( SPR 1901 ) ( RUS FLT ( STP SCS ) )", "ADM ( 'it''s' ) ( 'x y' )",
])
def test_round_trip(text):
    msg = codec.decode(codec.encode_text(text))
    assert render(msg.tree()) == render(parse(text))


def test_text_runs_and_positions():
    msg = codec.decode(codec.encode_text("NME ( 'ab' ) ( 'c' )"))
    assert msg.items == ["NME", "(", Text("ab"), ")", "(", Text("c"), ")"]
    assert msg.starts == [0, 1, 2, 4, 5, 6, 7]


def test_private_category_is_invalid():
    with pytest.raises(codec.InvalidToken):
        codec.decode(bytes.fromhex("48185800"))


def test_unknown_token_kept():
    msg = codec.decode(bytes.fromhex("48184A7F"))
    assert isinstance(msg.items[1], codec.Unknown)
    with pytest.raises(syntax.Fault) as fault:
        syntax.check(msg)
    assert fault.value.index == 1


@pytest.mark.parametrize("text", ["SUB ( ( ENG FLT LON ) MTO NTH", "NOW )", "( ( )"])
def test_unbalanced(text):
    codes = [T.CODES.get(t, {"(": T.BRA, ")": T.KET}.get(t)) for t in text.split()]
    msg = codec.decode(codec.payload_of(codes))
    with pytest.raises(codec.BracketError):
        msg.tree()


def _fault_at(text, level=0):
    msg = codec.decode(codec.encode_text(text))
    msg.tree()
    with pytest.raises(syntax.Fault) as fault:
        syntax.check(msg, level)
    return codec.decode(codec.echo("HUH", msg.codes, msg.code_index(fault.value.index)))


@pytest.mark.parametrize("text,expected", [
    ("SUB ( ( ENG FLT LON ) MTO ENG )", "HUH ( SUB ( ( ENG FLT LON ) MTO ERR ENG ) )"),
    ("NME ( 'a' )", "HUH ( NME ( 'a' ) ERR )"),
    ("THX ( ( ENG FLT LON ) HLD ) ( MBV )", "HUH ( ERR THX ( ( ENG FLT LON ) HLD ) ( MBV ) )"),
    ("SND ( FRA ) ( PRP ( PCE ( ENG FRA ) ) )", "HUH ( ERR SND ( FRA ) ( PRP ( PCE ( ENG FRA ) ) ) )"),
    ("NOW ( SPR 1901 )", "HUH ( NOW ERR ( SPR 1901 ) )"),
    ("DRW ( ENG FRA )", "HUH ( DRW ERR ( ENG FRA ) )"),
])
def test_huh_positions(text, expected):
    assert render(_fault_at(text).tree()) == expected


def test_huh_positions_unknown():
    codes = codec.codes_of(codec.encode_text("SUB ( ( ENG FLT LON ) HLD )"))
    codes[7] = 0x43FF                        # no such order token
    msg = codec.decode(codec.payload_of(codes))
    with pytest.raises(syntax.Fault) as fault:
        syntax.check(msg)
    assert msg.code_index(fault.value.index) == 7


@pytest.mark.parametrize("text", [
    "NME ( 'DumbBot' ) ( '1' )", "OBS", "IAM ( TUR ) ( 55 )", "MAP", "MDF", "HLO", "NOW", "SCO",
    "MIS", "ORD", "GOF", "DRW", "TME", "TME ( 30 )", "HST ( FAL 1902 )", "YES ( MAP ( 'standard' ) )",
    "REJ ( MAP ( 'standard' ) )", "NOT ( SUB )", "NOT ( SUB ( ( ENG FLT LON ) HLD ) )", "NOT ( GOF )",
    "NOT ( DRW )", "NOT ( TME )", "NOT ( TME ( 10 ) )", "ADM ( 'me' ) ( 'hello' )",
    "SUB ( ( ENG FLT LON ) MTO NTH ) ( ( ENG AMY LVP ) HLD )",
    "SUB ( SPR 1901 ) ( ( ENG FLT LON ) HLD )",
    "SUB ( ( RUS FLT ( STP SCS ) ) MTO BOT )".replace("BOT", "GOB"),
    "SUB ( ( ENG FLT NTH ) CVY ( ENG AMY YOR ) CTO NWY ) ( ( ENG AMY YOR ) CTO NWY VIA ( NTH ) )",
    "SUB ( ( FRA AMY PAR ) SUP ( FRA AMY MAR ) MTO BUR ) ( ( FRA AMY MAR ) SUP ( FRA AMY PAR ) )",
    "SUB ( ( ENG FLT LON ) RTO ( SPA NCS ) ) ( ( ENG AMY LVP ) DSB ) ( ( ENG AMY LVP ) BLD ) ( ENG WVE )",
])
def test_level0_accepts(text):
    msg = codec.decode(codec.encode_text(text))
    assert syntax.check(msg, 0) == text.split()[0]


def test_press_levels():
    ok10 = codec.decode(codec.encode_text("SND ( FRA ) ( PRP ( PCE ( ENG FRA ) ) )"))
    assert syntax.check(ok10, 10) == "SND"
    xdo = codec.decode(codec.encode_text("SND ( FRA ) ( PRP ( XDO ( ( ENG FLT LON ) HLD ) ) )"))
    with pytest.raises(syntax.Fault) as fault:
        syntax.check(xdo, 10)
    assert xdo.items[fault.value.index] == "XDO"
    assert syntax.check(xdo, 20) == "SND"
    tried = codec.decode(codec.encode_text("SND ( FRA ) ( TRY ( PRP XDO IFF ) )"))
    assert syntax.check(tried, 10) == "SND"
    text = codec.decode(codec.encode_text("SND ( FRA ) ( PRP ( PCE ( 'hi' ) ) )"))
    with pytest.raises(syntax.Fault):
        syntax.check(text, 130)
