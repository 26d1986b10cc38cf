"""The diagnostics of every document: computed on the worker, cached on the event loop,
identified by result ids, and made again when a document they depend on changes.

Ownership: the event loop alone reads and writes the result cache, the settings
generation and the cross-file counters; the worker only computes (``compute``), from
the settings and result id the loop hands it, so a settings change on the loop can
never be overwritten by a result computed under the old settings. Enforced in ``get``:
a result is cached only if, back on the loop, neither the settings generation nor the
document's revision moved while it was computed.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable
from functools import cached_property
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.protocol import default_converter

from wf_core.base.collector import collector_paused
from wf_core.base.issues import internal_error
from wf_core.base.records import record
from wf_core.base.spans import LineIndex, Span
from wfls import convert
from wfls.capabilities import ClientFlags
from wfls.diagnostics_memo import DiagnosticsMemo, Encode, diagnostic_encoder, publish_params
from wfls.settings import Settings

if TYPE_CHECKING:
    from wfls.server import WflsServer

logger = logging.getLogger("wfls")


@record
class DiagnosticsResult:
    """Converted diagnostics of one document under one settings generation.

    ``affected``: the documents whose cross-file findings this analysis may have
    changed (callers of the workflow, the other documents with its name).
    """

    uri: str
    version: int | None
    result_id: str
    items: list[types.Diagnostic]
    affected: frozenset[str] = frozenset()
    revision: int | None = None  # the store's revision analysed (None: from disk)
    published: bytes | None = None  # push clients: the publishDiagnostics params, as JSON
    # Made before the workspace was indexed: the document's own findings only (its
    # cross-file ones could name a child the index has not read yet).
    withheld: bool = False


class Diagnostics:
    """The diagnostics of one server's documents."""

    def __init__(self, server: WflsServer) -> None:
        self._server = server
        self._results: dict[str, DiagnosticsResult] = {}
        self._cross: dict[str, int] = {}  # per URI: changes of the documents it depends on
        self.generation = 0
        """Of the settings: a result made under older settings is not current."""
        self._failure_logged: dict[str, str] = {}
        """Per URI, the result id whose analysis failed and was logged (the worker's own:
        only ``compute`` reads and writes it)."""

    @cached_property
    def worker_converter(self) -> Any:
        """The worker's own converter: cattrs builds its hooks lazily, on first use, so
        the protocol's, used on the loop, is not shared with another thread. Made by the
        first analysis (or ``load_analysis``), not before ``initialize`` is answered:
        making one resolves every protocol class's annotations (20 ms)."""
        return default_converter()  # type: ignore[no-untyped-call]

    @cached_property
    def encode_diagnostic(self) -> Encode:
        return diagnostic_encoder(self.worker_converter)

    def result_id(self, uri: str) -> str:
        # The store's revision, not the client's version: a client that repeats a
        # version number for another text must not be told "unchanged".
        revision = self._server.store.revision(uri)
        return f"{'disk' if revision is None else revision}.{self.generation}." + str(
            self._cross.get(uri, 0)
        )

    async def get(self, uri: str) -> DiagnosticsResult | None:
        """The diagnostics of ``uri``: the latest version if open, else what is on disk."""
        server = self._server
        result_id = self.result_id(uri)
        cached = self._results.get(uri)
        if cached is not None and cached.result_id == result_id:
            return cached
        generation = self.generation
        # What the answer is made under, read as it is asked for (a pull answers with the
        # settings sent before it), not after the wait below.
        settings, flags, indexed = server.settings, server.flags, server.indexing.indexed
        if uri in server.store and server.store.current_snapshot(uri, "model") is None:
            # The model first, as a job of its own: a request queued meanwhile (a completion
            # sent right behind an opening or an edit) is answered before the findings.
            await server.scheduler.in_worker(self.model, uri)
        result: DiagnosticsResult | None = await server.scheduler.in_worker(
            self.compute, uri, result_id, settings, flags, indexed
        )
        if result is None:
            return None
        if result.affected:
            self.dependencies_changed(result.affected - {uri})
        if result.withheld:
            server.indexing.withhold(uri)
        if (
            generation == self.generation
            and result.result_id == self.result_id(uri)
            and result.revision == server.store.revision(uri)
        ):
            self._results[uri] = result
        if result.revision is not None:
            server.scheduler.index_ahead(uri, result.revision)
        return result

    def model(self, uri: str) -> None:
        """Runs on the worker: the latest version's analysis as far as a request reads
        (``DocumentStore.analyse``), the first step of ``compute``'s."""
        store = self._server.store
        self._server.scheduler.wait_for_quiet()
        # A failure of the analysis (a bug) is ``compute``'s to report: it meets it again.
        with collector_paused(lasting=not store.has_analysed(uri)), contextlib.suppress(Exception):
            store.analyse(uri, "model")

    def compute(
        self,
        uri: str,
        result_id: str,
        settings: Settings,
        flags: ClientFlags,
        indexed: bool = True,
    ) -> DiagnosticsResult | None:
        """Runs on the worker: analyse, record the analysis in the workspace index, convert.

        Reads only the store (under its locks) and the workspace index, never the
        loop's caches or settings: those arrive as arguments.

        The collector is paused throughout (``wf_core.base.collector``) and scans what
        survived once at the end, after the versions this one replaces in the store and
        the workspace index were freed.

        A message arriving when the analysis is due goes first (``analysis_due``). An
        open document's first analysis lives as long as the document: frozen, not
        scanned (a lasting pause, ``wf_core.base.collector``).

        Before the workspace is ``indexed``, only the document's own findings are given:
        a cross-file one would be made against a partial index (a subgraph's child not
        read yet is "unknown"), and a client must never be shown such a false finding."""
        store = self._server.store
        self._server.scheduler.analysis_due(uri)
        first = uri in store and not store.has_analysed(uri)
        revision, version = store.revision(uri), store.version(uri)
        with collector_paused(lasting=first):
            try:
                return self._analyse_and_convert(uri, result_id, settings, flags, indexed)
            except Exception as error:
                # A bug of the analysis. The document's diagnostic says so rather than
                # none at all, and the traceback is logged once per result: the result is
                # kept as any other, and a request meanwhile (analysing the same version
                # again) logs no second one.
                if self._failure_logged.get(uri) != result_id:
                    self._failure_logged[uri] = result_id
                    logger.exception("the analysis of %s failed", uri)
                return self._failed(uri, result_id, settings, flags, error, (revision, version))

    def _failed(
        self,
        uri: str,
        result_id: str,
        settings: Settings,
        flags: ClientFlags,
        error: Exception,
        analysed: tuple[int | None, int | None],
    ) -> DiagnosticsResult:
        """The diagnostics of a document whose analysis raised ``error``: its one finding
        (``internal_error``), at its start. ``analysed``: the revision and version."""
        from wf_core.version.snapshot import PlacedIssue

        revision, version = analysed
        failed = PlacedIssue(internal_error(error), None, Span(0, 0))
        codec = convert.PositionCodec(LineIndex(""), flags.position_encoding)
        encode = None if flags.pull_diagnostics else self.encode_diagnostic
        items, encoded = DiagnosticsMemo().convert(
            (failed,), codec, uri, flags, settings, None, encode
        )
        published = None
        if encoded is not None:
            published = publish_params(self.worker_converter, uri, version, encoded)
        return DiagnosticsResult(
            uri, version, result_id, items, revision=revision, published=published
        )

    def _analyse_and_convert(
        self, uri: str, result_id: str, settings: Settings, flags: ClientFlags, indexed: bool
    ) -> DiagnosticsResult | None:
        from wf_core.workspace.checks import document_issues

        store, workflows = self._server.store, self._server.indexing.workflows
        analysed = store.analyse(uri)
        snapshot, revision = (analysed[1], analysed[0]) if analysed else (None, None)
        affected: set[str] = set()
        if snapshot is not None:
            known = workflows.document(uri)
            if known is None or known.snapshot is not snapshot:
                affected = workflows.put_open(uri, snapshot)
        else:
            document = workflows.document(uri)
            if document is None:
                return None
            snapshot = document.snapshot
        issues = document_issues(workflows, uri) if indexed else snapshot.issues
        codec = convert.PositionCodec(snapshot.lines, flags.position_encoding)
        # An open document's unchanged findings keep their diagnostics (and JSON) from
        # the last analysis; a document read from disk is converted afresh.
        memo = store.diagnostics_memo(uri) or DiagnosticsMemo()
        # Push clients: encoded here, off the event loop (12,800 diagnostics of 16,000
        # nodes take 90 ms to encode, which requests arriving meanwhile would wait for).
        encode = None if flags.pull_diagnostics else self.encode_diagnostic
        codec_for = self._server.codec_for
        items, encoded = memo.convert(issues, codec, uri, flags, settings, codec_for, encode)
        published = None
        if encoded is not None:
            published = publish_params(self.worker_converter, uri, snapshot.version, encoded)
        return DiagnosticsResult(
            uri,
            snapshot.version,
            result_id,
            items,
            frozenset(affected),
            revision,
            published,
            withheld=not indexed,
        )

    def settings_changed(self) -> None:
        """Every result was made under the settings replaced."""
        self.generation += 1
        self._results.clear()

    def forget(self, uri: str) -> None:
        self._results.pop(uri, None)

    def dependencies_changed(self, uris: Iterable[str]) -> None:
        """Documents that depend on a changed one: their findings must be computed again."""
        server = self._server
        changed = False
        for uri in uris:
            self._cross[uri] = self._cross.get(uri, 0) + 1
            self._results.pop(uri, None)
            changed = True
            if not server.flags.pull_diagnostics and uri in server.store:
                server.scheduler.schedule_push(uri)
        if changed and server.flags.pull_diagnostics:
            server.workspace_diagnostic_refresh(None)
