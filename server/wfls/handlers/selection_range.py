"""``textDocument/selectionRange``: for each position, the ranges expand-selection grows through."""

from __future__ import annotations

from lsprotocol import types

from wfls import convert
from wfls.context import RequestContext


def empty(params: types.SelectionRangeParams) -> list[types.SelectionRange]:
    return []


def handle(ctx: RequestContext, params: types.SelectionRangeParams) -> list[types.SelectionRange]:
    from wfls.features.selection import selection_chain

    return [
        convert.selection_range(selection_chain(ctx.view, ctx.offset(position)), ctx.codec)
        for position in params.positions
    ]
