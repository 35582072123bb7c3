"""The DAIDE wire layer of the ``daide`` front end: IM/RM/DM/FM/EM, every EM case, the IM
timer, the maximum message length, bytes split at every position, garbage."""
import random
import struct

import pytest

from gamehall_daide.wire import protocol
from tests.daide.client import DM, EM, FM, IM, RM, dm, header, initial, words
from tests.daide.wire import Link, daide_hall, factory_of


@pytest.fixture
def hall():
    return daide_hall(bot_delay=0.5)       # the front end serves the hall's Diplomacy game


def frames(data: bytes) -> list:
    out = []
    while data:
        kind, _, length = struct.unpack(">BBH", data[:4])
        out.append((kind, data[4:4 + length]))
        data = data[4 + length:]
    return out


def em(code: int) -> bytes:
    return header(EM, 2) + struct.pack(">H", code)


def connect(hall):
    return Link(factory_of(hall))


def test_im_gets_an_empty_rm(hall):
    link = connect(hall)
    assert link.raw(initial()) == header(RM, 0)
    assert not link.closed


def test_im_timer_pops_after_30_seconds(hall):
    link = connect(hall)
    hall.clock.advance(protocol.IM_TIMEOUT - 0.1)
    assert link.out() == b"" and not link.closed
    hall.clock.advance(0.2)
    assert link.out() == em(0x01) and link.closed


def test_any_data_stops_the_im_timer(hall):
    link = connect(hall)
    hall.clock.advance(20)
    link.raw(initial()[:3])
    hall.clock.advance(protocol.IM_TIMEOUT - 10)    # past the IM timer, within the partial one
    assert link.out() == b"" and not link.closed
    assert link.raw(initial()[3:]) == header(RM, 0)


@pytest.mark.parametrize("part,more", [(initial()[:3], b"\x04\x00"),
                                       (initial() + header(DM, 6) + b"\x48", b"\x0c")])
def test_an_incomplete_message_is_em_09_after_30_seconds_not_the_idle_timeout(hall, part, more):
    link = connect(hall)
    link.raw(part)
    hall.clock.advance(protocol.PARTIAL_TIMEOUT - 1)
    link.out()
    link.raw(more)                               # more bytes of the same message: no new grace
    hall.clock.advance(0.5)
    assert link.out() == b"" and not link.closed
    hall.clock.advance(0.6)
    assert link.out() == em(0x09) and link.closed


def test_whole_messages_leave_no_partial_timer(hall):
    link = connect(hall)
    link.raw(initial() + dm("MAP")[:3])
    hall.clock.advance(20)
    link.raw(dm("MAP")[3:] + dm("MAP")[:1])          # completed; the next one starts afresh
    hall.clock.advance(29)
    assert not link.closed
    link.raw(dm("MAP")[1:])
    hall.clock.advance(120)
    assert not link.closed


def test_a_reply_over_16_kib_is_sent_whole(hall):
    link = connect(hall)
    link.raw(initial())
    big = b"\x4b\x41" * 20000                      # 40,000 bytes of text tokens
    link.proto.send_dm(big)
    assert link.out() == header(DM, len(big)) + big and not link.closed
    link.proto.send_dm(b"\x4b\x41" * 40000)       # over the 16-bit length: cannot be framed
    assert link.out() == b"" and not link.closed


@pytest.mark.parametrize("data,code", [
    (dm("NME ( 'a' ) ( 'b' )"), 0x02),                                   # DM before the IM
    (header(FM, 0) + b"", None),                                         # FM: closed, no reply
    (header(IM, 4) + struct.pack("<HH", 1, 0xDA10), 0x03),               # little-endian fields
    (bytes([0, 0, 4, 0]) + struct.pack("<HH", 1, 0xDA10), 0x03),         # little-endian length too
    (initial(magic=0x1234), 0x04),
    (initial(version=2), 0x05),
    (initial() + initial(), 0x06),
    (initial() + header(9, 0), 0x08),                                    # unknown message type
    (header(9, 2) + b"xx", 0x08),
    (initial() + header(DM, 0), 0x09),                                   # a DM holds a token at least
    (initial() + header(DM, 3) + b"abc", 0x09),                          # odd length
    (header(IM, 2) + b"\x00\x01", 0x09),                                 # IM too short
    (initial() + header(RM, 0), 0x0D),                                   # RM from the client
    (header(RM, 6) + b"\x41\x07ABC\x00", 0x0D),
    (initial() + header(DM, 2) + b"\x58\x00", 0x0E),                     # a private-category token
    (initial() + header(DM, protocol.MAX_MESSAGE + 2), 0x08),              # over the maximum length
])
def test_em_cases(hall, data, code):
    link = connect(hall)
    out = link.raw(data)
    got = [f for f in frames(out) if f[0] != RM]
    assert link.closed
    if code is None:
        assert got == []
    else:
        assert got == [(EM, struct.pack(">H", code))]      # and no FM after an EM


def test_em_from_the_client_closes_without_reply(hall):
    link = connect(hall)
    link.raw(initial())
    assert link.raw(em(0x08)) == b"" and link.closed


def test_fm_from_the_client_closes_without_reply(hall):
    link = connect(hall)
    link.raw(initial())
    assert link.raw(header(FM, 0)) == b"" and link.closed


def test_the_server_says_fm_before_it_closes(hall):
    link = connect(hall)
    link.raw(initial())
    link.proto.disconnect("bye")
    out = frames(link.out())
    assert out[-1] == (FM, b"") and link.closed
    assert [words(body)[0] for kind, body in out if kind == DM] == ["ADM", "OFF"]


def test_unknown_token_is_huh_not_em(hall):
    link = connect(hall)
    link.raw(initial())
    out = frames(link.raw(header(DM, 4) + b"\x48\x0f\x4a\x7f"))       # OBS 0x4A7F
    assert out == [(DM, bytes.fromhex("48064000480f49024a7f4001"))]   # HUH ( OBS ERR 0x4A7F )
    assert not link.closed


def replies(link, text):
    return [words(body) for kind, body in frames(link.raw(dm(text))) if kind == DM]


def test_huh_and_prn(hall):
    link = connect(hall)
    link.raw(initial())
    assert replies(link, "SUB ( ( ENG FLT LON ) MTO NTH") == [
        ["PRN", "(", "SUB", "(", "(", "ENG", "FLT", "LON", ")", "MTO", "NTH", ")"]]
    assert replies(link, "NOW ( SPR 1901 )") == [["HUH", "(", "NOW", "ERR", "(", "SPR", 1901, ")", ")"]]
    assert replies(link, "HUH ( NOW ERR )") == []            # never answered
    assert replies(link, "PRN ( NOW ( )") == []
    assert replies(link, "THX ( MBV )") == [["HUH", "(", "ERR", "THX", "(", "MBV", ")", ")"]]
    assert not link.closed


def test_requests_before_joining(hall):
    link = connect(hall)
    link.raw(initial())
    assert replies(link, "MAP") == [["MAP", "(", "'STANDARD'", ")"]]
    assert replies(link, "NOW")[0][:5] == ["NOW", "(", "SPR", 1901, ")"]
    assert replies(link, "SCO")[0][:3] == ["SCO", "(", "AUS"]
    assert replies(link, "MDF")[0][:3] == ["MDF", "(", "AUS"]
    assert replies(link, "HLO") == [["REJ", "(", "HLO", ")"]]
    assert replies(link, "SUB ( ( ENG FLT LON ) HLD )")[0][:3] == ["REJ", "(", "SUB"]
    assert replies(link, "TME") == [["REJ", "(", "TME", ")"]]


def stream_of_requests() -> bytes:
    return initial() + dm("MAP") + dm("TME") + dm("HUH ( X )".replace("X", "MAP")) + dm("HLO") + dm("MDF")


def test_bytes_split_at_every_position_give_the_same_replies(hall):
    data = stream_of_requests()
    whole = connect(hall).raw(data)
    assert len(frames(whole)) == 5                 # RM, MAP, REJ (TME), REJ (HLO), MDF
    for cut in range(1, len(data)):
        link = connect(hall)
        got = link.raw(data[:cut]) + link.raw(data[cut:])
        assert got == whole, cut


def test_bytes_one_at_a_time(hall):
    data = stream_of_requests()
    whole = connect(hall).raw(data)
    link = connect(hall)
    assert b"".join(link.raw(data[i:i + 1]) for i in range(len(data))) == whole


def test_garbage_never_crashes(hall):
    rng = random.Random(16)
    for n in range(300):
        link = connect(hall)
        if n % 2:
            link.raw(initial())
        blob = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
        if n % 3 == 0:                              # well-framed DMs of random tokens
            body = bytes(rng.choice([0x40, 0x41, 0x43, 0x48, 0x4B, 0x55, 0x00]) if i % 2 == 0
                         else rng.randrange(256) for i in range(2 * rng.randrange(1, 20)))
            blob = header(DM, len(body)) + body
        link.raw(blob)
        assert not link.proto.closing or link.closed
    assert hall.stats.refused["daide"] > 0
