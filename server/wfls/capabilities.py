"""What the client can do, resolved once at ``initialize`` into plain flags.

Handlers and converters read these flags instead of walking the optional
``ClientCapabilities`` tree each time, so a missing branch of the tree is
interpreted in exactly one place and consistently (absent means unsupported).
"""

from __future__ import annotations

from lsprotocol import types
from pygls.capabilities import ServerCapabilitiesBuilder

from wf_core.base.records import record

# The commands of ``workspace/executeCommand`` (``handlers.execute_command``), named here
# so that ``initialize`` can advertise them before any handler is imported.
OWNER_STACK = "wfls.ownerStack"
NODE_CONTEXT = "wfls.nodeContext"
RUN_WORKFLOW = "wfls.runWorkflow"
GRAPH = "wfls.graph"
TEST = "wfls.test"  # runs the cases of a workflow test document (the "Run case" code lens)
COMMANDS = (OWNER_STACK, NODE_CONTEXT, RUN_WORKFLOW, GRAPH, TEST)


@record
class ClientFlags:
    """Client support relevant to wfls. The defaults describe a minimal client."""

    position_encoding: str = types.PositionEncodingKind.Utf16.value
    # Pull and ``workspace/diagnostic/refresh`` both (the server then asks to pull again).
    pull_diagnostics: bool = False
    related_information: bool = False
    deprecated_tag: bool = False
    completion_markdown: bool = False
    completion_snippets: bool = False
    completion_insert_replace: bool = False
    completion_deprecated_tag: bool = False
    completion_deprecated_property: bool = False
    hover_markdown: bool = False
    configuration: bool = False
    document_changes: bool = False  # versioned edits (``documentChanges``) in workspace edits
    work_done_progress: bool = False  # server-initiated progress (indexing)
    watched_files: bool = False  # ``workspace/didChangeWatchedFiles`` registered dynamically
    code_action_literals: bool = False  # ``CodeAction`` literals, not only commands
    code_action_preferred: bool = False  # ``isPreferred``
    code_action_lazy_edit: bool = False  # ``codeAction/resolve`` fills in ``edit`` (and keeps data)
    multiline_tokens: bool = False  # semantic tokens may span lines
    hierarchical_symbols: bool = False  # ``DocumentSymbol`` trees, not flat ``SymbolInformation``
    line_folding_only: bool = False  # folding ranges without characters
    inlay_hint_refresh: bool = False  # ``workspace/inlayHint/refresh``


def _markup(formats: object) -> bool:
    return bool(formats) and types.MarkupKind.Markdown in formats  # type: ignore[operator]


def resolve(caps: types.ClientCapabilities) -> ClientFlags:
    """Resolve ``caps`` into flags.

    The position encoding is chosen by the same function pygls uses for its own
    text synchronisation, so edits and answers never disagree on columns.
    """
    document = caps.text_document
    workspace = caps.workspace
    pull = document.diagnostic if document else None
    push = document.publish_diagnostics if document else None
    completion_item = (
        document.completion.completion_item if document and document.completion else None
    )
    # LSP 3.17 clients (Neovim 0.11 among them) announce pull support but declare
    # relatedInformation and tags only under publishDiagnostics; the 3.18 fields under
    # textDocument.diagnostic take precedence when present.
    related = (pull.related_information if pull else None) or (
        push.related_information if push else None
    )
    tag_support = (pull.tag_support if pull else None) or (push.tag_support if push else None)
    item_tags = completion_item.tag_support if completion_item else None
    code_action = document.code_action if document else None
    resolvable = code_action.resolve_support if code_action else None
    refresh = bool(workspace and workspace.diagnostics and workspace.diagnostics.refresh_support)
    return ClientFlags(
        position_encoding=str(ServerCapabilitiesBuilder.choose_position_encoding(caps)),
        # Pull support is both halves of LSP's pull model: pulling, and being asked to pull
        # again (``workspace/diagnostic/refresh``). A document's cross-file findings change
        # when another document does (a child edited, changed on disk, indexed), and a
        # client that pulls only on its own edits (Neovim 0.11) would keep a caller's
        # stale ones until the caller is edited. Such a client is pushed to instead.
        pull_diagnostics=pull is not None and refresh,
        related_information=bool(related),
        deprecated_tag=bool(
            tag_support and types.DiagnosticTag.Deprecated in (tag_support.value_set or ())
        ),
        completion_markdown=bool(completion_item and _markup(completion_item.documentation_format)),
        completion_snippets=bool(completion_item and completion_item.snippet_support),
        completion_insert_replace=bool(completion_item and completion_item.insert_replace_support),
        completion_deprecated_tag=bool(
            item_tags and types.CompletionItemTag.Deprecated in (item_tags.value_set or ())
        ),
        completion_deprecated_property=bool(completion_item and completion_item.deprecated_support),
        hover_markdown=bool(document and document.hover and _markup(document.hover.content_format)),
        configuration=bool(workspace and workspace.configuration),
        work_done_progress=bool(caps.window and caps.window.work_done_progress),
        watched_files=bool(
            workspace
            and workspace.did_change_watched_files
            and workspace.did_change_watched_files.dynamic_registration
        ),
        document_changes=bool(
            workspace and workspace.workspace_edit and workspace.workspace_edit.document_changes
        ),
        code_action_literals=bool(code_action and code_action.code_action_literal_support),
        code_action_preferred=bool(code_action and code_action.is_preferred_support),
        code_action_lazy_edit=bool(
            code_action
            and code_action.data_support
            and resolvable
            and "edit" in (resolvable.properties or ())
        ),
        multiline_tokens=bool(
            document
            and document.semantic_tokens
            and document.semantic_tokens.multiline_token_support
        ),
        hierarchical_symbols=bool(
            document
            and document.document_symbol
            and document.document_symbol.hierarchical_document_symbol_support
        ),
        line_folding_only=bool(
            document and document.folding_range and document.folding_range.line_folding_only
        ),
        inlay_hint_refresh=bool(
            workspace and workspace.inlay_hint and workspace.inlay_hint.refresh_support
        ),
    )
