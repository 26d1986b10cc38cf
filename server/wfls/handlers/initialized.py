"""``initialized``: read the settings the client holds."""

from __future__ import annotations

from lsprotocol import types

from wfls.context import Session


async def handle(session: Session, params: types.InitializedParams) -> None:
    await session.fetch_configuration()
