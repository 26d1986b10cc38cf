"""``textDocument/inlayHint``: the hints inside the requested range, as settings allow."""

from __future__ import annotations

from lsprotocol import types

from wfls import convert
from wfls.context import RequestContext


def empty(params: types.InlayHintParams) -> list[types.InlayHint]:
    return []


def handle(ctx: RequestContext, params: types.InlayHintParams) -> list[types.InlayHint]:
    from wfls.features.inlay_hints import HintOptions, inlay_hints

    settings = ctx.settings
    options = HintOptions(
        item_types=settings.inlay_item_types,
        path_types=settings.inlay_path_types,
        owner_stacks=settings.inlay_owner_stacks,
    )
    hints = inlay_hints(ctx.view, ctx.span(params.range), options)
    return [convert.inlay_hint(hint, ctx.codec) for hint in hints]
