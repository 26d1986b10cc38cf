"""``textDocument/diagnostic`` (pull): the latest version's diagnostics.

Answers "unchanged" when the client already holds the same result id (same
version and settings), which makes repeated pulls free.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from wfls.handlers import guarded

if TYPE_CHECKING:
    from wfls.server import WflsServer


def _empty() -> types.FullDocumentDiagnosticReport:
    return types.FullDocumentDiagnosticReport(items=[])


@guarded(_empty)
async def handle(
    ls: WflsServer, params: types.DocumentDiagnosticParams
) -> types.FullDocumentDiagnosticReport | types.UnchangedDocumentDiagnosticReport:
    result = await ls.diagnostics_async(params.text_document.uri)
    if result is None:
        return _empty()
    if params.previous_result_id == result.result_id:
        return types.UnchangedDocumentDiagnosticReport(result_id=result.result_id)
    return types.FullDocumentDiagnosticReport(items=result.items, result_id=result.result_id)
