"""``textDocument/references``: every use of the name under the cursor."""

from __future__ import annotations

from lsprotocol import types

from wfls import convert
from wfls.context import RequestContext
from wfls.features.references import references


def empty() -> list[types.Location]:
    return []


def handle(ctx: RequestContext, params: types.ReferenceParams) -> list[types.Location]:
    found = references(
        ctx.view,
        ctx.offset(params.position),
        include_declaration=params.context.include_declaration,
    )
    return [convert.location(target.uri or ctx.uri, target.span, ctx.codec) for target in found]
