"""When the analyses run: the one worker, its pauses for an arriving message, the grace
after an edit, the pushes of diagnostics and the semantic indexes built ahead.

Everything here but the worker's own functions runs on the event loop. The worker
(``Scheduler.in_worker``) is one thread: analyses of a document are serialised by its
lock anyway, and a second CPU-bound thread would only compete with the event loop for
the interpreter lock. What can wait pauses in it while a message arrives
(``wait_for_quiet``), so that a request is not answered behind it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from wf_core.base.collector import collector_paused

if TYPE_CHECKING:
    from wf_core.version.snapshot import DocumentSnapshot
    from wfls.server import WflsServer

logger = logging.getLogger("wfls")

INDEX_AHEAD_DELAY = 0.25
"""Quiet time after a version's diagnostics before its semantic index is built ahead."""
QUIET_WAIT = 1.0
"""The longest an index built ahead pauses for one arriving message (a safety net: the
transport ends every pause once the loop has handled the message)."""
EDIT_GRACE = 0.005
"""Seconds an edit's analysis waits before it starts: editors send a completion or
signature request right behind the change that triggers it, and that request is answered
first instead of queueing for the interpreter lock behind the analysis."""
EDIT_GRACE_LIMIT = 0.1
"""The longest an edit's analysis is put off, grace by grace, while requests are being
answered (``WflsProtocol.answering``): a request that arrived within the grace but takes
longer than it to answer (a 6 MB full-document change is read and applied first) would
otherwise be answered while the analysis holds the interpreter lock, in stretches of
whole-text operations that do not let it go."""
SWITCH_INTERVAL = 0.001
"""Seconds a thread may hold the GIL while another waits (Python's default: 0.005)."""


class Scheduler:
    """The analysis worker of one server, and what it is given to do when."""

    def __init__(self, server: WflsServer) -> None:
        self._server = server
        self._analysis = ThreadPoolExecutor(max_workers=1, thread_name_prefix="wfls-analysis")
        self.closing = False  # after ``shutdown``: the worker takes nothing more
        # Jobs handed to the worker and not started yet: an index built ahead stops for
        # them (``index_ahead``), so that no request waits behind a whole index.
        self._waiting = 0
        self._waiting_lock = threading.Lock()
        self.quiet = threading.Event()
        """Set while no message arrives: the transport clears it from a message's first
        byte until the loop has handled it (``wait_for_quiet``)."""
        self.quiet.set()
        self.on_analysis: Callable[[str], None] | None = None
        self.on_index: Callable[[str, bool], None] | None = None
        """Called on the worker with the document's URI when an index build ahead ends,
        and whether it completed the index (``index_ahead``): what a test waits for."""
        """Called on the worker with the document's URI as each analysis for diagnostics
        begins, after its pause for an arriving message: what a test waits for, or
        checks the order of, since nothing reaches the client at that moment."""
        self._pending_push: dict[str, asyncio.Handle] = {}
        # A document has at most one push in progress; changes meanwhile ask for one more
        # after it (``schedule_push``), so a burst of edits costs two analyses, not one each.
        self._pushing: set[str] = set()
        self._push_tasks: dict[str, asyncio.Future[None]] = {}
        self._push_again: set[str] = set()
        self._tasks: set[asyncio.Future[None]] = set()
        # What the client was last sent for each open document (push clients): a push that
        # would repeat it is left out, so documents are pushed only when their findings
        # (or version) changed, however often they are checked again.
        self._published: dict[str, bytes] = {}

    async def in_worker(self, function: Callable[..., Any], *args: Any) -> Any:
        """Run an analysis off the event loop, so requests keep being answered meanwhile.

        After ``shutdown`` the worker takes nothing more: the caller is cancelled."""
        if self.closing:
            raise asyncio.CancelledError
        with self._waiting_lock:
            self._waiting += 1
        try:
            job = self._analysis.submit(self._started, function, *args)
        except BaseException:
            self._not_started(None)
            raise
        job.add_done_callback(self._not_started)
        return await asyncio.wrap_future(job)

    def _started(self, function: Callable[..., Any], *args: Any) -> Any:
        with self._waiting_lock:
            self._waiting -= 1
        return function(*args)

    def _not_started(self, job: Future[Any] | None) -> None:
        """A job cancelled before it started (its request was) waits no more."""
        if job is None or job.cancelled():
            with self._waiting_lock:
                self._waiting -= 1

    def jobs_waiting(self) -> bool:
        """Whether a job waits for the worker (read on the worker, between parts)."""
        return self._waiting > 0

    def wait_for_quiet(self) -> None:
        """Pause while a message arrives, up to ``QUIET_WAIT``: work that can wait calls
        this in the worker, so that an arriving edit (which may make that work stale) or
        request does not queue for the interpreter lock behind it. Never on the loop,
        which is what ends the pause."""
        self.quiet.wait(QUIET_WAIT)

    def analysis_due(self, uri: str) -> None:
        """In the worker, as an analysis for diagnostics of ``uri`` is due: a message
        arriving goes first (the analysis would take the interpreter lock from the loop
        answering it), then ``on_analysis`` is told."""
        self.wait_for_quiet()
        if self.on_analysis is not None:
            self.on_analysis(uri)

    # -- pushes ------------------------------------------------------------------------

    def document_changed(self, uri: str, *, edited: bool = False) -> None:
        """A document was opened or edited: schedule its analysis (and, for a client that
        does not pull, the push of its diagnostics). Analysing without being asked is what
        lets the documents that depend on it learn about the change. An edit's analysis
        starts after ``EDIT_GRACE``, once the requests sent with the edit are in."""
        self.schedule_push(uri, EDIT_GRACE if edited else 0.0)

    def all_changed(self) -> None:
        """Settings changed every document's diagnostics: push again, or ask to pull again."""
        if self._server.flags.pull_diagnostics:
            self._server.workspace_diagnostic_refresh(None)
            return
        for uri in self._server.store.uris():
            self.schedule_push(uri)

    def schedule_push(self, uri: str, delay: float = 0.0) -> None:
        """Analyse ``uri`` and push its diagnostics (push clients) once the loop is free
        and ``delay`` has passed, or, while a push of it is in progress, once more right
        after that one: the first edit after a pause is analysed without more wait, and
        edits that arrive during an analysis are coalesced into the next. A push already
        due keeps its time when a later one would come later: edits arriving faster than
        ``delay`` never put their analysis off for longer than one ``delay``."""
        pending = self._pending_push.pop(uri, None)
        if pending is not None:
            if delay:
                self._pending_push[uri] = pending
                return
            pending.cancel()
        if uri in self._pushing:
            self._push_again.add(uri)
            return
        loop = asyncio.get_running_loop()
        self._pending_push[uri] = (
            loop.call_later(delay, self._push, uri, loop.time() + EDIT_GRACE_LIMIT)
            if delay
            else loop.call_soon(self._push, uri)
        )

    def _push(self, uri: str, deadline: float | None = None) -> None:
        """Start the push of ``uri``; one put off by an edit's grace (``deadline``) waits
        grace by grace, up to the deadline, while a request is being answered."""
        loop = asyncio.get_running_loop()
        if deadline is not None and self._server.protocol.answering and loop.time() < deadline:
            self._pending_push[uri] = loop.call_later(EDIT_GRACE, self._push, uri, deadline)
            return
        self._pending_push.pop(uri, None)
        self._pushing.add(uri)
        task = self._push_tasks[uri] = self._start(self._push_async(uri))
        task.add_done_callback(lambda _: self._pushed(uri))

    async def push_first(self, uri: str) -> None:
        """Push ``uri``'s diagnostics now when a push of it is due or under way, for a
        request answered from the same full analysis: its answer then follows them. (A
        client reading both in one chunk handles them in order, and lsp-mode 8 drops
        whatever follows the answer to a request it waits for in that chunk.)"""
        for _ in range(3):  # one under way, then the one due after it
            task = self._push_tasks.get(uri)
            if task is None:
                pending = self._pending_push.pop(uri, None)
                if pending is None or self.closing:
                    return
                pending.cancel()
                self._push(uri)
                task = self._push_tasks[uri]
            await asyncio.shield(task)

    def _start(self, work: Any) -> asyncio.Future[None]:
        task: asyncio.Future[None] = asyncio.ensure_future(work)
        self._tasks.add(task)  # held until done: the loop keeps only weak references
        task.add_done_callback(self._tasks.discard)
        return task

    def _pushed(self, uri: str) -> None:
        self._pushing.discard(uri)
        self._push_tasks.pop(uri, None)
        if uri in self._push_again and not self.closing:
            self._push_again.discard(uri)
            self.schedule_push(uri)

    async def _push_async(self, uri: str) -> None:
        """Publish only what is current when the result is back on the loop: the latest
        revision of the document under the settings in force (anything else was
        superseded, and a newer push is scheduled by whatever superseded it), so a
        client never sees an older version's diagnostics after a newer one's."""
        server = self._server
        generation = server.diagnostics.generation
        try:
            result = await server.diagnostics.get(uri)
        except Exception:
            logger.exception("analysis of %s failed", uri)
            return
        if (
            result is None
            or result.revision != server.store.revision(uri)
            or generation != server.diagnostics.generation
        ):
            return
        if server.flags.pull_diagnostics:
            return  # analysed for the documents that depend on it; the client pulls its own
        # The flags are fixed at ``initialize``, so a push client's results always carry
        # their encoding (``Diagnostics.compute``).
        assert result.published is not None
        if self._published.get(uri) == result.published:
            return  # checked again (a dependency, the index, settings) to the same findings
        self._published[uri] = result.published
        server.protocol.notify_encoded(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, result.published)

    def forget(self, uri: str) -> None:
        """``uri`` was closed: nothing more is pushed for it."""
        pending = self._pending_push.pop(uri, None)
        if pending is not None:
            pending.cancel()
        self._push_again.discard(uri)
        self._published.pop(uri, None)

    def stop(self) -> None:
        """``shutdown``: no push is started, and the worker takes nothing more."""
        for handle in self._pending_push.values():
            handle.cancel()
        self._pending_push.clear()
        self.closing = True
        self._analysis.shutdown(wait=False, cancel_futures=True)

    # -- indexes built ahead -----------------------------------------------------------

    def index_ahead(self, uri: str, revision: int) -> None:
        """After a quiet moment, make every part of the semantic index of ``revision`` in
        the worker, so that a request about the whole document (references, rename,
        tokens) does not wait for them.

        The build starts after a quiet moment and gives way, between parts, as soon as
        a message or a newer revision arrives, or the worker is given another job (an
        analysis, the parts a request reads); it goes on after a quiet moment more. What it
        made is kept either way: the parts are derived values
        (``wf_core.semantic.parts``), so the next revision's build finds them and makes
        only what is left and what its edits changed. A request about one place never
        waits for this: it makes the part it reads."""
        store = self._server.store

        def latest() -> DocumentSnapshot | None:
            """``revision``'s analysis while it is the latest, looked up when needed:
            the build holds no version while it waits, which would keep a superseded
            one (its index tables, its parts) alive as long as the build's waits."""
            current = store.current_snapshot(uri)
            return current[1] if current is not None and current[0] == revision else None

        def give_way() -> bool:
            # Never waits: it is asked with the collector paused, and a pause lasting
            # while the loop answers a message would freeze whatever garbage it left.
            waiting = self.jobs_waiting()
            return waiting or store.revision(uri) != revision or not self.quiet.is_set()

        def complete() -> bool:
            self.wait_for_quiet()
            snapshot = latest()
            done = False
            # Nothing paused unless there is work: a pause's end freezes what it finds.
            if snapshot is not None and not self.jobs_waiting():
                # Frozen rather than scanned when the pause ends (``collector``): the
                # parts live as long as their elements' texts, and a young scan of what
                # a first build made took 80-100 ms at 16,000 nodes, finding it all alive.
                with collector_paused(lasting=True):
                    done = snapshot.index.complete(give_way)
            if self.on_index is not None:
                self.on_index(uri, done)
            return done

        def prepare() -> None:
            # What a question about one place reads before its part (the tables the parts
            # are written with, the offset index): made now, off the loop, so that the
            # first completion or hover of this version does not make them there. They
            # live as long as the version: frozen, not scanned (``collector``). The latest
            # analysis made, even when a newer revision came: the next version's source
            # map, spliced from it, shares them (``SourceMap.prepare_locate``).
            snapshot = store.last_analysis(uri)
            if snapshot is not None:
                with collector_paused(lasting=True):
                    snapshot.index.parts.prepare()

        async def build() -> None:
            if latest() is None:
                return  # a newer version came: its own build follows its diagnostics
            await self.in_worker(prepare)
            await asyncio.sleep(INDEX_AHEAD_DELAY)
            # Stopped for another job, it goes on after a quiet moment more.
            while store.revision(uri) == revision and not self.closing:
                if await self.in_worker(complete):
                    return
                await asyncio.sleep(INDEX_AHEAD_DELAY)

        self._start(build())
