"""The codec: every message both ways, byte-exact examples, and its error replies."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gamehall_pimp.messages import BY_CODE, SPECS
from gamehall_pimp.wire.codec import DecodeError, decode, encode
from gamehall_pimp.wire.framing import PimpFramer

FIELD = {
    "B": st.integers(0, 255), "b": st.integers(-128, 127), "?": st.booleans(),
    "I": st.integers(0, 2 ** 32 - 1), "S": st.text(max_size=10).filter(lambda s: len(s.encode()) <= 32),
    "H": st.lists(st.tuples(st.integers(0, 255), st.integers(-128, 127), st.integers(-128, 127))
                  .map(list), max_size=20),
}


@pytest.mark.parametrize("name", sorted(SPECS))
def test_every_message_round_trips(name):
    spec = SPECS[name]

    @given(st.tuples(*[FIELD[f] for f in spec.fields]))
    def check(args):
        frame = encode(name, args)
        assert frame[0] == spec.code and frame[1] == len(frame) - 2
        sender = "c" if spec.direction in "cx" else "s"
        assert decode(frame[0], frame[2:], sender) == (name, tuple(args))
    check()


def test_the_protocol_texts_examples_byte_for_byte():
    assert encode("HANDSHAKE", [1]) == b"\x00\x01\x01"
    assert encode("HANDSHAKE_ACKNOWLEDGE", [0xA93F910E]) == bytes([0x01, 0x04, 0xA9, 0x3F, 0x91, 0x0E])
    assert encode("JOIN", [2, True, "kerz"]) == b"\x02\x07\x02\x01\x04kerz"
    assert decode(0x02, b"\x02\x01\x04kerz") == ("JOIN", (2, True, "kerz"))
    assert encode("PURCHASE_HOUSES", [[[3, 1, 0], [4, -4, 1]]]) == bytes([0x90, 7, 2, 3, 1, 0, 4, 0xFC, 1])


def test_decoding_errors_are_the_protocols_replies():
    with pytest.raises(DecodeError) as e:
        decode(0x17, b"")
    assert e.value.reply == ("ERROR_UNEXPECTED_MESSAGE", 0x17)
    with pytest.raises(DecodeError) as e:
        decode(0x22, b"\x01\x02\x03")                 # a server message from a client
    assert e.value.reply == ("ERROR_UNEXPECTED_MESSAGE", 0x22)
    with pytest.raises(DecodeError) as e:
        decode(0x60, b"\x00\x00\x00\x01\x00")           # SET_CASH cut short
    assert e.value.reply == ("ERROR_UNPARSEABLE",)
    with pytest.raises(DecodeError) as e:
        decode(0x02, b"\x00\x01\x21" + b"x" * 33)
    assert e.value.reply == ("ERROR_UNPARSEABLE",)
    with pytest.raises(DecodeError) as e:
        decode(0x02, b"\x00\x01\x02\xff\xfe")
    assert e.value.reply == ("ERROR_INVALID_PAYLOAD", 0x02)
    assert decode(0x3B, b"\x05extra") == ("MORTGAGE_PROPERTY", (5,))   # longer payloads are fine
    assert decode(0x02, b"\x00\x03\x01a")[1][1] is True                  # bool: the low bit


def test_unassigned_codes_are_exactly_the_notes_list():
    unassigned = set()
    for r in ("17-1E 2D 3A 3D-3F 44 48 49 4E 4F 57-5F 6F 7B 7C 88-8F 9C-BF C7-CE D6-D9 DD DE EF F5-FB"
              .split()):
        a, _, b = r.partition("-")
        unassigned |= set(range(int(a, 16), int(b or a, 16) + 1))
    assert set(BY_CODE) == set(range(255)) - unassigned


def test_frames_through_the_halls_pimp_framer():
    f = PimpFramer()
    wire = encode("HANDSHAKE", [1]) + encode("JOIN", [0, False, "ob"])
    frames = f.feed(wire[:4]) + f.feed(wire[4:])
    assert [decode(t, p) for t, p in frames] == [("HANDSHAKE", (1,)), ("JOIN", (0, False, "ob"))]
