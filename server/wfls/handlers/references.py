"""``textDocument/references``: every use of the name under the cursor."""

from __future__ import annotations

from typing import Protocol

from lsprotocol import types

from wfls import convert
from wfls.context import RequestContext


def empty(params: types.ReferenceParams) -> list[types.Location]:
    return []


def handle(ctx: RequestContext, params: types.ReferenceParams) -> list[types.Location]:
    from wfls.features.references import references

    found = references(
        ctx.view,
        ctx.offset(params.position),
        include_declaration=params.context.include_declaration,
        workspace=ctx.workspace,
    )
    locations = []
    for target in found:
        codec = ctx.codec if target.uri is None else ctx.documents.codec_for(target.uri)
        if codec is not None:
            locations.append(convert.location(target.uri or ctx.uri, target.span, codec))
    return locations


class AtPosition(Protocol):
    """The params of a request about the cursor (references, definition, highlight,
    rename)."""

    @property
    def position(self) -> types.Position: ...


def make_parts(ctx: RequestContext, params: AtPosition) -> None:
    """What references, definition, highlight and rename read of the semantic index:
    the parts that may hold the symbol at the cursor."""
    from wfls.features.references import make_symbol_parts

    make_symbol_parts(ctx.view, ctx.offset(params.position))
