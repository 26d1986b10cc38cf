"""Benchmark of ``wfls serve`` over a real stdio session, as an editor drives it.

Run: ``.venv/bin/python bench/lsp.py [NODES...]`` (default 500 1000 2000 4000).

Per generated workflow (``generate.generate_toml``) it measures, from the
client's side of the pipe:

- open → diagnostics: ``didOpen`` until the ``publishDiagnostics`` of version 1;
- edit → diagnostics: an incremental edit inside a path string of a body node
  until the ``publishDiagnostics`` of that version (median of the edits);
- completion / hover after an edit: an edit, then the request, timed until the
  answer (the server analyses the new version first); the diagnostics of each
  edit are awaited untimed afterwards, so one measurement never overlaps the next;
- the server's peak resident memory (``VmHWM`` of ``/proc/<pid>/status``).

The client declares push diagnostics only, the common case. Pushes wait for
``PUSH_DELAY`` of quiet (the server's debounce), which is part of the
diagnostics figures. Timings are printed, never asserted.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

sys.path.insert(0, str(Path(__file__).parent))

from generate import generate_toml

from wfls.server import PUSH_DELAY

SIZES = (500, 1000, 2000, 4000)
REQUESTS = 30
EDITS = 10
TIMEOUT = 300.0
CAPABILITIES = types.ClientCapabilities(
    general=types.GeneralClientCapabilities(position_encodings=["utf-16"]),
    text_document=types.TextDocumentClientCapabilities(
        publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
            related_information=True, version_support=True
        ),
        completion=types.CompletionClientCapabilities(
            completion_item=types.ClientCompletionItemOptions(
                documentation_format=[types.MarkupKind.Markdown], insert_replace_support=True
            )
        ),
        hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown]),
    ),
)


def position(text: str, offset: int) -> types.Position:
    """UTF-16 position of ``offset`` (the generated text is ASCII)."""
    line = text.count("\n", 0, offset)
    return types.Position(line=line, character=offset - (text.rfind("\n", 0, offset) + 1))


class Session:
    def __init__(self, client: LanguageClient, uri: str, text: str) -> None:
        self.client, self.uri, self.text, self.version = client, uri, text, 1
        self._published: dict[int, asyncio.Future[float]] = {}

    def on_publish(self, params: types.PublishDiagnosticsParams) -> None:
        if params.uri == self.uri and params.version is not None:
            future = self._published.get(params.version)
            if future is not None and not future.done():
                future.set_result(time.perf_counter())

    def expect(self, version: int) -> asyncio.Future[float]:
        future = asyncio.get_running_loop().create_future()
        self._published[version] = future
        return future

    def edit(self, offset: int, length: int, new_text: str) -> int:
        start, end = position(self.text, offset), position(self.text, offset + length)
        self.text = self.text[:offset] + new_text + self.text[offset + length :]
        self.version += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=self.uri, version=self.version
                ),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(start=start, end=end), text=new_text
                    )
                ],
            )
        )
        return self.version


def rss_peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def summary(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered) * 1000, p95 * 1000


async def measure(nodes: int) -> dict[str, object]:
    text = generate_toml(nodes)
    client = LanguageClient("wfls-bench", "1")
    await client.start_io(sys.executable, "-m", "wfls", "serve")
    uri = f"file:///bench/generated-{nodes}.wf.toml"
    session = Session(client, uri, text)
    client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(
        lambda params: session.on_publish(params)
    )
    await client.initialize_async(types.InitializeParams(capabilities=CAPABILITIES))
    client.initialized(types.InitializedParams())

    async with asyncio.timeout(TIMEOUT):
        opened = session.expect(1)
        start = time.perf_counter()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="toml", version=1, text=text
                )
            )
        )
        open_time = await opened - start

        # The last body node's binding path: edits toggle one character of its last segment.
        marker = ".item.name"
        segment = session.text.rindex(marker) + len(".item.")
        edit_times = []
        for i in range(EDITS):
            published = session.expect(session.version + 1)
            start = time.perf_counter()
            session.edit(segment, 4, "name" if i % 2 else "nama")
            edit_times.append(await published - start)

        request_times: dict[str, list[float]] = {"completion": [], "hover": []}
        for method in request_times:
            for i in range(REQUESTS):
                published = session.expect(session.version + 1)
                session.edit(segment, 4, "name" if i % 2 else "nama")
                where = types.TextDocumentPositionParams(
                    text_document=types.TextDocumentIdentifier(uri=uri),
                    position=position(session.text, segment - (0 if method == "completion" else 3)),
                )
                start = time.perf_counter()
                if method == "completion":
                    answer = await client.text_document_completion_async(
                        types.CompletionParams(
                            text_document=where.text_document, position=where.position
                        )
                    )
                else:
                    answer = await client.text_document_hover_async(
                        types.HoverParams(
                            text_document=where.text_document, position=where.position
                        )
                    )
                request_times[method].append(time.perf_counter() - start)
                if not answer:
                    raise RuntimeError(f"{method} gave no answer at {where.position}")
                await published

    peak = rss_peak_mb(client._server.pid) if client._server else float("nan")
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return {
        "nodes": nodes,
        "lines": text.count("\n"),
        "open": open_time * 1000,
        "edit": statistics.median(edit_times) * 1000,
        "completion": summary(request_times["completion"]),
        "hover": summary(request_times["hover"]),
        "rss": peak,
    }


def main(argv: list[str]) -> int:
    sizes = [int(a) for a in argv] or list(SIZES)
    print(
        f"wfls serve over stdio; diagnostics include the {PUSH_DELAY * 1000:.0f} ms debounce; "
        f"completion/hover: median / p95 of {REQUESTS} requests, each after an edit"
    )
    header = (
        f"{'nodes':>6} {'lines':>7} {'open→diag':>10} {'edit→diag':>10} "
        f"{'completion':>16} {'hover':>16} {'peak RSS':>9}"
    )
    print(header)
    print("-" * len(header))
    for nodes in sizes:
        row = asyncio.run(measure(nodes))
        completion, hover = row["completion"], row["hover"]
        print(
            f"{row['nodes']:>6} {row['lines']:>7} {row['open']:>8.0f}ms {row['edit']:>8.0f}ms "
            f"{completion[0]:>7.0f}/{completion[1]:>4.0f} ms {hover[0]:>7.0f}/{hover[1]:>4.0f} ms "
            f"{row['rss']:>6.0f} MB",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
