"""``workspace/didChangeWatchedFiles``: workflow files created, changed or deleted on disk."""

from __future__ import annotations

from lsprotocol import types

from wfls.context import Session


async def handle(session: Session, params: types.DidChangeWatchedFilesParams) -> None:
    await session.files_changed(
        [(change.uri, change.type == types.FileChangeType.Deleted) for change in params.changes]
    )
