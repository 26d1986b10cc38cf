"""``textDocument/completion``: the completion feature's candidates as LSP items."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from wfls import convert
from wfls.handlers import guarded, snapshot_at

if TYPE_CHECKING:
    from wfls.server import WflsServer


def _empty() -> types.CompletionList:
    return types.CompletionList(is_incomplete=False, items=[])


@guarded(_empty)
async def handle(ls: WflsServer, params: types.CompletionParams) -> types.CompletionList:
    found = await snapshot_at(ls, params.text_document.uri, params.position)
    if found is None:
        return _empty()
    snapshot, codec, offset = found
    from wfls.features.completion import complete

    candidates = complete(snapshot, offset)
    return convert.completion_list(candidates, codec, offset, ls.flags)
