"""``textDocument/foldingRange``: sections, entries and bracketed values that span lines."""

from __future__ import annotations

from lsprotocol import types

from wfls import convert
from wfls.context import RequestContext


def empty(params: types.FoldingRangeParams) -> list[types.FoldingRange]:
    return []


def handle(ctx: RequestContext, params: types.FoldingRangeParams) -> list[types.FoldingRange]:
    from wfls.features.folding import folding_ranges

    found = (convert.folding_range(fold, ctx.codec, ctx.flags) for fold in folding_ranges(ctx.view))
    return [fold for fold in found if fold is not None]
