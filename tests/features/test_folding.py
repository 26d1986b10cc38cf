"""Folding ranges, data-driven: the document with what each fold hides marked «».

Folds nest, so markers are inserted where folds start and end.
"""

from __future__ import annotations

from tests.features.fixture import analyze, expected, parse
from wf_core.base.spans import Span
from wfls.capabilities import ClientFlags
from wfls.convert import PositionCodec, folding_range
from wfls.features.folding import folding_ranges


def nested_marks(text: str, spans: list[Span]) -> str:
    marks = [(s.start, 1, "«") for s in spans] + [(s.end, 0, "»") for s in spans]
    out = text
    for offset, _, mark in sorted(marks, reverse=True):
        out = out[:offset] + mark + out[offset:]
    return out


def check_folding_ranges(fixture: str, marked: str) -> None:
    text, _ = parse(fixture)
    snapshot = analyze(text)
    folds = folding_ranges(snapshot)
    assert folds, "a folding test needs folds"
    assert nested_marks(text, [f.span for f in folds]) == expected(marked)
    codec = PositionCodec(snapshot.lines, "utf-16")
    for fold in folds:  # every fold converts for both kinds of client, or is dropped whole
        by_line = folding_range(fold, codec, ClientFlags(line_folding_only=True))
        exact = folding_range(fold, codec, ClientFlags())
        if by_line is not None:
            assert by_line.start_line < by_line.end_line
            assert exact is not None


def test_toml_sections_entries_and_values_spanning_lines() -> None:
    check_folding_ranges(
        """
        name = "f"
        edges = [
          { from = "a", outcome = "ok", to = "__end__" },
        ]
        output = [{ target = "x", path = "state.x" }]

        [input_schema]
        type = "object"
        properties.x = { type = "string" }

        [input_schema."$defs".order]
        type = "object"

        [[nodes]]
        id = "a"
        type = "node"
        input = [
          { target = "x", path = "input.x" },
        ]

        [[nodes]]
        id = "b"
        """,
        """
        name = "f"
        edges = [«
          { from = "a", outcome = "ok", to = "__end__" },
        »]
        output = [{ target = "x", path = "state.x" }]

        [input_schema]«
        type = "object"
        properties.x = { type = "string" }»

        [input_schema."$defs".order]«
        type = "object"»

        [[nodes]]«
        id = "a"
        type = "node"
        input = [«
          { target = "x", path = "input.x" },
        »]»

        [[nodes]]«
        id = "b"»
        """,
    )


def test_json_objects_and_arrays() -> None:
    check_folding_ranges(
        """
        {
          "name": "j",
          "nodes": [
            {"id": "a",
             "type": "end", "outcome": "ok"}
          ],
          "start": "a"
        }
        """,
        """
        {«
          "name": "j",
          "nodes": [«
            {«"id": "a",
             "type": "end", "outcome": "ok"»}
          »],
          "start": "a"
        »}
        """,
    )


def test_a_document_that_does_not_parse_folds_what_did() -> None:
    check_folding_ranges(
        """
        [[nodes]]
        id = "a"
        over = "input.

        [[nodes]]
        id = "b"
        input = [
          { target = "x"
        """,
        """
        [[nodes]]«
        id = "a"
        over = "input.»

        [[nodes]]«
        id = "b"
        input = [
          { target = "x"»
        """,
    )


def test_line_breaks_of_every_kind_fold_alike() -> None:
    """A text whose lines end with CRLF or a lone CR folds the same lines as with LF
    (folds are looked for only where a break lies inside a range)."""
    from pathlib import Path

    from wf_core.version.snapshot import analyze_text

    examples = Path(__file__).parents[2] / "examples"
    for name in ("billing.wf.toml", "approvals.wf.json", "store_audit.wf.toml"):
        text = (examples / name).read_text(encoding="utf-8")
        syntax = "json" if name.endswith(".json") else "toml"

        def lines_folded(source: str) -> list[tuple[int, int]]:
            snapshot = analyze_text(source, syntax)  # noqa: B023 - used at once
            line_of = snapshot.lines.line_of
            return [(line_of(f.span.start), line_of(f.span.end)) for f in folding_ranges(snapshot)]

        expected_lines = lines_folded(text)
        assert len(expected_lines) > 3
        assert lines_folded(text.replace("\n", "\r\n")) == expected_lines
        if syntax == "json":  # (TOML takes a lone CR in no statement)
            assert lines_folded(text.replace("\n", "\r")) == expected_lines
