"""Properties of editing features over many positions and names.

- Accepting any completion offered inside a path string introduces no error.
- Renaming any renameable name to any fresh valid name introduces no error, and
  renaming it back gives the original text.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.features.fixture import analyze, apply, errors
from wf_core.semantic.occurrences import PathRole, SymbolKind
from wfls.features.completion import complete
from wfls.features.rename import RENAMEABLE, rename
from wfls.features.types import Refusal

EXAMPLES = Path(__file__).parents[2] / "examples"
DOCUMENTS = [
    (EXAMPLES / "billing.wf.toml").read_text(),
    (EXAMPLES / "approvals.wf.json").read_text(),
]
SNAPSHOTS = [analyze(text) for text in DOCUMENTS]
NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,6}(\.[a-z0-9]{1,3})?", fullmatch=True)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(range(len(DOCUMENTS))), st.data())
def test_accepting_any_path_completion_adds_no_error(which: int, data: st.DataObject) -> None:
    """Cut a read before its last segment, complete it, accept any candidate.

    Only reads: a foreach ``over`` must name an array (another member is an error
    whatever completion offers), and two write targets may collide.
    """
    snapshot = SNAPSHOTS[which]
    reads = (PathRole.SOURCE, PathRole.CONDITION, PathRole.OUTPUT)
    paths = [p for p in snapshot.index.paths if len(p.segments) > 1 and p.role in reads]
    path = data.draw(st.sampled_from(paths))
    keep = len(path.segments) - 1
    cut = path.segments[keep - 1].span.end if keep else path.literal.content.start
    text = snapshot.text
    dot = "." if keep else ""
    prefix = text[:cut] + dot
    typed = prefix + text[path.literal.content.end :]
    typed_snapshot = analyze(typed)
    candidates = complete(typed_snapshot, len(prefix))
    if not candidates:
        return
    candidate = data.draw(st.sampled_from(candidates))
    accepted = apply(typed, [(candidate.replace, candidate.insert_text)])
    assert set(errors(analyze(accepted))) <= set(errors(snapshot)), (
        path.literal.value,
        candidate.label,
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(range(len(DOCUMENTS))), st.data(), NAMES)
def test_rename_then_rename_back_is_the_identity(
    which: int, data: st.DataObject, name: str
) -> None:
    snapshot = SNAPSHOTS[which]
    renameable = [
        o
        for o in snapshot.index.occurrences
        if o.symbol is not None and o.symbol.kind in RENAMEABLE
    ]
    occurrence = data.draw(st.sampled_from(renameable))
    old = occurrence.symbol.name if occurrence.symbol else ""
    if occurrence.symbol is not None and occurrence.symbol.kind == SymbolKind.ALIAS:
        name = name.replace(".", "_")
    try:
        edits = rename(snapshot, occurrence.span.start, name)
    except Refusal:
        return  # a collision or a reserved name: refused, nothing half-done
    text = apply(snapshot.text, [(e.span, e.new_text) for e in edits])
    renamed = analyze(text)
    assert errors(renamed) == errors(snapshot)
    moved = next(
        o
        for o in renamed.index.occurrences
        if o.symbol is not None and o.symbol.kind == occurrence.symbol.kind and o.name == name
    )
    back = rename(renamed, moved.span.start, old)
    assert apply(text, [(e.span, e.new_text) for e in back]) == snapshot.text
