"""``workspace/executeCommand``: the node under the cursor, the workflow's graph,
running the workflow, and running a workflow test document.

The node commands take one argument ``{"uri": str, "position": {"line", "character"}}``
(the position in the negotiated encoding) and answer for the ``[[nodes]]``
entry holding that position, or null outside every node and for documents
that are not open:

- ``wfls.ownerStack`` → ``{"node", "owner_stack"}``;
- ``wfls.nodeContext`` → what ``wfls context FILE NODE --json`` prints.

``wfls.runWorkflow`` takes ``{"uri": str, "input": <JSON value>, "outcomes"?:
{node or node def: outcome}}`` and runs the open document's workflow on that
input with stand-in handlers, off the event loop; it answers what
:func:`wfls.features.run.run_document` returns, and hover shows what each node
saw until the next run or the document closes. The run waits for the workspace's
scan to finish, so its children are those ``wfls run`` would find. A document with
errors, or whose child workflow cannot be found or has errors, gets a
``RequestFailed`` reply saying why.

``wfls.graph`` takes ``{"uri": str}`` and answers what ``wfls graph FILE`` prints
(``wf_core.graph``): positions in it are 1-based lines and code-point columns, as on
the command line, whatever the negotiated encoding. The document may be open or only
in the workspace index; the graph waits for the workspace's scan, so its subgraph
calls name the documents ``wfls check --root`` would. A document the server does not
know gets null.

``wfls.test`` takes ``{"uri": str, "cases": [name, ...] | null}`` and answers what
``wfls test --format json`` prints for that one test document (``files`` of length 1,
its ``path`` the URI's path; ``cases`` null runs them all): an open document is run as
the editor has it, one that is not is read from disk. Its workflow is looked up in the
workspace the server knows, once the scan is done. A URI that is no test document
gets an ``InvalidParams`` error reply.

Malformed arguments get an ``InvalidParams`` error reply.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, TypeGuard

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from wfls.capabilities import GRAPH, NODE_CONTEXT, OWNER_STACK, RUN_WORKFLOW, TEST
from wfls.context import RequestFailed, Session

logger = logging.getLogger("wfls")


def _node_command(command: str) -> Callable[[Any, int], Any] | None:
    """The feature of a command of ``capabilities.COMMANDS`` but the run, which has its
    own path (None for any other command)."""
    from wfls.features import node_context

    commands: dict[str, Callable[[Any, int], Any]] = {
        OWNER_STACK: node_context.owner_stack_at,
        NODE_CONTEXT: node_context.node_context_at,
    }
    return commands.get(command)


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


def empty(params: types.ExecuteCommandParams) -> None:
    return None


def _run_arguments(arguments: Any) -> tuple[str, Any, dict[str, str]]:
    """The uri, input and chosen outcomes of ``[{"uri", "input", "outcomes"?}]``."""
    usage = 'expected one argument {"uri", "input", "outcomes"?}'
    if not isinstance(arguments, list) or len(arguments) != 1:
        raise JsonRpcInvalidParams(usage)
    [argument] = arguments
    if not isinstance(argument, dict) or not isinstance(argument.get("uri"), str):
        raise JsonRpcInvalidParams(usage)
    if "input" not in argument:
        raise JsonRpcInvalidParams("the run needs an input: a JSON value")
    outcomes = argument.get("outcomes", {})
    if not isinstance(outcomes, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in outcomes.items()
    ):
        raise JsonRpcInvalidParams("outcomes maps node ids or node def names to outcomes")
    return argument["uri"], argument["input"], outcomes


async def run_workflow(session: Session, arguments: Any) -> Any:
    from wfls.features.run import RunRefused, run_document

    uri, value, outcomes = _run_arguments(arguments)
    ctx = await session.contexts.request_context(uri)
    view = await session.analysed(uri) if ctx is not None else None
    if ctx is None or view is None:
        raise JsonRpcInvalidParams(f"{uri} is not an open workflow document")
    # Its children are found in the workspace: never in one not read to the end yet.
    await session.workspace_scanned()
    try:
        answer, last = await asyncio.to_thread(
            run_document, view, value, workspace=ctx.workspace, outcomes=outcomes
        )
    except RunRefused as refused:
        raise RequestFailed(str(refused)) from None
    except RecursionError:  # an input nested deeper than Python's stack
        raise RequestFailed("the input is nested too deeply to run") from None
    session.remember_run(uri, last)
    return answer


def _graph_argument(arguments: Any) -> str:
    """The uri of ``[{"uri"}]``, or InvalidParams."""
    argument = arguments[0] if isinstance(arguments, list) and len(arguments) == 1 else None
    uri = argument.get("uri") if isinstance(argument, dict) else None
    if not isinstance(uri, str):
        raise JsonRpcInvalidParams('expected one argument {"uri"}')
    return uri


async def graph(session: Session, arguments: Any) -> Any:
    uri = _graph_argument(arguments)
    from wf_core.graph import build_graph
    from wf_core.version.snapshot import DocumentSnapshot

    # Its subgraph calls name their children: never in a workspace not read to the end.
    await session.workspace_scanned()
    view = await session.analysed(uri) if uri in session.store else session.indexed(uri)
    if not isinstance(view, DocumentSnapshot):
        return None
    workspace = session.workflows
    # (off the event loop: a document only indexed is analysed now, and its findings made)
    return await asyncio.to_thread(lambda: build_graph(view, workspace).to_json())


def _test_arguments(arguments: Any) -> tuple[str, list[str] | None]:
    """The uri and case names of ``[{"uri", "cases"?}]``, or InvalidParams."""
    usage = 'expected one argument {"uri", "cases": [name, ...] | null}'
    argument = arguments[0] if isinstance(arguments, list) and len(arguments) == 1 else None
    if not isinstance(argument, dict) or not isinstance(argument.get("uri"), str):
        raise JsonRpcInvalidParams(usage)
    cases = argument.get("cases")
    if cases is not None and not (
        isinstance(cases, list) and all(isinstance(name, str) for name in cases)
    ):
        raise JsonRpcInvalidParams(usage)
    return argument["uri"], cases


async def run_tests(session: Session, arguments: Any) -> Any:
    from wf_core.workflow_tests import read_test_document, run_test_document, to_json
    from wf_core.workspace.files import path_of_uri, read_document

    uri, cases = _test_arguments(arguments)
    path = path_of_uri(uri)
    ctx = await session.test_documents.context(uri)
    if ctx is not None:
        loaded, workspace, base = ctx.view.loaded, ctx.view.workspace, ctx.view.base
    else:
        from wf_core.base.reading import decode, syntax_of
        from wf_core.workflow_tests import is_test_document

        data = read_document(path) if path is not None and is_test_document(path.name) else None
        if not isinstance(data, bytes):
            raise JsonRpcInvalidParams(f"{uri} is not a workflow test document")
        assert path is not None
        await session.workspace_scanned()
        loaded = read_test_document(decode(data)[0], syntax_of(path))
        from wf_core.workspace.catalog import Workspace

        workflows = session.workflows  # the server's index is a Workspace (a view to others)
        assert isinstance(workflows, Workspace)
        workspace, base = workflows, path.parent
    shown = str(path) if path is not None else uri
    selected = set(cases) if cases is not None else None
    result = await asyncio.to_thread(
        run_test_document, shown, loaded, workspace, base=base, cases=selected
    )
    return to_json([result])


async def handle(session: Session, params: types.ExecuteCommandParams) -> Any:
    if params.command == RUN_WORKFLOW:
        return await run_workflow(session, params.arguments)
    if params.command == GRAPH:
        return await graph(session, params.arguments)
    if params.command == TEST:
        return await run_tests(session, params.arguments)
    feature = _node_command(params.command)
    if feature is None:
        raise JsonRpcInvalidParams(f"unknown command {params.command!r}")
    uri, position = _target(params.arguments)
    ctx = await session.contexts.request_context(uri)
    if ctx is None:
        return None
    return feature(ctx.view, ctx.offset(position))
