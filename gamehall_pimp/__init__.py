"""Monopoly over PIMP (the Portable Internet Monopoly Protocol): engine, bots and front end."""
