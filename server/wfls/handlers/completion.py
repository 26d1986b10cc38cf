"""``textDocument/completion``: the completion feature's candidates as LSP items."""

from __future__ import annotations

from lsprotocol import types

from wfls import convert
from wfls.context import RequestContext, TestRequestContext


def empty(params: types.CompletionParams) -> types.CompletionList:
    return types.CompletionList(is_incomplete=False, items=[])


def handle(ctx: RequestContext, params: types.CompletionParams) -> types.CompletionList:
    from wfls.features.completion import complete

    offset = ctx.offset(params.position)
    return convert.completion_list(
        complete(ctx.view, offset, ctx.workspace), ctx.codec, offset, ctx.flags
    )


def handle_test(ctx: TestRequestContext, params: types.CompletionParams) -> types.CompletionList:
    """In a workflow test document: node ids, outcomes, context paths and keys."""
    from wfls.features.test_documents import complete

    offset = ctx.offset(params.position)
    return convert.completion_list(complete(ctx.view, offset), ctx.codec, offset, ctx.flags)
