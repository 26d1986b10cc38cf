"""Every LSP method wfls handles, in one routing table (``routes``), and their registration.

A route says what its handler is given and how pygls runs it:

- :class:`DocumentRequest`: a request about one document, answered from a
  :class:`~wfls.context.RequestContext` of it, which the registered function builds
  first (waiting for the analysis it needs, off the event loop);
- :class:`SessionTask`: a coroutine given the :class:`~wfls.context.Session`, run by
  pygls as a task, so it may wait (for the client, the worker, the workspace scan)
  while later messages are handled;
- :class:`SessionEvent`: a function given the session, run at once and in the order the
  messages come (opening, editing and closing a document, ``shutdown``), so each sees
  what the one before it did.

Each route also says which clients it is for (``when``), its options (what the
server capabilities advertise), and for a request the answer when there is nothing to
say (``empty``: a failure costs one empty answer, not the session). The handler modules
are imported here; each imports what it computes with (the features, the analysis)
when first called, so the answer to ``initialize``, which registers the routes, needs
none of it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Generator
from functools import partial
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from wf_core.base.records import record
from wfls.capabilities import COMMANDS, ClientFlags
from wfls.context import (
    RequestContext,
    RequestFailed,
    Session,
    TestRequestContext,
    make_range_parts,
)
from wfls.features.types import Refusal
from wfls.handlers import (
    code_action,
    code_action_resolve,
    code_lens,
    completion,
    definition,
    diagnostic,
    did_change,
    did_change_configuration,
    did_change_watched_files,
    did_close,
    did_open,
    document_highlight,
    document_symbol,
    execute_command,
    folding_range,
    formatting,
    hover,
    initialized,
    inlay_hint,
    inline_value,
    prepare_rename,
    range_formatting,
    references,
    rename,
    selection_range,
    semantic_tokens_delta,
    semantic_tokens_full,
    semantic_tokens_range,
    shutdown,
    workspace_diagnostic,
    workspace_symbol,
)

if TYPE_CHECKING:
    from wfls.store import Depth, TextVersion

logger = logging.getLogger("wfls")

P = TypeVar("P")
R = TypeVar("R")

Registered = Callable[..., Any]
"""What a route registers with pygls: a function of the message's params alone. Its
session is the one it was registered for; pygls passes its server as a first argument
only to a function whose first parameter is named ``ls`` or annotated with the
server's class, which these are not."""


def always(flags: ClientFlags) -> bool:
    return True


def pulls(flags: ClientFlags) -> bool:
    return flags.pull_diagnostics


def takes_code_actions(flags: ClientFlags) -> bool:
    return flags.code_action_literals


def text_document_uri(params: Any) -> str | None:
    """The document most requests are about: the one ``params.text_document`` names."""
    uri: str = params.text_document.uri
    return uri


def _answered(method: str, started: float) -> None:
    """At ``--log-level debug``: which message was handled, and how long it took (from its
    handler's start, so a wait for the analysis counts, the queue before it does not)."""
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug("%s handled in %.1f ms", method, (time.perf_counter() - started) * 1e3)


def nothing(params: object) -> None:
    """The answer of a route with nothing to say (a notification has nobody to answer)."""
    return None


@record
class DocumentRequest(Generic[P, R]):
    """A request answered from the request context of the document it is about."""

    method: str
    handle: Callable[[RequestContext, P], R]
    empty: Callable[[P], R]
    options: object = None
    when: Callable[[ClientFlags], bool] = always
    # A request that reads the semantic index's parts of one place, or none (completion,
    # hover, symbols, folding): those are made on the spot, rather than wait for every
    # part, made off the loop (``request_context``).
    local: bool = False
    # A request about places (a cursor, a range) whose answer holds positions only: sent
    # before edits that the analysis answering it has seen, its positions are mapped
    # through them (``MappedCodec``); any other request gets ``ContentModified`` then.
    maps_positions: bool = False
    # How far the analysis it reads is made first (``DocumentStore.analyse``): every
    # finding for code actions, which fix them (placed: to resolve one); the parse alone
    # for folding and formatting, which read the text and its syntax; the model and
    # context model for any other.
    reads: Depth = "model"
    # What the answer reads of the semantic index beyond one place (the parts that may
    # hold a symbol, the parts of a range), made off the event loop before the handler
    # runs: only those parts, where a request that is not ``local`` waits for every one.
    make_parts: Callable[[RequestContext, P], object] | None = None
    # The handler runs on the analysis worker, in one job with the analysis it reads
    # (semantic tokens of the whole document, code actions): a version's findings, which
    # follow its model as a job of their own, neither come between the two nor share the
    # interpreter lock with the answer on the loop; what it reads of the semantic index
    # it makes itself, on the worker.
    on_worker: bool = False
    # Where the document's URI is (``codeAction/resolve`` keeps it in the action's data).
    uri_of: Callable[[P], str | None] = text_document_uri
    # The answer about a workflow test document (``wfls.test_documents``), which the
    # document store does not hold; None: such a document gets ``empty``.
    tests: Callable[[TestRequestContext, P], R] | None = None

    def _here(self, session: Session, uri: str, params: P, sent: TextVersion | None) -> R:
        """The answer of a route ``on_worker``, made on the worker: its analysis, its
        context and its answer in one job (``RequestContexts.context_here``)."""
        ctx = session.contexts.context_here(
            uri,
            sent=sent,
            maps_positions=self.maps_positions,
            depth=self.reads,
        )
        if ctx is None:
            return self.empty(params)
        if self.make_parts is not None:
            self.make_parts(ctx, params)
        return self.handle(ctx, params)

    def registered(self, session: Session) -> Registered:
        """Builds the context, then runs the handler. A refusal becomes a
        ``RequestFailed`` reply the client shows; protocol errors pass through; any other
        failure is logged and answered ``empty``.

        The text the request is about is read as the message is dispatched, before any
        later message is handled: pygls runs the first part of a generator handler at
        once, and the coroutine it yields as a task (which may start after edits that
        followed the request). The answer is of that text (``request_context``'s
        ``sent``)."""

        async def answer(params: P, sent: TextVersion | None) -> R:
            started = time.perf_counter()
            try:
                uri = self.uri_of(params)
                if not uri:
                    return self.empty(params)
                if uri not in session.store:
                    test = await session.test_documents.context(uri)
                    if test is not None:
                        return self.tests(test, params) if self.tests else self.empty(params)
                if self.on_worker:
                    return await session.off_loop(partial(self._here, session, uri, params, sent))
                ctx = await session.contexts.request_context(
                    uri,
                    local=self.local or self.make_parts is not None,
                    sent=sent,
                    maps_positions=self.maps_positions,
                    depth=self.reads,
                )
                if ctx is None:
                    return self.empty(params)
                if self.make_parts is not None:
                    await session.off_loop(partial(self.make_parts, ctx, params))
                return self.handle(ctx, params)
            except Refusal as refusal:
                raise RequestFailed(str(refusal)) from None
            except JsonRpcException:
                raise
            except Exception:
                logger.exception("%s failed", self.method)
                return self.empty(params)
            finally:
                _answered(self.method, started)

        def dispatched(params: P) -> Generator[Any, Any, R]:
            try:
                uri = self.uri_of(params)
            except Exception:
                uri = None  # ``answer`` says what is wrong with the params
            sent = session.store.text_version(uri) if uri else None
            result: R = yield answer, (params, sent), {}
            return result

        return dispatched


@record
class SessionTask(Generic[P, R]):
    """A coroutine given the session: pygls runs it as a task."""

    method: str
    handle: Callable[[Session, P], Awaitable[R]]
    empty: Callable[[P], R]
    options: object = None
    when: Callable[[ClientFlags], bool] = always

    def registered(self, session: Session) -> Registered:
        """Any failure but a protocol error (the answer) is logged and answered
        ``empty``, never raised into pygls."""

        async def run(params: P) -> R:
            started = time.perf_counter()
            try:
                return await self.handle(session, params)
            except JsonRpcException:
                raise
            except Exception:
                logger.exception("%s failed", self.method)
                return self.empty(params)
            finally:
                _answered(self.method, started)

        return run


@record
class SessionEvent(Generic[P]):
    """A function given the session: pygls runs it at once, as its message comes."""

    method: str
    handle: Callable[[Session, P], None]
    options: object = None
    when: Callable[[ClientFlags], bool] = always

    def registered(self, session: Session) -> Registered:
        """Any failure but a protocol error is logged, never raised into pygls (a
        notification has nobody to answer)."""

        def run(params: P) -> None:
            try:
                self.handle(session, params)
            except JsonRpcException:
                raise
            except Exception:
                logger.exception("%s failed", self.method)

        return run


Route = DocumentRequest[Any, Any] | SessionTask[Any, Any] | SessionEvent[Any]


def routes() -> list[Route]:
    """Every LSP method wfls handles (but ``initialize``, which registers these)."""
    from wfls.features.legend import TOKEN_MODIFIERS, TOKEN_TYPES
    from wfls.features.types import MIGRATE_CONVENIENCE_KEYS

    diagnostic_options = types.DiagnosticOptions(
        identifier="wfls", inter_file_dependencies=False, workspace_diagnostics=True
    )
    legend = types.SemanticTokensLegend(
        token_types=list(TOKEN_TYPES), token_modifiers=list(TOKEN_MODIFIERS)
    )
    code_actions = types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, MIGRATE_CONVENIENCE_KEYS],
        resolve_provider=True,
    )
    return [
        SessionTask(types.INITIALIZED, initialized.handle, nothing),
        SessionEvent(types.SHUTDOWN, shutdown.handle),
        SessionTask(
            types.WORKSPACE_DID_CHANGE_CONFIGURATION, did_change_configuration.handle, nothing
        ),
        SessionEvent(types.TEXT_DOCUMENT_DID_OPEN, did_open.handle),
        SessionEvent(types.TEXT_DOCUMENT_DID_CHANGE, did_change.handle),
        SessionEvent(types.TEXT_DOCUMENT_DID_CLOSE, did_close.handle),
        SessionTask(
            types.WORKSPACE_DID_CHANGE_WATCHED_FILES, did_change_watched_files.handle, nothing
        ),
        SessionTask(
            types.TEXT_DOCUMENT_DIAGNOSTIC,
            diagnostic.handle,
            diagnostic.empty,
            diagnostic_options,
            when=pulls,
        ),
        SessionTask(
            types.WORKSPACE_DIAGNOSTIC,
            workspace_diagnostic.handle,
            workspace_diagnostic.empty,
            when=pulls,
        ),
        DocumentRequest(
            types.TEXT_DOCUMENT_COMPLETION,
            completion.handle,
            completion.empty,
            types.CompletionOptions(trigger_characters=[".", '"', "'"]),
            local=True,
            maps_positions=True,
            tests=completion.handle_test,
        ),
        DocumentRequest(
            types.TEXT_DOCUMENT_HOVER,
            hover.handle,
            hover.empty,
            local=True,
            maps_positions=True,
            tests=hover.handle_test,
        ),
        DocumentRequest(
            types.TEXT_DOCUMENT_DEFINITION,
            definition.handle,
            definition.empty,
            maps_positions=True,
            make_parts=references.make_parts,
            tests=definition.handle_test,
        ),
        SessionTask(
            types.TEXT_DOCUMENT_CODE_LENS,
            code_lens.handle,
            code_lens.empty,
            types.CodeLensOptions(),
        ),
        DocumentRequest(
            types.TEXT_DOCUMENT_REFERENCES,
            references.handle,
            references.empty,
            maps_positions=True,
            make_parts=references.make_parts,
        ),
        DocumentRequest(
            types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT,
            document_highlight.handle,
            document_highlight.empty,
            maps_positions=True,
            make_parts=references.make_parts,
        ),
        DocumentRequest(
            types.TEXT_DOCUMENT_PREPARE_RENAME,
            prepare_rename.handle,
            prepare_rename.empty,
            local=True,
            maps_positions=True,
        ),
        DocumentRequest(
            types.TEXT_DOCUMENT_RENAME,
            rename.handle,
            rename.empty,
            types.RenameOptions(prepare_provider=True),
            make_parts=references.make_parts,
        ),
        # The view is always a full snapshot, which has the issues the actions fix: every
        # one made, those in the range placed by the handler (``issues_touching``). What
        # the fixes read of the semantic index lies in the range (an alias renamed with
        # its reads, for a client that does not resolve it lazily, finds those on demand).
        DocumentRequest(
            types.TEXT_DOCUMENT_CODE_ACTION,
            code_action.handle,
            code_action.empty,
            code_actions,
            when=takes_code_actions,
            reads="report",
            on_worker=True,
        ),
        DocumentRequest(
            types.CODE_ACTION_RESOLVE,
            code_action_resolve.handle,
            code_action_resolve.empty,
            when=takes_code_actions,
            uri_of=code_action_resolve.uri_of,
            reads="findings",
        ),
        DocumentRequest(
            types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL,
            semantic_tokens_full.handle,
            semantic_tokens_full.empty,
            legend,
            on_worker=True,
        ),
        DocumentRequest(
            types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA,
            semantic_tokens_delta.handle,
            semantic_tokens_delta.empty,
            legend,
            on_worker=True,
        ),
        DocumentRequest(
            types.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE,
            semantic_tokens_range.handle,
            semantic_tokens_range.empty,
            legend,
            local=True,
        ),
        DocumentRequest(
            types.TEXT_DOCUMENT_INLAY_HINT,
            inlay_hint.handle,
            inlay_hint.empty,
            types.InlayHintOptions(),
            maps_positions=True,
            make_parts=make_range_parts,
        ),
        DocumentRequest(
            types.TEXT_DOCUMENT_INLINE_VALUE,
            inline_value.handle,
            inline_value.empty,
            types.InlineValueOptions(),
            local=True,
            maps_positions=True,
        ),
        DocumentRequest(
            types.TEXT_DOCUMENT_DOCUMENT_SYMBOL,
            document_symbol.handle,
            document_symbol.empty,
            local=True,
            tests=document_symbol.handle_test,
        ),
        SessionTask(types.WORKSPACE_SYMBOL, workspace_symbol.handle, workspace_symbol.empty),
        DocumentRequest(
            types.TEXT_DOCUMENT_FOLDING_RANGE,
            folding_range.handle,
            folding_range.empty,
            local=True,
            reads="parse",
        ),
        DocumentRequest(
            types.TEXT_DOCUMENT_SELECTION_RANGE,
            selection_range.handle,
            selection_range.empty,
            local=True,
            maps_positions=True,
        ),
        DocumentRequest(
            types.TEXT_DOCUMENT_FORMATTING,
            formatting.handle,
            formatting.empty,
            local=True,
            reads="parse",
        ),
        DocumentRequest(
            types.TEXT_DOCUMENT_RANGE_FORMATTING,
            range_formatting.handle,
            range_formatting.empty,
            local=True,
            reads="parse",
        ),
        SessionTask(
            types.WORKSPACE_EXECUTE_COMMAND,
            execute_command.handle,
            execute_command.empty,
            types.ExecuteCommandOptions(commands=list(COMMANDS)),
        ),
    ]


def register_routes(server: LanguageServer, session: Session) -> None:
    """The one place where wfls registers LSP methods with pygls (called from
    ``initialize``, once the client's flags are known): each route for this client, its
    function given ``session``."""
    for route in routes():
        if not route.when(session.flags):
            continue
        registered = route.registered(session)
        if isinstance(route.options, types.ExecuteCommandOptions):
            _register_commands(server, route.options, registered)
        elif route.options is None:
            server.feature(route.method)(registered)
        else:
            server.feature(route.method, route.options)(registered)


def _register_commands(
    server: LanguageServer, options: types.ExecuteCommandOptions, registered: Registered
) -> None:
    """pygls answers ``workspace/executeCommand`` itself, dispatching on the command
    name to what ``server.command`` registered (and advertising those names): each
    command of the options is registered there, all served by the one function."""

    def command(name: str) -> Registered:
        async def run(*arguments: Any) -> Any:
            params = types.ExecuteCommandParams(command=name, arguments=list(arguments))
            return await registered(params)

        return run

    for name in options.commands:
        server.command(name)(command(name))
