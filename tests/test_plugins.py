"""Plugin discovery: a dropin that fails to import vanishes silently, so assert the exact set."""
from gamehall.interfaces import IFrontEnd, IGame
from gamehall.plugins import find_frontends, find_games
from tests.helpers import install_example_plugin


def test_installed_games_and_front_ends_are_exactly_these():
    games, fronts = find_games(), find_frontends()
    expected_games = {"acquire", "windward", "pimp", "et", "diplomacy"}
    expected_fronts = {"netacquire", "windward", "pimp", "et", "daide", "web"}
    # The example plugin may already be on the path from another test.
    assert set(games) - {"nim"} == expected_games
    assert set(fronts) - {"nim"} == expected_fronts
    for game in games.values():
        assert IGame.providedBy(game)
    for front in fronts.values():
        assert IFrontEnd.providedBy(front)


def test_example_plugin_is_found_once_on_the_path():
    install_example_plugin()
    assert "nim" in find_games() and "nim" in find_frontends()
    assert find_frontends()["nim"].default_endpoint == "tcp:7070"


def test_twistd_service_maker_is_found():
    from twisted.application.service import IServiceMaker
    from twisted.plugin import getPlugins
    import twisted.plugins
    names = [maker.tapname for maker in getPlugins(IServiceMaker, twisted.plugins)]
    assert names.count("gamehall") == 1
