"""The server writes no file and starts no process, over a whole session.

The server runs with a working directory, ``$HOME`` and ``$TMPDIR`` of its own
beside a workspace folder holding the examples; the test snapshots all four
trees (every path with its size and modification time) before and after a
session that uses every feature: edits, every request, every code action and
its resolve, a rename, every command including ``wfls.runWorkflow``. Read-only
permissions would prove nothing here (the tests may run as root), so the
snapshots are the check, together with the files the server holds open for
writing (``/proc/<pid>/fd``). Throughout the session the server has no child
process (``/proc/<pid>/task/*/children``).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from tests.lsp.fuzzsession import EXAMPLES as TEXTS
from tests.lsp.fuzzsession import FuzzSession

ROOT = Path(__file__).parents[2]


def snapshot(*folders: Path) -> dict[str, tuple[int, int]]:
    """Every path below ``folders`` with its size and modification time (ns)."""
    seen: dict[str, tuple[int, int]] = {}
    for folder in folders:
        for path in [folder, *folder.rglob("*")]:
            stat = path.lstat()
            seen[str(path)] = (stat.st_size, stat.st_mtime_ns)
    return seen


def children(pid: int) -> list[str]:
    found: list[str] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += (task / "children").read_text().split()
    return found


def files_open_for_writing(pid: int) -> list[str]:
    """Regular files (not pipes, sockets or devices) the process holds open to write,
    besides the standard streams the client gave it (stderr may be the client's file)."""
    writing = []
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        if fd.name in ("0", "1", "2"):
            continue
        try:
            target = os.readlink(fd)
            flags = int(
                next(
                    line.split()[1]
                    for line in Path(f"/proc/{pid}/fdinfo/{fd.name}").read_text().splitlines()
                    if line.startswith("flags:")
                ),
                8,
            )
        except OSError:
            continue
        if target.startswith("/") and not target.startswith("/dev/") and flags & 0o3:
            writing.append(target)
    return writing


def test_a_whole_session_writes_nothing_and_spawns_nothing(tmp_path: Path) -> None:
    workspace, cwd, home, tmp = (tmp_path / n for n in ("workspace", "cwd", "home", "tmp"))
    for folder in (cwd, home, tmp):
        folder.mkdir()
    shutil.copytree(ROOT / "examples", workspace)
    before = snapshot(workspace, cwd, home, tmp)
    env = {**os.environ, "HOME": str(home), "TMPDIR": str(tmp)}
    session = FuzzSession("utf-16", pull=True, root=workspace, cwd=cwd, env=env)
    pid = session.process.pid
    checks = 0

    def request(method: str, params: Any) -> Any:
        nonlocal checks
        result = session.request(method, params)
        assert children(pid) == []
        checks += 1
        return result

    try:
        uri = (workspace / "billing.wf.toml").resolve().as_uri()
        text = TEXTS["toml"][0]
        session.texts[uri], session.versions[uri] = text, 1
        session.client.send(
            {
                "method": "textDocument/didOpen",
                "params": {
                    "textDocument": {"uri": uri, "languageId": "toml", "version": 1, "text": text}
                },
            }
        )
        doc = {"uri": uri}
        lines = text.split("\n")

        def at(needle: str, shift: int = 0) -> dict[str, int]:
            line = next(i for i, x in enumerate(lines) if needle in x)
            return {"line": line, "character": lines[line].index(needle) + shift}

        # An edit that leaves a mistake behind, for the quick fixes: a misspelt segment.
        start = at("context.foreach.customers.item.name", len("context.foreach.customers.item."))
        end = {"line": start["line"], "character": start["character"] + len("name")}
        change = {"range": {"start": start, "end": end}, "text": "nmae"}
        row = lines[start["line"]]
        lines[start["line"]] = row[: start["character"]] + "nmae" + row[end["character"] :]
        session.texts[uri], session.versions[uri] = "\n".join(lines), 2
        session.client.send(
            {
                "method": "textDocument/didChange",
                "params": {
                    "textDocument": {"uri": uri, "version": 2},
                    "contentChanges": [change],
                },
            }
        )
        node = at('id = "charge"', 6)
        everything = {
            "start": {"line": 0, "character": 0},
            "end": {"line": len(lines), "character": 0},
        }
        for method in (
            "textDocument/hover",
            "textDocument/completion",
            "textDocument/definition",
            "textDocument/documentHighlight",
            "textDocument/prepareRename",
        ):
            assert request(method, {"textDocument": doc, "position": node}) is not None, method
        assert request(
            "textDocument/references",
            {"textDocument": doc, "position": node, "context": {"includeDeclaration": True}},
        )
        edit = request(
            "textDocument/rename", {"textDocument": doc, "position": node, "newName": "charge_all"}
        )
        assert edit["documentChanges"]
        for method in (
            "textDocument/documentSymbol",
            "textDocument/foldingRange",
            "textDocument/semanticTokens/full",
        ):
            assert request(method, {"textDocument": doc}), method
        tokens = request("textDocument/semanticTokens/full", {"textDocument": doc})
        request(
            "textDocument/semanticTokens/full/delta",
            {"textDocument": doc, "previousResultId": tokens.get("resultId") or "0"},
        )
        assert request(
            "textDocument/semanticTokens/range", {"textDocument": doc, "range": everything}
        )
        assert request("textDocument/inlayHint", {"textDocument": doc, "range": everything})
        assert request("textDocument/selectionRange", {"textDocument": doc, "positions": [node]})
        report = request("textDocument/diagnostic", {"textDocument": doc, "identifier": "wfls"})
        actions = request(
            "textDocument/codeAction",
            {"textDocument": doc, "range": everything, "context": {"diagnostics": report["items"]}},
        )
        assert actions
        for action in actions:
            resolved = request("codeAction/resolve", action)
            assert resolved.get("edit") or resolved.get("command"), resolved
        # Mend the mistake (a workflow with errors is not run), then every command.
        fix = {"range": {"start": start, "end": end}, "text": "name"}
        session.texts[uri], session.versions[uri] = text, 3
        session.client.send(
            {
                "method": "textDocument/didChange",
                "params": {"textDocument": {"uri": uri, "version": 3}, "contentChanges": [fix]},
            }
        )
        assert request("workspace/symbol", {"query": "charge"})
        assert request("workspace/diagnostic", {"previousResultIds": []})["items"]
        # The examples' workflow tests, opened: their lenses, and a run of them.
        tests_uri = (workspace / "billing.wf.test.toml").resolve().as_uri()
        session.client.send(
            {
                "method": "textDocument/didOpen",
                "params": {
                    "textDocument": {
                        "uri": tests_uri,
                        "languageId": "toml",
                        "version": 1,
                        "text": (workspace / "billing.wf.test.toml").read_text(encoding="utf-8"),
                    }
                },
            }
        )
        assert request("textDocument/codeLens", {"textDocument": {"uri": tests_uri}})
        for command in session.commands:
            if command == "wfls.runWorkflow":
                arguments = [
                    {
                        "uri": uri,
                        "input": json.loads((workspace / "billing.input.json").read_text()),
                    }
                ]
            elif command == "wfls.test":
                arguments = [{"uri": tests_uri, "cases": None}]
            else:
                arguments = [{"uri": uri, "position": node}]
            assert (
                request("workspace/executeCommand", {"command": command, "arguments": arguments})
                is not None
            ), command
        session.check_texts()
        assert files_open_for_writing(pid) == []
        assert children(pid) == []
        session.check_stderr()
    finally:
        status = session.close()
    assert status == 0
    assert checks > 20
    assert snapshot(workspace, cwd, home, tmp) == before
