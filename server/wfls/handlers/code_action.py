"""``textDocument/codeAction``: quick fixes of the diagnostics in the range, and the
migration of convenience keys (``source.migrateConvenienceKeys.wfls``).

With a client that resolves ``edit`` lazily, the costly actions (an alias renamed
with its reads, the migration) come without ``edit`` and are completed by
``codeAction/resolve``; otherwise every edit is computed here.
"""

from __future__ import annotations

from typing import cast

from lsprotocol import types

from wf_core.version.view import DiagnosedView
from wfls import convert
from wfls.context import RequestContext


def empty(params: types.CodeActionParams) -> list[types.CodeAction]:
    return []


def handle(ctx: RequestContext, params: types.CodeActionParams) -> list[types.CodeAction]:
    from wfls.features.code_actions import code_actions

    view = cast(DiagnosedView, ctx.view)
    span = ctx.span(params.range)
    only = [str(kind) for kind in params.context.only] if params.context.only else None
    actions = code_actions(
        view,
        span,
        only=only,
        lazy=ctx.flags.code_action_lazy_edit,
        shown=lambda issue: ctx.settings.severity_of(issue.code, issue.severity) is not None,
        issues=ctx.workspace.issues_of(ctx.uri, view, span) if ctx.workspace is not None else None,
    )
    return [
        convert.code_action(a, ctx.uri, view.version, ctx.codec, ctx.flags, ctx.settings)
        for a in actions
    ]
