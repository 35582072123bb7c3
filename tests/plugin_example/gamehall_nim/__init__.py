"""Nim for gamehall: the example game of the README's "Writing a game plugin"."""
