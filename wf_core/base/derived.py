"""What a document's last version derived, found again by what it was derived from.

An edit changes one statement of a document most of the time, and most of what the
analysis derives is a function of one element of a top-level list (a node's model, its
own findings, the checks of its values) and of a few values of the whole document (the
context model, the node defs, the outcomes). So every such value is memoised under the
*content* it was derived from: the element's key (``SourceMap.element_keys``: the texts of
the statements it was read from, never the identity of an object), with whatever else
it read (its index, for findings that name it) as part of the key, and the document-wide
values it read as its *dependencies*.

A value is found again only under an equal key and the very same dependencies: a run
names them when it begins, as objects the analysis hands out again while they are
unchanged (a context model is kept while the graph's structure is, see
``analysis.context_scopes``; a node def's model while its statement is), compared by
identity (strings and numbers by value), so a value made under another model, other
node defs or other outcomes is never read back.

Generations: each query (``"model:nodes"``, ``"checks:edges"``, ...) keeps what its last
run read or made: ``Derivations.begin(query)`` starts a run, whose table of the last run
is read and whose new table is filled. A run of a whole list whose keys are the last
run's but a few (a keystroke) instead grows the last run's table in place, making only
those few (``found_all``, ``found_at_all``): the keys they replace stay in it, at most
``stale_limit`` of them before the list is looked up whole into a new table again. Memory
so stays that of about one version of the document.

One ``Derivations`` belongs to one document. A run is made by one analysis at a time
(the server's store analyses a document under its lock), and an entry is a pure function
of its key and dependencies, so a run that reads an older generation gets right values
all the same.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from functools import partial
from itertools import compress, repeat
from operator import is_, is_not
from typing import Any, TypeVar

T = TypeVar("T")
MISSING: Any = object()


class Run:
    """One run of one query: what its last run left, and what this one keeps."""

    __slots__ = ("_before", "_kept", "_slot", "_todo")

    def __init__(self, before: dict[Hashable, Any], kept: dict[Hashable, Any], slot: _Slot) -> None:
        self._before = before
        self._kept = kept
        self._slot = slot
        self._todo: list[int] | None = None  # a list's indexes made again (``found_all``)

    def get(self, key: Hashable | None, make: Callable[[], T]) -> T:
        """``make()``'s value for ``key``: the last run's when it made one for an equal key
        (under the same dependencies: ``Derivations.begin``), else made now. A None key (a
        content not known) is made every time and kept for no one."""
        if key is None:
            return make()
        value = self._before.get(key, MISSING)
        if value is MISSING:
            value = make()
        self._kept[key] = value
        return value  # type: ignore[no-any-return]

    def found(self, key: Hashable) -> Any:
        """The last run's value for ``key`` (``MISSING`` when it made none), for a query
        that adapts what it finds (a placement moved with its statement) before ``keep``."""
        return self._before.get(key, MISSING)

    def at(self, index: int, key: Hashable | None, make: Callable[[], T]) -> T:
        """``make()``'s value for the element at ``index`` whose content is ``key``, for a
        value that names the index (a finding's location): the last run's when it made one
        at that index for an equal key. Filed under the index, the entry of an element
        found again is carried over as it is: an untouched element costs no new object
        (at 16,000 nodes a key tuple per element was 30,000 survivors of every edit for
        the cyclic collector to scan, see ``wf_core.base.collector``)."""
        if key is None:
            return make()
        entry = self._before.get(index)
        if entry is None or not (entry[0] is key or entry[0] == key):
            entry = (key, make())
        self._kept[index] = entry
        value: T = entry[1]
        return value

    def keep(self, key: Hashable, value: Any) -> None:
        """Keep ``value`` for ``key`` for the next run."""
        self._kept[key] = value

    # A whole list's values at once (``get`` of every element). When the keys are those
    # of the last run's list but a few (a keystroke: one element's key replaced), the
    # values are that list's, copied, with those few found or made again: compared in
    # blocks at C speed (``replaced_at``), nothing is looked up for the others.
    # Otherwise each element is looked up, by ``map`` at C speed. At 16,000 nodes a
    # lookup per element (about 0.1 µs at C speed, 0.4 in Python) was most of what an
    # edit's model cost.

    def found_all(self, keys: Sequence[Hashable | None], count: int) -> tuple[list[Any], list[int]]:
        """``found`` of each of the first ``count`` ``keys`` (None past their end), MISSING
        for a None key; and the indexes left MISSING. What the caller makes there, it
        hands to ``keep_all``."""
        keys = exactly(keys, count)
        last = self._slot.last
        if last is not None and len(last[0]) == count and self._slot.stale <= stale_limit(count):
            changed = [] if keys is last[0] else replaced_at(keys, last[0])
            if len(changed) <= stale_limit(count):
                todo = sorted({*changed, *last[2]})
                values = list(last[1])
                before = self._before
                for i in todo:
                    values[i] = MISSING if keys[i] is None else before.get(keys[i], MISSING)
                self._todo = todo
                return values, [i for i in todo if values[i] is MISSING]
        values = list(map(self._before.get, keys, repeat(MISSING, count)))
        return values, missing_at(values)

    def keep_all(self, keys: Sequence[Hashable | None], values: list[Any]) -> None:
        """Keep each of ``values`` (those of ``found_all``'s ``keys``, made where it left
        MISSING) under its key, but for a None key or a MISSING value (nothing made there:
        an element that failed); and the list itself, for the next run to start from
        (which copies it): the caller hands it over, and neither it nor whoever it gives
        the list to changes it."""
        keys = exactly(keys, len(values))
        slot, todo = self._slot, self._todo
        if todo is not None:
            # The last run's table, grown by the values made again; the keys they replace
            # stay in it (found again by an undo) until ``stale_limit`` of them have.
            kept = self._kept = self._before
            for i in todo:
                if keys[i] is not None and values[i] is not MISSING:
                    kept[keys[i]] = values[i]
            slot.table = kept
            slot.stale += len(todo)
            again = [i for i in todo if keys[i] is None or values[i] is MISSING]
        else:
            kept = self._kept
            kept.update(zip(keys, values, strict=True))
            kept.pop(None, None)  # a None key: kept for no one
            failed = missing_at(values)
            for i in failed:
                kept.pop(keys[i], None)
            unknown = compress(range(len(keys)), map(is_, keys, repeat(None)))
            again = sorted({*failed, *unknown})
            slot.stale = 0
        # What the next run makes again even where its key is this one: nothing was made
        # there, or its content is not known.
        slot.last = (keys, values, again)

    def get_all(
        self, keys: Sequence[Hashable | None], count: int, make: Callable[[int], T]
    ) -> list[T]:
        """``get(keys[i], lambda: make(i))`` for each ``i`` below ``count``."""
        values, missing = self.found_all(keys, count)
        for i in missing:
            values[i] = make(i)
        self.keep_all(keys, values)
        return values

    def found_at_all(
        self, keys: Sequence[Hashable | None], count: int
    ) -> tuple[list[Any], list[int]]:
        """For each ``i`` below ``count``: the value the last run made at ``i`` for an equal
        key (kept for the next run, as ``at`` keeps it), or MISSING, for the caller to make
        with ``at`` (one at a time: a lock held per element stays short); and the indexes
        left MISSING. The caller hands the list, made, to ``keep_at_all``. A list whose
        keys are the last one's but a few starts from the last one's values, as
        ``found_all`` does, its table the last run's, kept as it is."""
        keys = exactly(keys, count)
        last = self._slot.last
        before = self._before
        if last is not None and len(last[0]) == count:
            changed = [] if keys is last[0] else replaced_at(keys, last[0])
            if len(changed) <= stale_limit(count):
                values = list(last[1])
                todo = sorted({*changed, *last[2]})
                for i in todo:
                    key, entry = keys[i], before.get(i)
                    if key is None or entry is None or not (entry[0] is key or entry[0] == key):
                        values[i] = MISSING
                    else:
                        values[i] = entry[1]
                self._kept = self._slot.table = before  # indexes: nothing left behind
                self._todo = todo
                return values, [i for i in todo if values[i] is MISSING]
        entries = list(map(before.get, range(count)))
        values = [
            entry[1] if entry is not None and (entry[0] is key or entry[0] == key) else MISSING
            for entry, key in zip(entries, keys, strict=True)
        ]
        self._kept.update((i, entries[i]) for i, value in enumerate(values) if value is not MISSING)
        self._todo = None
        return values, missing_at(values)

    def keep_at_all(self, keys: Sequence[Hashable | None], values: list[Any]) -> None:
        """The list of ``found_at_all``, made where it was MISSING, for the next run to start
        from (``at`` has kept each value made), handed over as to ``keep_all``."""
        keys = exactly(keys, len(values))
        todo = self._todo
        if todo is not None:
            again = [i for i in todo if keys[i] is None or values[i] is MISSING]
        else:
            unknown = compress(range(len(keys)), map(is_, keys, repeat(None)))
            again = sorted({*missing_at(values), *unknown})
        self._slot.last = (keys, values, again)

    def at_all(
        self, keys: Sequence[Hashable | None], count: int, make: Callable[[int], T]
    ) -> list[T]:
        """``at(i, keys[i], lambda: make(i))`` for each ``i`` below ``count``."""
        values, missing = self.found_at_all(keys, count)
        keys = exactly(keys, count)
        for i in missing:
            values[i] = self.at(i, keys[i], partial(make, i))
        self.keep_at_all(keys, values)
        return values


_BLOCK = 1024


def replaced_at(keys: Sequence[Any], last: Sequence[Any]) -> list[int]:
    """The indexes where ``keys`` may hold another key than ``last`` (as long): blocks
    compared whole first, at C speed with an identity shortcut per element, then the
    elements of the blocks that differ, by identity (16,000 keys, one replaced: 0.1 ms,
    against 0.4 testing each element). An equal key that is another object is among
    them only inside a block that differs; a value found by key is the same either way."""
    out: list[int] = []
    for start in range(0, len(keys), _BLOCK):
        end = start + _BLOCK
        if keys[start:end] != last[start:end]:
            out.extend(compress(range(start, end), map(is_not, keys[start:end], last[start:end])))
    return out


def stale_limit(count: int) -> int:
    """How many elements may have been made again since a list was last looked up whole
    before it is again: each leaves its old key's entry behind (memory), and each is
    looked up one by one (time)."""
    return max(64, count // 16)


class _Slot:
    """What a query's last run left: the dependencies it ran under, its table, and (a run
    of a whole list) that list's keys, values and the indexes where nothing was made."""

    __slots__ = ("dependencies", "last", "stale", "table")

    def __init__(self, dependencies: Any, table: dict[Hashable, Any]) -> None:
        self.dependencies = dependencies
        self.table = table
        # The keys, the values, and the indexes to make again whatever their keys.
        self.last: tuple[Sequence[Hashable | None], list[Any], list[int]] | None = None
        self.stale = 0  # entries left behind in ``table`` since it was last made whole


class Derivations:
    """Every query's last run for one document (see the module docstring)."""

    __slots__ = ("_latest", "_runs")

    def __init__(self) -> None:
        self._runs: dict[str, _Slot] = {}
        self._latest: dict[str, tuple[Any, Any]] = {}

    def latest(self, query: str, key: Any, make: Callable[[], T]) -> T:
        """``make()``'s value for ``key``, kept while the key stays equal to the last one
        (one value per query: the early cut-off of a value of the whole document, such
        as the context model, whose key is large but mostly made of the objects the
        last key held, so comparing it is mostly comparing identities)."""
        last = self._latest.get(query)
        if last is not None and (last[0] is key or last[0] == key):
            value: T = last[1]
            return value
        made = make()
        self._latest[query] = (key, made)
        return made

    def kept(self, query: str) -> int:
        """How many values ``query``'s last run kept (its memory)."""
        slot = self._runs.get(query)
        return len(slot.table) if slot is not None else 0

    def begin(self, query: str, dependencies: Any = None, *, lazy: bool = False) -> Run:
        """Start a run of ``query`` under ``dependencies`` (compared by identity, element by
        element for a tuple): the last run's values are read back only when it ran under
        the same ones.

        A ``lazy`` run is one whose values are asked for a few at a time, over the life
        of a version (the semantic index's parts: a completion asks for one node's): it
        starts with everything the last run kept and keeps it, so a value the last
        version never asked for is still found by the next one; a value it makes again
        (its key changed) replaces the old one at its index, so what is kept stays one
        entry per element ever seen. Its values are found by ``at``. Under the same
        dependencies it shares the last run's table rather than copy it (16,000 entries
        per version): an entry is a pure function of its key, which ``at`` compares, so
        the last version, still asked while this one is, may replace an entry this one
        made (made again when asked again), never give it a wrong one."""
        last = self._runs.get(query)
        same = last is not None and _same(last.dependencies, dependencies)
        before = last.table if same and last is not None else {}
        if lazy:
            slot = self._runs[query] = _Slot(dependencies, before)
            if same and last is not None:
                slot.last = last.last
            return Run(before, before, slot)
        slot = _Slot(dependencies, {})
        if same and last is not None:
            slot.last, slot.stale = last.last, last.stale
        self._runs[query] = slot
        return Run(before, slot.table, slot)


def missing_at(values: Sequence[Any]) -> list[int]:
    """The indexes of ``values`` that are MISSING (nothing found or made there), found at C
    speed: at 16,000 nodes, testing each element in Python was about 1 ms a list, and an
    edit's model reads eight lists."""
    return list(compress(range(len(values)), map(is_, values, repeat(MISSING))))


def exactly(keys: Sequence[Hashable | None], count: int) -> Sequence[Hashable | None]:
    """The first ``count`` keys, None for those past the end: ``key_at`` of each index below
    ``count`` (``SourceMap.element_keys`` ends at the last element read from statements)."""
    if len(keys) == count:
        return keys
    return keys[:count] if len(keys) > count else [*keys, *repeat(None, count - len(keys))]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a is b or (isinstance(a, str | int) and a == b)
