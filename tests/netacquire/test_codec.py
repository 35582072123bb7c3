"""The NetAcquire directive codec: quoting rules, inverse encode/decode, garbage."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gamehall_acquire.wire.framing import NetAcquireFramer
from gamehall_acquire.wire.codec import (
    CodecError, Directive, Quoted, decode, encode, encode_directive,
)


@pytest.mark.parametrize("frame, expected", [
    (b"SS;3", Directive("SS", ("3",))),
    (b"GT;", Directive("GT", ())),
    (b"CL", Directive("CL", ())),
    (b"PL;Champion,2,0,3", Directive("PL", ("Champion", "2", "0", "3"))),
    (b"P;2,0,0,1,0,0,0,0", Directive("P", ("2", "0", "0", "1", "0", "0", "0", "0"))),
    (b'BM;Lobby,"Send this message to everyone in the lobby!"',
     Directive("BM", ("Lobby", "Send this message to everyone in the lobby!"))),
    (b'LM;"Any way you want it;:;:;: ""Any way at all"", he said."',
     Directive("LM", ('Any way you want it;:;:;: "Any way at all", he said.',))),
    (b'M;"I;Game ended;The game has ended, click OK to view final game results."',
     Directive("M", ("I;Game ended;The game has ended, click OK to view final game results.",))),
    (b"PI;6:08:41 PM", Directive("PI", ("6:08:41 PM",))),
    (b"gt;", Directive("GT", ())),                       # codes are read case-insensitively
    (b'BM;Game Room, "spaced" ', Directive("BM", ("Game Room", "spaced"))),
    (b"P;,,1", Directive("P", ("", "", "1"))),
    (b'GM;""', Directive("GM", ("",))),
])
def test_decode_examples(frame, expected):
    assert decode(frame) == expected


def test_quoted_parameters_are_marked():
    d = decode(b'BM;Lobby,"hi"')
    assert not isinstance(d.params[0], Quoted) and isinstance(d.params[1], Quoted)


@pytest.mark.parametrize("directive, frame", [
    (Directive("SS", ("3",)), b"SS;3"),
    (Directive("GT", ()), b"GT;"),
    (Directive("GM", ('He said "hi", then left;:',)), b'GM;"He said ""hi"", then left;:"'),
    (Directive("LM", ("plain",)), b'LM;"plain"'),
    (Directive("M", ("E;Duplicate user Nickname;Choose another",)), b'M;"E;Duplicate user Nickname;Choose another"'),
    (Directive("SV", ("frmNetAcquire", "status", "-1", "SimpleText", Quoted("Your turn"))),
     b'SV;frmNetAcquire,status,-1,SimpleText,"Your turn"'),
    (Directive("SV", ("frmScoreSheet", "lblData", "5", "Caption", "")), b"SV;frmScoreSheet,lblData,5,Caption,"),
    (Directive("X", ("",)), b'X;""'),
    (Directive("X", ("a,b", " lead")), b'X;"a,b"," lead"'),
    (Directive("PR", ("6:08:41 PM",)), b"PR;6:08:41 PM"),
    (Directive("PR", (":x", "y:")), b'PR;":x",y:'),
])
def test_encode_examples(directive, frame):
    assert encode(directive) == frame
    assert decode(frame) == directive


def test_encode_directive_stringifies():
    assert encode_directive("GD", True, "Tower", 4, 15, 65535, 16512) == b"GD;True,Tower,4,15,65535,16512"
    assert encode_directive("AT", 1, 56, 12632256) == b"AT;1,56,12632256"


def test_non_ascii_becomes_question_marks():
    assert encode(Directive("LM", ("café ☕",))) == b'LM;"caf? ?"'


@pytest.mark.parametrize("code", ["", "ABC", "1", "A;", "a"])
def test_encode_refuses_bad_codes(code):
    with pytest.raises(ValueError):
        encode(Directive(code, ()))


@pytest.mark.parametrize("frame", [
    b"", b";3", b"ABC;1", b"S1;", b"\x00\x01", b'BM;Lobby,"unterminated',
    b'BM;"a"b', b'X;ab"cd', b'LM;"x"y"', b"  ;", "é;1".encode(),
])
def test_garbage_raises_codec_error_only(frame):
    with pytest.raises(CodecError):
        decode(frame)


def test_decode_refuses_non_frames():
    with pytest.raises(CodecError):
        decode(42)


# -- properties --------------------------------------------------------------

_ascii = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=127), max_size=30)
_codes = st.from_regex(r"[A-Z]{1,2}", fullmatch=True)


@st.composite
def directives(draw):
    code = draw(_codes)
    if code in ("LM", "GM", "M"):
        return Directive(code, (draw(_ascii),))
    params = draw(st.lists(_ascii, max_size=8))
    return Directive(code, tuple(params))


@given(directives())
def test_decode_inverts_encode(directive):
    assert decode(encode(directive)) == directive


@given(directives())
def test_encode_inverts_decode_on_encoded_frames(directive):
    frame = encode(directive)
    assert encode(decode(frame)) == frame


@given(st.lists(directives(), max_size=5), st.integers(min_value=1, max_value=7))
def test_through_the_framer_in_chunks(batch, chunk):
    framer = NetAcquireFramer()
    wire = b"".join(framer.encode(encode(d)) for d in batch)
    got = []
    for i in range(0, len(wire), chunk):
        got += [decode(f) for f in framer.feed(wire[i:i + chunk])]
    assert got == batch


@given(st.binary(max_size=60))
def test_decode_never_raises_anything_but_codec_error(frame):
    try:
        d = decode(frame)
    except CodecError:
        return
    assert isinstance(d, Directive) and 1 <= len(d.code) <= 2


def _framed_slowly(directive):
    """What ``encoded.wire`` gave before its shortcuts: the codec, then the framer's checks."""
    try:
        return NetAcquireFramer().encode(encode(directive))
    except ValueError:
        return None


@given(st.sampled_from(["LM", "GM", "M"]),
       st.one_of(st.text(max_size=40), st.text(alphabet='";:, "\\\n', max_size=40)))
def test_wire_frames_message_texts_as_codec_and_framer_do(code, text):
    from gamehall_acquire.wire.encoded import wire
    for param in (text, Quoted(text)):
        assert wire(Directive(code, (param,))) == _framed_slowly(Directive(code, (param,)))


def test_wire_of_a_message_too_long_for_a_frame_is_refused_as_before():
    from gamehall_acquire.wire.encoded import wire
    for size in (8186, 8187, 8188, 9000):             # 'GM;"' + text + '"' is size + 5 bytes
        directive = Directive("GM", ("x" * size,))
        assert wire(directive) == _framed_slowly(directive)
    assert wire(Directive("GM", ("x" * 8188,))) is None


@given(st.integers(min_value=0, max_value=120), st.text(max_size=12))
def test_captions_board_cells_and_rack_tiles_are_framed_as_wire_frames_them(index, value):
    from gamehall_acquire.wire import render
    from gamehall_acquire.wire.encoded import board_wire, caption_wire, rack_tile_wire, rack_visible_wire
    assert caption_wire(index, value) == _framed_slowly(render.caption(index, value))
    assert caption_wire(index % 100, str(index * 977)) == _framed_slowly(render.caption(index % 100, str(index * 977)))
    assert board_wire(index, 12632256 + index) == _framed_slowly(render.d("SB", index, 12632256 + index))
    assert rack_tile_wire(index % 6 + 1, index, 6316128) == _framed_slowly(render.d("AT", index % 6 + 1, index, 6316128))
    for shown in (False, True):
        assert rack_visible_wire(index % 6 + 1, shown) == _framed_slowly(render.rack_visible(index % 6 + 1, shown))
