"""The et framer: lines end in CR LF, LF, a bare CR or CR NUL, however the bytes are split."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamehall.framing import FrameTooLong
from gamehall_et.wire.framing import TelnetLineFramer

from gamehall_et.wire.protocol import build_factory

from .harness import Conn, et_hall

ENDS = [b"\r\n", b"\n", b"\r", b"\r\x00"]


def frames(chunks, mf=None):
    f = TelnetLineFramer(mf)
    out = []
    for chunk in chunks:
        out += f.feed(chunk)
    return out, f


def every_byte(data: bytes) -> list[bytes]:
    return [data[i:i + 1] for i in range(len(data))]


@pytest.mark.parametrize("end", ENDS)
def test_each_line_end_ends_a_line_whole_or_split_at_every_byte(end):
    data = b"name ann" + end + b"who" + end + end + b"say hi" + end
    for chunks in ([data], every_byte(data)):
        out, f = frames(chunks)
        assert out == [b"name ann", b"who", b"", b"say hi"], (end, chunks)
        assert f.buffered == 0


def test_a_bare_cr_is_answered_at_once_without_waiting_for_the_next_byte():
    f = TelnetLineFramer()
    assert f.feed(b"who\r") == [b"who"]
    assert f.feed(b"\x00") == [] and f.feed(b"\n") == [b""]   # LF after CR NUL: an empty line
    assert f.feed(b"\r") == [b""] and f.feed(b"\nboard\r\n") == [b"board"]


def test_too_long_lines_are_refused_and_the_stream_resynchronises_at_any_line_end():
    for end in ENDS:
        data = b"x" * 9 + end + b"ok" + end + b"12345" + end
        for chunks in ([data], every_byte(data)):
            out, f = frames(chunks, mf=5)
            assert [type(x) for x in out] == [FrameTooLong, bytes, bytes], (end, chunks)
            assert out[1:] == [b"ok", b"12345"]
            assert f.buffered <= 6


@settings(max_examples=200)
@given(st.lists(st.tuples(st.binary(max_size=12).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b"")),
                          st.sampled_from(ENDS)), max_size=8),
       st.lists(st.integers(1, 7), max_size=40))
def test_any_split_gives_the_same_lines_and_never_holds_more_than_a_line(lines, cuts):
    data = b"".join(text + end for text, end in lines)
    chunks, i = [], 0
    for k in cuts:
        chunks.append(data[i:i + k])
        i += k
    chunks.append(data[i:])
    out, f = frames(chunks, mf=12)
    assert out == re.split(rb"\r\n|\r\x00|\r|\n", data)[:-1]    # the whole stream at once
    assert f.buffered <= 13


@pytest.mark.parametrize("end", ENDS)
def test_a_client_ending_lines_in_cr_or_cr_nul_is_served(end):
    factory = build_factory(et_hall())
    c = Conn(factory)
    c.lines()
    for byte in every_byte(b"name ann" + end + b"who" + end):
        c.proto.dataReceived(byte)
    assert c.lines() == [f"name {c.id} ann", f"who 1 {c.id} ann"]
