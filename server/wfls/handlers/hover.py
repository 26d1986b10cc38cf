"""``textDocument/hover``."""

from __future__ import annotations

from lsprotocol import types

from wfls import convert
from wfls.context import RequestContext, TestRequestContext


def empty(params: types.HoverParams) -> None:
    return None


def handle(ctx: RequestContext, params: types.HoverParams) -> types.Hover | None:
    from wfls.features.hover import hover

    result = hover(ctx.view, ctx.offset(params.position), ctx.workspace, ctx.last_run)
    return convert.hover(result, ctx.codec, ctx.flags) if result is not None else None


def handle_test(ctx: TestRequestContext, params: types.HoverParams) -> types.Hover | None:
    """In a workflow test document: a node's summary, a ``when`` path's schema."""
    from wfls.features.test_documents import hover

    result = hover(ctx.view, ctx.offset(params.position))
    return convert.hover(result, ctx.codec, ctx.flags) if result is not None else None
