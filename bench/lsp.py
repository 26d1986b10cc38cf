"""Benchmark of ``wfls serve`` over a real stdio session, as an editor drives it.

Run: ``.venv/bin/python bench/lsp.py [NODES...]`` (default 500 1000 2000 4000);
``make bench-scaling`` runs 500 to 16,000 nodes with both sync kinds and the
``wfls check`` timing; ``make soak-memory`` runs the memory soak.

Per generated workflow (``generate.generate_toml``) and sync kind it measures,
from the client's side of the pipe (``bench/lspclient.py``):

- initialize: process start until the ``initialize`` answer;
- open → diagnostics: ``didOpen`` until the ``publishDiagnostics`` of version 1;
- edit → diagnostics: an edit of a path segment in the last body node (its
  four characters replaced by ``n000``, ``n001``, ...: every edit makes a text no
  earlier version had, as typing does) until the ``publishDiagnostics`` of that
  version (median), right after opening, while the server builds the document's
  first semantic index (whose slices each edit may wait for); and the same again
  at the end of the session (``edit_later``), that index long built;
- completion / hover after an edit: an edit, then the request at once, timed
  until the answer; the diagnostics of each edit are awaited untimed
  afterwards, so one measurement never overlaps the next. Median, 95th
  percentile and slowest; the first request follows the timed edits at once,
  so it is the one that finds no semantic index built ahead;
- the server's peak resident memory (``VmHWM`` of ``/proc/<pid>/status``).

``--sync`` chooses incremental changes (the default), full-document changes,
or both. ``--check N...`` also times ``wfls check`` (wall clock of the
command, median of five) on generated workflows of N nodes. Per-node costs
(ms per 1,000 nodes) of the figures that grow with the document are printed,
with the ratio of the per-node cost at the largest size to that at 2,000
nodes (1.0 = linear).

``--soak STEPS`` instead runs one long session (``--soak-nodes``, default
2,000): each step is an edit inside a path string (its last segment becomes
``n000``, ``n001``, ...) followed by a completion or a hover; every 500 steps
it waits for that version's diagnostics and prints the server's resident memory.

The client declares push diagnostics only, the common case. The server
analyses an edit as soon as it is free (edits that arrive during an analysis
are coalesced into the next one), and the diagnostics figures run until the
push of the edited version. Raw results go to ``bench/results/`` as JSON, the
tables to a section of ``docs/performance.md`` (``--section``: by default
``soak-memory`` for the soak, ``scaling`` for sessions, ``check`` for ``--check``
alone). Timings are printed, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import generate_toml
from lspclient import Server, median_ms, p95_ms
from lsprotocol import types
from report import table, targets, write_section

SIZES = (500, 1000, 2000, 4000)
RESULTS = Path(__file__).resolve().parent / "results"
FIGURES = ("open", "edit", "edit_later", "completion", "hover")
"""The figures that grow with the document (initialize does not)."""


def wfls_server() -> Server:
    return Server("wfls", [sys.executable, "-m", "wfls", "serve"])


def edit_point(text: str) -> int:
    """Start of ``name`` in the last body node's ``...item.name`` path."""
    return text.rindex(".item.name") + len(".item.")


async def measure(nodes: int, incremental: bool, edits: int, requests: int) -> dict[str, Any]:
    text = generate_toml(nodes)
    server = wfls_server()
    try:
        await server.start()
        session = server.open(
            f"file:///bench/generated-{nodes}.wf.toml", "toml", text, incremental=incremental
        )
        open_time = await session.open_time()
        segment = edit_point(text)
        # Every edit writes a segment no earlier version had (``n000``, ``n001``, ...), as
        # typing does: an edit back to a text already analysed would reuse that analysis.
        fresh = (f"n{i:03d}" for i in range(1000))
        edit_times = [await session.edit_time(segment, 4, next(fresh)) for _ in range(edits)]
        after_edit: dict[str, list[float]] = {"completion": [], "hover": []}
        for method, times in after_edit.items():
            for _ in range(requests):
                published = session.expect(session.version + 1)
                session.edit(segment, 4, next(fresh))
                if method == "completion":
                    spent, answered = await session.completion(segment)
                else:
                    spent, answered = await session.hover(segment - 3)
                if not answered:
                    raise RuntimeError(f"{method} gave no answer after an edit ({nodes} nodes)")
                times.append(spent)
                await session.wait(published)
        # The same edits again, the first semantic index long built (the requests above
        # waited for it): what typing costs once the document has been open a while.
        later = [await session.edit_time(segment, 4, next(fresh)) for _ in range(edits)]
        peak = server.rss()
    finally:
        await server.close()
    return {
        "nodes": nodes,
        "lines": text.count("\n"),
        "sync": "incremental" if incremental else "full",
        "initialize": server.initialize_time * 1000,
        "open": open_time * 1000,
        "edit": median_ms(edit_times),
        "edit_later": median_ms(later),
        "completion": median_ms(after_edit["completion"]),
        "completion_p95": p95_ms(after_edit["completion"]),
        "completion_max": max(after_edit["completion"]) * 1000,
        "hover": median_ms(after_edit["hover"]),
        "hover_p95": p95_ms(after_edit["hover"]),
        "hover_max": max(after_edit["hover"]) * 1000,
        "edits": [t * 1000 for t in edit_times],
        "edits_later": [t * 1000 for t in later],
        "completions": [t * 1000 for t in after_edit["completion"]],
        "hovers": [t * 1000 for t in after_edit["hover"]],
        "peak_rss_mb": peak,
        "decode_lag": median_ms(session.decode_lags),
    }


def check_time(nodes: int, runs: int = 5) -> dict[str, Any]:
    """Wall clock of ``wfls check`` on a generated workflow (median of ``runs``)."""
    wfls = Path(sys.executable).with_name("wfls")
    command = [str(wfls)] if wfls.exists() else [sys.executable, "-m", "wfls"]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"generated-{nodes}.wf.toml"
        path.write_text(generate_toml(nodes))
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            done = subprocess.run(
                [*command, "check", str(path)], capture_output=True, timeout=600, check=False
            )
            times.append(time.perf_counter() - start)
            if done.returncode not in (0, 1):
                raise RuntimeError(f"wfls check failed: {done.stderr.decode()[-500:]}")
    return {"nodes": nodes, "check": median_ms(times), "runs": [t * 1000 for t in times]}


def per_node_table(rows: list[dict[str, Any]]) -> str:
    """ms per 1,000 nodes, and the largest size's per-node cost over that at 2,000 nodes."""
    out = []
    for sync in ("incremental", "full"):
        mine = [r for r in rows if r["sync"] == sync]
        if not mine:
            continue
        out.append(f"per-node cost, {sync} sync (ms per 1,000 nodes):")
        out.append(f"{'nodes':>6} " + " ".join(f"{f:>11}" for f in FIGURES))
        for r in mine:
            cells = " ".join(f"{r[f] / r['nodes'] * 1000:>11.1f}" for f in FIGURES)
            out.append(f"{r['nodes']:>6} {cells}")
        base = next((r for r in mine if r["nodes"] == 2000), None)
        top = max(mine, key=lambda r: r["nodes"])
        if base and top is not base:
            cells = " ".join(
                f"{(top[f] / top['nodes']) / (base[f] / base['nodes']):>10.2f}x" for f in FIGURES
            )
            out.append(f"{top['nodes'] // 1000}k/2k {cells}")
    return "\n".join(out)


TIMES = "\N{MULTIPLICATION SIGN}"
RATIO_LIMIT = 1.5
"""Per-node cost at the largest size over that at 2,000 nodes, for every figure."""
REQUEST_BUDGET_MS = 30.0
"""Completion and hover right after an edit at 16,000 nodes (medians)."""
CHECK_BUDGET_MS = 3000.0
"""``wfls check`` of 14,000 nodes."""
SOAK_FLATNESS = 0.10
"""The soak's resident memory may vary by this share of its lowest figure."""


def _ms(value: float) -> str:
    return f"{value:,.0f} ms"


def _requests(row: dict[str, Any], method: str) -> str:
    return f"{row[method]:.0f} / {row[method + '_p95']:.0f} / {row[method + '_max']:.0f} ms"


def scaling_markdown(rows: list[dict[str, Any]], checks: list[dict[str, Any]]) -> str:
    """The sessions' table, the per-node cost ratios, the ``wfls check`` times, the targets."""
    parts = []
    goals: list[tuple[str, str, bool]] = []
    if rows:
        header = [
            "nodes",
            "lines",
            "sync",
            "initialize",
            "open → diagnostics",
            "edit → diagnostics",
            "edit, later",
            "completion after an edit",
            "hover after an edit",
            "peak RSS",
        ]
        cells = [
            (
                f"{r['nodes']:,}",
                f"{r['lines']:,}",
                r["sync"],
                _ms(r["initialize"]),
                _ms(r["open"]),
                _ms(r["edit"]),
                _ms(r["edit_later"]),
                _requests(r, "completion"),
                _requests(r, "hover"),
                f"{r['peak_rss_mb']:,.0f} MB",
            )
            for r in rows
        ]
        parts.append(table(header, cells, "rrl" + "r" * 7))
        figures = (*FIGURES, "peak_rss_mb")
        ratios = []
        for sync in ("incremental", "full"):
            mine = [r for r in rows if r["sync"] == sync]
            base = next((r for r in mine if r["nodes"] == 2000), None)
            top = max(mine, key=lambda r: r["nodes"], default=None)
            if base is None or top is None or top is base:
                continue
            per_node = [(top[f] / top["nodes"]) / (base[f] / base["nodes"]) for f in figures]
            ratios.append((f"{sync} sync", *(f"{x:.2f}{TIMES}" for x in per_node)))
            worst = max(per_node)
            goals.append(
                (
                    f"every figure's per-node cost at {top['nodes']:,} nodes within "
                    f"{RATIO_LIMIT}{TIMES} of that at 2,000 ({sync} sync)",
                    f"{worst:.2f}{TIMES} at most",
                    worst <= RATIO_LIMIT,
                )
            )
            if top["nodes"] == 16000:
                slowest = max(top["completion"], top["hover"])
                goals.append(
                    (
                        f"completion and hover right after an edit at 16,000 nodes within "
                        f"{REQUEST_BUDGET_MS:.0f} ms ({sync} sync)",
                        f"medians {top['completion']:.0f} and {top['hover']:.0f} ms; 95th "
                        f"percentiles {top['completion_p95']:.0f} and {top['hover_p95']:.0f} ms",
                        slowest <= REQUEST_BUDGET_MS,
                    )
                )
        if ratios:
            top_nodes = max(r["nodes"] for r in rows)
            header = [
                f"per-node cost, {top_nodes:,} ÷ 2,000 nodes",
                "open → diagnostics",
                "edit → diagnostics",
                "edit, later",
                "completion",
                "hover",
                "peak RSS",
            ]
            parts.append(table(header, ratios, "l" + "r" * 6))
        parts.append(
            "Not counted above: this client decoding a publication (median): "
            + ", ".join(f"{r['decode_lag']:.0f} ms at {r['nodes']:,} ({r['sync']})" for r in rows)
            + "."
        )
    for c in checks:
        runs = c["runs"]
        parts.append(
            f"`wfls check` on {c['nodes']:,} nodes: {c['check']:,.0f} ms, median of "
            f"{len(runs)} ({min(runs):,.0f} to {max(runs):,.0f} ms)."
        )
        if c["nodes"] == 14000:
            goals.append(
                (
                    f"`wfls check` of 14,000 nodes within {CHECK_BUDGET_MS / 1000:.0f} s",
                    _ms(c["check"]),
                    c["check"] <= CHECK_BUDGET_MS,
                )
            )
    if goals:
        parts.append(targets(goals))
    return "\n\n".join(parts)


def soak_markdown(nodes: int, steps: int, samples: list[dict[str, float]]) -> str:
    """The soak's memory from its first sample on, and whether it stayed flat."""
    if not samples:
        return f"{steps:,} steps on {nodes:,} nodes: no sample was taken."
    rss = [s["rss_mb"] for s in samples]
    per_step = [s["ms_per_step"] for s in samples]
    low, high = min(rss), max(rss)
    text = (
        f"{steps:,} steps on {nodes:,} nodes, every part of the semantic index made first, each "
        f"step an edit inside a path string then a completion or a hover: resident memory "
        f"{low:,.0f} to {high:,.0f} MB from step "
        f"{samples[0]['step']:,} to step {samples[-1]['step']:,} (peak "
        f"{max(s['peak_mb'] for s in samples):,.0f} MB), {min(per_step):.1f} to "
        f"{max(per_step):.1f} ms per step."
    )
    goal = f"memory flat within {SOAK_FLATNESS:.0%} over {steps:,} edits and requests"
    return (
        text
        + "\n\n"
        + targets([(goal, f"{low:,.0f} to {high:,.0f} MB", high <= low * (1 + SOAK_FLATNESS))])
    )


def print_row(row: dict[str, Any]) -> None:
    print(
        f"{row['nodes']:>6} {row['lines']:>8,} {row['sync']:>11} {row['initialize']:>8.0f}ms "
        f"{row['open']:>8.0f}ms {row['edit']:>8.0f}ms {row['edit_later']:>8.0f}ms "
        f"{row['completion']:>5.0f}/{row['completion_p95']:>4.0f}/{row['completion_max']:>5.0f} ms "
        f"{row['hover']:>5.0f}/{row['hover_p95']:>4.0f}/{row['hover_max']:>5.0f} ms "
        f"{row['peak_rss_mb']:>6.0f} MB",
        flush=True,
    )


def save(kind: str, result: dict[str, Any]) -> Path:
    RESULTS.mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    result = {"date": stamp, **result}
    path = RESULTS / f"{kind}-{stamp}.json"
    for target in (path, RESULTS / f"{kind}-latest.json"):
        target.write_text(json.dumps(result, indent=1))
    return path


async def soak(nodes: int, steps: int, every: int = 500) -> list[dict[str, float]]:
    """One session of ``steps`` edits, each followed by a completion or a hover."""
    text = generate_toml(nodes)
    server = wfls_server()
    samples = []
    try:
        await server.start()
        uri = f"file:///bench/soak-{nodes}.wf.toml"
        session = server.open(uri, "toml", text)
        await session.open_time()
        # Every part of the semantic index made first (a question about the whole
        # document): the server builds it ahead in quiet moments anyway, and the soak
        # measures what a session of edits adds to a document's whole analysis.
        await server.request(
            types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL,
            types.SemanticTokensParams(text_document=types.TextDocumentIdentifier(uri=uri)),
        )
        segment = edit_point(text)
        print(f"{'step':>6} {'RSS':>8} {'peak':>8} {'step ms':>8}", flush=True)
        started = time.perf_counter()
        for step in range(1, steps + 1):
            last = step % every == 0
            published = session.expect(session.version + 1) if last else None
            # Each step writes a text no earlier version had: a text equal to the
            # analysed one is not answered through the edit (it waits for an analysis).
            session.edit(segment, 4, f"n{step % 1000:03d}")
            if step % 2:
                await session.completion(segment)
            else:
                await session.hover(segment - 3)
            if published is not None:
                await session.wait(published)
                sample = {
                    "step": step,
                    "rss_mb": server.rss("VmRSS"),
                    "peak_mb": server.rss("VmHWM"),
                    "ms_per_step": (time.perf_counter() - started) / every * 1000,
                }
                samples.append(sample)
                print(
                    f"{step:>6} {sample['rss_mb']:>5.0f} MB {sample['peak_mb']:>5.0f} MB "
                    f"{sample['ms_per_step']:>8.1f}",
                    flush=True,
                )
                started = time.perf_counter()
    finally:
        await server.close()
    return samples


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("nodes", nargs="*", type=int, help=f"sizes (default {SIZES})")
    parser.add_argument("--sync", choices=("incremental", "full", "both"), default="incremental")
    parser.add_argument("--edits", type=int, default=10)
    parser.add_argument("--requests", type=int, default=30, help="per method, each after an edit")
    parser.add_argument("--check", nargs="*", type=int, default=[], metavar="NODES")
    parser.add_argument("--soak", type=int, metavar="STEPS", help="run the memory soak instead")
    parser.add_argument("--soak-nodes", type=int, default=2000)
    parser.add_argument(
        "--section", help="the section of docs/performance.md the figures go to (see above)"
    )
    args = parser.parse_args(argv)

    if args.soak:
        print(
            f"memory soak: {args.soak} edits, each then a completion or hover, "
            f"{args.soak_nodes} nodes; diagnostics awaited every 500 steps"
        )
        samples = asyncio.run(soak(args.soak_nodes, args.soak))
        path = save("soak", {"nodes": args.soak_nodes, "steps": args.soak, "samples": samples})
        print(f"raw results: {path.relative_to(RESULTS.parent.parent)}")
        write_section(
            args.section or "soak-memory", soak_markdown(args.soak_nodes, args.soak, samples)
        )
        return 0

    sizes = args.nodes or ([] if args.check else list(SIZES))
    syncs = [True, False] if args.sync == "both" else [args.sync == "incremental"]
    rows: list[dict[str, Any]] = []
    if sizes:
        print(
            f"wfls serve over stdio; edit: median of {args.edits} right after opening, later: "
            f"median of {args.edits} at the session's end; completion/hover: "
            f"median / p95 / slowest of {args.requests} requests, each right after an edit "
            "(the first of them comes right after the edits, before any index was built ahead)"
        )
        header = (
            f"{'nodes':>6} {'lines':>8} {'sync':>11} {'init':>10} {'open→diag':>10} "
            f"{'edit→diag':>10} {'later':>10} {'completion':>19} {'hover':>19} {'peak RSS':>9}"
        )
        print(header)
        print("-" * len(header))
        for nodes in sizes:
            for incremental in syncs:
                row = asyncio.run(measure(nodes, incremental, args.edits, args.requests))
                rows.append(row)
                print_row(row)
        print()
        print(per_node_table(rows))
        print()
        print(
            "not counted above: this client decoding a publication (median ms): "
            + ", ".join(f"{r['decode_lag']:.0f} at {r['nodes']:,} ({r['sync']})" for r in rows)
        )
    checks = []
    for nodes in args.check:
        checks.append(check_time(nodes))
        c = checks[-1]
        print(
            f"wfls check, {nodes:,} nodes: {c['check']:,.0f} ms "
            f"({c['check'] / nodes * 1000:.1f} ms per 1,000 nodes)",
            flush=True,
        )
    # A run of ``--check`` alone is kept apart: the plot reads the latest scaling rows.
    kind = "scaling" if rows else "check"
    path = save(kind, {"rows": rows, "check": checks, "settings": vars(args)})
    print(f"raw results: {path.relative_to(RESULTS.parent.parent)}")
    write_section(args.section or kind, scaling_markdown(rows, checks))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
