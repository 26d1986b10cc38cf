"""``workspace/executeCommand``: the node under the cursor, for editor commands.

Both commands take one argument ``{"uri": str, "position": {"line", "character"}}``
(the position in the negotiated encoding) and answer for the ``[[nodes]]``
entry holding that position, or null outside every node and for documents
that are not open:

- ``wfls.ownerStack`` → ``{"node", "owner_stack"}``;
- ``wfls.nodeContext`` → what ``wfls context FILE NODE --json`` prints.

Malformed arguments get an ``InvalidParams`` error reply.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeGuard

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from wfls.context import Session
from wfls.features import node_context

logger = logging.getLogger("wfls")

COMMANDS: dict[str, Callable[[Any, int], Any]] = {
    "wfls.ownerStack": node_context.owner_stack_at,
    "wfls.nodeContext": node_context.node_context_at,
}


def _target(arguments: Any) -> tuple[str, types.Position]:
    """The uri and position of ``[{"uri", "position"}]``, or InvalidParams."""
    if not isinstance(arguments, list) or len(arguments) != 1:
        raise JsonRpcInvalidParams('expected one argument {"uri", "position"}')
    [argument] = arguments
    uri = argument.get("uri") if isinstance(argument, dict) else None
    position = argument.get("position") if isinstance(argument, dict) else None
    if not isinstance(uri, str) or not isinstance(position, dict):
        raise JsonRpcInvalidParams('expected one argument {"uri", "position"}')
    line, character = position.get("line"), position.get("character")
    if not (_natural(line) and _natural(character)):
        raise JsonRpcInvalidParams("position needs non-negative integer line and character")
    return uri, types.Position(line=line, character=character)


def _natural(value: Any) -> TypeGuard[int]:
    return type(value) is int and value >= 0


def empty() -> None:
    return None


async def handle(session: Session, params: types.ExecuteCommandParams) -> Any:
    feature = COMMANDS.get(params.command)
    if feature is None:
        raise JsonRpcInvalidParams(f"unknown command {params.command!r}")
    uri, position = _target(params.arguments)
    ctx = await session.request_context(uri, while_typing=True)
    if ctx is None:
        return None
    return feature(ctx.view, ctx.offset(position))
