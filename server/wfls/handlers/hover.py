"""``textDocument/hover``."""

from __future__ import annotations

from lsprotocol import types

from wfls import convert
from wfls.context import RequestContext
from wfls.features.hover import hover

WHILE_TYPING = True
AT_CURSOR = True  # about one place: may answer from the index of the node there


def empty() -> None:
    return None


def handle(ctx: RequestContext, params: types.HoverParams) -> types.Hover | None:
    result = hover(ctx.view, ctx.offset(params.position), ctx.workspace, ctx.last_run)
    return convert.hover(result, ctx.codec, ctx.flags) if result is not None else None
