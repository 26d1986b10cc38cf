"""``workspace/symbol``: workflows, nodes and node defs of every document of the workspace
(open ones as the editor has them).

Matching is a case-insensitive subsequence of the name (``features.symbols.matches``).
One failing document does not hide the others.
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

    found: list[types.SymbolInformation] = []
    for uri in session.document_uris():
        try:
            if uri in session.store:
                ctx = await session.request_context(uri)
                view, codec = (ctx.view, ctx.codec) if ctx is not None else (None, None)
            else:
                view, codec = session.indexed(uri), session.codec_for(uri)
            if view is None or codec is None:
                continue
            found.extend(
                convert.workspace_symbol(symbol, container, uri, codec)
                for symbol, container in workspace_symbols(view, params.query)
            )
        except Exception:
            logger.exception("workspace symbols of %s failed", uri)
    return found
