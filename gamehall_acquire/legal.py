"""Lists of legal actions that are built only as far as they are read.

A buy step has ~40 legal actions (every affordable multiset of up to three
shares, twice when the game may be ended), each a fresh nested dict: building
them all was most of the engine's time, while a caller such as a random bot
reads one.  :class:`LegalActions` is a ``list`` of exactly those actions, in
the same order, whose length and items by index are answered without building
the others; any other use (iteration, ``in``, ``==``, slicing, ``json.dumps``,
changing it...) first builds the whole list once, after which it is a plain
list.  An item read by index is kept, so ``actions[i] is actions[i]`` and the
built list holds that same object, as a list would.

Each call of ``legal_actions()`` returns a new list of new dicts: changing one
never changes the engine or a later answer.
"""
from __future__ import annotations

import copy
from typing import Any, Callable


class LegalActions(list):
    """``count`` actions, item ``i`` being ``action(data, i)`` (a fresh dict each call).

    (A plain function and its data rather than a closure: cheaper to set up at
    every decision.)
    """

    __slots__ = ("_count", "_action", "_data", "_read")

    def __init__(self, count: int, action: Callable[[Any, int], dict], data: Any = None):
        self._count = count
        self._action = action       # None once the list is built
        self._data = data
        # the items handed out before building: None, then (index, item) for the
        # first one (a caller like random.choice reads just one), then {index: item};
        # () once built
        self._read = None

    def _build(self) -> None:
        action = self._action
        if action is not None:
            read = self._read
            if type(read) is tuple:
                read = {read[0]: read[1]}
            elif read is None:
                read = {}
            data = self._data
            list.extend(self, [read[i] if i in read else action(data, i) for i in range(self._count)])
            self._action = self._data = None
            self._read = ()             # not None: None is "unbuilt, nothing read yet"

    # --------------------------------------------- answered without building
    def __len__(self) -> int:
        if self._action is not None:
            return self._count
        return list.__len__(self)

    def __bool__(self) -> bool:
        return len(self) > 0

    def __getitem__(self, i):
        if self._read is None and type(i) is int and 0 <= i < self._count:
            # the first item read of an unbuilt list (all that random.choice reads), first
            item = self._action(self._data, i)
            self._read = (i, item)
            return item
        if self._action is not None and type(i) is int:
            n = self._count
            if i < 0:
                i += n
            if not 0 <= i < n:
                raise IndexError("list index out of range")
            read = self._read
            if read is None:
                item = self._action(self._data, i)
                self._read = (i, item)
                return item
            if type(read) is tuple:
                if read[0] == i:
                    return read[1]
                read = self._read = {read[0]: read[1]}
            item = read.get(i)
            if item is None:
                item = read[i] = self._action(self._data, i)
            return item
        self._build()
        return list.__getitem__(self, i)

    # ------------------------------------------- everything else: build first
    def __iter__(self):
        self._build()
        return list.__iter__(self)

    def __reversed__(self):
        self._build()
        return list.__reversed__(self)

    def __contains__(self, item) -> bool:
        self._build()
        return list.__contains__(self, item)

    def __repr__(self) -> str:
        self._build()
        return list.__repr__(self)

    def _both(self, other):
        self._build()
        if isinstance(other, LegalActions):
            other._build()

    def __eq__(self, other):
        self._both(other)
        return list.__eq__(self, other)

    def __ne__(self, other):
        self._both(other)
        return list.__ne__(self, other)

    def __lt__(self, other):
        self._both(other)
        return list.__lt__(self, other)

    def __le__(self, other):
        self._both(other)
        return list.__le__(self, other)

    def __gt__(self, other):
        self._both(other)
        return list.__gt__(self, other)

    def __ge__(self, other):
        self._both(other)
        return list.__ge__(self, other)

    __hash__ = None

    def __add__(self, other):
        self._both(other)
        return list.__add__(self, other)

    def __radd__(self, other):
        self._build()
        return list(other) + list.copy(self)

    def __iadd__(self, other):
        self._both(other)
        return list.__iadd__(self, other)

    def __mul__(self, n):
        self._build()
        return list.__mul__(self, n)

    __rmul__ = __mul__

    def __imul__(self, n):
        self._build()
        return list.__imul__(self, n)

    def __setitem__(self, i, value):
        self._build()
        list.__setitem__(self, i, value)

    def __delitem__(self, i):
        self._build()
        list.__delitem__(self, i)

    def __copy__(self) -> list:
        self._build()
        return list.copy(self)

    def __deepcopy__(self, memo) -> list:
        self._build()
        return copy.deepcopy(list.copy(self), memo)

    def __reduce__(self):
        # pickles (and copies) as a plain list: the builder is not data
        self._build()
        return list, (list.copy(self),)

    def __sizeof__(self) -> int:
        self._build()
        return list.__sizeof__(self)


_new = list.__new__


def lazy_actions(count: int, action: Callable[[Any, int], dict], data: Any = None) -> LegalActions:
    """``LegalActions(count, action, data)``, made without calling its Python ``__init__``
    (it costs more than these four sets, at every buy and disposal step)."""
    actions = _new(LegalActions)
    actions._count = count
    actions._action = action
    actions._data = data
    actions._read = None
    return actions


def _delegate(name: str):
    method = getattr(list, name)

    def built_first(self, *args, **kwargs):
        self._build()
        return method(self, *args, **kwargs)

    built_first.__name__ = name
    built_first.__doc__ = method.__doc__
    return built_first


for _name in ("append", "extend", "insert", "pop", "remove", "clear", "index", "count",
              "copy", "sort", "reverse"):
    setattr(LegalActions, _name, _delegate(_name))
del _name
