"""Pausing the cyclic garbage collector while an analysis builds what outlives it.

Parsing a version, analysing it and building its semantic index allocate
hundreds of thousands of small objects (16,000 nodes: 170,000 for an edit that
reuses every untouched node, millions for a first analysis) and free almost
none: they live as long as the snapshot. Each time the young generation fills
up meanwhile, the collector scans what is there so far and finds nothing to
collect: at 16,000 nodes two to four scans of 30-100 ms per edit, each also
walking the large containers being built. Paused, nothing is scanned during the
work. When the outermost pause ends, one collection scans what was made since
the last pause ended, once, collecting the garbage in reference cycles made
meanwhile, and what survived it is frozen (``gc.freeze``): moved out of every
later scan. (Left to the threshold instead, that scan would wait: an analysis
frees about as much as it makes, so the count hardly moves, and the survivors of
several versions would pile up for one scan of 200-300 ms. Left in the middle
generation after a young scan, they were scanned again by that generation's next
collection, which came with the next few thousand allocations of whatever ran
next: at 16,000 nodes, 13 ms of the semantic index a request made right after an
edit.) Since everything older is frozen, that collection of every generation
scans only what is new.

Freezing is safe for a document's versions because they hold no reference cycles:
a version replaced or closed is freed by reference counting, frozen or not
(``tests/test_collector.py`` checks it on a session of edits and a close). What it
costs is that an object alive elsewhere at that moment which later becomes
garbage in a cycle is never collected; a session of 10,000 edits and requests
kept the server's memory flat (``make soak-memory``).

A *lasting* pause is one whose work builds what lives as long as its document
stays open: a document's first analysis and its first semantic index (millions
of objects at 16,000 nodes). What it made is frozen without being scanned first:
that scan alone took about a second at 16,000 nodes. The server also freezes so
every semantic index it builds ahead, which lives as long as its version is the
latest, or is given up part way for a newer one: a scan would find it all alive,
and that scan (80-100 ms at 16,000 nodes, holding the interpreter lock) held up
the request sent with the newer version.

Pauses nest and may overlap between threads: the collector is re-enabled (what
was made collected and frozen) when the last one ends, and only if it was enabled
when the first began (batch commands run without it throughout, and collect
nothing).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_resume = False
_lasting = False


@contextmanager
def collector_paused(*, lasting: bool = False) -> Iterator[None]:
    """Pause the collector for the work inside; ``lasting``: that work builds what lives
    as long as its document is open, and is frozen rather than scanned (see above)."""
    global _depth, _resume, _lasting
    with _lock:
        if _depth == 0:
            _resume = gc.isenabled()
            gc.disable()
        _depth += 1
        _lasting = _lasting or lasting
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            resume = _depth == 0 and _resume
            freeze = resume and _lasting
            if _depth == 0:
                _lasting = False
            if resume:
                gc.enable()
        if freeze:
            gc.freeze()  # what lives as long as the document: out of every scan
        elif resume:
            gc.collect()  # what was made since the last pause, scanned once ...
            gc.freeze()  # ... and what survived, out of every later scan (see above)
