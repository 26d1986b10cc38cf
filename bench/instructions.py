"""Instructions executed by each stage of ``wfls check``, counted by valgrind's callgrind.

Run: ``.venv/bin/python bench/instructions.py [NODES]`` (default 2,000; needs
``valgrind``). Wall-clock figures on a shared machine swing by a factor of two
between hours (the same ``wfls check`` took 2.8 to 6.0 s on one day); the number
of instructions a stage executes does not, so a change to one stage can be
measured on its own, and compared with one made hours earlier.

The stages are those of ``wfls check`` on one generated workflow
(``generate.generate_toml``), in order: the imports (with the generated code of
``make bytecode``), parsing, the model, the context model, validation, placing the
findings, turning them into the command's findings, printing them as text. Each
run goes one stage further than the last, and a stage's count is the difference
between two runs; every run ends with ``os._exit``, as the command does, so no run
counts the freeing of what it made. String hashing is seeded (``PYTHONHASHSEED=0``)
so that repeated runs execute the same instructions (within 0.1%).

Each run is about 20 times slower than the stage it counts: at 2,000 nodes the
eight runs take 5 to 6 minutes. The counts go to the ``instructions`` section of
``docs/performance.md`` (``make bench-instructions``).
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import generate_toml
from report import table, write_section

RESULTS = Path(__file__).resolve().parent / "results"

STAGES = ("imports", "parse", "model", "context", "validation", "placing", "findings", "text")

# Runs the first ``int(argv[2])`` stages after the imports on the document ``argv[1]``.
STAGE_SCRIPT = """
import gc, os, sys
gc.disable()
from wf_core.documents.parser import parse_document
from wf_core.base.reading import syntax_of
from wf_core.version.snapshot import DocumentSnapshot
from wfls.cli import reporting
upto = int(sys.argv[2])
text = open(sys.argv[1], encoding="utf-8").read()
if upto >= 1:
    parsed = parse_document(text, syntax_of(sys.argv[1]))
if upto >= 2:
    snapshot = DocumentSnapshot(parsed)
    snapshot.load
if upto >= 3:
    snapshot.context
if upto >= 4:
    snapshot.report
if upto >= 5:
    snapshot.issues
if upto >= 6:
    findings = reporting.findings_for(sys.argv[1], snapshot)
if upto >= 7:
    reporting.render_text(findings)
os._exit(0)
"""

_COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")


def instructions(document: Path, upto: int) -> int:
    """Instructions of one run of the stage script up to stage ``upto``."""
    result = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            "-c",
            STAGE_SCRIPT,
            str(document),
            str(upto),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
        check=False,
    )
    found = _COLLECTED.search(result.stderr)
    if result.returncode != 0 or found is None:
        raise SystemExit(f"callgrind run {upto} failed:\n{result.stderr[-2000:]}")
    return int(found.group(1))


def main(argv: list[str]) -> int:
    if shutil.which("valgrind") is None:
        print("bench/instructions.py needs valgrind (Debian: apt-get install valgrind)")
        return 1
    nodes = int(argv[0]) if argv else 2000
    with tempfile.TemporaryDirectory() as folder:
        document = Path(folder) / f"generated-{nodes}.wf.toml"
        document.write_text(generate_toml(nodes), encoding="utf-8")
        totals = [instructions(document, upto) for upto in range(len(STAGES))]
    counts = [totals[0], *(b - a for a, b in itertools.pairwise(totals))]
    print(f"instructions of `wfls check` by stage, {nodes:,} nodes (millions)")
    print(f"{'stage':<12}{'instructions':>14}{'per node':>12}")
    for stage, count in zip(STAGES, counts, strict=True):
        per_node = "" if stage == "imports" else f"{count / nodes / 1000:>10.0f} k"
        print(f"{stage:<12}{count / 1e6:>14,.0f}{per_node:>12}")
    print(f"{'in all':<12}{totals[-1] / 1e6:>14,.0f}")
    rows = [
        (stage, f"{count / 1e6:,.0f}", "" if stage == "imports" else f"{count / nodes / 1000:,.0f}")
        for stage, count in zip(STAGES, counts, strict=True)
    ]
    rows.append(("in all", f"{totals[-1] / 1e6:,.0f}", ""))
    header = ["stage", "instructions (millions)", "per node (thousands)"]
    write_section(
        "instructions",
        f"`wfls check` of {nodes:,} nodes, stage by stage.\n\n{table(header, rows, 'lrr')}",
    )
    RESULTS.mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    out = RESULTS / f"instructions-{stamp}.json"
    out.write_text(
        json.dumps(
            {"date": stamp, "nodes": nodes, "stages": dict(zip(STAGES, counts, strict=True))},
            indent=1,
        )
    )
    print(f"raw results: {out.relative_to(Path.cwd()) if out.is_relative_to(Path.cwd()) else out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
