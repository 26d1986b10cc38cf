"""The collector pause nests, spans threads, and leaves the collector as it found it."""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Iterator

import pytest

from wf_core.base.collector import collector_paused


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_a_pause_resumes_the_collector_when_the_outermost_one_ends(collector_on: None) -> None:
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_pause_that_fails_resumes_too(collector_on: None) -> None:
    with pytest.raises(ValueError), collector_paused():
        raise ValueError("analysis failed")
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    was = gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        if was:
            gc.enable()


def test_overlapping_pauses_of_two_threads_resume_after_the_last(collector_on: None) -> None:
    entered, release = threading.Event(), threading.Event()

    def other() -> None:
        with collector_paused():
            entered.set()
            release.wait(10)

    with collector_paused():
        thread = threading.Thread(target=other)
        thread.start()
        assert entered.wait(10)
    assert not gc.isenabled()  # the other thread's pause is still on
    release.set()
    thread.join(10)
    assert gc.isenabled()


def test_what_a_pause_left_is_scanned_when_it_ends(collector_on: None) -> None:
    """The young generation is collected as the collector resumes: a cycle made during the
    pause is gone right after it, not whenever the count next crosses the threshold."""

    class Cycle:
        pass

    with collector_paused():
        made = Cycle()
        made.me = made  # type: ignore[attr-defined]
        gone = weakref.ref(made)
        del made
        assert gone() is not None  # nothing collects while paused
    assert gone() is None


def test_a_lasting_pause_freezes_what_survived(collector_on: None) -> None:
    """What a lasting pause's work left is moved out of every later scan, not scanned;
    an object of it that is dropped later is freed at once all the same (reference
    counting does not care whether it is frozen)."""

    class Kept:
        pass

    frozen = gc.get_freeze_count()
    try:
        with collector_paused(), collector_paused(lasting=True):
            made = [Kept() for _ in range(1000)]
        assert gc.get_freeze_count() >= frozen + len(made)
        assert gc.get_count()[0] < len(made)
        gone = weakref.ref(made[0])
        del made
        assert gone() is None
    finally:
        gc.unfreeze()


def test_an_ordinary_pause_scans_what_was_made_then_freezes_what_survived(
    collector_on: None,
) -> None:
    """A cycle made during the pause is collected as it ends; what survived is frozen,
    out of later scans, and freed at once when dropped all the same."""

    class Kept:
        pass

    frozen = gc.get_freeze_count()
    try:
        with collector_paused():
            cycle = Kept()
            cycle.me = cycle  # type: ignore[attr-defined]
            collected = weakref.ref(cycle)
            del cycle
            kept = [Kept() for _ in range(1000)]
        assert collected() is None
        assert gc.get_freeze_count() >= frozen + len(kept)
        assert gc.get_count()[0] < len(kept)
        gone = weakref.ref(kept[0])
        del kept
        assert gone() is None
    finally:
        gc.unfreeze()


def test_a_documents_versions_hold_no_reference_cycles() -> None:
    """What makes freezing a document's first analysis and index safe: its versions,
    their indexes, an edited version replacing them and closing the document leave no
    garbage in cycles, so reference counting frees all of them."""
    from pathlib import Path

    from wfls.store import DocumentStore

    text = (Path(__file__).parents[1] / "examples" / "billing.wf.toml").read_text()
    uri = "file:///w/billing.wf.toml"
    path = "context.foreach.customers.item.name"
    store = DocumentStore()
    store.open(uri, text, 1)
    first = store.snapshot(uri)
    assert first is not None and first.index is not None
    del first
    gc.collect()  # what a first analysis leaves once (caches of the libraries it uses)
    for version, name in enumerate(("nam", "na", "n", "x"), start=2):
        store.replace(uri, text.replace(path, path[: path.rindex(".") + 1] + name), version)
        snapshot = store.snapshot(uri)
        assert snapshot is not None and snapshot.index is not None
        del snapshot
        assert gc.collect() == 0
    store.close(uri)
    assert gc.collect() == 0
