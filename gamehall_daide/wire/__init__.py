"""The ``daide`` front end: Diplomacy over DAIDE (binary tokens).

* :mod:`.framing`   -- sans-IO: type, pad, big-endian 16-bit length, payload (chapter 3);
* :mod:`.tokens`    -- token names <-> 16-bit codes (chapter 4);
* :mod:`.codec`     -- DM payloads <-> messages;
* :mod:`.syntax`    -- what a client may send at the game's syntax level;
* :mod:`.deadlines` -- a table's phase deadline and its clients' alarms;
* :mod:`.protocol`  -- the Twisted protocol (one per connection), its factory and
  the hall's Diplomacy tables (it also writes the protocol's replies).

Messages as text and trees (``gamehall_daide.text``) stay beside the engine,
which speaks them too.
"""
