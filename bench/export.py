"""Benchmark of ``wfls export`` against ``wfls check`` on the same document.

Run: ``.venv/bin/python bench/export.py [NODES...]`` (default 5000). For each size it
writes a generated workflow as TOML and, through ``wfls export``, as JSON, then times
``wfls check FILE`` and ``wfls export FILE --to toml|json`` on each, as processes a user
starts, the commands taking turns so that a slower minute of the machine falls on all of
them. Prints the median wall clock of the runs and writes them to the ``export`` section
of ``docs/performance.md`` (``make bench-export``); timings are never asserted in tests.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from generate import generate_toml
from report import table, targets, write_section

RUNS = 3


def _command() -> list[str]:
    wfls = Path(sys.executable).with_name("wfls")
    return [str(wfls)] if wfls.exists() else [sys.executable, "-m", "wfls"]


def _run(arguments: list[str]) -> tuple[float, bytes]:
    start = time.perf_counter()
    done = subprocess.run([*_command(), *arguments], capture_output=True, timeout=600, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1) or (arguments[0] == "export" and done.returncode):
        raise RuntimeError(f"wfls {arguments[0]} failed: {done.stderr.decode()[-500:]}")
    return elapsed, done.stdout


def measure(nodes: int, folder: Path) -> dict[str, dict[str, float]]:
    """Median seconds of each command on the ``nodes``-node document in either syntax."""
    toml_path = folder / f"generated-{nodes}.wf.toml"
    toml_path.write_text(generate_toml(nodes), encoding="utf-8")
    json_path = folder / f"generated-{nodes}.wf.json"
    json_path.write_bytes(_run(["export", str(toml_path), "--to", "json"])[1])
    results: dict[str, dict[str, float]] = {}
    for path in (toml_path, json_path):
        commands = {
            "check": ["check", str(path)],
            "export --to toml": ["export", str(path), "--to", "toml"],
            "export --to json": ["export", str(path), "--to", "json"],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(RUNS):
            for name, arguments in commands.items():
                times[name].append(_run(arguments)[0])
        results[path.suffix[1:]] = {name: statistics.median(t) for name, t in times.items()}
    return results


def markdown(results: dict[int, dict[str, dict[str, float]]]) -> str:
    """The table of every size and syntax, and whether each export took at most the check."""
    rows = []
    shares = []
    for size, by_syntax in results.items():
        for syntax, r in by_syntax.items():
            rows.append(
                (
                    f"{size:,}",
                    syntax.upper(),
                    f"{r['check']:.2f} s",
                    f"{r['export --to toml']:.2f} s",
                    f"{r['export --to json']:.2f} s",
                )
            )
            shares += [
                (r[name] / r["check"], f"{size:,} nodes, {syntax.upper()} {name}")
                for name in r
                if name != "check"
            ]
    header = ["nodes", "document", "`wfls check`", "export to TOML", "export to JSON"]
    share, slowest = max(shares)
    measured = f"the slowest export took {share:.0%} of its document's check ({slowest})"
    goal = "`wfls export` of a document ≤ `wfls check` of it, either syntax"
    return (
        f"Median wall clock of {RUNS} runs of each command.\n\n{table(header, rows, 'rlrrr')}\n\n"
        + targets([(goal, measured, share <= 1)])
    )


def main(argv: list[str]) -> None:
    sizes = [int(a) for a in argv] or [5000]
    print(f"{'nodes':>6} {'source':>6} {'check s':>8} {'to toml s':>10} {'to json s':>10}")
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        for size in sizes:
            results[size] = measure(size, Path(folder))
            for syntax, r in results[size].items():
                print(
                    f"{size:>6} {syntax:>6} {r['check']:>8.2f} {r['export --to toml']:>10.2f} "
                    f"{r['export --to json']:>10.2f}"
                )
    write_section("export", markdown(results))


if __name__ == "__main__":
    main(sys.argv[1:])
