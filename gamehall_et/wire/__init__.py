"""The ``et`` front end: the Euphrates & Tigris line protocol (framing, codec, rendering, protocol)."""
