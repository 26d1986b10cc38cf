"""Diagnostics of unchanged findings are handed out again, and are always what converting
every finding afresh gives, object for object and byte for byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types
from pygls.protocol import default_converter

from wf_core.version.snapshot import PlacedIssue
from wfls import convert
from wfls.capabilities import ClientFlags
from wfls.diagnostics_memo import DiagnosticsMemo, diagnostic_encoder, publish_params
from wfls.settings import Settings
from wfls.store import DocumentStore

ROOT = Path(__file__).parent.parent.parent
BILLING = (
    (ROOT / "examples" / "billing.wf.toml")
    .read_text(encoding="utf-8")
    .replace("customers.item.orders", "customers.item.ordrs")
    .replace("context.foreach.customers.item.name", "context.customer.name")
)
AUDIT = (ROOT / "examples" / "store_audit.wf.toml").read_text(encoding="utf-8")
URI = "file:///w/billing.wf.toml"
CONVERTER = default_converter()  # type: ignore[no-untyped-call]
ENCODE = diagnostic_encoder(CONVERTER)
FLAGS = ClientFlags(related_information=True, deprecated_tag=True)


def fresh(
    issues: tuple[PlacedIssue, ...], lines: Any, flags: ClientFlags, settings: Settings
) -> list[types.Diagnostic]:
    codec = convert.PositionCodec(lines, flags.position_encoding)
    made = (convert.diagnostic(p, codec, URI, flags, settings) for p in issues)
    return [d for d in made if d is not None]


def through(
    memo: DiagnosticsMemo, store: DocumentStore, flags: ClientFlags, settings: Settings
) -> tuple[list[types.Diagnostic], list[bytes]]:
    snapshot = store.snapshot(URI)
    assert snapshot is not None
    codec = convert.PositionCodec(snapshot.lines, flags.position_encoding)
    items, encoded = memo.convert(snapshot.issues, codec, URI, flags, settings, None, ENCODE)
    assert encoded is not None
    assert items == fresh(snapshot.issues, snapshot.lines, flags, settings)
    assert encoded == [ENCODE(d) for d in items]
    return items, encoded


def test_an_edit_on_one_line_converts_the_findings_of_that_line_only() -> None:
    store = DocumentStore()
    store.open(URI, BILLING, 1)
    memo = DiagnosticsMemo()
    before, before_json = through(memo, store, FLAGS, Settings())
    assert [d.code for d in before] == ["invalid_context_path", "deprecated_context_key"]
    assert before[1].tags == [types.DiagnosticTag.Deprecated]
    # Longer by two characters, on the deprecated key's own line, before it.
    store.replace(URI, BILLING.replace('{ target = "customer"', '{   target = "customer"'), 2)
    after, after_json = through(memo, store, FLAGS, Settings())
    assert [d.code for d in after] == [d.code for d in before]
    assert after[0] is before[0] and after_json[0] is before_json[0]
    assert after[1] is not before[1]
    assert after[1].range.start.character == before[1].range.start.character + 2
    # A line added above both moves both: each is converted again.
    store.replace(URI, "# a comment\n" + BILLING, 3)
    moved, _ = through(memo, store, FLAGS, Settings())
    assert [d.range.start.line for d in moved] == [d.range.start.line + 1 for d in before]
    assert not any(a is b for a, b in zip(moved, after, strict=True))


class _CountingCodec(convert.PositionCodec):
    __slots__ = ("asked",)

    def units(self, offset: int) -> tuple[int, int]:
        self.asked.append(offset)
        return super().units(offset)


def test_findings_before_a_typed_line_are_not_positioned_again() -> None:
    """Typing inside a line: the text before that line is the same, line for line
    (``LineIndex.unchanged_before``), so no finding before it that was not made again is
    positioned again."""
    text = BILLING + (
        '\n[[nodes]]\nid = "spare"\ntype = "node"\nnode = "charge_order"\n'
        'input = [{ target = "customer", path = "input.customers" }]\n'
    )
    store = DocumentStore()
    store.open(URI, text, 1)
    memo = DiagnosticsMemo()
    before, _ = through(memo, store, FLAGS, Settings())
    assert [d.code for d in before][:2] == ["invalid_context_path", "deprecated_context_key"]
    for version, typed in enumerate(["input.customersX", "input.customersXY"], start=2):
        at = text.rindex(typed[:-1])  # in the spare node, the last one
        text = text[:at] + typed + text[at + len(typed) - 1 :]
        store.replace(URI, text, version)
        snapshot = store.snapshot(URI)
        assert snapshot is not None
        codec = _CountingCodec(snapshot.lines, FLAGS.position_encoding)
        codec.asked = []
        items, _ = memo.convert(snapshot.issues, codec, URI, FLAGS, Settings(), None, ENCODE)
        assert items == fresh(snapshot.issues, snapshot.lines, FLAGS, Settings())
        assert items[0] is before[0] and items[1] is before[1]
        # Asked only for the findings of the edited node, which it checked again.
        assert codec.asked and min(codec.asked) >= text.index('id = "spare"')
    # A line added above the findings: each is positioned (and moved) again.
    store.replace(URI, "#\n" + text, 4)
    snapshot = store.snapshot(URI)
    assert snapshot is not None
    codec = _CountingCodec(snapshot.lines, FLAGS.position_encoding)
    codec.asked = []
    items, _ = memo.convert(snapshot.issues, codec, URI, FLAGS, Settings(), None, ENCODE)
    assert len(codec.asked) >= 2 * len(items)
    assert items == fresh(snapshot.issues, snapshot.lines, FLAGS, Settings())


def test_settings_and_client_flags_are_part_of_what_is_reused() -> None:
    store = DocumentStore()
    store.open(URI, BILLING, 1)
    memo = DiagnosticsMemo()
    first, _ = through(memo, store, FLAGS, Settings())
    quiet, _ = through(memo, store, FLAGS, Settings(hint_deprecated_keys=False))
    assert [d.code for d in quiet] == ["invalid_context_path"]
    again, _ = through(memo, store, FLAGS, Settings())
    assert again[1] is not first[1]
    plain = ClientFlags(related_information=True)
    untagged, _ = through(memo, store, plain, Settings())
    assert untagged[1].tags is None


# Inserts that keep lines and columns, move them, and make the text non-ASCII.
_INSERTS = st.sampled_from(["x", "", "é", "😀", "\n", '"', "item.", " "])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from([BILLING, AUDIT]),
    st.sampled_from(["utf-8", "utf-16", "utf-32"]),
    st.lists(
        st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 3), _INSERTS),
        min_size=1,
        max_size=5,
    ),
)
def test_after_any_edits_the_diagnostics_are_what_a_fresh_conversion_gives(
    text: str, encoding: str, edits: list[tuple[float, int, str]]
) -> None:
    store = DocumentStore()
    store.open(URI, text, 1)
    memo = DiagnosticsMemo()
    flags = ClientFlags(position_encoding=encoding, related_information=True)
    through(memo, store, flags, Settings())
    for version, (where, delete, insert) in enumerate(edits, start=2):
        at = int(where * (len(text) + 1))
        text = text[:at] + insert + text[at + delete :]
        store.replace(URI, text, version)
        through(memo, store, flags, Settings())


@pytest.mark.parametrize("uri", [URI, 'file:///w/a "diagnostics": [] é.wf.toml'])
@pytest.mark.parametrize("version", [None, 7])
@pytest.mark.parametrize("count", [0, 1, 3])
def test_the_joined_params_are_the_params_encoded_at_once(
    uri: str, version: int | None, count: int
) -> None:
    place = types.Range(types.Position(2, 4), types.Position(2, 9))
    diagnostics = [
        types.Diagnostic(range=place, message=f"finding {i} ✓", code="c", source="wfls")
        for i in range(count)
    ]
    params = types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=diagnostics)
    joined = publish_params(CONVERTER, uri, version, [ENCODE(d) for d in diagnostics])
    assert joined == json.dumps(CONVERTER.unstructure(params)).encode()
