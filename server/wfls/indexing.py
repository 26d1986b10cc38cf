"""The workspace: its folders, their index (every workflow document in them, read off
the event loop), the files the client watches there, and what waits for the scan.

Until the scan of the current folders has finished, diagnostics withhold their
cross-file findings (``indexed``); the documents whose findings were withheld are
checked again once it has.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import TYPE_CHECKING

from lsprotocol import types

from wf_core.workspace.files import Roots, path_of_uri

if TYPE_CHECKING:
    from wf_core.workspace.catalog import ScanResult, Workspace
    from wfls.server import WflsServer

logger = logging.getLogger("wfls")


class WorkspaceIndexing:
    """The workspace index of one server, and its scans."""

    def __init__(self, server: WflsServer) -> None:
        self._server = server
        self._roots = Roots([])
        self._workflows: Workspace | None = None
        self._lazily = threading.Lock()  # creates the workspace index once
        self._indexing: asyncio.Future[None] | None = None
        self._indexed_roots: Roots | None = None  # the roots whose scan has finished
        # Set (and replaced by a fresh one) at the end of every scan of the current roots.
        self._scan_ended = asyncio.Event()
        # Documents whose last diagnostics withheld their cross-file findings (made before
        # the scan finished): made again once it has.
        self._withheld: set[str] = set()

    @property
    def workflows(self) -> Workspace:
        """The workspace index of the current roots (made on first use)."""
        if self._workflows is None:
            with self._lazily:
                if self._workflows is None:
                    from wf_core.workspace.catalog import Workspace

                    self._workflows = Workspace(self._roots)
        return self._workflows

    def _new_roots(self, roots: Roots) -> None:
        """Index ``roots`` from now on (a fresh workspace index, made on first use)."""
        with self._lazily:
            self._roots, self._workflows = roots, None

    def set_roots(self, params: types.InitializeParams) -> None:
        """The workspace folders the client announced (only local ``file:`` folders)."""
        uris = [f.uri for f in params.workspace_folders or ()]
        if not uris and params.root_uri:
            uris = [params.root_uri]
        folders = [p for p in (path_of_uri(u) for u in uris) if p is not None]
        self._new_roots(Roots(folders, self._server.settings.extra_globs))

    def set_globs(self, extra_globs: tuple[str, ...]) -> None:
        """The settings name other files as workflows: the folders are scanned again."""
        self._new_roots(Roots(self._roots.folders, extra_globs))
        self._indexing = asyncio.ensure_future(self._index_logged())

    def start(self) -> None:
        """Index in the background: requests are answered meanwhile."""
        self._indexing = asyncio.ensure_future(self._index_logged())

    @property
    def indexed(self) -> bool:
        """Whether the scan of the current workspace folders has finished (or failed): until
        then, diagnostics withhold cross-file findings (``Diagnostics.compute``)."""
        return self._indexed_roots is self._roots

    async def scanned(self) -> None:
        """Return once the scan of the current workspace folders has finished: what
        reads other documents as a whole (a run's children) never sees a partial index,
        as diagnostics withhold cross-file findings until then."""
        while not self.indexed:
            await self._scan_ended.wait()

    def withhold(self, uri: str) -> None:
        """``uri``'s diagnostics were made without its cross-file findings: make them again
        once the workspace is indexed, or now if it was indexed meanwhile."""
        if self.indexed:
            self._server.diagnostics.dependencies_changed({uri})
        else:
            self._withheld.add(uri)

    def close(self, uri: str) -> set[str]:
        """``uri`` was closed: the index reads it from disk again, if it is there; the
        documents this may change are returned."""
        self._withheld.discard(uri)
        return self.workflows.close(uri)

    def _scanned(self, roots: Roots, affected: set[str]) -> None:
        """The scan of ``roots`` ended: if they are still the workspace's, the documents it
        affects and those whose cross-file findings were withheld are checked again."""
        if roots is not self._roots:
            return  # superseded (new folders or globs): their own scan ends this
        self._indexed_roots = roots
        ended, self._scan_ended = self._scan_ended, asyncio.Event()
        ended.set()
        withheld, self._withheld = self._withheld, set()
        self._server.diagnostics.dependencies_changed(affected | withheld)

    async def _index_logged(self) -> None:
        roots = self._roots
        try:
            await self.index_workspace()
        except Exception:
            logger.exception("indexing the workspace failed; open documents are still checked")
            self._scanned(roots, set())

    async def index_workspace(self) -> None:
        """Read every document of the workspace folders off the event loop, reporting
        progress, then re-check what depends on them and watch them for changes."""
        server = self._server
        roots = self._roots
        loop = asyncio.get_running_loop()
        token = f"wfls-index-{id(server)}"
        progress = server.flags.work_done_progress
        if progress:
            try:
                await server.work_done_progress.create_async(token)
                server.work_done_progress.begin(
                    token,
                    types.WorkDoneProgressBegin(
                        title="wfls: indexing workflows", percentage=0, cancellable=False
                    ),
                )
            except Exception:
                logger.warning("the client refused a progress token; indexing without it")
                progress = False

        def report(done: int, total: int) -> None:
            if progress and (done == total or done % 25 == 0):
                loop.call_soon_threadsafe(
                    server.work_done_progress.report,
                    token,
                    types.WorkDoneProgressReport(
                        message=f"{done}/{total}", percentage=100 * done // max(total, 1)
                    ),
                )

        scanned: ScanResult = await server.scheduler.in_worker(self.workflows.scan, report)
        count = len(self.workflows.documents())
        if progress:
            server.work_done_progress.end(
                token, types.WorkDoneProgressEnd(message=f"{count} workflow document(s)")
            )
        for item in scanned.skipped:
            server.window_log_message(
                types.LogMessageParams(
                    type=types.MessageType.Info, message=f"wfls: skipped {item.path}: {item.reason}"
                )
            )
        self._scanned(roots, scanned.affected)
        await self._watch_files()

    async def _watch_files(self) -> None:
        server = self._server
        if not server.flags.watched_files or server.protocol.shut_down:
            return  # (after ``shutdown`` the server starts nothing new with the client)
        patterns = ["**/*.wf.toml", "**/*.wf.json", *server.settings.extra_globs]
        registration = types.Registration(
            id="wfls-watched-files",
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(
                watchers=[types.FileSystemWatcher(glob_pattern=p) for p in patterns]
            ),
        )
        try:
            await server.client_register_capability_async(
                types.RegistrationParams(registrations=[registration])
            )
        except Exception:
            logger.warning("the client refused to watch workflow files")

    async def files_changed(self, changes: list[tuple[str, bool]]) -> None:
        """Files changed on disk: read them again (only inside the workspace folders)."""

        def apply() -> set[str]:
            affected: set[str] = set()
            for uri, deleted in changes:
                path = path_of_uri(uri)
                if path is None or not self.workflows.roots.contains(path):
                    continue
                if deleted:
                    affected |= self.workflows.remove(path.resolve().as_uri())
                else:
                    problem = self.workflows.load(path, affected)
                    if problem is not None:
                        logger.info("skipped %s: %s", problem.path, problem.reason)
            return affected

        affected: set[str] = await self._server.scheduler.in_worker(apply)
        self._server.diagnostics.dependencies_changed(affected)
