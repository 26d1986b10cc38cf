"""``textDocument/semanticTokens/full/delta``: the edits from the client's last result,
made from what changed since it when that is known (``semantic_tokens_full.moved``)."""

from __future__ import annotations

from lsprotocol import types

from wfls import convert
from wfls.context import RequestContext
from wfls.handlers import semantic_tokens_full as full


def empty(params: types.SemanticTokensDeltaParams) -> types.SemanticTokens:
    return types.SemanticTokens(data=[])


def handle(
    ctx: RequestContext, params: types.SemanticTokensDeltaParams
) -> types.SemanticTokens | types.SemanticTokensDelta:
    before = full.previous(ctx.uri, params.previous_result_id)
    if before is None:
        result = full.compute(ctx)
        return types.SemanticTokens(data=result.data, result_id=full.remember(ctx.uri, result))
    made = full.moved(ctx, before)
    if made is not None:
        result, edit = made
        unchanged = before.data[edit.start : edit.start + edit.delete_count] == edit.data
        edits = [] if unchanged else [edit]
        return types.SemanticTokensDelta(edits=edits, result_id=full.remember(ctx.uri, result))
    result = full.compute(ctx)
    return types.SemanticTokensDelta(
        edits=convert.semantic_tokens_edits(before.data, result.data),
        result_id=full.remember(ctx.uri, result),
    )
