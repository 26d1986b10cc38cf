"""``initialized``: read the settings the client holds, then index the workspace."""

from __future__ import annotations

from lsprotocol import types

from wfls.context import Session


async def handle(session: Session, params: types.InitializedParams) -> None:
    await session.fetch_configuration()
    await session.start_indexing()
