"""``workspace/symbol``: workflows, nodes and node defs of every document of the workspace
(open ones as the editor has them).

Matching is a case-insensitive subsequence of the name (``features.symbols.matches``).
One failing document does not hide the others. The answer waits for the scan of the
workspace folders to end.
"""

from __future__ import annotations

import logging

from lsprotocol import types

from wfls import convert
from wfls.context import Session

logger = logging.getLogger("wfls")


def empty(params: types.WorkspaceSymbolParams) -> list[types.SymbolInformation]:
    return []


async def handle(
    session: Session, params: types.WorkspaceSymbolParams
) -> list[types.SymbolInformation]:
    from wfls.features.symbols import workspace_symbols

    # Every document of the workspace, not those the scan reached so far: an answer
    # before the scan ends would leave documents out without a word.
    await session.workspace_scanned()
    found: list[types.SymbolInformation] = []
    encoding = session.flags.position_encoding
    for uri in session.document_uris():
        try:
            # Each document's text parsed, no more: the names and places are all it reads.
            view = await session.parsed(uri)
            if view is None:
                continue
            codec = convert.PositionCodec(view.lines, encoding)
            found.extend(
                convert.workspace_symbol(symbol, container, uri, codec)
                for symbol, container in workspace_symbols(view.parsed, params.query)
            )
        except Exception:
            logger.exception("workspace symbols of %s failed", uri)
    return found
