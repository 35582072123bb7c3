"""Nim for gamehall: the example game of docs/plugins.md."""
