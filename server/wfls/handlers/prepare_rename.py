"""``textDocument/prepareRename``: the name's range, or why it cannot be renamed."""

from __future__ import annotations

from lsprotocol import types

from wfls.context import RequestContext


def empty(params: types.PrepareRenameParams) -> None:
    return None


def handle(
    ctx: RequestContext, params: types.PrepareRenameParams
) -> types.PrepareRenamePlaceholder:
    from wfls.features.rename import prepare_rename

    span, name = prepare_rename(ctx.view, ctx.offset(params.position))
    return types.PrepareRenamePlaceholder(range=ctx.codec.range(span), placeholder=name)
