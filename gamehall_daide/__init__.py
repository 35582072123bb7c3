"""Diplomacy over DAIDE: the rules engine, its bots and the ``daide`` front end."""
