"""gamehall.logger.SharedLogger: events logged through an instance do not keep it alive."""
from __future__ import annotations

import gc
import weakref

from twisted.logger import Logger

from gamehall.hall import Hall
from gamehall.logger import SharedLogger
from gamehall.table import Table


def test_a_shared_logger_is_itself_with_its_namespace_and_no_source():
    events: list = []

    class Thing:
        log = SharedLogger(namespace="gamehall.test", observer=events.append)

    thing = Thing()
    assert thing.log is Thing.log
    thing.log.info("hello {n}", n=1)
    assert events[0]["log_namespace"] == "gamehall.test"
    assert events[0]["log_source"] is None
    ref = weakref.ref(thing)
    del thing
    gc.collect()
    assert ref() is None                       # the kept event does not keep it alive


def test_a_plain_logger_class_attribute_would_keep_the_instance():
    # why SharedLogger exists: Twisted's Logger descriptor makes the instance the source
    events: list = []

    class Thing:
        log = Logger(namespace="gamehall.test", observer=events.append)

    thing = Thing()
    thing.log.info("hello")
    assert events[0]["log_source"] is thing
    ref = weakref.ref(thing)
    del thing
    gc.collect()
    assert ref() is not None


def test_hall_and_table_log_without_binding_the_instance():
    assert isinstance(Hall.__dict__["log"], SharedLogger)
    assert isinstance(Table.__dict__["log"], SharedLogger)
    assert Hall.log.namespace == "gamehall.hall" and Table.log.namespace == "gamehall.table"
