"""One module per LSP method; each exposes ``handle(ls, params)``.

Handlers never let an analysis failure escape: ``guarded`` logs it to stderr
and answers with the method's empty result, so one bad document or feature
bug costs one empty answer, not the session.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from typing import Any, TypeVar

logger = logging.getLogger("wfls")

F = TypeVar("F", bound=Callable[..., Any])


def guarded(empty: Callable[[], Any] = lambda: None) -> Callable[[F], F]:
    """Catch and log any exception of the handler, returning ``empty()`` instead.

    The wrapper keeps the handler's signature (pygls looks for a first
    parameter named ``ls``) and its sync/async nature (pygls schedules the two
    differently).
    """

    def decorate(handler: F) -> F:
        name = handler.__module__.rsplit(".", 1)[-1]
        if inspect.iscoroutinefunction(handler):

            @functools.wraps(handler)
            async def run_async(ls: Any, params: Any) -> Any:
                try:
                    return await handler(ls, params)
                except Exception:
                    logger.exception("%s failed", name)
                    return empty()

            return run_async  # type: ignore[return-value]

        @functools.wraps(handler)
        def run(ls: Any, params: Any) -> Any:
            try:
                return handler(ls, params)
            except Exception:
                logger.exception("%s failed", name)
                return empty()

        return run  # type: ignore[return-value]

    return decorate


async def snapshot_at(ls: Any, uri: str, position: Any) -> tuple[Any, Any, int] | None:
    """A snapshot of the latest version of ``uri``, its position codec and the cursor offset.

    While the latest version's full analysis is pending, an edit confined to one
    string literal is answered from the previous analysis seen through that edit
    (``DocumentStore.editing_snapshot``); anything else waits for the analysis,
    which runs off the event loop. None for documents that are not open workflow
    documents. The offset is computed against the snapshot's own text.
    """
    snapshot = ls.store.editing_snapshot(uri)
    if snapshot is None:
        snapshot = await ls.analysed(uri)
    if snapshot is None:
        return None
    codec = ls.codec(snapshot)
    return snapshot, codec, codec.offset(position)
