"""``textDocument/documentHighlight``: the name under the cursor, each place it is written."""

from __future__ import annotations

from lsprotocol import types

from wfls.context import RequestContext


def empty(params: types.DocumentHighlightParams) -> list[types.DocumentHighlight]:
    return []


def handle(
    ctx: RequestContext, params: types.DocumentHighlightParams
) -> list[types.DocumentHighlight]:
    from wfls.features.references import highlights

    kind = types.DocumentHighlightKind
    return [
        types.DocumentHighlight(
            range=ctx.codec.range(h.span), kind=kind.Write if h.write else kind.Read
        )
        for h in highlights(ctx.view, ctx.offset(params.position))
    ]
