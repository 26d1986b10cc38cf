"""``workspace/diagnostic`` (pull): the diagnostics of every open workflow document.

Documents whose previous result id still matches are reported "unchanged".
One failing document does not hide the others.
"""

from __future__ import annotations

import logging

from lsprotocol import types

from wfls.context import Session

logger = logging.getLogger("wfls")


def empty() -> types.WorkspaceDiagnosticReport:
    return types.WorkspaceDiagnosticReport(items=[])


async def handle(
    session: Session, params: types.WorkspaceDiagnosticParams
) -> types.WorkspaceDiagnosticReport:
    previous = {p.uri: p.value for p in params.previous_result_ids or ()}
    items: list[types.WorkspaceDocumentDiagnosticReport] = []
    for uri in session.store.uris():
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
