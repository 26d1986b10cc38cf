"""``textDocument/rename``: one versioned workspace edit, or an error saying why not."""

from __future__ import annotations

from lsprotocol import types

from wfls import convert
from wfls.context import RequestContext


def empty(params: types.RenameParams) -> None:
    return None


def handle(ctx: RequestContext, params: types.RenameParams) -> types.WorkspaceEdit:
    from wfls.features.rename import rename_everywhere

    edits = rename_everywhere(ctx.view, ctx.offset(params.position), params.new_name, ctx.workspace)
    return convert.workspace_edits(edits, ctx.uri, ctx.codec, ctx.documents.codec_for, ctx.flags)
