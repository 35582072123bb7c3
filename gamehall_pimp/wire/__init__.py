"""The ``pimp`` front end: PIMP version 1 (Monopoly) on the wire.

* :mod:`.framing`      -- sans-IO: type byte, payload-length byte, payload;
* :mod:`.codec`        -- frames <-> ``(name, args)`` messages (the catalogue is
  ``gamehall_pimp.messages``, which the engine speaks too: its events are
  messages already);
* :mod:`.render`       -- what a connection is told from the engine's state rather
  than from an event: the state dump and catch-up after REQUEST_STATE and REJOIN;
* :mod:`.conversation` -- one game's conversation without I/O (handshake, joins,
  rejoins, error replies);
* :mod:`.protocol`     -- the Twisted protocol (one per connection), its factory
  and the hall's Monopoly tables.
"""
