"""Data-driven feature tests: a small document with one cursor marker, the expected result.

``$0`` marks the cursor. Expected results are plain text: for edits, the document
after applying them; for ranges, the document with each range wrapped in ``«»``.
"""

from __future__ import annotations

import difflib
import textwrap
from collections.abc import Iterable
from typing import Any

from wf_core.base.spans import Span
from wf_core.version.snapshot import DocumentSnapshot, analyze_text

CURSOR = "$0"


def parse(fixture: str) -> tuple[str, int | None]:
    """The document without the marker, and the marker's offset (None when absent)."""
    text = textwrap.dedent(fixture).lstrip("\n")
    offset = text.find(CURSOR)
    if offset < 0:
        return text, None
    assert text.count(CURSOR) == 1, "one cursor marker per fixture"
    return text.replace(CURSOR, "", 1), offset


def syntax_of(text: str) -> str:
    return "json" if text.lstrip().startswith("{") else "toml"


def analyze(text: str) -> DocumentSnapshot:
    return analyze_text(text, syntax_of(text))


def cursor(fixture: str) -> tuple[DocumentSnapshot, int]:
    text, offset = parse(fixture)
    assert offset is not None, "the fixture needs a $0 cursor"
    return analyze(text), offset


def apply(text: str, edits: Iterable[tuple[Span, str]]) -> str:
    """``text`` with non-overlapping edits applied."""
    out = text
    for span, new in sorted(edits, key=lambda e: e[0].start, reverse=True):
        out = out[: span.start] + new + out[span.end :]
    return out


def mark(text: str, spans: Iterable[Span]) -> str:
    """``text`` with each span wrapped in «»."""
    return apply(text, [(s, "«" + text[s.start : s.end] + "»") for s in spans])


def expected(text: Any) -> Any:
    """An expected text as written in a test, dedented; a ``snapshot(...)`` as it is (it
    holds the text exactly, and ``--inline-snapshot=fix`` rewrites it: tests/README.md)."""
    return textwrap.dedent(text).lstrip("\n") if isinstance(text, str) else text


def errors(snapshot: DocumentSnapshot) -> list[str]:
    return [f"{p.code}: {p.message}" for p in snapshot.issues if p.severity == "error"]


def changed_lines(before: str, after: str) -> list[str]:
    """The lines an edit changes: each line of ``before`` it removes as ``- line``, each it
    adds as ``+ line``, in order; what a test of an edit states of a larger document."""
    return [
        line
        for line in difflib.ndiff(before.splitlines(), after.splitlines())
        if line.startswith(("- ", "+ "))
    ]


def check_edited(before: str, after: str, expected_after: Any) -> None:
    """``after``, an edit of ``before``, is ``expected_after``: the whole document (a
    text written in the test), or the lines the edit changes (``changed_lines``) as a
    ``snapshot(...)``, which ``--inline-snapshot=fix`` updates (tests/README.md)."""
    if isinstance(expected_after, str):
        assert after == expected(expected_after)
    else:
        assert changed_lines(before, after) == expected_after
