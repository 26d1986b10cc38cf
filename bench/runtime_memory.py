"""Soak: the memory of ``wfls run`` on runs of a million steps, as a user runs it.

Each case is one ``python -m wfls run`` process, with stand-in handlers; its peak
resident memory is the kernel's (``os.wait4``'s ``ru_maxrss``), its wall time the
parent's. The cases are the ones a run's memory could grow with if it kept what it
did: a 1,000,000-item loop (``--items``) without and with ``--trace --format json``
(the trace is read from a pipe as it comes: the time its first line took says it
streams), a node that loops on itself and 30 nested two-item loops, both stopped by
``--max-steps`` (``--steps``). The project's target: the 1,000,000-item loop within
300 MB, trace or not.

Usage: ``python bench/runtime_memory.py [--items 1000000] [--steps 1000000]``
(``make soak-runtime``). Figures are printed and written to the ``runtime-memory``
section of ``docs/performance.md``, never asserted; the tests check, at a small scale,
that what a run holds does not grow with its activations.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from report import table, targets, write_section

TARGET_MB = 300

LOOP = """name = "loop"
start = "items"
edges = [
  { from = "items", outcome = "loop", to = "touch" },
  { from = "touch", outcome = "ok", to = "items" },
  { from = "items", outcome = "done", to = "__end__" },
]

[input_schema]
type = "object"
required = ["xs"]
properties = { xs = { type = "array", items = { type = "integer" } } }

[[node_defs]]
name = "touch"
outcomes = ["ok"]
input_schema = { type = "object", properties = { x = { type = "integer" } } }
output_schema = { type = "object" }

[[nodes]]
id = "items"
type = "foreach"
over = "input.xs"
as = "x"

[[nodes]]
id = "touch"
type = "node"
node = "touch"
input = [{ target = "x", path = "context.foreach.items.item" }]
"""

CYCLE = """name = "cycle"
start = "spin"
edges = [{ from = "spin", outcome = "ok", to = "spin" }]

[input_schema]
type = "object"

[[node_defs]]
name = "spin"
outcomes = ["ok"]
input_schema = { type = "object" }
output_schema = { type = "object" }

[[nodes]]
id = "spin"
type = "node"
node = "spin"
"""


def nested_loops(depth: int) -> str:
    """``depth`` loops, each over the same two items, around one node."""
    ids = [f"level{n}" for n in range(depth)]
    edges = [("work", "ok", ids[-1]), (ids[-1], "loop", "work"), (ids[0], "done", "__end__")]
    for outer, inner in itertools.pairwise(ids):
        edges += [(outer, "loop", inner), (inner, "done", outer)]
    lines = [f'name = "nested"\nstart = "{ids[0]}"\nedges = [']
    lines += [f'  {{ from = "{a}", outcome = "{o}", to = "{b}" }},' for a, o, b in edges]
    lines += ["]", "", "[input_schema]", 'type = "object"', "properties = { pair = {} }"]
    lines += ["", "[[node_defs]]", 'name = "work"', 'outcomes = ["ok"]']
    lines += ['input_schema = { type = "object" }', 'output_schema = { type = "object" }']
    for n, node in enumerate(ids):
        lines += ["", "[[nodes]]", f'id = "{node}"', 'type = "foreach"', 'over = "input.pair"']
        lines.append(f'as = "item{n}"')
    lines += ["", "[[nodes]]", 'id = "work"', 'type = "node"', 'node = "work"', ""]
    return "\n".join(lines)


@dataclass(frozen=True)
class Case:
    label: str
    document: str
    input: object
    max_steps: int
    trace: bool = False


@dataclass(frozen=True)
class Measured:
    case: Case
    status: int
    peak_mb: float
    seconds: float
    lines: int
    first_line: float | None
    last_error: str


def measure(case: Case, folder: Path) -> Measured:
    """Runs the case as its own process; its trace, when it prints one, is read as it comes."""
    document = folder / f"{case.label.split()[0]}.wf.toml"
    document.write_text(case.document, encoding="utf-8")
    inputs = folder / "input.json"
    inputs.write_text(json.dumps(case.input), encoding="utf-8")
    argv = [sys.executable, "-m", "wfls", "run", str(document), "--input", str(inputs)]
    argv += ["--max-steps", str(case.max_steps), "--format", "json"]
    if case.trace:
        argv.append("--trace")
    errors = folder / "stderr.txt"
    with errors.open("wb") as stderr:
        started = time.perf_counter()
        process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=stderr)
        assert process.stdout is not None
        lines, first = 0, None
        for _ in process.stdout:
            if first is None:
                first = time.perf_counter() - started
            lines += 1
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
    last = errors.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    return Measured(
        case,
        process.returncode,
        usage.ru_maxrss / 1024,
        seconds,
        lines if case.trace else 0,
        first if case.trace else None,
        last[-1] if last else "",
    )


def cases(items: int, steps: int) -> list[Case]:
    loop = f"a {items:,}-item loop"
    xs = {"xs": list(range(items))}
    enough = 3 * items + 10  # a dispatch and a node per item, and the end
    return [
        Case(loop, LOOP, xs, enough),
        Case(f"{loop}, --trace", LOOP, xs, enough, trace=True),
        Case(f"a node looping on itself, {steps:,} steps", CYCLE, {}, steps),
        Case(
            f"30 nested two-item loops, {steps:,} steps",
            nested_loops(30),
            {"pair": ["a", "b"]},
            steps,
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--steps", type=int, default=1_000_000)
    args = parser.parse_args()
    results: list[Measured] = []
    with tempfile.TemporaryDirectory(prefix="wfls-runtime-memory-") as folder:
        for case in cases(args.items, args.steps):
            result = measure(case, Path(folder))
            results.append(result)
            streamed = (
                f", {result.lines:,} activations printed, the first after {result.first_line:.1f} s"
                if result.first_line is not None
                else ""
            )
            print(
                f"{case.label}: exit {result.status}, peak {result.peak_mb:,.0f} MB, "
                f"{result.seconds:,.1f} s{streamed}"
            )
            if result.status not in (0, 1):
                raise SystemExit(f"{case.label}: {result.last_error}")
    rows = [
        (
            r.case.label,
            f"{r.status} ({'completed' if r.status == 0 else 'stopped at the step limit'})",
            f"{r.peak_mb:,.0f} MB",
            f"{r.seconds:,.0f} s",
            "" if r.first_line is None else f"{r.lines:,}, the first after {r.first_line:.1f} s",
        )
        for r in results
    ]
    measured = table(
        ["`wfls run`", "exit status", "peak resident", "wall time", "trace lines"],
        rows,
        "lcrrl",
    )
    goals = [
        (
            f"{r.case.label} within {TARGET_MB} MB",
            f"{r.peak_mb:,.0f} MB",
            r.peak_mb <= TARGET_MB,
        )
        for r in results[:2]
    ]
    write_section("runtime-memory", f"{measured}\n\n{targets(goals)}")


if __name__ == "__main__":
    main()
