"""Converted diagnostics of a document's previous analysis, found again by content.

After an edit inside one node, the findings of every other node are the same, placed
again by an addition or not at all (``DocumentSnapshot._place_reusing``). Their
diagnostics differ from last time only if their lines or columns moved: an edit that
adds no line moves no finding outside its own line. So converting is two derived runs
(``wf_core.base.derived``):

- a finding's range in the client's units, found again under its offsets when the text
  up to its end has not changed (``LineIndex.unchanged_before``): at 16,000 nodes
  computing the 25,600 positions took 40 to 50 ms of every edit;
- its diagnostic and, for a client that is pushed diagnostics, its JSON, found again
  under what it is made of: the range, the code, the message, the help and the
  severity. A push joins the JSON kept instead of converting and encoding 12,800
  findings (16,000 nodes) again.

Both run under the settings and the client's flags: a change of either starts afresh.
Findings with related places are converted every time (their other places may have
moved on their own).

One memo belongs to one open document and is used by the analysis worker only.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from wf_core.base.derived import MISSING, Derivations
from wfls import convert
from wfls.capabilities import ClientFlags
from wfls.settings import Settings

if TYPE_CHECKING:
    from wf_core.base.spans import LineIndex
    from wf_core.version.snapshot import PlacedIssue

Encode = Callable[[types.Diagnostic], bytes]
Range = tuple[int, int, int, int]


def diagnostic_encoder(converter: Any) -> Encode:
    """One diagnostic as the JSON the client receives for it inside a list."""

    def encode(diagnostic: types.Diagnostic) -> bytes:
        return json.dumps(converter.unstructure(diagnostic)).encode()

    return encode


class DiagnosticsMemo:
    __slots__ = ("_derived", "_flags", "_lines", "_settings")

    def __init__(self) -> None:
        self._derived = Derivations()
        self._lines: LineIndex | None = None  # the index the kept ranges come from
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
        if settings != self._settings or flags != self._flags:
            self._derived = Derivations()
        self._settings, self._flags = settings, flags
        unchanged = codec.lines.unchanged_before(self._lines)
        self._lines = codec.lines
        ranges, made = self._derived.begin("ranges"), self._derived.begin("diagnostics")
        items: list[types.Diagnostic] = []
        encoded: list[bytes] = []
        units = codec.units
        for placed in issues:
            if placed.related:
                # Converted every time: its related places may have moved on their own.
                diagnostic = convert.diagnostic(placed, codec, uri, flags, settings, codec_for)
                if diagnostic is not None:
                    items.append(diagnostic)
                    if encode is not None:
                        encoded.append(encode(diagnostic))
                continue
            span = placed.span
            # Its offsets as one number (an int is no object the collector scans).
            offsets = span.start << 32 | span.end
            # The text up to the finding's end unchanged, so is its range there.
            where = ranges.found(offsets) if span.end < unchanged else MISSING
            if where is MISSING:
                where = (*units(span.start), *units(span.end))
            ranges.keep(offsets, where)
            key = (where, placed.code, placed.message, placed.help, placed.severity)
            entry = made.found(key)
            if entry is MISSING:
                diagnostic = convert.diagnostic(placed, codec, uri, flags, settings, codec_for)
                entry = None if diagnostic is None else (diagnostic, None)
            if entry is not None and encode is not None and entry[1] is None:
                entry = (entry[0], encode(entry[0]))
            made.keep(key, entry)
            if entry is None:
                continue  # hidden by the settings
            items.append(entry[0])
            if encode is not None:
                assert entry[1] is not None
                encoded.append(entry[1])
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
