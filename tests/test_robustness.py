"""Whatever an author types, analysis and editor features answer without raising."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wf_core.version.snapshot import analyze_text
from wfls.features.completion import complete
from wfls.features.definition import definition
from wfls.features.hover import hover

EXAMPLES = Path(__file__).parent.parent / "examples"
SOURCES = {
    "toml": (EXAMPLES / "billing.wf.toml").read_text(),
    "json": (EXAMPLES / "approvals.wf.json").read_text(),
}
ALPHABET = st.sampled_from([*"\"'.[]{}=,:\n #\\é😀abcxyz0123456789_-", "context.foreach."])


@st.composite
def edited(draw: st.DrawFn) -> tuple[str, str]:
    syntax = draw(st.sampled_from(sorted(SOURCES)))
    text = SOURCES[syntax]
    for _ in range(draw(st.integers(1, 6))):
        start = draw(st.integers(0, len(text)))
        end = draw(st.integers(start, min(len(text), start + 12)))
        insert = "".join(draw(st.lists(ALPHABET, max_size=6)))
        text = text[:start] + insert + text[end:]
    return syntax, text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited(), st.lists(st.integers(0, 10_000), min_size=1, max_size=4))
def test_edits_never_crash_analysis_or_features(doc: tuple[str, str], cursors: list[int]) -> None:
    syntax, text = doc
    snapshot = analyze_text(text, syntax)  # type: ignore[arg-type]
    for placed in snapshot.issues:
        assert 0 <= placed.span.start <= placed.span.end <= len(text)
    for cursor in cursors:
        offset = cursor % (len(text) + 1)
        for candidate in complete(snapshot, offset):
            assert 0 <= candidate.replace.start <= candidate.replace.end <= len(text)
        result = hover(snapshot, offset)
        assert result is None or result.span.end <= len(text)
        for target in definition(snapshot, offset):
            assert target.span.end <= len(text)


def test_pathological_documents() -> None:
    cases = [
        "",
        "\x00\x01\x02",
        "[" * 5000,
        "a = " + "[" * 5000,
        '{"nodes": ' + "[" * 5000,
        "name = '" + "x" * 1_000_000 + "'",
        "nodes = 5\nedges = 'x'\nstart = []",
        '[input_schema]\n"$ref" = "#"\n',
        '[input_schema]\n"$defs".a = { "$ref" = "#/$defs/b" }\n'
        '"$defs".b = { "$ref" = "#/$defs/a" }\nproperties.x = { "$ref" = "#/$defs/a" }\n',
    ]
    for text in cases:
        for syntax in ("toml", "json"):
            snapshot = analyze_text(text, syntax)  # type: ignore[arg-type]
            assert isinstance(snapshot.issues, tuple)
            complete(snapshot, len(text) // 2)
            hover(snapshot, len(text) // 2)
