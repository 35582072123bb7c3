"""Tests for every framer (gamehall.framing and each game's wire/framing.py): chunking independence, round trips, limits, resync and poisoning."""
from __future__ import annotations

import time
from typing import Any, Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamehall.framing import FrameError, Framer, FrameTooLong, LineFramer, MalformedFrame
from gamehall_acquire.windward.wire.framing import WindwardFramer
from gamehall_acquire.wire.framing import NetAcquireFramer
from gamehall_daide.wire.framing import DaideFramer
from gamehall_pimp.wire.framing import PimpFramer
from tests.helpers import FRAMERS

# --------------------------------------------------------------------------- helpers


def feed_chunks(framer: Framer, chunks: list[bytes]) -> list:
    """Feed chunks in order; stop once poisoned (later feeds only repeat the error)."""
    out: list = []
    for chunk in chunks:
        out += framer.feed(chunk)
        if framer.poisoned:
            break
    return out


def split(wire: bytes, cuts: list[int]) -> list[bytes]:
    """Cut ``wire`` at the given positions (any order, duplicates allowed)."""
    points = [0, *sorted(c % (len(wire) + 1) for c in cuts), len(wire)]
    return [wire[a:b] for a, b in zip(points, points[1:])]


def norm(items: list) -> list:
    """Errors compare by class and message, frames by value."""
    return [(type(x).__name__, str(x)) if isinstance(x, FrameError) else x for x in items]


def is_frame(framer: Framer, item: Any) -> bool:
    """Whether ``item`` has the shape of a decoded frame of this framer."""
    if isinstance(framer, (PimpFramer, DaideFramer)):
        return (
            isinstance(item, tuple)
            and len(item) == 2
            and isinstance(item[0], int)
            and isinstance(item[1], bytes)
            and len(item[1]) <= framer.max_frame
        )
    return isinstance(item, bytes) and len(item) <= framer.max_frame


# --------------------------------------------------------------------------- sample streams

SAMPLES: dict[str, tuple[Callable[[], Framer], list]] = {
    "line": (
        lambda: LineFramer(max_frame=40),
        [b"", b"hello", b"x" * 40, b" spaced  out ", b"\x00\xff\tbinary-ish", b"", b"last"],
    ),
    "netacquire": (
        lambda: NetAcquireFramer(max_frame=80),
        [
            b"SS;3",
            b"SB;99,0",
            b'LM;"Any way you want it;:;:;: ""Any way at all"", he said."',
            b'LM;"a;:b ""x"""',
            b"GS;",
            b"PI;6:08:41 PM",
            b"",
            b'M;"I;Game ended;The game has ended, click OK to view final game results."',
            b'""',
            b"x" * 80,
        ],
    ),
    "pimp": (
        PimpFramer,
        # The first three are the protocol text's sample connection.
        [(0x00, b"\x01"), (0x01, b"\xa9\x3f\x91\x0e"), (0x02, b"\x02\x01\x04kerz"), (0x21, b""),
         (0xFE, b"\xff" * 254), (0x00, b"")],
    ),
    "windward": (
        lambda: WindwardFramer(max_frame=600),
        [b"<exit/>", b"x", '<join name="Zoë"/>'.encode(), b"\x00" * 600, b"\r\n"],
    ),
    "daide": (
        lambda: DaideFramer(max_frame=300),
        [(0, b"\x00\x01\xda\x10"), (1, b""), (1, b"A" * 12), (2, b"\x48\x1c\x4a\x00"), (2, b""),
         (3, b""), (4, b"\x00\x08"), (0x42, b"odd"), (0xFF, b"z" * 300)],
    ),
}
NAMES = list(SAMPLES)


def sample_wire(name: str) -> tuple[Callable[[], Framer], list, bytes]:
    make, frames = SAMPLES[name]
    encoder = make()
    return make, frames, b"".join(encoder.encode(f) for f in frames)


@pytest.mark.parametrize("name", NAMES)
def test_split_at_every_position(name: str) -> None:
    make, frames, wire = sample_wire(name)
    for i in range(len(wire) + 1):
        framer = make()
        assert framer.feed(wire[:i]) + framer.feed(wire[i:]) == frames, i
        assert framer.buffered == 0


@pytest.mark.parametrize("name", NAMES)
def test_byte_by_byte(name: str) -> None:
    make, frames, wire = sample_wire(name)
    framer = make()
    out: list = []
    for i in range(len(wire)):
        out += framer.feed(wire[i : i + 1])
    assert out == frames
    assert framer.buffered == 0 and not framer.poisoned


@pytest.mark.parametrize("name", NAMES)
def test_empty_feed_and_registry(name: str) -> None:
    framer = FRAMERS[name]()
    assert framer.feed(b"") == [] and framer.buffered == 0 and not framer.poisoned


def test_default_limits() -> None:
    assert [FRAMERS[n]().max_frame for n in ("line", "netacquire", "pimp", "windward", "daide")] == [
        4096, 8192, 254, 1_048_576, 65535,
    ]


@pytest.mark.parametrize(
    "cls, bad", [(LineFramer, 0), (NetAcquireFramer, -1), (PimpFramer, 255), (DaideFramer, 65536),
                 (WindwardFramer, 2**31), (LineFramer, 1.5)],
)
def test_constructor_rejects_impossible_limits(cls: type[Framer], bad: Any) -> None:
    with pytest.raises(ValueError):
        cls(max_frame=bad)


# --------------------------------------------------------------------------- hypothesis round trips

MF = 48  # small limits so that generated frames reach them


def _encodable(make: Callable[[], Framer]) -> Callable[[Any], bool]:
    encoder = make()

    def check(frame: Any) -> bool:
        try:
            encoder.encode(frame)
        except ValueError:
            return False
        return True

    return check


_na_plain = st.binary(max_size=12).map(lambda b: bytes(c for c in b if c != 0x22 and c < 0x80))
_na_part = st.one_of(
    _na_plain,
    st.sampled_from([b";", b":", b",", b" ", b"\r\n", b"SS;", b"LM;"]),
    st.binary(max_size=10).map(lambda b: b'"' + bytes(c & 0x7F for c in b).replace(b'"', b'""') + b'"'),
)

FRAME_STRATEGIES: dict[str, tuple[Callable[[], Framer], Any]] = {
    "line": (
        lambda: LineFramer(max_frame=MF),
        st.binary(max_size=MF).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b"")),
    ),
    "netacquire": (
        lambda: NetAcquireFramer(max_frame=MF),
        st.lists(_na_part, max_size=6).map(b"".join).filter(_encodable(lambda: NetAcquireFramer(max_frame=MF))),
    ),
    "pimp": (PimpFramer, st.tuples(st.integers(0, 254), st.binary(max_size=254))),
    "windward": (lambda: WindwardFramer(max_frame=MF), st.binary(min_size=1, max_size=MF)),
    "daide": (
        lambda: DaideFramer(max_frame=MF),
        st.tuples(st.integers(0, 255), st.binary(max_size=MF)).filter(_encodable(lambda: DaideFramer(max_frame=MF))),
    ),
}


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=60)
@given(data=st.data())
def test_round_trip_random_chunks(name: str, data: st.DataObject) -> None:
    make, frames_st = FRAME_STRATEGIES[name]
    frames = data.draw(st.lists(frames_st, max_size=8), label="frames")
    encoder = make()
    wire = b"".join(encoder.encode(f) for f in frames)
    cuts = data.draw(st.lists(st.integers(0, max(len(wire), 1)), max_size=10), label="cuts")
    framer = make()
    assert feed_chunks(framer, split(wire, cuts)) == frames
    assert framer.buffered == 0 and not framer.poisoned


# --------------------------------------------------------------------------- garbage

_garbage = st.lists(
    st.one_of(
        st.sampled_from([b";", b":", b";:", b'"', b"\r", b"\n", b"\r\n", b" ", b"\x00", b"\xff", b"\x80", b"a"]),
        st.binary(max_size=24),
    ),
    max_size=40,
).map(b"".join)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("mf", [1, 16])
@settings(max_examples=80)
@given(wire=_garbage, cuts=st.lists(st.integers(0, 2000), max_size=12))
def test_garbage_never_raises_and_stays_bounded(name: str, mf: int, wire: bytes, cuts: list[int]) -> None:
    framer = FRAMERS[name](max_frame=mf)
    whole = FRAMERS[name](max_frame=mf)
    out: list = []
    for chunk in split(wire, cuts):
        items = framer.feed(chunk)
        assert all(isinstance(x, FrameError) or is_frame(framer, x) for x in items)
        assert framer.buffered <= mf + 4  # a header or a pending "\r" / ";" at most
        if framer.poisoned:
            assert framer.buffered == 0 and len(items) >= 1 and items[-1] is framer.feed(b"x")[0]
            out += items
            break
        out += items
    # The result does not depend on how the stream was chunked.
    assert norm(out) == norm(feed_chunks(whole, [wire]))


def test_error_messages_are_one_line() -> None:
    errors = (
        LineFramer(max_frame=2).feed(b"abc\n")
        + NetAcquireFramer(max_frame=2).feed(b"abc;:\xff;:")
        + PimpFramer().feed(b"\x21\xff")
        + WindwardFramer().feed(b"\xff\xff\xff\xff")
        + DaideFramer().feed(b"\x00\x00\x04\x00")
    )
    assert len(errors) == 6
    for err in errors:
        assert isinstance(err, FrameError) and str(err) and "\n" not in str(err)


# --------------------------------------------------------------------------- LineFramer


def test_line_terminators() -> None:
    f = LineFramer()
    assert f.feed(b"a\r\nb\nc\r\r\nd\re\n\r\n\n") == [b"a", b"b", b"c\r", b"d\re", b"", b""]
    assert f.feed(b"tail\r") == [] and f.buffered == 5
    assert f.feed(b"\n") == [b"tail"]


def test_line_limit_boundary() -> None:
    f = LineFramer(max_frame=5)
    assert f.feed(b"12345\n12345\r\n") == [b"12345", b"12345"]
    assert f.feed(b"12345\r") == [] and f.buffered == 6  # may still be a 5-byte line
    assert f.feed(b"\n") == [b"12345"]
    (err,) = f.feed(b"123456\n")
    assert isinstance(err, FrameTooLong) and "5" in str(err)
    assert f.feed(b"ok\n") == [b"ok"] and not f.poisoned


def test_line_oversize_is_reported_early_and_discarded() -> None:
    f = LineFramer(max_frame=10)
    (err,) = f.feed(b"x" * 11 + b"y")  # 12 bytes with no newline: known to be too long
    assert isinstance(err, FrameTooLong) and f.buffered == 0
    assert f.feed(b"z" * 10_000) == [] and f.buffered == 0
    assert f.feed(b"still discarding\nok\r\n") == [b"ok"] and not f.poisoned
    f2 = LineFramer(max_frame=10)
    assert [type(x) for x in f2.feed(b"x" * 10 + b"\r\r\nok\n")] == [FrameTooLong, bytes]


def test_line_encode() -> None:
    f = LineFramer(max_frame=4)
    assert f.encode(b"abcd") == b"abcd\r\n" and f.encode(b"") == b"\r\n"
    for bad in (b"a\rb", b"a\n", b"abcde"):
        with pytest.raises(ValueError):
            f.encode(bad)
    with pytest.raises(TypeError):
        f.encode("text")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- NetAcquireFramer


def test_netacquire_examples_and_whitespace() -> None:
    f = NetAcquireFramer()
    assert f.feed(b"SS;4;:SB;99,0;:") == [b"SS;4", b"SB;99,0"]
    assert f.feed(b"\r\n  PL;kerz,2,0,x;:\r\n") == [b"PL;kerz,2,0,x"]
    assert f.buffered == 0
    assert f.feed(b'LM;"a;:b ""x""";:') == [b'LM;"a;:b ""x"""']
    assert f.feed(b"GS;;:") == [b"GS;"]
    assert f.feed(b"LM;trailing ;:") == [b"LM;trailing "]


def test_netacquire_terminator_split_across_feeds() -> None:
    f = NetAcquireFramer()
    assert f.feed(b"SS;3;") == [] and f.buffered == 5
    assert f.feed(b":") == [b"SS;3"]
    assert f.feed(b'LM;"x;') == []
    assert f.feed(b':";') == []  # the ";:" was inside quotes
    assert f.feed(b":") == [b'LM;"x;:"']


def test_netacquire_non_ascii_is_skipped() -> None:
    f = NetAcquireFramer()
    out = f.feed('LM;"café";:SS;3;:'.encode())
    assert isinstance(out[0], MalformedFrame) and out[1:] == [b"SS;3"] and not f.poisoned


def test_netacquire_oversize_resyncs_with_quote_state_reset() -> None:
    f = NetAcquireFramer(max_frame=20)
    # An unterminated quote must not swallow the session once the limit is hit.
    (err,) = f.feed(b'LM;"' + b"a" * 30)
    assert isinstance(err, FrameTooLong) and f.buffered == 0
    assert f.feed(b"b" * 5000) == [] and f.buffered == 0
    assert f.feed(b";") == [] and f.feed(b":SS;3;:") == [b"SS;3"]
    assert not f.poisoned



@pytest.mark.parametrize(
    "wire, expected",
    [
        # Exactly max_frame is fine.
        (b"x" * 20 + b";:" + b"y" * 21 + b";:ok;:", [b"x" * 20, "FrameTooLong", b"ok"]),
        # The quoted ";:" right at the limit ends the discard: quote state resets at byte max_frame.
        (b'LM;"' + b"a" * 16 + b';:SS;3;:', ["FrameTooLong", b"SS;3"]),
        (b'LM;"' + b"a" * 13 + b';:";:SS;3;:', [b'LM;"' + b"a" * 13 + b';:"', b"SS;3"]),
    ],
)
def test_netacquire_limit_independent_of_chunking(wire: bytes, expected: list) -> None:
    for i in range(len(wire) + 1):
        g = NetAcquireFramer(max_frame=20)
        got = g.feed(wire[:i]) + g.feed(wire[i:])
        assert [type(x).__name__ if isinstance(x, FrameError) else x for x in got] == expected, i


def test_netacquire_encode() -> None:
    f = NetAcquireFramer(max_frame=12)
    assert f.encode(b'LM;"a;:""b"') == b'LM;"a;:""b";:'
    assert f.encode(b"") == b";:"
    for bad in (b'LM;"open', b"SS;3;:SB;1", b" SS;3", b"\nSS", "é".encode(), b"x" * 13, b'"a";:"b"'):
        with pytest.raises(ValueError):
            f.encode(bad)


_na_unquoted = st.lists(
    st.one_of(st.sampled_from([b";", b":", b";:", b";;:", b" ", b"\t", b"\r\n", b"\x0b", b"PT;3", b"\xe9"]),
              st.binary(max_size=8).map(lambda b: b.replace(b'"', b""))),
    max_size=12,
).map(lambda parts: b"".join(parts) + b";:")


@pytest.mark.parametrize("mf", [4, 20, 8192])
@settings(max_examples=150)
@given(wire=_na_unquoted)
def test_netacquire_one_read_equals_byte_by_byte(mf: int, wire: bytes) -> None:
    """A read of whole unquoted directives (split without buffering) gives what the
    incremental scan gives, whitespace, empty directives, limits and non-ASCII included."""
    whole = NetAcquireFramer(max_frame=mf)
    byte = NetAcquireFramer(max_frame=mf)
    assert norm(whole.feed(wire)) == norm(feed_chunks(byte, [wire[i:i + 1] for i in range(len(wire))]))
    assert whole.buffered == byte.buffered == 0
    assert norm(whole.feed(b" PT;1;:")) == norm(byte.feed(b" PT;1;:"))


@pytest.mark.parametrize("payload", [b'"a""', b"x", b";:"])
def test_netacquire_byte_by_byte_is_linear(payload: bytes) -> None:
    """Quote-dense directives fed one byte at a time: a rescanning framer would be quadratic."""
    body = b'LM;"' + payload.replace(b'"', b'""') * (60_000 // len(payload)) + b'"'
    f = NetAcquireFramer(max_frame=len(body))
    wire = body + b";:"
    start = time.perf_counter()
    out: list = []
    for i in range(len(wire)):
        out += f.feed(wire[i : i + 1])
    assert out == [body]
    assert time.perf_counter() - start < 2.0


# --------------------------------------------------------------------------- binary framers


def _assert_poisoned(framer: Framer, out: list, before: list, cls: type[FrameError]) -> None:
    assert out[:-1] == before
    err = out[-1]
    assert isinstance(err, cls) and framer.poisoned and framer.buffered == 0
    assert framer.feed(b"\x00\x00\x00\x00") == [err] and framer.feed(b"") == [err]
    assert framer.feed(b"\x00" * 1000)[0] is err and framer.buffered == 0


def test_pimp_reserved_type_is_a_frame_like_any_other() -> None:
    # the reference server answers type 0xFF as an unassigned code and keeps the connection
    f = PimpFramer()
    assert f.feed(b"\x00\x01\x01\xff\x00\xff\x02ab\x21") == [(0, b"\x01"), (0xFF, b""), (0xFF, b"ab")]
    assert not f.poisoned and f.feed(b"\x00") == [(0x21, b"")]


def test_pimp_reserved_length_poisons() -> None:
    f = PimpFramer()
    _assert_poisoned(f, f.feed(b"\x21\x00\x30\xff" + b"x" * 300), [(0x21, b"")], MalformedFrame)


def test_pimp_oversize_poisons() -> None:
    f = PimpFramer(max_frame=10)
    assert f.feed(b"\x13\x0a" + b"p" * 10) == [(0x13, b"p" * 10)]
    _assert_poisoned(f, f.feed(b"\x13\x0b"), [], FrameTooLong)


def test_pimp_encode() -> None:
    assert PimpFramer().encode((0, b"\x01")) == b"\x00\x01\x01"
    assert PimpFramer().encode((0xFE, b"")) == b"\xfe\x00"
    for bad in [(0xFF, b""), (-1, b""), (256, b""), (1, b"x" * 255)]:
        with pytest.raises(ValueError):
            PimpFramer().encode(bad)
    with pytest.raises(ValueError):
        PimpFramer(max_frame=3).encode((1, b"1234"))
    with pytest.raises(TypeError):
        PimpFramer().encode((1, "text"))  # type: ignore[arg-type]


def test_windward_zero_length_skipped_and_little_endian() -> None:
    f = WindwardFramer()
    assert f.feed(b"\x00\x00\x00\x00" + b"\x03\x00\x00\x00abc" + b"\x00\x00\x00\x00") == [b"abc"]
    assert f.buffered == 0
    assert WindwardFramer().encode(b"x" * 258)[:4] == b"\x02\x01\x00\x00"


def test_windward_negative_length_poisons() -> None:
    f = WindwardFramer()
    _assert_poisoned(f, f.feed(b"\x01\x00\x00\x00a" + b"\xff\xff\xff\xff"), [b"a"], MalformedFrame)


def test_windward_oversize_poisons_without_buffering() -> None:
    f = WindwardFramer(max_frame=100)
    assert f.feed(b"\x64\x00\x00\x00" + b"q" * 99) == [] and f.buffered == 103
    assert f.feed(b"q") == [b"q" * 100]
    _assert_poisoned(f, f.feed(b"\x65\x00\x00\x00"), [], FrameTooLong)
    g = WindwardFramer()  # length 100 sent big-endian reads as ~1.6 GiB: refused at the header
    _assert_poisoned(g, g.feed(b"\x00\x00\x00\x64"), [], FrameTooLong)


def test_windward_encode() -> None:
    assert WindwardFramer().encode(b"<exit/>") == b"\x07\x00\x00\x00<exit/>"
    for bad in (b"", b"x" * 11):
        with pytest.raises(ValueError):
            WindwardFramer(max_frame=10).encode(bad)


def test_daide_pad_ignored_and_unknown_type_passes() -> None:
    f = DaideFramer()
    assert f.feed(b"\x02\xaa\x00\x02\x48\x1c" + b"\x99\x00\x00\x03abc") == [(2, b"\x48\x1c"), (0x99, b"abc")]
    assert DaideFramer().encode((2, b"\x48\x1c")) == b"\x02\x00\x00\x02\x48\x1c"


@pytest.mark.parametrize(
    "header",
    [
        b"\x00\x00\x04\x00",  # IM from a little-endian client: length reads as 1024
        b"\x00\x00\x00\x05",  # IM must be 4 bytes
        b"\x01\x00\x00\x07",  # RM must be a multiple of 6
        b"\x02\x00\x00\x03",  # DM holds 2-byte tokens
        b"\x03\x00\x00\x01",  # FM is empty
        b"\x04\x00\x00\x03",  # EM is a 2-byte error code
    ],
)
def test_daide_bad_structure_poisons_at_header(header: bytes) -> None:
    f = DaideFramer()
    _assert_poisoned(f, f.feed(b"\x03\x00\x00\x00" + header), [(3, b"")], MalformedFrame)


def test_daide_wrong_endian_hint() -> None:
    (err,) = DaideFramer().feed(b"\x00\x00\x04\x00")
    assert "byte order" in str(err)


def test_daide_oversize_poisons() -> None:
    f = DaideFramer(max_frame=8)
    _assert_poisoned(f, f.feed(b"\x02\x00\x00\x0a"), [], FrameTooLong)


def test_daide_encode() -> None:
    for bad in [(0, b"abc"), (1, b"x" * 5), (2, b"x"), (3, b"x"), (4, b""), (256, b""), (-1, b"")]:
        with pytest.raises(ValueError):
            DaideFramer().encode(bad)
    with pytest.raises(ValueError):
        DaideFramer(max_frame=4).encode((2, b"x" * 6))
    assert DaideFramer().encode((0x42, b"x" * 65535))[:4] == b"\x42\x00\xff\xff"
