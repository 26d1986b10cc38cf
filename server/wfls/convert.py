"""Every conversion between wf_core data and lsprotocol types.

wf_core speaks code-point offsets (``Span``); the client speaks lines and
columns in the negotiated position encoding. This module is the only place
that crosses that boundary, so an encoding bug has one place to live.

Invariant: columns are converted from the text of the line they are on; a
column past the end of a line is clamped to the line end, a line past the end
of the document to the document end.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import repeat
from operator import add
from typing import TYPE_CHECKING, NamedTuple

from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified
from pygls.protocol import default_converter

from wf_core.base.edits import Edit, EditAt, Region, edit_between
from wf_core.base.issues import ProjectCode, Severity
from wf_core.base.spans import LineIndex, Span
from wfls.capabilities import ClientFlags
from wfls.features.types import SemanticToken
from wfls.settings import Settings

if TYPE_CHECKING:
    from cattrs import Converter

    from wf_core.version.snapshot import PlacedIssue
    from wfls.features.types import (
        CodeAction,
        CompletionCandidate,
        DocumentEdit,
        Fold,
        HoverResult,
        InlayHintItem,
        OutlineSymbol,
        TextEdit,
        TokenRun,
    )

SOURCE = "wfls"

_UTF8 = types.PositionEncodingKind.Utf8.value
_UTF32 = types.PositionEncodingKind.Utf32.value

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFORMATION: types.DiagnosticSeverity.Information,
    Severity.HINT: types.DiagnosticSeverity.Hint,
}

_COMPLETION_KIND = {
    "field": types.CompletionItemKind.Field,
    "property": types.CompletionItemKind.Property,
    "module": types.CompletionItemKind.Module,
    "keyword": types.CompletionItemKind.Keyword,
    "value": types.CompletionItemKind.Value,
    "enum": types.CompletionItemKind.EnumMember,
    "reference": types.CompletionItemKind.Reference,
    "variable": types.CompletionItemKind.Variable,
}


def _units(text: str, encoding: str) -> int:
    """Length of ``text`` in code units of ``encoding``."""
    if encoding == _UTF32 or text.isascii():
        return len(text)
    if encoding == _UTF8:
        return len(text.encode("utf-8", errors="surrogatepass"))
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def _char_units(char: str, encoding: str) -> int:
    if encoding == _UTF32:
        return 1
    if encoding == _UTF8:
        return len(char.encode("utf-8", errors="surrogatepass"))
    return 2 if ord(char) > 0xFFFF else 1


class PositionCodec:
    """Offsets of one text ↔ LSP positions in one encoding."""

    __slots__ = ("encoding", "lines")

    def __init__(self, lines: LineIndex, encoding: str) -> None:
        self.lines = lines
        self.encoding = encoding

    def units(self, offset: int) -> tuple[int, int]:
        """The line of ``offset`` and its column in the encoding's units."""
        lines = self.lines
        line, column = lines.position(offset)
        if column and not lines.is_ascii:
            column = _units(lines.line_text(line)[:column], self.encoding)
        return line, column

    def position(self, offset: int) -> types.Position:
        line, column = self.units(offset)
        return types.Position(line=line, character=column)

    def range(self, span: Span) -> types.Range:
        return types.Range(start=self.position(span.start), end=self.position(span.end))

    def offset(self, position: types.Position) -> int:
        """The code-point offset of ``position``; a unit inside a character rounds down."""
        line = position.line
        if line >= self.lines.line_count:
            return self.lines.offset(line, 0)
        text = self.lines.line_text(line)
        target = position.character
        if self.encoding == _UTF32 or text.isascii():
            column = min(target, len(text))
        else:
            column, used = 0, 0
            for char in text:
                used += _char_units(char, self.encoding)
                if used > target:
                    break
                column += 1
        return self.lines.line_start(line) + column


class ContentModified(JsonRpcContentModified):
    """LSP's ``ContentModified``: the document changed after the request was sent, where
    the request's answer would be read (see :class:`MappedCodec`)."""

    MESSAGE = "the document changed since the request was sent"


class MappedCodec(PositionCodec):
    """Positions of the text a request was sent for ↔ offsets of a later text, which a
    change inside ``region`` made of it: the request is answered from the later text's
    analysis, in the positions of the text it was sent for. A position inside what
    changed (or an offset inside what the change wrote) has no counterpart, and the
    request gets ``ContentModified``: never the answer about another place."""

    __slots__ = ("_region", "_sent")

    def __init__(self, sent: LineIndex, lines: LineIndex, region: Region, encoding: str) -> None:
        super().__init__(lines, encoding)
        self._sent = PositionCodec(sent, encoding)
        self._region = region

    def units(self, offset: int) -> tuple[int, int]:
        region = self._region
        if offset >= region.new_end:
            offset -= region.delta
        elif offset >= region.start:
            raise ContentModified()
        return self._sent.units(offset)

    def offset(self, position: types.Position) -> int:
        region = self._region
        sent = self._sent.offset(position)
        if sent < region.start:
            return sent
        if sent >= region.old_end and not (sent == region.start == region.old_end):
            return sent + region.delta
        raise ContentModified()


def edit_at(change: types.TextDocumentContentChangeEvent, encoding: str) -> EditAt:
    """A ``didChange`` content change as an edit, to be read with the line index of the
    text it applies to (the one the changes before it in the notification made).

    Positions are read as ``PositionCodec.offset`` reads a request's: past the end of
    a line is its end, past the last line the end of the document, a unit inside a
    character its start; a range given backwards is taken forwards. The same rules
    for edits and requests keep the server's text and the positions it answers in
    agreement with each other (pygls' own application disagrees at those edges).
    A change of the whole text becomes the edit of the one region that differs
    (``edit_between``).
    """
    if not isinstance(change, types.TextDocumentContentChangePartial):
        whole = change.text
        return lambda lines: edit_between(lines.text, whole)
    partial = change

    def read(lines: LineIndex) -> Edit:
        codec = PositionCodec(lines, encoding)
        start, end = codec.offset(partial.range.start), codec.offset(partial.range.end)
        if end < start:
            start, end = end, start
        return Edit(start, end, partial.text)

    return read


# -- diagnostics -----------------------------------------------------------------------


CodecFor = Callable[[str], "PositionCodec | None"]
"""The codec of another document, for related places in it (None: it is not known)."""


def diagnostic(
    issue: PlacedIssue,
    codec: PositionCodec,
    uri: str,
    flags: ClientFlags,
    settings: Settings,
    codec_for: CodecFor | None = None,
) -> types.Diagnostic | None:
    """The diagnostic for one issue, or None when the settings hide it.

    The message carries the issue's help ("did you mean ...?", how to pass a value
    into a subgraph) on a line of its own: editors show the message, nothing else.
    """
    severity = settings.severity_of(issue.code, issue.severity)
    if severity is None:
        return None
    related = None
    if flags.related_information:
        related = []
        for r in issue.related:
            if r.span is None:
                continue
            there = uri if r.uri is None else r.uri
            other = codec if there == uri else (codec_for(there) if codec_for else None)
            if other is not None:
                related.append(
                    types.DiagnosticRelatedInformation(
                        location=types.Location(uri=there, range=other.range(r.span)),
                        message=r.message,
                    )
                )
    tags = None
    if flags.deprecated_tag and issue.code == ProjectCode.DEPRECATED_CONTEXT_KEY:
        tags = [types.DiagnosticTag.Deprecated]
    message = issue.message if issue.help is None else f"{issue.message}\n{issue.help}"
    return types.Diagnostic(
        range=codec.range(issue.span),
        message=message,
        severity=_SEVERITY[severity],
        code=str(issue.code),
        source=SOURCE,
        related_information=related or None,
        tags=tags,
    )


# -- feature results -------------------------------------------------------------------


def _markup(markdown: str, use_markdown: bool) -> types.MarkupContent:
    kind = types.MarkupKind.Markdown if use_markdown else types.MarkupKind.PlainText
    return types.MarkupContent(kind=kind, value=markdown)


def completion_item(
    candidate: CompletionCandidate,
    codec: PositionCodec,
    cursor: int,
    flags: ClientFlags,
) -> types.CompletionItem:
    """One completion item whose edit replaces ``candidate.replace``.

    With insert/replace support the insert range ends at the cursor, so that
    accepting in "insert" mode keeps the text after the cursor; the spec
    requires the insert range to be a prefix of the replace range, hence the
    clamping.
    """
    replace = candidate.replace
    edit: types.TextEdit | types.InsertReplaceEdit
    if flags.completion_insert_replace and replace.start <= cursor < replace.end:
        edit = types.InsertReplaceEdit(
            new_text=candidate.insert_text,
            insert=codec.range(Span(replace.start, cursor)),
            replace=codec.range(replace),
        )
    else:
        edit = types.TextEdit(range=codec.range(replace), new_text=candidate.insert_text)
    tags = None
    deprecated = None
    if candidate.deprecated:
        if flags.completion_deprecated_tag:
            tags = [types.CompletionItemTag.Deprecated]
        elif flags.completion_deprecated_property:
            deprecated = True
    documentation = None
    if candidate.documentation:
        documentation = _markup(candidate.documentation, flags.completion_markdown)
    return types.CompletionItem(
        label=candidate.label,
        kind=_COMPLETION_KIND.get(candidate.kind, types.CompletionItemKind.Text),
        detail=candidate.detail,
        documentation=documentation,
        sort_text=candidate.sort_text,
        filter_text=candidate.filter_text,
        text_edit=edit,
        insert_text_format=types.InsertTextFormat.PlainText,
        tags=tags,
        deprecated=deprecated,
    )


def completion_list(
    candidates: Iterable[CompletionCandidate],
    codec: PositionCodec,
    cursor: int,
    flags: ClientFlags,
) -> types.CompletionList:
    return types.CompletionList(
        is_incomplete=False,
        items=[completion_item(c, codec, cursor, flags) for c in candidates],
    )


def hover(result: HoverResult, codec: PositionCodec, flags: ClientFlags) -> types.Hover:
    return types.Hover(
        contents=_markup(result.markdown, flags.hover_markdown),
        range=codec.range(result.span),
    )


def location(uri: str, span: Span, codec: PositionCodec) -> types.Location:
    return types.Location(uri=uri, range=codec.range(span))


def text_edit(edit: TextEdit, codec: PositionCodec) -> types.TextEdit:
    return types.TextEdit(range=codec.range(edit.span), new_text=edit.new_text)


def workspace_edit(
    uri: str,
    version: int | None,
    edits: Iterable[TextEdit],
    codec: PositionCodec,
    flags: ClientFlags,
) -> types.WorkspaceEdit:
    """Edits of one document: versioned (``documentChanges``) when the client can take them,
    so an edit computed for an older version is never applied to a newer one."""
    from wfls.features.types import DocumentEdit

    return workspace_edits(
        [DocumentEdit(None, version, tuple(edits))], uri, codec, lambda _: None, flags
    )


def workspace_edits(
    documents: Iterable[DocumentEdit],
    uri: str,
    codec: PositionCodec,
    codec_for: CodecFor,
    flags: ClientFlags,
) -> types.WorkspaceEdit:
    """Edits of several documents as one workspace edit (versioned where the client can
    take it; a document the editor has not open is edited at ``version`` None)."""
    changes: dict[str, list[types.TextEdit]] = {}
    versioned: list[
        types.TextDocumentEdit | types.CreateFile | types.RenameFile | types.DeleteFile
    ] = []
    for document in documents:
        target = document.uri or uri
        target_codec = codec if document.uri is None else codec_for(target)
        if target_codec is None:
            continue
        edits = [text_edit(e, target_codec) for e in document.edits]
        if flags.document_changes:
            identifier = types.OptionalVersionedTextDocumentIdentifier(
                uri=target, version=document.version
            )
            versioned.append(types.TextDocumentEdit(text_document=identifier, edits=list(edits)))
        else:
            changes[target] = edits
    if flags.document_changes:
        return types.WorkspaceEdit(document_changes=versioned)
    return types.WorkspaceEdit(changes=changes)


def code_action(
    action: CodeAction,
    uri: str,
    version: int | None,
    codec: PositionCodec,
    flags: ClientFlags,
    settings: Settings,
) -> types.CodeAction:
    """A code action with the diagnostics it fixes; without ``edit`` when it is resolved
    later, its ``data`` then naming the document and what to compute."""
    diagnostics = [diagnostic(issue, codec, uri, flags, settings) for issue in action.issues]
    edit = None
    if action.edits is not None:
        edit = workspace_edit(uri, version, action.edits, codec, flags)
    return types.CodeAction(
        title=action.title,
        kind=action.kind,
        diagnostics=[d for d in diagnostics if d is not None] or None,
        is_preferred=True if action.preferred and flags.code_action_preferred else None,
        edit=edit,
        data={**action.data, "uri": uri} if action.data is not None else None,
    )


# -- semantic tokens, inlay hints, symbols, folding, selection ----------------------------


def semantic_tokens_data(
    tokens: Iterable[SemanticToken],
    codec: PositionCodec,
    flags: ClientFlags,
    starts: list[int] | None = None,
) -> list[int]:
    """Tokens in LSP's relative encoding, columns and lengths in the codec's encoding;
    ``starts``, when given, gets the code-point offset where each encoded token (each
    piece of a cut one) begins.

    Tokens come in document order (the feature's invariant), so lines are walked
    forward once instead of searched per token. A token that spans lines is sent
    whole to a client with ``multilineTokenSupport`` and cut at each line end for
    the others (empty pieces are left out).
    """
    from wfls.features.legend import TOKEN_MODIFIERS, TOKEN_TYPES

    type_index = {name: i for i, name in enumerate(TOKEN_TYPES)}
    modifier_bit = {name: 1 << i for i, name in enumerate(TOKEN_MODIFIERS)}
    codes: dict[tuple[str, tuple[str, ...]], tuple[int, int]] = {}
    lines = codec.lines
    encoding = codec.encoding
    text_of = lines.line_text
    line_start = lines.line_start
    last_line = lines.line_count - 1
    data: list[int] = []
    out = data.extend
    previous_line = previous_start = 0
    line, start_of_line = 0, 0
    next_start = line_start(1) if last_line >= 1 else 1 << 62
    line_text, ascii_line = text_of(0), text_of(0).isascii()
    for token in tokens:
        code = codes.get((token.type, token.modifiers))
        if code is None:
            bits = 0
            for modifier in token.modifiers:
                bits |= modifier_bit[modifier]
            code = codes[(token.type, token.modifiers)] = (type_index[token.type], bits)
        begin, end = token.span.start, token.span.end
        if begin >= next_start or begin < start_of_line:
            if begin < start_of_line or begin - next_start > 512:
                line = lines.line_of(begin)  # out of order, or far on: found by bisection
            while line < last_line and line_start(line + 1) <= begin:
                line += 1
            start_of_line = line_start(line)
            next_start = line_start(line + 1) if line < last_line else 1 << 62
            line_text = text_of(line)
            ascii_line = line_text.isascii()
        first = begin - start_of_line
        if end <= start_of_line + len(line_text):  # on one line: nearly every token
            if end <= begin:
                continue
            if ascii_line:
                column, length = first, end - begin
            else:
                column = _units(line_text[:first], encoding)
                length = _units(line_text[first : end - start_of_line], encoding)
            delta_line = line - previous_line
            out((delta_line, column - previous_start if delta_line == 0 else column, length, *code))
            previous_line, previous_start = line, column
            if starts is not None:
                starts.append(begin)
            continue
        end_line, end_column = lines.position(end)
        pieces: list[tuple[int, int, int]]
        if flags.multiline_tokens:
            pieces = [(line, first, -1)]
        else:
            pieces = [(line, first, len(line_text))]
            pieces += [(n, 0, len(text_of(n))) for n in range(line + 1, end_line)]
            pieces.append((end_line, 0, end_column))
        for at, low, high in pieces:
            text = text_of(at)
            if high == -1:  # one token over several lines
                column = _units(text[:low], encoding)
                length = _span_units(lines, token.span, encoding)
            elif high <= low:
                continue
            else:
                column = _units(text[:low], encoding)
                length = _units(text[low:high], encoding)
            delta_line = at - previous_line
            out((delta_line, column - previous_start if delta_line == 0 else column, length, *code))
            previous_line, previous_start = at, column
            if starts is not None:
                starts.append(line_start(at) + low)
    return data


def semantic_token_runs_data(
    runs: Sequence[TokenRun],
    codec: PositionCodec,
    flags: ClientFlags,
    starts: list[int] | None = None,
) -> list[int] | None:
    """``semantic_tokens_data`` of the tokens of ``runs`` (``token_runs``), each part's
    encoded once for as long as the part serves (kept in its ``memo``): a version after an
    edit encodes the parts it made again, and only places the others. None when two runs'
    extents overlap (then the tokens are encoded for the whole document at once)."""
    lines = codec.lines
    data: list[int] = []
    found: list[int] = []
    line = column = 0
    end = -1
    for run in runs:
        start = run.base + run.extent.start
        if start < end:
            return None
        end = run.base + run.extent.end
        placed = _encoded_run(run, lines, codec.encoding, flags)
        if placed is None:
            continue
        encoded, first_line = placed
        at = len(data)
        data.extend(encoded.data)
        found.extend(map(add, encoded.starts, repeat(run.base)))
        _relative(data, at, (first_line, data[at + 1]), (line, column))
        line, column = first_line + encoded.last_line, encoded.last_column
    if starts is not None:
        starts.extend(found)
    return data


class _EncodedRun(NamedTuple):
    """A run's tokens encoded from the start of the line of its first token: ``data``
    begins at that line and column; ``first``: where that token begins, relative to the
    run's base; ``last_line`` (counted from the first token's) and ``last_column``: where
    its last piece begins. ``key``: what else than the part it was encoded from.
    ``starts``: where each encoded token begins, relative to the run's base."""

    key: tuple[object, ...]
    data: list[int]
    first: int
    last_line: int
    last_column: int
    starts: list[int]


_NO_TOKENS = _EncodedRun((), [], 0, 0, 0, [])


def _encoded_run(
    run: TokenRun, lines: LineIndex, encoding: str, flags: ClientFlags
) -> tuple[_EncodedRun, int] | None:
    """The encoding of ``run``'s tokens and the line of its first token; the encoding from
    its part's memo when it was made under the same key: the encoding, how multi-line
    tokens are sent, and the text between the start of the first token's line and the
    base (a column there counts it, and it lies outside the part; a part's own text is
    the same for as long as the part serves)."""
    text, base, part = lines.text, run.base, run.part
    known = part.memo.get("tokens") if part is not None else None
    if known is _NO_TOKENS:
        return None
    if isinstance(known, _EncodedRun):
        first_line = lines.line_of(base + known.first)
        if known.key == _run_key(lines, first_line, base, encoding, flags):
            return known, first_line
    tokens = run.tokens()
    if not tokens:
        if part is not None:
            part.memo["tokens"] = _NO_TOKENS
        return None
    first = tokens[0].span.start
    first_line = lines.line_of(base + first)
    line_start = lines.line_start(first_line)
    shift = base - line_start
    piece = text[line_start : base + tokens[-1].span.end]
    moved = [
        SemanticToken(Span(t.span.start + shift, t.span.end + shift), t.type, t.modifiers)
        for t in tokens
    ]
    starts: list[int] = []
    data = semantic_tokens_data(moved, PositionCodec(LineIndex(piece), encoding), flags, starts)
    if not data:
        return None
    last_line, last_column = _absolute_last(data)
    key = _run_key(lines, first_line, base, encoding, flags)
    encoded = _EncodedRun(key, data, first, last_line, last_column, [s - shift for s in starts])
    if part is not None:
        part.memo["tokens"] = encoded
    return encoded, first_line


def _run_key(
    lines: LineIndex, first_line: int, base: int, encoding: str, flags: ClientFlags
) -> tuple[object, ...]:
    line_start = lines.line_start(first_line)
    before = lines.text[line_start:base] if line_start < base else ""
    return (encoding, flags.multiline_tokens, before)


def _span_units(lines: LineIndex, span: Span, encoding: str) -> int:
    """Length of ``span`` in code units, line breaks included."""
    line, column = lines.position(span.start)
    end_line, end_column = lines.position(span.end)
    total = 0
    while line < end_line:
        total += _units(lines.line_text(line)[column:], encoding)
        total += lines.line_start(line + 1) - lines.line_end(line)  # "\n" or "\r\n"
        line, column = line + 1, 0
    return total + _units(lines.line_text(end_line)[column:end_column], encoding)


def semantic_tokens_edits(
    previous: list[int], current: list[int]
) -> list[types.SemanticTokensEdit]:
    """One edit turning ``previous`` into ``current`` (none when equal), on token boundaries."""
    if previous == current:
        return []
    limit = min(len(previous), len(current))
    prefix = _shared(previous, current, limit, from_end=False)
    prefix -= prefix % 5
    suffix = _shared(previous, current, limit - prefix, from_end=True)
    suffix -= suffix % 5
    return [
        types.SemanticTokensEdit(
            start=prefix,
            delete_count=len(previous) - prefix - suffix,
            data=current[prefix : len(current) - suffix],
        )
    ]


def semantic_tokens_spliced(
    data: list[int],
    starts: list[int],
    first: int,
    stop: int,
    cut: list[int],
    cut_starts: list[int],
    delta: int,
    codec: PositionCodec,
) -> tuple[list[int], list[int], types.SemanticTokensEdit]:
    """``data`` (whose tokens begin at ``starts``) with its tokens ``first`` to ``stop``
    (excluded) replaced by the tokens ``cut`` encodes from the text's start (beginning at
    ``cut_starts``), and those after moved ``delta`` code points on; with the edit that
    makes the one of the other. Positions are relative, each token's to the one before:
    only the first token of the cut and the first after it are encoded again, in
    ``codec``'s text (the new one).  The lists given are not changed."""
    count = len(starts)
    before = codec.units(starts[first - 1]) if first > 0 else (0, 0)
    placed = list(cut)
    last = before
    if placed:
        last = _absolute_last(placed)
        _relative(placed, 0, (placed[0], placed[1]), before)
    if stop < count:
        following = data[5 * stop : 5 * stop + 5]
        _relative(following, 0, codec.units(starts[stop] + delta), last)
        placed += following
    end = min(5 * stop + 5, len(data))
    edit = types.SemanticTokensEdit(start=5 * first, delete_count=end - 5 * first, data=placed)
    spliced = data[: 5 * first]
    spliced += placed
    spliced += data[end:]
    moved = starts[:first]
    moved += cut_starts
    moved += map(add, starts[stop:], repeat(delta)) if delta else starts[stop:]
    return spliced, moved, edit


def _absolute_last(data: list[int]) -> tuple[int, int]:
    """Line and column of the last token of ``data``, encoded from the text's start."""
    line = column = 0
    for at in range(0, len(data), 5):
        line += data[at]
        column = data[at + 1] + (column if data[at] == 0 else 0)
    return line, column


def _relative(data: list[int], at: int, where: tuple[int, int], after: tuple[int, int]) -> None:
    """Encode the token at ``data[at]``, at line and column ``where``, relative to the token
    before it at ``after``."""
    delta_line = where[0] - after[0]
    data[at] = delta_line
    data[at + 1] = where[1] - after[1] if delta_line == 0 else where[1]


_BLOCK = 1024


def _shared(a: list[int], b: list[int], limit: int, *, from_end: bool) -> int:
    """How many ints ``a`` and ``b`` share at their start (or end), at most ``limit``.
    Compared a block of slices at a time, then int by int in the block that differs: a
    loop over every int took 50 ms for the 500,000 of a 5,000-node document."""

    def block(i: int, j: int) -> tuple[list[int], list[int]]:
        if from_end:
            return a[len(a) - j : len(a) - i], b[len(b) - j : len(b) - i]
        return a[i:j], b[i:j]

    done = 0
    while done < limit:
        end = min(done + _BLOCK, limit)
        left, right = block(done, end)
        if left != right:
            pairs = (
                zip(reversed(left), reversed(right), strict=True)
                if from_end
                else zip(left, right, strict=True)
            )
            return done + next(k for k, (x, y) in enumerate(pairs) if x != y)
        done = end
    return limit


_INLAY_KIND = {"type": types.InlayHintKind.Type, "parameter": types.InlayHintKind.Parameter}


def inlay_hint(hint: InlayHintItem, codec: PositionCodec) -> types.InlayHint:
    return types.InlayHint(
        position=codec.position(hint.offset),
        label=hint.label,
        kind=_INLAY_KIND.get(hint.kind or ""),
        tooltip=hint.tooltip,
        padding_left=hint.padding_left or None,
    )


class PlainJson:
    """An answer made of JSON's own values already (dicts, lists, strings, numbers): the
    server's converter (``protocol_converter``) hands it to the JSON encoder as it is,
    rather than walking it as it walks the protocol's classes."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value


def protocol_converter() -> Converter:
    """pygls' converter, which also sends a ``PlainJson`` answer as it is."""
    converter: Converter = default_converter()  # type: ignore[no-untyped-call]
    converter.register_unstructure_hook(PlainJson, _plain_value)
    return converter


def _plain_value(answer: PlainJson) -> object:
    return answer.value


def document_symbols_json(symbols: Sequence[OutlineSymbol], codec: PositionCodec) -> PlainJson:
    """``document_symbol`` of each of ``symbols``, as the JSON the client receives. Made
    without the protocol's classes: at 16,000 nodes, 16,000 symbols and 64,000 positions,
    whose objects and their conversion back to JSON were most of the request's time."""
    units = codec.units
    kinds: dict[str, int] = {}

    def position(offset: int) -> dict[str, int]:
        line, character = units(offset)
        return {"line": line, "character": character}

    def one(symbol: OutlineSymbol) -> dict[str, object]:
        kind = kinds.get(symbol.kind)
        if kind is None:
            kind = kinds[symbol.kind] = types.SymbolKind[symbol.kind].value
        span, selection = symbol.span, symbol.selection
        out: dict[str, object] = {
            "name": symbol.name,
            "kind": kind,
            "range": {"start": position(span.start), "end": position(span.end)},
            "selectionRange": {"start": position(selection.start), "end": position(selection.end)},
        }
        if symbol.detail is not None:
            out["detail"] = symbol.detail
        if symbol.children:
            out["children"] = [one(child) for child in symbol.children]
        return out

    return PlainJson([one(symbol) for symbol in symbols])


def symbol_information(
    symbols: Iterable[OutlineSymbol], uri: str, codec: PositionCodec, container: str | None = None
) -> list[types.SymbolInformation]:
    """The outline flattened, each symbol naming its parent as ``containerName``."""
    out: list[types.SymbolInformation] = []
    for symbol in symbols:
        out.append(
            types.SymbolInformation(
                name=symbol.name,
                kind=types.SymbolKind[symbol.kind],
                location=location(uri, symbol.span, codec),
                container_name=container,
            )
        )
        out.extend(symbol_information(symbol.children, uri, codec, symbol.name))
    return out


def workspace_symbol(
    symbol: OutlineSymbol, container: str | None, uri: str, codec: PositionCodec
) -> types.SymbolInformation:
    """A symbol found across documents: its location is its name, where to jump."""
    return types.SymbolInformation(
        name=symbol.name,
        kind=types.SymbolKind[symbol.kind],
        location=location(uri, symbol.selection, codec),
        container_name=container,
    )


def folding_range(
    fold: Fold, codec: PositionCodec, flags: ClientFlags
) -> types.FoldingRange | None:
    """A fold, or None when it would hide nothing.

    Lines only: the fold ends on the line before a closing bracket that starts its
    line, so the bracket stays visible. With characters: exactly ``fold.span``.
    """
    lines = codec.lines
    start_line, _ = lines.position(fold.span.start)
    end_line, end_column = lines.position(fold.span.end)
    kind = types.FoldingRangeKind.Comment if fold.kind == "comment" else None
    if not flags.line_folding_only:
        if end_line <= start_line:
            return None
        start, end = codec.position(fold.span.start), codec.position(fold.span.end)
        return types.FoldingRange(
            start_line=start.line,
            start_character=start.character,
            end_line=end.line,
            end_character=end.character,
            kind=kind,
        )
    if not lines.line_text(end_line)[:end_column].strip():
        end_line -= 1
    if end_line <= start_line:
        return None
    return types.FoldingRange(start_line=start_line, end_line=end_line, kind=kind)


def selection_range(chain: list[Span], codec: PositionCodec) -> types.SelectionRange:
    """Innermost first: each range's parent is the next one."""
    selection: types.SelectionRange | None = None
    for span in reversed(chain):
        selection = types.SelectionRange(range=codec.range(span), parent=selection)
    assert selection is not None
    return selection
