"""``codeAction/resolve``: the edit of an action offered without one, computed on the
latest analysis of the document its ``data`` names. An action that already has its
edit (some clients, Neovim among them, resolve every action) comes back as it is."""

from __future__ import annotations

from typing import Any, cast

from lsprotocol import types

from wf_core.version.view import DiagnosedView
from wfls import convert
from wfls.context import RequestContext


def uri_of(params: types.CodeAction) -> str | None:
    data: Any = params.data
    return data.get("uri") if isinstance(data, dict) else None


def empty(params: types.CodeAction) -> types.CodeAction:
    return params


def handle(ctx: RequestContext, params: types.CodeAction) -> types.CodeAction:
    from wfls.features.code_actions import resolve_code_action

    if params.edit is not None:
        return params
    view = cast(DiagnosedView, ctx.view)
    edits = resolve_code_action(view, cast(dict[str, Any], params.data))
    params.edit = convert.workspace_edit(ctx.uri, view.version, edits, ctx.codec, ctx.flags)
    return params
