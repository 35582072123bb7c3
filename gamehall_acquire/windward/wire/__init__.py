"""The ``windward`` front end: the Windward Code Wars 2016 ("Acquire II") wire protocol.

* :mod:`.framing`  -- sans-IO: a little-endian int32 length, then the payload;
* :mod:`.codec`    -- sans-IO: a safe XML parser (no DTD, no entities) and the
  encoders of ``setup`` / ``query-*`` / ``exit``; the decoder of ``join`` /
  ``ready`` / ``reply``;
* :mod:`.render`   -- engine state -> the protocol's ``map`` / ``hotels`` / ``players``;
* :mod:`.contestant` -- a Windward player in the hall, who outlives its
  connections (:class:`~.contestant.Contestant`): its setup, queries, replies;
* :mod:`.match`    -- a Windward series in the hall: the series of tables
  (:class:`~.match.Match`);
* :mod:`.service`  -- the per-hall service that seats joins, keeps the series
  and the settings (:class:`~.service.WindwardService`);
* :mod:`.protocol` -- the Twisted protocol (one per connection) and its factory.

See ``/work/shared/protocols/windward-protocol.md`` (sections cited as "§n").

Choices where the original is unknown or the hall differs
---------------------------------------------------------
* Reply timeout: the table's ``options["turn_timeout"]``, else the game's 5 s
  (the original's is unknown, §11.1); the default move is the engine's
  ``timeout_action``.  A player whose connection is lost gets the default at
  once (its queries "fail", §7) until it joins again.
* Names must pass the hall's shared-lobby rules (no ``, ; : "`` -- NetAcquire
  clients could not show them --, at most 32 characters, no surrounding spaces, unique across every protocol):
  a join with another name is refused (socket closed) and logged.
* In the hall (``twistd gamehall``) a 7th join, or a join while a series is
  running, opens a new waiting table (a new series); under
  ``gamehall-windward auto`` only the listed names are accepted and only one
  series is played, as the original's auto-run.
* The server's AIs are the ``simple`` bot (the contest's "brain-dead" AI)
  unless ``fill_bot`` says ``strong``.
* After the last game of a series (also in the hall) every connected client
  gets ``<exit/>`` and its socket is closed.
* A series resumes after a hall restart: each game table keeps in its
  options what the series needs (``Match.series_state``: seed, names, guids,
  the players' names, scores so far), and the hall's restore hook rebuilds
  the series around the restored table.  Its players' seats are held
  (``seat_hold``; then the series' fill bot plays them) until they join
  again under their names, from the same address (or after the operator's
  ``allow``).  Earlier games' records stay in the store only.
* A seat taken over from a player (kick, ``bot TABLE SEAT``, an expired
  hold) is played by the series' fill bot (table option ``fill_bot``).
"""
