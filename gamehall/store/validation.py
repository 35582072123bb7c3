"""Validation and encoding every store shares, so they all refuse the same things."""
from __future__ import annotations

import json
from typing import Any, Callable, TypeVar

from twisted.internet.defer import Deferred, fail, succeed

from .interface import LIVE_STATES, SEAT_KINDS, StoreError

_T = TypeVar("_T")

# One encoder for every call (json.dumps with options builds a new one per call).
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
dumps: Callable[[Any], str] = _ENCODER.encode


# check_dict's encoder (an action per stored move): the same text as ``dumps``, without the
# circular-reference check's bookkeeping; a circular value ends in RecursionError, which
# check_dict refuses too.
_encode_plain: Callable[[Any], str] = json.JSONEncoder(
    separators=(",", ":"), ensure_ascii=False, check_circular=False).encode


def check_seats(seats: Any) -> str:
    """Validate seats and return them as JSON (encoded now, on the caller's thread)."""
    if not isinstance(seats, list):
        raise StoreError("seats must be a list")
    for i, seat in enumerate(seats):
        if not isinstance(seat, dict) or not isinstance(seat.get("name"), str):
            raise StoreError(f"seat {i} must be a dict with a str 'name'")
        if seat.get("kind") not in SEAT_KINDS:
            raise StoreError(f"seat {i} kind must be one of {SEAT_KINDS}")
        if seat.get("bot") is not None and not isinstance(seat["bot"], str):
            raise StoreError(f"seat {i} bot must be a str or None")
    return dumps(seats)


def check_dict(name: str, value: Any) -> str:
    if not isinstance(value, dict):
        raise StoreError(f"{name} must be a dict")
    try:
        return _encode_plain(value)
    except (TypeError, ValueError, RecursionError) as e:
        raise StoreError(f"{name} is not JSON-serialisable: {e}") from e


def broken_row(row: dict, why: str) -> dict:
    """What load_unfinished returns for a table it cannot decode."""
    return {"id": row["id"], "game": row["game"], "state": row["state"], "error": why}


def decoded_or_error(decode: Callable[[Any], dict], row: Any) -> dict:
    """``decode(row)``, or the broken_row form naming what is wrong with the row."""
    try:
        return decode(row)
    except (ValueError, TypeError, KeyError, IndexError) as e:
        if isinstance(row, dict):
            ident = {k: row.get(k) for k in ("id", "game", "state")}
        else:
            ident = {"id": row[0], "game": row[1], "state": row[6]}
        return broken_row(ident, f"row cannot be decoded ({type(e).__name__}: {e})")


def check_setting(key: Any, value: Any) -> str:
    """Validate a setting and return its value as JSON."""
    if not isinstance(key, str) or not key:
        raise StoreError("a setting's key must be a non-empty str")
    return check_dict(f"setting {key!r}", value)


def check_int(name: str, value: Any) -> None:
    if type(value) is int:      # (the usual case, checked first: once per argument per write)
        return
    if not isinstance(value, int) or isinstance(value, bool):
        raise StoreError(f"{name} must be an int")


def refused(f: Callable[..., Deferred[_T]]) -> Callable[..., Deferred[_T]]:
    """Turn a synchronous exception in argument checking into a failed Deferred (what
    ``maybeDeferred`` does, without its costs: the store methods return Deferreds)."""

    def wrapper(*args: Any, **kwargs: Any) -> Deferred[_T]:
        try:
            result = f(*args, **kwargs)
        except BaseException:
            return fail()
        return result if isinstance(result, Deferred) else succeed(result)

    wrapper.__name__ = f.__name__
    wrapper.__doc__ = f.__doc__
    return wrapper


def update_changes(seats: Any, state: Any, options: Any) -> list[tuple[str, Any]]:
    """``update_table``'s checked changes, ``(column, value)`` in the order seats, state,
    options, the given ones only (seats and options encoded as JSON)."""
    changes: list[tuple[str, Any]] = []
    if seats is not None:
        changes.append(("seats", check_seats(seats)))
    if state is not None:
        if state not in LIVE_STATES:
            raise StoreError(f"update_table state must be one of {LIVE_STATES}")
        changes.append(("state", state))
    if options is not None:
        changes.append(("options", check_dict("options", options)))
    return changes


def check_text(name: str, value: Any, *, empty: bool = False) -> str:
    """A str argument (non-empty unless ``empty``), or StoreError."""
    if not isinstance(value, str) or (not empty and not value):
        raise StoreError(f"{name} must be a {'' if empty else 'non-empty '}str")
    return value


def check_label(label: Any) -> str | None:
    if label is not None:
        check_text("label", label, empty=True)
    return label


def check_owner_ttl(owner: Any, ttl: Any) -> float:
    """A lease's owner (a non-empty str) and ttl (positive seconds); the ttl as a float."""
    if not isinstance(owner, str) or not owner:
        raise StoreError("a lease owner must be a non-empty str")
    if not isinstance(ttl, (int, float)) or isinstance(ttl, bool) or not ttl > 0:
        raise StoreError("a lease ttl must be a positive number of seconds")
    return float(ttl)


def check_lease(lease: Any) -> tuple[str, float]:
    """``create_table``'s ``lease``: an ``(owner, ttl)`` pair, checked."""
    if not isinstance(lease, (tuple, list)) or len(lease) != 2:
        raise StoreError("a lease must be an (owner, ttl) pair")
    return lease[0], check_owner_ttl(*lease)


def check_epoch(epoch: Any) -> None:
    """A write's lease epoch: None (no lease) or an int."""
    if epoch is not None:
        check_int("epoch", epoch)


def check_leases(leases: Any) -> dict[int, int]:
    """``renew_leases``' ``{table_id: epoch}``, checked."""
    if not isinstance(leases, dict):
        raise StoreError("leases must be a dict {table_id: epoch}")
    for table_id, epoch in leases.items():
        check_int("table_id", table_id)
        check_int("epoch", epoch)
    return leases
