"""One sanitiser for text that crosses from one user (and protocol) to others (issue 15)."""
import pytest

from gamehall.text import clean_text
from gamehall_acquire.wire.protocol import build_factory as netacquire_factory
from gamehall_et.wire.protocol import build_factory as et_factory
from tests.et.harness import Conn as EtConn, et_hall
from tests.helpers import make_hall
from tests.netacquire.harness import Conn as NaConn, pump_all
from tests.test_table import login


@pytest.mark.parametrize("raw, clean", [
    ("plain words, accents é and emoji \U0001F600", "plain words, accents é and emoji \U0001F600"),
    ("\x1b[2Jgotcha", "?[2Jgotcha"),                     # ESC: a terminal escape
    ("\x9b2J csi", "?2J csi"),                            # C1 CSI
    ("bell\x07 del\x7f nul\x00", "bell? del? nul?"),
    ("two\r\nlines\tand tab", "two  lines and tab"),
    ("abc\u202edcba", "abcdcba"),                         # right-to-left override
    ("a\u2066b\u2069c\u200fd", "abcd"),                   # isolates, right-to-left mark
    ("zero\u200bwidth\ufeff", "zerowidth"),
    ("line\u2028sep\u2029para", "line sep para"),
    ("private\ue000use", "privateuse"),
    ("no\u00a0break space", "no\u00a0break space"),       # visible spaces stay
])
def test_clean_text(raw, clean):
    assert clean_text(raw) == clean


def test_clean_text_can_keep_line_breaks_for_a_console():
    assert clean_text("one\ntwo\x1b[0m", keep="\n") == "one\ntwo?[0m"


def test_lobby_chat_and_announcements_are_cleaned_for_every_receiver():
    hall = make_hall()
    ann, a = login(hall, "Ann", "netacquire")
    _, b = login(hall, "Bob", "et")
    hall.lobby.chat("Ann", "\x1b[2Jhello\u202e")
    hall.say("restart\x1b]0;owned\x07 at noon")
    assert a.chat == b.chat == [("Ann", "?[2Jhello"), ("*", "restart?]0;owned? at noon")]


def test_table_chat_is_cleaned():
    hall = make_hall()
    ann, _ = login(hall, "Ann")
    bob, b = login(hall, "Bob", "et")
    table = hall.create_table("nim", max_seats=2, creator=ann)
    table.join(bob)
    table.chat(ann, "gg\x1b[31m\u200b")
    assert [d for _, e, d in b.events if e == "chat"][-1] == {"nickname": "Ann", "text": "gg?[31m"}


def test_a_netacquire_lobby_line_reaches_et_clients_without_its_escape():
    hall = et_hall()
    et = EtConn(et_factory(hall))
    et.send("name eve")
    na = NaConn(netacquire_factory(hall), "Nina", 41000)
    pump_all([na])
    hall.clock.advance(2)
    et.lines()
    na.send('BM;Lobby,"\x1b[2Jall gone\x07"')
    pump_all([na])
    said = [line for line in et.lines() if line.startswith("say ")]
    assert said and said[-1].endswith("Nina: ?[2Jall gone?")
    assert not any("\x1b" in line or "\x07" in line for line in et.seen)


# -- lookalike nicknames (issue 15) ---------------------------------------------------------
LOOKALIKES_OF_ALICE = [
    "\u0430lice",        # Cyrillic а
    "\uff41lice",        # full-width ａ
    "alic\u00e9",        # é composed
    "alice\u0301",       # e + combining acute
    "aIice",             # capital I for l
    "\u0410LICE",        # Cyrillic А in a spelling of ALICE, the same name as alice
]


@pytest.mark.parametrize("lookalike", LOOKALIKES_OF_ALICE)
def test_a_lookalike_of_a_logged_in_user_is_refused(lookalike):
    from gamehall.lobby import NameTaken
    hall = make_hall()
    login(hall, "alice")
    with pytest.raises(NameTaken, match="(looks too much like|Duplicate user Nickname) alice"):
        login(hall, lookalike)
    assert [u.nickname for u in hall.lobby.users.values()] == ["alice"]


def test_the_lookalike_may_log_in_once_the_other_has_gone_and_then_blocks_it():
    from gamehall.lobby import NameTaken
    hall = make_hall()
    alice, _ = login(hall, "alice")
    hall.logout(alice)
    fake, _ = login(hall, "\u0430lice")
    with pytest.raises(NameTaken):
        login(hall, "alice")
    hall.logout(fake)
    login(hall, "alice")


def test_full_width_nicknames_are_kept_nfkc_normalised():
    hall = make_hall()
    user, _ = login(hall, "\uff22\uff4f\uff42")          # full-width Bob
    assert user.nickname == "Bob" and hall.lobby.find("\uff42\uff4f\uff42") is user


def test_distinct_names_are_still_accepted():
    hall = make_hall()
    names = ["alice", "alicia", "alex", "Anna", "Ann", "bob", "bobby", "José", "Zoë", "Nina", "Nino",
             "Мария", "Дмитрий", "李雷", "Bot 2", "Bot 3", "mary", "harry"]
    for name in names:
        login(hall, name)
    assert len(hall.lobby.users) == len(names)


def test_a_lookalike_of_a_player_whose_seat_is_held_is_refused():
    from gamehall.lobby import NameTaken
    hall = make_hall()
    ann, _ = login(hall, "alice")
    bob, _ = login(hall, "Bob")
    table = hall.create_table("nim", max_seats=2, creator=ann)
    table.join(bob)
    table.start(ann)
    hall.logout(ann)                                      # alice's seat is held for her
    with pytest.raises(NameTaken, match="whose seat at game #1 is held"):
        login(hall, "\u0430lice")
    assert hall.held_table("\uff41lice") is table          # full-width: the same name, NFKC
    back, _ = login(hall, "alice")                         # alice herself comes back
    assert back.nickname == "alice"


# -- invisible and blank-looking nicknames (issue: Hangul fillers, braille blank, small capitals,
#    separators shown differently by the front ends) ------------------------------------------
@pytest.mark.parametrize("blank", ["\u3164", "\u115f", "\u1160", "\uffa0", "\u2800", "\u034f", "\ufe0f"])
def test_a_name_with_a_blank_character_is_refused_beside_the_plain_one(blank):
    from gamehall.lobby import LobbyError
    hall = make_hall()
    login(hall, "alice")
    for name in (f"alice{blank}", f"{blank}alice", f"ali{blank}ce"):
        with pytest.raises(LobbyError, match="Nickname may not contain invisible"):
            login(hall, name)
    assert [u.nickname for u in hall.lobby.users.values()] == ["alice"]


@pytest.mark.parametrize("name", ["\u3164", "\u3164\u3164\u3164", "\u2800\u2800", "\u0301\u0301", "\u2003\u0301"])
def test_a_name_must_show_something(name):
    from gamehall.lobby import LobbyError
    hall = make_hall()
    with pytest.raises(LobbyError, match="(invisible|visible character)"):
        login(hall, name)
    assert not hall.lobby.users


@pytest.mark.parametrize("lookalike", ["\u1d00lice", "\u1d00\u029f\u026a\u1d04\u1d07"])
def test_small_capitals_are_lookalikes_of_their_letters(lookalike):
    from gamehall.lobby import NameTaken
    hall = make_hall()
    login(hall, "alice")
    with pytest.raises(NameTaken, match="looks too much like alice"):
        login(hall, lookalike)


@pytest.mark.parametrize("first,second", [
    ("ali\u2003ce", "ali_ce"),      # em space: "ali ce" on the web, "ali_ce" on E&T
    ("ali ce", "ali_ce"),
    ("ali_ce", "ali ce"),
    ("ali ce", "ali  ce"),          # NetAcquire and E&T collapse a run of spaces
    ("ali_ce", "ali__ce"),
    ("ali ce", "ali\uff3fce"),      # full-width low line
])
def test_names_that_differ_only_by_how_a_separator_is_shown_collide(first, second):
    from gamehall.lobby import NameTaken
    hall = make_hall()
    login(hall, first)
    with pytest.raises(NameTaken):
        login(hall, second)


def test_an_em_space_name_on_the_web_and_its_underscore_on_et_are_one_user():
    """Over the real wires: the web user "ali<em space>ce" is shown on E&T as ali_ce; an E&T
    user may not then take the name ali_ce."""
    hall = et_hall()
    et = EtConn(et_factory(hall))
    login(hall, "ali\u2003ce")
    hall.clock.advance(2)
    who = et.send("who")
    assert "ali_ce" in who[-1]                              # how E&T shows the web user
    answer = et.send("name ali_ce")
    assert any(line.startswith("ERROR") and "looks too much like ali ce" in line for line in answer)
    assert sorted(u.nickname for u in hall.who()) == ["ali ce", f"guest{et.id}"]
