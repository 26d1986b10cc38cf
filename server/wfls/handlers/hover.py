"""``textDocument/hover``: the hover feature's markdown over the hovered range."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from wfls import convert
from wfls.handlers import guarded, snapshot_at

if TYPE_CHECKING:
    from wfls.server import WflsServer


@guarded()
async def handle(ls: WflsServer, params: types.HoverParams) -> types.Hover | None:
    found = await snapshot_at(ls, params.text_document.uri, params.position)
    if found is None:
        return None
    snapshot, codec, offset = found
    from wfls.features.hover import hover

    result = hover(snapshot, offset)
    return convert.hover(result, codec, ls.flags) if result is not None else None
