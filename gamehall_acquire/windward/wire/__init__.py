"""The ``windward`` front end: the Windward Code Wars 2016 ("Acquire II") wire protocol.

* :mod:`.xmlcodec` -- sans-IO: a safe XML parser (no DTD, no entities) and the
  encoders of ``setup`` / ``query-*`` / ``exit``; the decoder of ``join`` /
  ``ready`` / ``reply``;
* :mod:`.render`   -- engine state -> the protocol's ``map`` / ``hotels`` / ``players``;
* :mod:`.match`    -- a Windward series in the hall: players that outlive their
  connections (:class:`~.match.Contestant`), the series of tables
  (:class:`~.match.Match`) and the per-hall service that seats joins
  (:class:`~.match.WindwardService`);
* :mod:`.protocol` -- the Twisted protocol (one per connection) and its factory.

See ``/work/shared/protocols/windward-protocol.md`` (sections cited as "§n").
"""
