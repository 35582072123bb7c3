"""The web front end's ratings requests (standings, player, head_to_head) over the JSON
protocol, answered from the store; bad fields get a clear error; anyone may ask."""
from __future__ import annotations

import pytest
from twisted.internet.defer import fail

from gamehall.store import StoreError
from tests.test_ratings_chat import rated
from tests.web.webharness import Client, make_web


@pytest.fixture
def web():
    hall, site, _ = make_web()
    rated(hall.store, ["Ann", "Bob"], 0)
    rated(hall.store, ["Ann", "Bob"], 1)
    rated(hall.store, ["Ann", "Bob", "Cy"], 0)
    rated(hall.store, ["Dee", "Bob"], 0, game="et", variant="standard")
    return hall, site


def test_standings_of_a_key_a_game_or_the_first(web):
    _, site = web
    visitor = Client(site)                       # no sign-in needed
    visitor.send({"type": "standings"})
    first = visitor.last("standings")
    assert [k["key"] for k in first["keys"]] == ["acquire/classic/2p", "acquire/classic/3p", "et/standard"]
    assert first["key"] == "acquire/classic/2p" and first["titles"]["nim"] == "Nim"
    # the later win counts for more: Bob first
    assert [(r["rank"], r["name"], r["games"], r["places"]) for r in first["rows"]] == [
        (1, "Bob", 2, {"1": 1, "2": 1}), (2, "Ann", 2, {"1": 1, "2": 1})]
    visitor.send({"type": "standings", "game": "et"})
    assert [r["name"] for r in visitor.last("standings")["rows"]] == ["Dee", "Bob"]
    visitor.send({"type": "standings", "key": "acquire/classic/3p", "offset": 1})
    answer = visitor.last("standings")
    assert [(r["rank"], r["name"]) for r in answer["rows"]] == [(2, "Bob"), (3, "Cy")]   # tied: by name
    visitor.send({"type": "standings", "game": "chess"})
    assert visitor.last("standings")["rows"] == [] and visitor.last("standings")["key"] is None


def test_a_player_and_head_to_head(web):
    _, site = web
    visitor = Client(site)
    visitor.send({"type": "player", "name": "ann"})
    ann = visitor.last("player")
    assert ann["name"] == "Ann"
    assert [r["rating_key"] for r in ann["ratings"]] == ["acquire/classic/2p", "acquire/classic/3p"]
    assert [g["table_id"] for g in ann["games"]] == [3, 2, 1]
    assert [h["table_id"] for h in ann["history"]] == [1, 2, 3]
    visitor.send({"type": "head_to_head", "name": "Ann", "other": "Bob"})
    h2h = visitor.last("head_to_head")
    assert (h2h["games"], h2h["wins"], h2h["losses"], h2h["ties"]) == (3, 2, 1, 0)
    assert [g["table_id"] for g in h2h["last"]] == [3, 2, 1]
    visitor.send({"type": "player", "name": "<b>Nobody</b>"})
    nobody = visitor.last("player")
    assert {k: nobody[k] for k in ("name", "ratings", "history", "games")} == {
        "name": "<b>Nobody</b>", "ratings": [], "history": [], "games": []}
    assert nobody["titles"]["nim"] == "Nim"


@pytest.mark.parametrize("message, reason", [
    ({"type": "player"}, "'name' must be a non-empty string"),
    ({"type": "player", "name": 5}, "'name' must be"),
    ({"type": "player", "name": "x" * 100}, "too long"),
    ({"type": "head_to_head", "name": "Ann", "other": "ANN"}, "another player"),
    ({"type": "head_to_head", "name": "Ann"}, "'other' must be"),
    ({"type": "standings", "offset": -1}, "'offset' must be"),
    ({"type": "standings", "key": ["x"]}, "'key' must be"),
])
def test_bad_fields_are_clear_errors(web, message, reason):
    _, site = web
    visitor = Client(site)
    visitor.send(message)
    assert reason in visitor.errors()[-1]
    assert all("Traceback" not in text for text in visitor.wire.sent)


def test_a_store_that_fails_is_an_error_not_a_silence(web):
    hall, site = web
    hall.store.rating_keys = lambda: fail(StoreError("gone"))
    visitor = Client(site)
    visitor.send({"type": "standings"})
    assert visitor.errors()[-1] == "The hall could not read its ratings right now"
