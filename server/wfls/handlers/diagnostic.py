"""``textDocument/diagnostic`` (pull): the cached diagnostics, or "unchanged"."""

from __future__ import annotations

from lsprotocol import types

from wfls.context import Session


def empty(params: types.DocumentDiagnosticParams) -> types.FullDocumentDiagnosticReport:
    return types.FullDocumentDiagnosticReport(items=[])


async def handle(
    session: Session, params: types.DocumentDiagnosticParams
) -> types.FullDocumentDiagnosticReport | types.UnchangedDocumentDiagnosticReport:
    tests = await session.test_documents.diagnostics(params.text_document.uri)
    if tests is not None:
        return types.FullDocumentDiagnosticReport(items=tests)
    result = await session.diagnostics_async(params.text_document.uri)
    if result is None:
        return empty(params)
    if params.previous_result_id == result.result_id:
        return types.UnchangedDocumentDiagnosticReport(result_id=result.result_id)
    return types.FullDocumentDiagnosticReport(items=result.items, result_id=result.result_id)
