"""The collector pause nests, spans threads, and leaves the collector as it found it."""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Iterator

import pytest

from wf_core.collector import collector_paused


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
