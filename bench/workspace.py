"""The workspace at scale: indexing many documents, and a child edit re-checking its callers.

``python bench/workspace.py [--documents N] [--callers M]`` generates, in a
temporary folder, N workflow documents of 20 to 200 nodes (``bench/generate.py``),
one child workflow and M callers whose subgraph node calls it, then:

- times the workspace index over the folder in-process (``Workspace.scan``), and
  through ``wfls serve``: from ``initialized`` to the end of its indexing progress;
- opens the M callers, then the child, edits the child's required inputs and times
  until every caller has published diagnostics again;
- while that re-check runs, times completion and hover in the child.

Timings are printed and written to the ``workspace`` section of ``docs/performance.md``
(``make bench-workspace``), never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types

sys.path.insert(0, str(Path(__file__).parent))
import lspclient
from generate import generate_toml
from lspclient import Server
from report import table, targets, write_section

from wf_core.workspace.catalog import Workspace
from wf_core.workspace.files import Roots

CHILD = """name = "child"
start = "end"
outcomes = ["ok"]
edges = []

[input_schema]
type = "object"
required = ["customers", "tag"]
properties.customers = { type = "array" }
properties.tag = { type = "string" }

[[nodes]]
id = "end"
type = "end"
"""

CALLER = """name = "caller{n}"
start = "call"
outcomes = ["ok"]
edges = [{{ from = "call", outcome = "ok", to = "__end__" }}]

[[nodes]]
id = "call"
type = "subgraph"
workflow = {{ name = "child" }}
input = [{{ target = "customers", value = [] }}, {{ target = "tag", value = "t" }}]
"""


def write_workspace(root: Path, documents: int, callers: int) -> list[int]:
    sizes = []
    for i in range(documents):
        nodes = 20 + (i * 37) % 181
        sizes.append(nodes)
        text = generate_toml(nodes).replace('name = "generated"', f'name = "w{i}"', 1)
        (root / f"w{i}.wf.toml").write_text(text)
    (root / "child.wf.toml").write_text(CHILD)
    for n in range(callers):
        (root / f"caller{n}.wf.toml").write_text(CALLER.format(n=n))
    return sizes


async def through_the_server(root: Path, callers: int) -> dict[str, float]:
    # A client that takes server-initiated progress, so indexing reports its end.
    lspclient.CAPABILITIES.window = types.WindowClientCapabilities(work_done_progress=True)
    server = Server("wfls", [sys.executable, "-m", "wfls", "serve"])
    ended = asyncio.get_running_loop().create_future()
    started = time.perf_counter()
    await server.start(root)

    def progress(params: types.ProgressParams) -> None:
        value = params.value
        kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
        if kind == "end" and not ended.done():
            ended.set_result(time.perf_counter())

    server.client.protocol.fm.features[types.PROGRESS] = progress
    figures: dict[str, float] = {}
    try:
        async with asyncio.timeout(600):
            figures[SERVER_INDEX] = await ended - started
        sessions = [
            server.open(
                (root / f"caller{n}.wf.toml").resolve().as_uri(),
                "toml",
                CALLER.format(n=n),
            )
            for n in range(callers)
        ]
        for session in sessions:
            await session.open_time()
        child = server.open((root / "child.wf.toml").resolve().as_uri(), "toml", CHILD)
        await child.open_time()
        counts = [len(s.history) for s in sessions]
        offset = child.text.index('"tag"]')
        start = time.perf_counter()
        child.edit(offset, len('"tag"'), '"label"')
        latencies = []
        while any(len(s.history) == c for s, c in zip(sessions, counts, strict=True)):
            at = child.text.index("properties.tag") + len("properties.t")
            spent, _ = await child.completion(child.text.index('"end"\ntype') + 2)
            latencies.append(spent)
            hover_start = time.perf_counter()
            await server.client.text_document_hover_async(
                types.HoverParams(text_document=child.where(at)[0], position=child.where(at)[1])
            )
            latencies.append(time.perf_counter() - hover_start)
            if time.perf_counter() - start > 120:
                raise TimeoutError("the callers were not re-published")
        figures[f"child edit → {callers} callers re-published (s)"] = time.perf_counter() - start
        figures["completion/hover meanwhile, median (ms)"] = statistics.median(latencies) * 1000
        figures["completion/hover meanwhile, max (ms)"] = max(latencies) * 1000
    finally:
        await server.close()
    return figures


SERVER_INDEX = "server index (s)"
INDEX_BUDGET = 10.0
"""Seconds within which 1,000 documents are to be indexed."""


def markdown(workspace: str, in_process: float, figures: dict[str, float], documents: int) -> str:
    rows = [("in-process index (s)", f"{in_process:.2f}")]
    rows += [(name, f"{value:,.2f}") for name, value in figures.items()]
    text = f"{workspace}.\n\n{table(['figure', 'value'], rows, 'lr')}"
    if documents == 1000:
        index = figures[SERVER_INDEX]
        measured = f"{index:.2f} s through the server, {in_process:.2f} s in process"
        text += "\n\n" + targets(
            [("indexing 1,000 documents within 10 s", measured, index <= INDEX_BUDGET)]
        )
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=1000)
    parser.add_argument("--callers", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="wfls-bench-ws-") as folder:
        root = Path(folder)
        sizes = write_workspace(root, args.documents, args.callers)
        described = (
            f"{args.documents:,} documents of {min(sizes)} to {max(sizes)} nodes "
            f"({sum(sizes):,} nodes), 1 child, {args.callers} callers"
        )
        print(described)
        start = time.perf_counter()
        workspace = Workspace(Roots([root]))
        result = workspace.scan()
        in_process = time.perf_counter() - start
        print(
            f"in-process index: {in_process:.2f} s "
            f"({len(workspace.documents())} documents, {len(result.skipped)} skipped)"
        )
        figures = asyncio.run(through_the_server(root, args.callers))
        for name, value in figures.items():
            print(f"{name}: {value:.2f}")
    write_section("workspace", markdown(described, in_process, figures, args.documents))


if __name__ == "__main__":
    main()
