"""``textDocument/semanticTokens/full``: every token, remembered for ``/full/delta``.

The last result of each document is kept (its id, its data, where each of its tokens
begins, and the revision and index it was made from), so that the next request can be
answered with the edits from it, made from what changed alone (``moved``). Result ids
are unique in the process, so an id from another session or an older result simply
gets a full answer. Only the most recent documents are remembered. Both requests are
answered on the analysis worker (the route's ``on_worker``), one at a time: so are these
results read and kept.
"""

from __future__ import annotations

import bisect
import itertools
from collections import OrderedDict

from lsprotocol import types

from wf_core.base.records import record
from wf_core.base.spans import Span
from wfls import convert
from wfls.context import RequestContext
from wfls.features.semantic_tokens import ElementKeys
from wfls.features.types import SemanticToken

REMEMBERED = 64


@record
class TokensResult:
    """One answer's tokens: ``data`` as sent, ``starts`` the code-point offset where each
    of its tokens begins; ``revision``, ``dependencies``, ``keys`` and ``document`` what it
    was made from (the store's revision, ``SnapshotParts.dependencies``, ``element_keys``,
    ``document_tokens``)."""

    data: list[int]
    starts: list[int]
    revision: int | None
    dependencies: object
    keys: ElementKeys
    document: list[SemanticToken]


_ids = itertools.count(1)
_results: OrderedDict[str, tuple[str, TokensResult]] = OrderedDict()


def remember(uri: str, result: TokensResult) -> str:
    result_id = str(next(_ids))
    _results[uri] = (result_id, result)
    _results.move_to_end(uri)
    while len(_results) > REMEMBERED:
        _results.popitem(last=False)
    return result_id


def previous(uri: str, result_id: str) -> TokensResult | None:
    """``uri``'s last result when its id is ``result_id``."""
    found = _results.get(uri)
    return found[1] if found is not None and found[0] == result_id else None


def compute(ctx: RequestContext) -> TokensResult:
    """Every token, encoded part by part (each part once for every version it serves),
    or at once where parts overlap."""
    from wfls.features.semantic_tokens import semantic_tokens, token_runs

    starts: list[int] = []
    data = convert.semantic_token_runs_data(token_runs(ctx.view), ctx.codec, ctx.flags, starts)
    if data is None:
        starts = []
        data = convert.semantic_tokens_data(semantic_tokens(ctx.view), ctx.codec, ctx.flags, starts)
    return _result(ctx, data, starts)


def _result(ctx: RequestContext, data: list[int], starts: list[int]) -> TokensResult:
    from wfls.features.semantic_tokens import document_tokens, element_keys

    view = ctx.view
    dependencies = view.index.parts.dependencies
    keys, document = element_keys(view), document_tokens(view)
    return TokensResult(data, starts, ctx.revision, dependencies, keys, document)


def moved(
    ctx: RequestContext, before: TokensResult
) -> tuple[TokensResult, types.SemanticTokensEdit] | None:
    """The tokens of ``ctx``'s version made from ``before`` and the edit between them,
    encoding only those where the text changed since (``changed_span``); None when that
    cannot be told (another index, or a change no longer known)."""
    from wfls.features.semantic_tokens import (
        changed_span,
        document_tokens,
        element_keys,
        semantic_tokens,
    )

    view = ctx.view
    dependencies = view.index.parts.dependencies
    if ctx.revision is None or before.revision is None or before.dependencies is not dependencies:
        return None
    region = ctx.documents.region_between(ctx.uri, before.revision, ctx.revision)
    if region is None or isinstance(ctx.codec, convert.MappedCodec):
        return None
    keys, document = element_keys(view), document_tokens(view)
    span = changed_span(view, region, (before.keys, keys), (before.document, document))
    if span is None:
        return None
    lo, hi = span.start, span.end
    tokens = [t for t in semantic_tokens(view, Span(lo, hi)) if lo <= t.span.start < hi]
    cut_starts: list[int] = []
    cut = convert.semantic_tokens_data(tokens, ctx.codec, ctx.flags, cut_starts)
    first = bisect.bisect_left(before.starts, lo)
    stop = bisect.bisect_left(before.starts, hi - region.delta)
    data, starts, edit = convert.semantic_tokens_spliced(
        before.data, before.starts, first, stop, cut, cut_starts, region.delta, ctx.codec
    )
    return TokensResult(data, starts, ctx.revision, dependencies, keys, document), edit


def empty(params: types.SemanticTokensParams) -> types.SemanticTokens:
    return types.SemanticTokens(data=[])


def handle(ctx: RequestContext, params: types.SemanticTokensParams) -> types.SemanticTokens:
    result = compute(ctx)
    return types.SemanticTokens(data=result.data, result_id=remember(ctx.uri, result))
