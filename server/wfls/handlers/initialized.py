"""``initialized``: the client is ready for our requests; fetch the settings section."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from wfls.handlers import guarded

if TYPE_CHECKING:
    from wfls.server import WflsServer


@guarded()
async def handle(ls: WflsServer, params: types.InitializedParams) -> None:
    await ls.fetch_configuration()
