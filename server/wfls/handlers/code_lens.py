"""``textDocument/codeLens``: "Run case" above each case of a workflow test document.

The lens's command is the server's own ``wfls.test`` with the argument ``{"uri",
"cases": [NAME]}``, so any client can run it; VS Code runs it through its Test Explorer,
which shows the result. A workflow document has no lenses: it is answered at once,
without waiting for its analysis (editors ask again after every edit).
"""

from __future__ import annotations

from lsprotocol import types

from wfls.capabilities import TEST
from wfls.context import Session


def empty(params: types.CodeLensParams) -> list[types.CodeLens]:
    return []


async def handle(session: Session, params: types.CodeLensParams) -> list[types.CodeLens]:
    from wfls.features.test_documents import RUN_CASE, case_lenses

    uri = params.text_document.uri
    ctx = None if uri in session.store else await session.test_documents.context(uri)
    if ctx is None:
        return []
    return [
        types.CodeLens(
            range=ctx.codec.range(lens.span),
            command=types.Command(
                title=RUN_CASE, command=TEST, arguments=[{"uri": uri, "cases": [lens.name]}]
            ),
        )
        for lens in case_lenses(ctx.view.loaded)
    ]
