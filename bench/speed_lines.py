"""How many production lines exist only for speed, counted into docs/architecture.md.

A line exists only for speed when the program would give the same answers without it,
only later: a memo, a derived value found again, a fast path beside a slower one that
gives the same result, a scheduling heuristic. The modules and definitions that are
such code are listed below (a module whole, or a class or function in it by name);
their lines, blank lines and docstrings included, are counted against every line of
``wf_core/`` and ``server/wfls/`` (generated and vendored files aside). The list is the
judgement; the count is this script's.

Usage: ``python bench/speed_lines.py`` (``make speed-lines``) writes the table into
docs/architecture.md, between its ``speed-lines`` markers.
"""

from __future__ import annotations

import ast
import subprocess
import sys

from report import ROOT, table, write_section

SPEED_ONLY: tuple[tuple[str, str | None, str], ...] = (
    ("wf_core/base/derived.py", None, "the incremental model: derived values found again"),
    ("wf_core/validation/memo.py", None, "each node's findings as derived values"),
    ("wf_core/semantic/parts.py", None, "the semantic index in parts derived by content"),
    ("wf_core/base/collector.py", None, "the cyclic collector paused during analyses"),
    ("wf_core/base/records.py", None, "value classes cheaper to make than frozen dataclasses"),
    ("wf_core/base/mappings.py", None, "mapping checks answered by type"),
    ("server/wfls/diagnostics_memo.py", None, "converted diagnostics found again"),
    ("wf_core/analysis/context_scopes.py", "context_model", "the context model's early cut-off"),
    ("wf_core/analysis/context_scopes.py", "_outer_key", ""),
    ("wf_core/analysis/context_scopes.py", "_node_key", ""),
    ("wf_core/analysis/context_scopes.py", "_edge_key", ""),
    ("wf_core/analysis/context_scopes.py", "_warm_model", ""),
    (
        "wf_core/version/snapshot.py",
        "DocumentSnapshot._place_reusing",
        "placements moved, not made",
    ),
    ("wf_core/base/spans.py", "LineIndex.edited", "line indexes derived edit by edit"),
    ("wf_core/base/spans.py", "LineIndex.unchanged_before", ""),
    ("wf_core/base/edits.py", "Region", "the region an edit changed, composed"),
    ("wf_core/base/edits.py", "apply_in_order", ""),
    ("wf_core/documents/parser.py", "DocumentParser", "statements reused, tree edited"),
    ("wf_core/documents/source_map.py", "SourceMap.element_keys", "content keys of elements"),
    ("wf_core/documents/source_map.py", "SourceMap.element_bases", ""),
    ("wf_core/documents/source_map.py", "SourceMap._elements", ""),
    ("wf_core/documents/source_map.py", "SourceMap._make_element_keys", ""),
    ("wf_core/documents/source_map.py", "SourceMap.plain_string", ""),
    ("wf_core/documents/source_map.py", "SourceMap.placement_at", "a version spliced, not read"),
    ("wf_core/documents/source_map.py", "SourceMap.next_base", ""),
    ("wf_core/documents/source_map.py", "SourceMap.spliced", ""),
    ("wf_core/documents/source_map.py", "SourceMap._spliced_elements", ""),
    ("wf_core/documents/source_map.py", "SourceMap._offset", ""),
    ("wf_core/documents/source_map.py", "SourceMap._global", ""),
    ("wf_core/documents/source_map.py", "_section_end", ""),
    ("wf_core/documents/source_map.py", "SourceMap.ranges_of", "ranges without entries made"),
    ("wf_core/documents/source_map.py", "Chunk.read", ""),
    ("wf_core/documents/source_map.py", "Chunk.element_keys", ""),
    ("wf_core/documents/toml_chunks.py", None, "the fast TOML reader beside the tree's"),
    ("server/wfls/scheduling.py", "Scheduler.wait_for_quiet", "scheduling around the GIL"),
    ("server/wfls/scheduling.py", "Scheduler.index_ahead", ""),
    ("server/wfls/scheduling.py", "Scheduler.schedule_push", ""),
    ("server/wfls/scheduling.py", "Scheduler.jobs_waiting", ""),
    ("server/wfls/scheduling.py", "Scheduler._started", ""),
    (
        "server/wfls/features/references.py",
        "make_symbol_parts",
        "the index parts a request reads, made off the loop",
    ),
    ("server/wfls/handlers/references.py", "AtPosition", ""),
    ("server/wfls/handlers/references.py", "make_parts", ""),
    ("server/wfls/context.py", "InRange", ""),
    ("server/wfls/context.py", "make_range_parts", ""),
    (
        "server/wfls/features/semantic_tokens.py",
        "token_runs",
        "semantic tokens encoded once per part, kept with it",
    ),
    ("server/wfls/features/semantic_tokens.py", "_run_start", ""),
    ("server/wfls/features/semantic_tokens.py", "_tokens_of", ""),
    ("server/wfls/features/types.py", "TokenRun", ""),
    ("server/wfls/convert.py", "semantic_token_runs_data", ""),
    ("server/wfls/convert.py", "_EncodedRun", ""),
    ("server/wfls/convert.py", "_encoded_run", ""),
    ("server/wfls/convert.py", "_run_key", ""),
    ("server/wfls/convert.py", "_shared", "a delta's shared start and end found by blocks"),
    (
        "server/wfls/handlers/semantic_tokens_full.py",
        "moved",
        "a delta made from what changed since the last result",
    ),
    ("server/wfls/handlers/semantic_tokens_full.py", "_result", ""),
    ("server/wfls/features/semantic_tokens.py", "changed_span", ""),
    ("server/wfls/features/semantic_tokens.py", "element_keys", ""),
    ("server/wfls/features/semantic_tokens.py", "document_tokens", ""),
    ("server/wfls/convert.py", "semantic_tokens_spliced", ""),
    ("server/wfls/convert.py", "_absolute_last", ""),
    ("server/wfls/convert.py", "_relative", ""),
    (
        "wf_core/version/snapshot.py",
        "DocumentSnapshot.issues_touching",
        "the findings a request reads placed alone",
    ),
    ("wf_core/version/snapshot.py", "DocumentSnapshot.reported", ""),
    ("wf_core/version/snapshot.py", "DocumentSnapshot.issues_with_code", ""),
    ("wf_core/version/snapshot.py", "DocumentSnapshot._element_around", ""),
    ("wf_core/version/snapshot.py", "DocumentSnapshot._may_land_in", ""),
    (
        "server/wfls/contexts.py",
        "RequestContexts.context_here",
        "a request's analysis and answer in one worker job",
    ),
    ("server/wfls/store.py", "TextVersion", "the regions of the store's updates"),
)
"""(file, definition or None for the whole module, what it is for)."""

BASELINE = "f4edcf4"
"""The tree the architecture review read, before the incremental model: counted the same
way (the same kinds of code, under the names they had then), for the comparison."""

BASELINE_SPEED_ONLY: tuple[tuple[str, str | None], ...] = (
    ("wf_core/validation/memo.py", None),
    ("wf_core/validation/document_checks.py", "DocumentChecksMemo"),
    ("wf_core/models/loading.py", "ModelCache"),
    ("wf_core/analysis/context_scopes.py", "ContextCache"),
    ("wf_core/placing.py", None),
    ("server/wfls/diagnostics_memo.py", None),
    ("wf_core/overlay.py", None),
    ("wf_core/node_view.py", None),
    ("wf_core/semantic/index.py", "IndexIncomplete"),
    ("wf_core/semantic/index.py", "NodeIndex"),
    ("wf_core/semantic/build.py", "IndexCancelled"),
    ("wf_core/semantic/build.py", "IndexBuilder.node_index"),
    ("wf_core/snapshot.py", "DocumentSnapshot._build_index"),
    ("wf_core/snapshot.py", "DocumentSnapshot.has_index"),
    ("wf_core/snapshot.py", "DocumentSnapshot.build_index"),
    ("server/wfls/generated_code.py", None),
    ("wf_core/forked.py", None),
    ("wf_core/documents/toml_statements.py", None),
    ("wf_core/documents/toml_chunks.py", None),
    ("wf_core/collector.py", None),
    ("wf_core/records.py", None),
    ("wf_core/mappings.py", None),
    ("wf_core/spans.py", "LineIndex.edited"),
    ("wf_core/spans.py", "LineIndex.unchanged_before"),
    ("wf_core/documents/parser.py", "DocumentParser"),
    ("server/wfls/server.py", "WflsServer._index_ahead"),
    ("server/wfls/server.py", "WflsServer.wait_for_quiet"),
    ("server/wfls/server.py", "WflsServer.schedule_push"),
    ("server/wfls/store.py", "DocumentStore.editing_snapshot"),
    ("server/wfls/store.py", "DocumentStore.mark_indexed"),
    ("server/wfls/store.py", "DocumentStore.first_index_under_way"),
    ("server/wfls/store.py", "DocumentStore.has_indexed"),
    ("server/wfls/store.py", "_same_text"),
)

PRODUCTION = ("wf_core", "server/wfls")
NOT_COUNTED = ("assets",)


def _source(path: str, commit: str | None) -> str:
    if commit is None:
        return (ROOT / path).read_text(encoding="utf-8")
    shown = subprocess.run(
        ["git", "show", f"{commit}:{path}"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return shown.stdout


def _lines(source: str) -> int:
    return len(source.splitlines())


def _definition_lines(source: str, name: str, path: str) -> int:
    """Lines of the class or function ``name`` (``Class.method`` for a method)."""
    tree = ast.parse(source)
    body: list[ast.stmt] = tree.body
    node: ast.AST | None = None
    for part in name.split("."):
        node = next(
            (
                n
                for n in body
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                and n.name == part
            ),
            None,
        )
        if node is None:
            raise SystemExit(f"{path}: no definition {name!r}")
        body = getattr(node, "body", [])
    assert node is not None and node.end_lineno is not None
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    return node.end_lineno - first + 1


def _counted(file: str, name: str | None, commit: str | None) -> int:
    source = _source(file, commit)
    return _lines(source) if name is None else _definition_lines(source, name, file)


def production_lines(commit: str | None = None) -> int:
    listed = subprocess.run(
        ["git", "ls-files", *PRODUCTION]
        if commit is None
        else ["git", "ls-tree", "-r", "--name-only", commit, *PRODUCTION],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return sum(
        _lines(_source(path, commit))
        for path in listed
        if path.endswith(".py") and not any(part in NOT_COUNTED for part in path.split("/"))
    )


def main() -> int:
    if sys.argv[1:]:  # it takes no arguments: ``--help`` must not write the page
        print(__doc__)
        return 0 if sys.argv[1:] in (["-h"], ["--help"]) else 2
    rows: list[tuple[str, str, str]] = []
    counted = 0
    for file, name, purpose in SPEED_ONLY:
        lines = _counted(file, name, None)
        counted += lines
        rows.append((f"`{file}`" + (f" `{name}`" if name else ""), purpose, f"{lines:,}"))
    total = production_lines()
    before = sum(_counted(file, name, BASELINE) for file, name in BASELINE_SPEED_ONLY)
    before_total = production_lines(BASELINE)
    rows.append(("**all of the above**", f"of {total:,} production lines", f"**{counted:,}**"))
    rows.append(
        (
            f"the same kinds of code at `{BASELINE}`",
            f"of {before_total:,} production lines, before the incremental model",
            f"{before:,}",
        )
    )
    print(
        f"{counted:,} of {total:,} production lines exist only for speed "
        f"({before:,} of {before_total:,} at {BASELINE})"
    )
    write_section(
        "speed-lines",
        table(["code", "what it is for", "lines"], rows, "llr"),
        page=ROOT / "docs" / "architecture.md",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
