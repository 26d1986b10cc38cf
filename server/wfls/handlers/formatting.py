"""``textDocument/formatting``: the smallest edits that give the document its canonical
style, or an error saying where the syntax error that stops it is."""

from __future__ import annotations

from lsprotocol import types

from wfls import convert
from wfls.context import RequestContext


def empty(params: types.DocumentFormattingParams) -> list[types.TextEdit]:
    return []


def indentation(options: types.FormattingOptions) -> str:
    """The indentation the client asks for: ``tabSize`` spaces, or a tab."""
    return " " * options.tab_size if options.insert_spaces else "\t"


def handle(ctx: RequestContext, params: types.DocumentFormattingParams) -> list[types.TextEdit]:
    from wfls.features.formatting import format_edits

    edits = format_edits(
        ctx.view, width=ctx.settings.format_width, indent=indentation(params.options)
    )
    return [convert.text_edit(edit, ctx.codec) for edit in edits]
