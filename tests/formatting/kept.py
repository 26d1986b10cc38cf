"""What formatting must keep, as functions of two texts: the meaning (the loaded model
and ``wfls check``'s findings) and the comments (each before the same item)."""

from __future__ import annotations

from wf_core.authoring.export import same_model, source_notes
from wf_core.base.locations import Location
from wf_core.base.reading import Syntax
from wf_core.documents import parse_document
from wf_core.version.snapshot import analyze_text

Finding = tuple[str, str, str | None]


def findings(text: str, syntax: Syntax) -> list[Finding]:
    """``wfls check``'s findings of a text by code, message and model path (positions
    move when a document is formatted)."""
    snapshot = analyze_text(text, syntax)
    return sorted((p.code, p.issue.message, p.model_path) for p in snapshot.issues)


def assert_meaning_kept(before: str, after: str, syntax: Syntax) -> None:
    old, new = analyze_text(before, syntax), analyze_text(after, syntax)
    assert same_model(old.workflow, new.workflow)
    assert findings(after, syntax) == findings(before, syntax)


def comments(text: str) -> dict[tuple[str, Location], list[str]]:
    """A TOML text's comments by the item they go with: above it (``before``), on its
    line (``trailing``) or before an array's closing bracket (``closing``)."""
    notes = source_notes(parse_document(text, "toml"))
    found: dict[tuple[str, Location], list[str]] = {}
    for where, table in (("before", notes.before), ("closing", notes.closing)):
        for location, lines in table.items():
            kept = [line for line in lines if line]
            if kept:
                found[where, location] = kept
    for where, trails in (("trailing", notes.trailing), ("closing", notes.closing_trailing)):
        for location, comment in trails.items():
            found.setdefault((where, location), []).append(comment)
    return found


def assert_comments_kept(before: str, after: str) -> None:
    assert comments(after) == comments(before)
