"""``textDocument/codeLens``: "Run case" above each case of a workflow test document.

The lens's command is the server's own ``wfls.test`` with the argument ``{"uri",
"cases": [NAME]}``, so any client can run it; VS Code runs it through its Test Explorer,
which shows the result. A workflow document has no lenses.
"""

from __future__ import annotations

from lsprotocol import types

from wfls.capabilities import TEST
from wfls.context import RequestContext, TestRequestContext


def empty(params: types.CodeLensParams) -> list[types.CodeLens]:
    return []


def handle(ctx: RequestContext, params: types.CodeLensParams) -> list[types.CodeLens]:
    return []


def handle_test(ctx: TestRequestContext, params: types.CodeLensParams) -> list[types.CodeLens]:
    from wfls.features.test_documents import RUN_CASE, case_lenses

    return [
        types.CodeLens(
            range=ctx.codec.range(lens.span),
            command=types.Command(
                title=RUN_CASE, command=TEST, arguments=[{"uri": ctx.uri, "cases": [lens.name]}]
            ),
        )
        for lens in case_lenses(ctx.view.loaded)
    ]
