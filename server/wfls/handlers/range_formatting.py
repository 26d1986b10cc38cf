"""``textDocument/rangeFormatting``: the edits of formatting the whole document that lie
in the lines the range touches, or an error saying why there are none to give."""

from __future__ import annotations

from lsprotocol import types

from wf_core.base.spans import Span
from wfls import convert
from wfls.context import RequestContext
from wfls.handlers.formatting import indentation


def empty(params: types.DocumentRangeFormattingParams) -> list[types.TextEdit]:
    return []


def handle(
    ctx: RequestContext, params: types.DocumentRangeFormattingParams
) -> list[types.TextEdit]:
    from wfls.features.formatting import format_edits

    # (a client may send the range's ends in either order)
    ends = sorted((ctx.offset(params.range.start), ctx.offset(params.range.end)))
    within = Span(ends[0], ends[1])
    edits = format_edits(
        ctx.view,
        width=ctx.settings.format_width,
        indent=indentation(params.options),
        within=within,
    )
    return [convert.text_edit(edit, ctx.codec) for edit in edits]
