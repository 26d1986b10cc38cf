"""``textDocument/rename``: one versioned workspace edit, or an error saying why not."""

from __future__ import annotations

from lsprotocol import types

from wfls import convert
from wfls.context import RequestContext
from wfls.features.rename import rename


def empty() -> None:
    return None


def handle(ctx: RequestContext, params: types.RenameParams) -> types.WorkspaceEdit:
    edits = rename(ctx.view, ctx.offset(params.position), params.new_name)
    return convert.workspace_edit(ctx.uri, ctx.view.version, edits, ctx.codec, ctx.flags)
