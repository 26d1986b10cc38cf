"""Pausing the cyclic garbage collector while an analysis builds what outlives it.

Parsing a version, analysing it and building its semantic index allocate
hundreds of thousands of small objects (16,000 nodes: 170,000 for an edit that
reuses every untouched node, millions for a first analysis) and free almost
none: they live as long as the snapshot. Each time the young generation fills
up meanwhile, the collector scans it and finds nothing to collect; at 16,000
nodes that cost an edit 100-150 ms in two to four such scans, and none at
2,000 nodes, whose edits stay under the threshold. Paused, the objects are
counted and the next collection happens only when they outgrow what the
previous version freed: after an edit of a long-open document, usually never.

Garbage in reference cycles made meanwhile waits for the next collection; the
pause lasts one analysis. Pauses nest and may overlap between threads: the
collector is re-enabled when the last one ends, and only if it was enabled
when the first began (batch commands run without it throughout).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_resume = False


@contextmanager
def collector_paused() -> Iterator[None]:
    global _depth, _resume
    with _lock:
        if _depth == 0:
            _resume = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _resume:
                gc.enable()
