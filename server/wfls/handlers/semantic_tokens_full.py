"""``textDocument/semanticTokens/full``: every token, remembered for ``/full/delta``.

The last result of each document is kept (its id and data), so that the next
request can be answered with the edits from it. Result ids are unique in the
process, so an id from another session or an older result simply gets a full
answer. Only the most recent documents are remembered. Both requests are answered on the
analysis worker (the route's ``on_worker``), one at a time: so are these results read and
kept.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict

from lsprotocol import types

from wfls import convert
from wfls.context import RequestContext

REMEMBERED = 64

_ids = itertools.count(1)
_results: OrderedDict[str, tuple[str, list[int]]] = OrderedDict()


def remember(uri: str, data: list[int]) -> str:
    result_id = str(next(_ids))
    _results[uri] = (result_id, data)
    _results.move_to_end(uri)
    while len(_results) > REMEMBERED:
        _results.popitem(last=False)
    return result_id


def previous(uri: str, result_id: str) -> list[int] | None:
    """The data of ``uri``'s last result when its id is ``result_id``."""
    found = _results.get(uri)
    return found[1] if found is not None and found[0] == result_id else None


def compute(ctx: RequestContext) -> list[int]:
    """Every token's data, encoded part by part (each part once for every version it
    serves), or at once where parts overlap."""
    from wfls.features.semantic_tokens import semantic_tokens, token_runs

    by_part = convert.semantic_token_runs_data(token_runs(ctx.view), ctx.codec, ctx.flags)
    if by_part is not None:
        return by_part
    return convert.semantic_tokens_data(semantic_tokens(ctx.view), ctx.codec, ctx.flags)


def empty(params: types.SemanticTokensParams) -> types.SemanticTokens:
    return types.SemanticTokens(data=[])


def handle(ctx: RequestContext, params: types.SemanticTokensParams) -> types.SemanticTokens:
    data = compute(ctx)
    return types.SemanticTokens(data=data, result_id=remember(ctx.uri, data))
