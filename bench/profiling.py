"""Profiles of wfls on generated workflows, for finding what grows faster than the document.

Run: ``.venv/bin/python bench/profiling.py [NODES...]`` (default 2000 16000).
Writes ``bench/results/profile/<stage>-<nodes>.prof`` (open ``snakeviz`` or
``python -m pstats`` on them) and prints, per stage, the functions whose
cumulative time per node grows the most from the smallest to the largest size.

Stages, each the code the server runs for it, in process (cProfile sees one
thread; the server runs analyses on a worker thread, so they are called here
directly, as that worker does):

- ``open``: ``didOpen`` bookkeeping, then ``Diagnostics.compute`` (parse,
  model, context model, validation, placing and converting the issues);
- ``edit``: after the open and two untimed edits, ``EDITS`` edits of a path segment
  in the last body node (its four characters replaced by ``n000``, ``n001``, ...: a
  text no earlier version had, as typing makes), each applied as the client's
  incremental change to the store's text (``convert.edit_at``, as the ``didChange``
  handler does), and analysed with ``Diagnostics.compute`` again;
- ``check``: ``wfls check FILE`` (``cli.main``), output discarded.

The time spent in the garbage collector is printed per stage: its full
collections traverse every live object, so their pauses grow with the
document and land on whichever function happens to allocate; ``--no-gc``
profiles without them, to see the algorithms' own growth.

Ratios: "per-node growth" is (cumulative seconds / nodes) at the largest size
over the same at the smallest: 1.0 is linear, 8.0 at 2k → 16k is quadratic.
For ``edit``, call counts per edit that grow with the document show work
repeated for parts the edit did not touch.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import gc
import io
import pstats
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import generate_toml
from lspclient import position

from wfls.cli import main as cli_main
from wfls.convert import edit_at
from wfls.server import WflsServer

RESULTS = Path(__file__).resolve().parent / "results" / "profile"
EDITS = 5
Key = tuple[str, int, str]


class InProcessServer:
    """The server's state and handlers' work for one document, without the event loop."""

    def __init__(self, text: str, uri: str) -> None:
        self.server = WflsServer()
        self.uri, self.text, self.version = uri, text, 1

    def open(self) -> None:
        self.server.store.open(self.uri, self.text, 1)

    def edit(self, offset: int, length: int, new_text: str) -> None:
        start, end = position(self.text, offset), position(self.text, offset + length)
        self.text = self.text[:offset] + new_text + self.text[offset + length :]
        self.version += 1
        change = types.TextDocumentContentChangePartial(
            range=types.Range(start=start, end=end), text=new_text
        )
        encoding = self.server.flags.position_encoding
        self.server.store.update(self.uri, [edit_at(change, encoding)], self.version)

    def diagnostics(self) -> Any:
        server = self.server
        return server.diagnostics.compute(
            self.uri, server.result_id(self.uri), server.settings, server.flags
        )


class GcClock:
    """Time spent in the cyclic garbage collector, and its full collections."""

    def __init__(self) -> None:
        self.seconds, self.full, self._start = 0.0, 0, 0.0
        gc.callbacks.append(self._event)

    def _event(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._start
            self.full += info["generation"] == 2

    def reset(self) -> tuple[float, int]:
        spent = self.seconds, self.full
        self.seconds, self.full = 0.0, 0
        return spent


GC = GcClock()


def profile_stages(nodes: int) -> dict[str, tuple[pstats.Stats, float, int]]:
    """stage → (stats, wall seconds, repetitions)."""
    text = generate_toml(nodes)
    segment = text.rindex(".item.name") + len(".item.")
    out = {}
    session = InProcessServer(text, f"file:///bench/generated-{nodes}.wf.toml")

    def run(stage: str, action: Any, repetitions: int = 1) -> None:
        profiler = cProfile.Profile()
        GC.reset()
        start = time.perf_counter()
        profiler.enable()
        action()
        profiler.disable()
        wall = time.perf_counter() - start
        spent, full = GC.reset()
        print(
            f"  {stage}: {wall / repetitions * 1000:,.0f} ms per run under the profiler, of "
            f"which garbage collection {spent / repetitions * 1000:,.0f} ms "
            f"({full} full collections in {repetitions} runs)",
            flush=True,
        )
        profiler.dump_stats(RESULTS / f"{stage}-{nodes}.prof")
        out[stage] = (pstats.Stats(profiler), wall, repetitions)

    def open_document() -> None:
        session.open()
        session.diagnostics()

    run("open", open_document)
    # Every edit writes a segment no earlier version had, as typing does.
    fresh = (f"n{i:03d}" for i in range(1000))
    for _ in range(2):
        session.edit(segment, 4, next(fresh))
        session.diagnostics()

    def edits() -> None:
        for _ in range(EDITS):
            session.edit(segment, 4, next(fresh))
            session.diagnostics()

    run("edit", edits, EDITS)

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"generated-{nodes}.wf.toml"
        path.write_text(text)

        def check() -> None:
            with contextlib.redirect_stdout(io.StringIO()):
                cli_main(["check", str(path)])

        run("check", check)
    return out


def label(key: Key) -> str:
    file, line, name = key
    for marker in ("/wf_core/", "/wfls/", "/site-packages/"):
        if marker in file:
            file = file[file.index(marker) + 1 :].replace("site-packages/", "")
            break
    return f"{file}:{line}:{name}"


def compare(stage: str, small: tuple[int, Any], large: tuple[int, Any], top: int) -> None:
    (n1, (s1, wall1, reps1)), (n2, (s2, wall2, reps2)) = small, large
    stats1: dict[Key, Any] = s1.stats  # type: ignore[attr-defined]
    stats2: dict[Key, Any] = s2.stats  # type: ignore[attr-defined]
    per1, per2 = wall1 / reps1, wall2 / reps2
    growth = (per2 / n2) / (per1 / n1)
    print(
        f"\n== {stage}: {per1 * 1000:,.0f} ms at {n1:,} nodes, {per2 * 1000:,.0f} ms at {n2:,} "
        f"(per-node growth {growth:.2f}x; profiled, so slower than unprofiled)"
    )
    print(
        f"{'cum ms ' + str(n2 // 1000) + 'k':>11} {'cum ms ' + str(n1 // 1000) + 'k':>10} "
        f"{'growth':>7} {'calls/rep':>10} {'calls x':>8}  function"
    )
    rows = []
    for key, (_cc, nc2, _tt, ct2, _callers) in stats2.items():
        if key not in stats1:
            continue
        _cc, nc1, _tt, ct1, _callers = stats1[key]
        if ct2 / reps2 < 0.02 * per2 or ct1 <= 0:
            continue
        node_growth = (ct2 / reps2 / n2) / (ct1 / reps1 / n1)
        rows.append((node_growth, key, ct2 / reps2, ct1 / reps1, nc2 / reps2, nc2 / max(nc1, 1)))
    rows.sort(key=lambda r: (-r[0], -r[2]))
    for node_growth, key, ct2, ct1, calls, calls_ratio in rows[:top]:
        print(
            f"{ct2 * 1000:>11,.0f} {ct1 * 1000:>10,.0f} {node_growth:>6.2f}x "
            f"{calls:>10,.0f} {calls_ratio:>7.1f}x  {label(key)}"
        )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("nodes", nargs="*", type=int)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--stages", nargs="*", default=["open", "edit", "check"])
    parser.add_argument(
        "--no-gc",
        action="store_true",
        help="disable the cyclic garbage collector, whose pauses land on whatever runs",
    )
    args = parser.parse_args(argv)
    if args.no_gc:
        gc.disable()
    sizes = sorted(args.nodes or [2000, 16000])
    RESULTS.mkdir(parents=True, exist_ok=True)
    profiles = {}
    for nodes in sizes:
        print(f"profiling {nodes:,} nodes ...", flush=True)
        profiles[nodes] = profile_stages(nodes)
    small, large = sizes[0], sizes[-1]
    for stage in args.stages:
        compare(stage, (small, profiles[small][stage]), (large, profiles[large][stage]), args.top)
    print(f"\nprofiles: {RESULTS.relative_to(RESULTS.parent.parent.parent)}/<stage>-<nodes>.prof")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
