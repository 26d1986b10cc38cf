"""``textDocument/completion``: the completion feature's candidates as LSP items."""

from __future__ import annotations

from lsprotocol import types

from wfls import convert
from wfls.context import RequestContext
from wfls.features.completion import complete

WHILE_TYPING = True
AT_CURSOR = True  # about one place: may answer from the index of the node there


def empty() -> types.CompletionList:
    return types.CompletionList(is_incomplete=False, items=[])


def handle(ctx: RequestContext, params: types.CompletionParams) -> types.CompletionList:
    offset = ctx.offset(params.position)
    return convert.completion_list(
        complete(ctx.view, offset, ctx.workspace), ctx.codec, offset, ctx.flags
    )
