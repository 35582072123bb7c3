from gamehall.viewtools import keyed


def test_keyed_numbers_the_first_nine_choices_and_leaves_the_rest_without_a_key():
    choices = [{"label": str(i)} for i in range(11)]
    assert keyed(choices) is choices
    assert [c["key"] for c in choices] == ["1", "2", "3", "4", "5", "6", "7", "8", "9", None, None]


def test_keyed_of_no_choices_is_empty():
    assert keyed([]) == []
