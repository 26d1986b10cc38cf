"""The three guarantees of formatting, as properties: formatting is idempotent, keeps
the meaning (the loaded model and ``wfls check``'s findings) and keeps every comment
before the same item, over generated workflows with comments and blank lines put at
random places and over every document of the test corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.formatting.kept import assert_comments_kept, assert_meaning_kept, comments
from wf_core.authoring.export import export_document
from wf_core.authoring.generate import generate_toml
from wf_core.base.reading import Syntax, syntax_for_path
from wf_core.documents import parse_document
from wf_core.formatting import format_text
from wf_core.formatting.text_edits import apply_edits, minimal_edits
from wf_core.validation.codes import CODES
from wf_core.version.snapshot import analyze_text

ROOT = Path(__file__).parent.parent.parent
CORPUS_FILES = sorted(
    path
    for folder in ("examples", "tests")
    for pattern in ("*.wf.toml", "*.wf.json", "*.canonical.json")
    for path in (ROOT / folder).rglob(pattern)
    if "node_modules" not in path.parts
)
EXAMPLES = {code: info.example for code, info in CODES.items() if info.example is not None}


def check_guarantees(text: str, syntax: Syntax) -> str:
    """Format ``text`` and hold the guarantees; the formatted text."""
    result = format_text(text, syntax)
    assert result.error is None and result.text is not None
    formatted = result.text
    assert format_text(formatted, syntax).text == formatted
    assert_meaning_kept(text, formatted, syntax)
    if syntax == "toml":
        assert_comments_kept(text, formatted)
    assert apply_edits(text, minimal_edits(text, formatted)) == formatted
    return formatted


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_corpus_file(path: Path) -> None:
    syntax = syntax_for_path(path.name) or "json"
    check_guarantees(path.read_text(encoding="utf-8"), syntax)


@pytest.mark.parametrize("code", sorted(EXAMPLES))
def test_every_diagnostic_example(code: str) -> None:
    example = EXAMPLES[code]
    if parse_document(example, "toml").has_errors:
        result = format_text(example, "toml")
        assert result.text is None and result.error is not None
        return
    check_guarantees(example, "toml")


NOTES = st.sampled_from(["", "# a note", "#", "# ü ✓ and more words", "", "## twice"])


def shuffled_nodes(draw: st.DrawFn, text: str) -> list[str]:
    """The lines of a document whose ``[[nodes]]`` tables have their statements (a line,
    or an array over several lines) in a random order."""
    head, *nodes = text.split("\n[[nodes]]\n")
    lines = head.splitlines()
    for node in nodes:
        statements: list[list[str]] = []
        open_array = False
        for line in node.strip("\n").splitlines():
            if open_array:
                statements[-1].append(line)
            else:
                statements.append([line])
            open_array = line.endswith("[") or (open_array and line != "]")
        order = draw(st.permutations(statements))
        lines.extend(["", "[[nodes]]", *(line for statement in order for line in statement)])
    return lines


@st.composite
def commented_workflows(draw: st.DrawFn) -> tuple[str, int]:
    """A generated workflow with comment lines and blank lines put before random lines
    and comments after random lines, and how many comments it has."""
    lines = shuffled_nodes(draw, generate_toml(draw(st.integers(10, 30))))
    count = len(lines)
    above = draw(st.dictionaries(st.integers(0, count), st.lists(NOTES, max_size=3), max_size=8))
    after = draw(st.dictionaries(st.integers(0, count - 1), NOTES.filter(bool), max_size=8))
    out: list[str] = []
    for i, line in enumerate(lines):
        out.extend(above.get(i, []))
        out.append(f"{line}  {after[i]}" if i in after else line)
    out.extend(above.get(count, []))
    notes = sum(1 for lines in above.values() for note in lines if note) + len(after)
    return "\n".join(out) + "\n", notes


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(commented_workflows())
def test_generated_workflows_with_comments(case: tuple[str, int]) -> None:
    text, notes = case
    formatted = check_guarantees(text, "toml")
    assert sum(map(len, comments(formatted).values())) == notes


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(10, 40), st.sampled_from([None, 0, 1, 4]))
def test_generated_workflows_as_json(nodes: int, indent: int | None) -> None:
    snapshot = analyze_text(generate_toml(nodes), "toml")
    exported = export_document(snapshot.parsed, snapshot.load, "json").text
    text = json.dumps(json.loads(exported), indent=indent)
    check_guarantees(text, "json")
