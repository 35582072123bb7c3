"""Acquire, Windward code-war edition (2016): a variant of the classic engine.

* :mod:`.rules`  -- the engine (``WindwardGame``, variant ``"windward"``), ``normalise``,
  the protocol mapping and ``game_from_record``;
* :mod:`.bots`   -- ``make_bot("strong" | "simple", seed)``;
* :mod:`.series` -- ``Series``: N games with a rotating first player, per-game scores, totals.

Importing this package registers the variant in ``gamehall_acquire.rules.VARIANTS``.
"""
from .rules import WindwardGame, WindwardRules, game_from_record  # noqa: F401  (registers the variant)
