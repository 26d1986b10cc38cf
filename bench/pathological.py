"""Pathological documents: each case in a fresh process, with its outcome, time and memory.

Run: ``.venv/bin/python bench/pathological.py [CASE...]`` (``make bench-pathological``).
Every case runs the analysis the server runs on an opened document (parse,
model, validation, the workspace findings, the semantic index) and the main
editor features (completion and hover at a few points, document symbols,
semantic tokens, folding ranges, inlay hints), or, for the on-disk cases,
``Workspace.scan`` and ``wfls check DIR``. The table gives each case's outcome
(the first diagnostic code, ``empty`` for none, or what went wrong: ``crash``,
``hang``), the wall time of the child process and its peak RSS (``wait4``).
Raw results go to ``bench/results/pathological-<time>.json``, the table to the
``pathological`` section of ``docs/performance.md``.

The cases come from ``wf_core.authoring.generate_pathological``, from which
``tests/test_pathological.py`` builds the same documents (``build(name, full=False)``,
smaller where the full size is too slow for ``make test``) to assert each outcome.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tempfile
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

from report import table, write_section  # noqa: E402

from wf_core.authoring.generate_pathological import CASES, Case, build  # noqa: E402

DEADLINE = float(os.environ.get("PATHO_DEADLINE", "300"))
"""Seconds a case may take before it counts as a hang."""


# -- exercising a case --------------------------------------------------------------------


def exercise(case: Case) -> dict[str, Any]:
    """What the server computes for an opened document, and the main features' answers."""
    from wf_core.version.snapshot import analyze_text
    from wf_core.workspace.catalog import Workspace
    from wf_core.workspace.checks import document_issues
    from wf_core.workspace.files import Roots
    from wfls.exercise import feature_figures

    snapshot = analyze_text(case.text, case.syntax, uri="file:///patho.wf." + case.syntax)
    workspace = Workspace(Roots([]))
    workspace.put(snapshot.uri or "", snapshot)
    issues = document_issues(workspace, snapshot.uri or "")
    answers = feature_figures(snapshot, workspace, case.cursors)
    result: dict[str, Any] = {
        "codes": [p.code for p in issues],
        "first": _first(issues),
        "messages": sorted({p.message for p in issues if p.severity.value == "error"})[:5],
        **answers,
    }
    if case.run_input is not None:
        result["run"] = _run(snapshot, case.run_input)
        if result["run"].startswith("refused"):
            result["first"] += "; run refused"
    return result


def _first(issues: Any) -> str:
    """The outcome: the first error's code, else the first finding's, else ``empty``."""
    errors = [p for p in issues if p.severity.value == "error"]
    chosen = errors or list(issues)
    return chosen[0].code if chosen else "empty"


def _run(snapshot: Any, run_input: Any) -> str:
    from wf_core.runtime import execute_workflow, stand_in_handlers
    from wf_core.runtime.errors import WorkflowRefused

    try:
        result = execute_workflow(
            snapshot.workflow, run_input, stand_in_handlers(snapshot.workflow)
        )
    except WorkflowRefused as refused:
        return f"refused: {refused}"
    return f"{result.status}: {result.error or result.outcome}"


def exercise_folder(case: Case) -> dict[str, Any]:
    """``Workspace.scan`` of the folder and ``wfls check --format json`` of it."""
    from wf_core.workspace.catalog import Workspace
    from wf_core.workspace.checks import document_issues
    from wf_core.workspace.files import Roots
    from wfls.cli import main

    assert case.make_folder is not None
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "ws"
        folder.mkdir()
        case.make_folder(folder)
        workspace = Workspace(Roots([folder]))
        scan = workspace.scan()
        indexed = sorted(
            (Path(d.path or "").name, [p.code for p in document_issues(workspace, d.uri)])
            for d in workspace.documents()
        )
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            status = main(["check", "--format", "json", str(folder)])
        findings = json.loads(out.getvalue())
        return {
            "skipped": sorted((s.path.name, s.reason) for s in scan.skipped),
            "indexed": indexed,
            "check_status": status,
            "check": [(Path(f["file"]).name, f["code"]) for f in findings],
            "check_stderr": err.getvalue().replace(tmp, "<tmp>").splitlines(),
            "first": findings[0]["code"]
            if findings
            else f"skipped: {scan.skipped[0].reason}"
            if scan.skipped
            else "empty",
        }


def run_one(name: str, full: bool) -> dict[str, Any]:
    case = build(name, full=full)
    if case.make_folder is not None:
        return exercise_folder(case)
    return {**exercise(case), **case.notes}


# -- the table ----------------------------------------------------------------------------


def _measure(name: str) -> dict[str, Any]:
    """Run one case in a fresh interpreter; wall time, peak RSS from ``wait4``."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "server"), str(ROOT)])}
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, __file__, "--child", name], stdout=out, stderr=err, env=env
        )
        status, rusage = 0, None
        while True:
            pid, status, rusage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - started > DEADLINE:
                child.kill()
                _, status, rusage = os.wait4(child.pid, 0)
                break
            time.sleep(0.02)
        child.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        text, errors = out.read(), err.read()
    result: dict[str, Any] = {
        "case": name,
        "wall_s": round(wall, 2),
        "peak_rss_mb": round(rusage.ru_maxrss / 1024, 1) if rusage else None,
    }
    if wall > DEADLINE:
        result["outcome"] = "hang"
    elif child.returncode != 0 or not text.strip():
        result["outcome"] = "crash"
        result["stderr"] = errors[-2000:]
    else:
        detail = json.loads(text)
        result["outcome"] = detail["first"]
        result["detail"] = detail
        if errors.strip():
            result["stderr"] = errors[-2000:]
    return result


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        sys.stdout.write(json.dumps(run_one(argv[1], full=True), default=str))
        return 0
    unknown = [name for name in argv if name not in CASES]
    if unknown:
        print(
            f"usage: bench/pathological.py [CASE...]; unknown case {unknown[0]!r}; "
            f"the cases: {', '.join(CASES)}",
            file=sys.stderr,
        )
        return 2
    names = argv or list(CASES)
    rows = []
    print(f"{'case':<38} {'outcome':<36} {'wall':>9} {'peak RSS':>10}")
    for name in names:
        row = _measure(name)
        rows.append(row)
        rss = f"{row['peak_rss_mb']:.0f} MB" if row["peak_rss_mb"] is not None else "?"
        print(f"{name:<38} {row['outcome']:<36} {row['wall_s']:>7.2f} s {rss:>10}", flush=True)
    results = BENCH / "results"
    results.mkdir(exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    (results / f"pathological-{stamp}.json").write_text(json.dumps(rows, indent=2, default=str))
    cells = [
        (
            name,
            f"`{row['outcome']}`",
            f"{row['wall_s']:.2f} s",
            f"{row['peak_rss_mb']:,.0f} MB" if row["peak_rss_mb"] is not None else "?",
        )
        for name, row in zip(names, rows, strict=True)
    ]
    write_section(
        "pathological",
        "Each case in a fresh process: its first finding (or `empty`), the process's wall time "
        "(imports included) and peak RSS.\n\n"
        + table(["case", "outcome", "wall", "peak RSS"], cells, "llrr"),
    )
    return 1 if any(r["outcome"] in ("crash", "hang") for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
