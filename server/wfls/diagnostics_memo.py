"""Converted diagnostics of a document's previous analysis, reused by the next one.

After an edit inside one node, the findings of every other node are the very
same :class:`Issue` objects (``wf_core.validation.memo``), placed again by an
addition or not at all (``DocumentSnapshot._place_reusing``). Their diagnostics differ from last
time only if their lines or columns moved: an edit that adds no line moves no
finding outside its own line. So each diagnostic is kept with the issue and the
range it was made for, and handed out again, the very same
``types.Diagnostic`` and, for a client that is pushed diagnostics, the very same
JSON text, which the push joins instead of converting and encoding 12,800
findings (16,000 nodes) again.

Invariant, kept by :meth:`DiagnosticsMemo.convert`: an entry is read back only
for the same issue object (held by the entry, so its ``id()`` is not reused),
the same range in the client's units, and the same settings and client flags
(a change of either drops the memo). The range is not computed again for the
very placed finding of last time when it ends before the text and its lines
changed (``LineIndex.unchanged_before``): at 16,000 nodes computing the 25,600
positions took 40 to 50 ms of every edit. A diagnostic is a function of exactly
these: the message, code, severity and tags come from the issue, the settings
and the flags. Findings with related places are converted every time (their
other places may have moved independently).

One memo belongs to one open document and is used by the analysis worker only.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from wfls import convert
from wfls.capabilities import ClientFlags
from wfls.settings import Settings

if TYPE_CHECKING:
    from wf_core.snapshot import PlacedIssue
    from wf_core.spans import LineIndex

Encode = Callable[[types.Diagnostic], bytes]
Range = tuple[int, int, int, int]
_Entry = tuple[Any, Range | None, types.Diagnostic, bytes | None, Any]
"""(issue, range in the client's units, diagnostic, its JSON, the placed finding)."""


def diagnostic_encoder(converter: Any) -> Encode:
    """One diagnostic as the JSON the client receives for it inside a list."""

    def encode(diagnostic: types.Diagnostic) -> bytes:
        return json.dumps(converter.unstructure(diagnostic)).encode()

    return encode


class DiagnosticsMemo:
    __slots__ = ("_entries", "_flags", "_lines", "_settings")

    def __init__(self) -> None:
        self._entries: dict[int, _Entry] = {}
        self._lines: LineIndex | None = None  # the index the entries' ranges come from
        self._settings: Settings | None = None
        self._flags: ClientFlags | None = None

    def convert(
        self,
        issues: Iterable[PlacedIssue],
        codec: convert.PositionCodec,
        uri: str,
        flags: ClientFlags,
        settings: Settings,
        codec_for: convert.CodecFor | None = None,
        encode: Encode | None = None,
    ) -> tuple[list[types.Diagnostic], list[bytes] | None]:
        """The diagnostics of ``issues`` (each as ``convert.diagnostic`` makes it, those
        the settings hide left out) and, with ``encode``, each one's JSON; what the last
        call made for an unchanged finding is reused."""
        previous = self._entries
        if settings != self._settings or flags != self._flags:
            previous = {}
        unchanged = codec.lines.unchanged_before(self._lines)
        current: dict[int, _Entry] = {}
        items: list[types.Diagnostic] = []
        encoded: list[bytes] = []
        units = codec.units
        for placed in issues:
            issue = placed.issue
            # A finding with related places is converted every time: they may have moved
            # on their own. The others are kept under the range they were converted for.
            entry = None if placed.related else previous.get(id(issue))
            if entry is not None and entry[4] is placed and placed.span.end < unchanged:
                where = entry[1]  # the same range in a text unchanged up to there
            else:
                span = placed.span
                where = None if placed.related else (*units(span.start), *units(span.end))
            if entry is None or entry[0] is not issue or entry[1] != where:
                made = convert.diagnostic(placed, codec, uri, flags, settings, codec_for)
                if made is None:
                    continue  # hidden by the settings
                entry = (issue, where, made, None, placed)
            elif entry[4] is not placed:
                entry = (issue, where, entry[2], entry[3], placed)
            if encode is not None:
                text = entry[3]
                if text is None:
                    text = encode(entry[2])
                    entry = (issue, where, entry[2], text, placed)
                encoded.append(text)
            if where is not None:
                current[id(issue)] = entry
            items.append(entry[2])
        self._entries, self._settings, self._flags = current, settings, flags
        self._lines = codec.lines
        return items, encoded if encode is not None else None


def publish_params(converter: Any, uri: str, version: int | None, encoded: list[bytes]) -> bytes:
    """The JSON of ``PublishDiagnosticsParams`` whose diagnostics are ``encoded``: byte
    for byte what encoding the whole params at once gives (a test compares them)."""
    empty = types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=[])
    head = json.dumps(converter.unstructure(empty)).encode()
    before, found, after = head.partition(b'"diagnostics": []')
    # A string value escapes its quotes, so the first match is the field itself.
    assert found, head
    return b"".join((before, b'"diagnostics": [', b", ".join(encoded), b"]", after))
