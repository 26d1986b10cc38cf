"""``workspace/diagnostic`` (pull): the diagnostics of every workflow document of the
workspace, open or not (open documents as the editor has them).

Documents whose previous result id still matches are reported "unchanged".
One failing document does not hide the others.
"""

from __future__ import annotations

import logging

from lsprotocol import types

from wfls.context import Session

logger = logging.getLogger("wfls")


def empty(params: types.WorkspaceDiagnosticParams) -> types.WorkspaceDiagnosticReport:
    return types.WorkspaceDiagnosticReport(items=[])


async def handle(
    session: Session, params: types.WorkspaceDiagnosticParams
) -> types.WorkspaceDiagnosticReport:
    previous = {p.uri: p.value for p in params.previous_result_ids or ()}
    items: list[types.WorkspaceDocumentDiagnosticReport] = []
    for uri in session.document_uris():
        if uri in previous and previous[uri] == session.result_id(uri):
            # Nothing it depends on changed since that result: no analysis needed.
            items.append(
                types.WorkspaceUnchangedDocumentDiagnosticReport(
                    uri=uri, version=session.store.version(uri), result_id=previous[uri]
                )
            )
            continue
        try:
            result = await session.diagnostics_async(uri)
        except Exception:
            logger.exception("analysis of %s failed", uri)
            continue
        if result is None:
            continue
        if previous.get(uri) == result.result_id:
            items.append(
                types.WorkspaceUnchangedDocumentDiagnosticReport(
                    uri=uri, version=result.version, result_id=result.result_id
                )
            )
        else:
            items.append(
                types.WorkspaceFullDocumentDiagnosticReport(
                    uri=uri, version=result.version, items=result.items, result_id=result.result_id
                )
            )
    return types.WorkspaceDiagnosticReport(items=items)
