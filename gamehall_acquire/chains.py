"""The classic Acquire hotel chains, their aliases and their price table.

Chains are listed in NetAcquire index order (1=Luxor .. 7=Imperial); the
engine uses 0-based positions in this tuple internally.  These constants are
the defaults of :class:`gamehall_acquire.rules.Rules`; a variant with other
chains or prices passes its own values there instead of changing these.
"""
from __future__ import annotations

from gamehall.interfaces import IllegalAction

CHAINS: tuple[str, ...] = (
    "Luxor", "Tower", "American", "Festival", "Worldwide", "Continental", "Imperial",
)

#: alternative names (other editions) -> canonical name; matched case-insensitively
ALIASES: dict[str, str] = {
    "Sackson": "Luxor",
    "Zeta": "Tower",
    "America": "American",
    "Fusion": "Festival",
    "Hydra": "Worldwide",
    "Quantum": "Continental",
    "Phoenix": "Imperial",
}

#: price premium in hundreds per chain, in CHAINS order
PREMIUMS: tuple[int, ...] = (0, 0, 1, 1, 1, 2, 2)

#: (smallest size, base price in hundreds), ascending; sizes below the first are worth 0
PRICE_TIERS: tuple[tuple[int, int], ...] = (
    (2, 2), (3, 3), (4, 4), (5, 5), (6, 6), (11, 7), (21, 8), (31, 9), (41, 10),
)


class UnknownChain(IllegalAction):
    """A name that is neither a chain nor an alias of one."""


def lookup_table(chains=CHAINS, aliases=ALIASES) -> dict[str, str]:
    """lower-case name or alias -> canonical chain name."""
    table = {c.lower(): c for c in chains}
    for alias, chain in dict(aliases).items():
        if chain not in chains:
            raise ValueError(f"alias {alias!r} names unknown chain {chain!r}")
        table[alias.lower()] = chain
    return table


_LOOKUP = lookup_table()


def canonical(name: str, table: dict[str, str] | None = None) -> str:
    """The canonical chain name for a chain name or alias, any case.

    Raises :class:`UnknownChain` (an ``IllegalAction``, hence a ``ValueError``).
    """
    try:
        return (table or _LOOKUP)[name.strip().lower()]
    except (KeyError, AttributeError):
        raise UnknownChain(f"unknown chain {name!r}") from None


def chain_index(name: str) -> int:
    """0-based position of a classic chain (aliases accepted)."""
    return CHAINS.index(canonical(name))


def netacquire_index(name: str) -> int:
    """NetAcquire chain index, 1=Luxor .. 7=Imperial (aliases accepted)."""
    return chain_index(name) + 1


def base_price(size: int, tiers=PRICE_TIERS) -> int:
    """Base share price in hundreds for a chain of ``size`` tiles (0 below 2)."""
    price = 0
    for smallest, value in tiers:
        if size >= smallest:
            price = value
        else:
            break
    return price


def price(name: str, size: int) -> int:
    """Classic share price in dollars of chain ``name`` at ``size`` tiles (0 if size < 2)."""
    base = base_price(size)
    return 100 * (base + PREMIUMS[chain_index(name)]) if base else 0
