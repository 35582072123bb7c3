"""Euphrates & Tigris (Knizia's Tigris & Euphrates): the rules engine, bots and the ``et`` front end."""
