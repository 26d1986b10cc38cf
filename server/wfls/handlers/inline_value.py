"""``textDocument/inlineValue``: the stopped node's reads, for the debug adapter to evaluate."""

from __future__ import annotations

from lsprotocol import types

from wf_core.base.spans import Span
from wfls.context import RequestContext


def empty(params: types.InlineValueParams) -> list[types.InlineValue]:
    return []


def handle(ctx: RequestContext, params: types.InlineValueParams) -> list[types.InlineValue]:
    from wfls.features.inline_values import inline_reads

    stopped = ctx.offset(params.context.stopped_location.start)
    start, end = ctx.offset(params.range.start), ctx.offset(params.range.end)
    return [
        types.InlineValueEvaluatableExpression(
            range=ctx.codec.range(read.span), expression=read.expression
        )
        for read in inline_reads(ctx.view, stopped, Span(min(start, end), max(start, end)))
    ]
