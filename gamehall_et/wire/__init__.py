"""The ``et`` front end: the Euphrates & Tigris line protocol (codec, rendering, protocol)."""
