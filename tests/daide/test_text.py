import pytest
from hypothesis import given, strategies as st

from gamehall_daide.text import Text, TextError, canonical, parse, render, render_item


def test_parse_order():
    assert parse("SUB ((ENG FLT LON) MTO NTH)") == ["SUB", [["ENG", "FLT", "LON"], "MTO", "NTH"]]


def test_render_canonical_spacing():
    assert render([["ENG", "FLT", "LON"], "MTO", "NTH"]) == "( ENG FLT LON ) MTO NTH"
    assert render(["MIS", [2]]) == "MIS ( 2 )"
    assert render(["MIS", [-3]]) == "MIS ( -3 )"


def test_lower_case_tokens_are_upper_cased():
    assert parse("(stp ncs)") == [["STP", "NCS"]]


def test_text_literal_and_doubled_quote():
    tree = parse("NME ('Bob''s bot') ('1.0')")
    assert tree == ["NME", [Text("Bob's bot")], [Text("1.0")]]
    assert isinstance(tree[1][0], Text)
    assert render(tree) == "NME ( 'Bob''s bot' ) ( '1.0' )"


def test_numbers():
    assert parse("YES (1901) -8192 0") == ["YES", [1901], -8192, 0]


def test_empty_groups_and_message():
    assert parse("") == []
    assert parse("MRT ()") == ["MRT", []]
    assert render(["MRT", []]) == "MRT ( )"


@pytest.mark.parametrize("text,position", [
    ("SUB )", 4),
    ("NME ('abc", 5),
    ("SUB # X", 4),
    ("12AB", 0),
])
def test_errors_carry_position(text, position):
    with pytest.raises(TextError) as info:
        parse(text)
    assert isinstance(info.value, ValueError)
    assert info.value.position == position


def test_unclosed_bracket_position_is_innermost_open():
    with pytest.raises(TextError) as info:
        parse("SUB ((ENG")
    assert info.value.position == 5


def test_render_rejects_other_types():
    with pytest.raises(TypeError):
        render([1.5])
    with pytest.raises(TypeError):
        render([True])


def test_render_item_and_canonical():
    assert render_item(["ENG", "FLT", ["STP", "NCS"]]) == "( ENG FLT ( STP NCS ) )"
    assert render_item("SUC") == "SUC"
    assert canonical("(eng  flt lon)mto nth") == "( ENG FLT LON ) MTO NTH"


_token = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=3, max_size=3)
_item = st.recursive(
    st.one_of(_token, st.integers(-8192, 8191), st.text(alphabet=" abcXYZ'()09", max_size=8).map(Text)),
    lambda children: st.lists(children, max_size=4),
    max_leaves=20,
)


@given(st.lists(_item, max_size=6))
def test_render_parse_round_trip(tree):
    again = parse(render(tree))
    assert again == tree
    assert render(again) == render(tree)
