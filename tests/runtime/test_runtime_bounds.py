"""``wfls run`` bounded and durable: what it saves survives a failed write, what it reads
is a regular file of bounded size, and what it keeps in memory does not grow with the
number of activations."""

from __future__ import annotations

import io
import itertools
import json
import os
import re
import resource
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import wf_core.runtime
from wf_core.models import Workflow
from wf_core.runtime import (
    DEFAULT_MAX_STEPS,
    ActivationRecord,
    Engine,
    prepare_run,
    stand_in_handlers,
)
from wf_core.version.snapshot import analyze_text
from wfls.cli import main

ROOT = Path(__file__).parent.parent.parent
APPROVALS = ROOT / "examples" / "approvals.wf.json"
BILLING = ROOT / "examples" / "billing.wf.toml"
BILLING_INPUT = ROOT / "examples" / "billing.input.json"

# Three requests above the limit: the run pauses at the first, and its state holds all three.
REQUESTS = {
    "requests": [
        {"id": f"r{n}", "amount": 500 + n, "requester": f"requester number {n} " + "x" * 200}
        for n in range(3)
    ],
    "limit": 100,
}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["run", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def paused_run(capsys: pytest.CaptureFixture[str], folder: Path) -> tuple[Path, Path]:
    """A run of the approvals example paused at its first interrupt, saved as ``run.json``,
    and an answer for it."""
    inputs = folder / "in.json"
    inputs.write_text(json.dumps(REQUESTS))
    saved = folder / "run.json"
    code, out, err = run(capsys, str(APPROVALS), "--input", str(inputs), "--save", str(saved))
    assert (code, err) == (0, ""), out
    assert json.loads(saved.read_text())["status"] == "paused"
    answer = folder / "answer.json"
    answer.write_text('{"ok": true}')
    return saved, answer


def _small_files() -> None:  # in the child, before exec: writes past 1 KiB fail with EFBIG
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))


def test_a_save_that_fails_to_write_keeps_the_checkpoint_it_resumed(capsys, tmp_path) -> None:
    saved, answer = paused_run(capsys, tmp_path)
    before = saved.read_bytes()
    assert len(before) > 1024  # the new state cannot be written under the limit either
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "wfls",
            "run",
            str(APPROVALS),
            "--resume",
            str(saved),
            "--answer",
            str(answer),
            "--outcome",
            "ask_manager=approved",
            "--save",
            str(saved),
        ],
        capture_output=True,
        text=True,
        check=False,
        preexec_fn=_small_files,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert (completed.returncode, completed.stderr) == (
        2,
        f"wfls: cannot write '{saved}': File too large\n",
    )
    assert saved.read_bytes() == before  # the checkpoint survives, whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["answer.json", "in.json", "run.json"]
    code, out, err = run(
        capsys,
        str(APPROVALS),
        "--resume",
        str(saved),
        "--answer",
        str(answer),
        "--outcome",
        "ask_manager=approved",
    )
    assert (code, err) == (0, "")  # and it still resumes
    assert out.startswith("paused at interrupt 'ask_manager'")


def test_a_save_keeps_the_mode_of_the_file_it_replaces(capsys, tmp_path) -> None:
    saved, answer = paused_run(capsys, tmp_path)
    umask = os.umask(0o022)
    os.umask(umask)
    assert saved.stat().st_mode & 0o777 == 0o666 & ~umask  # a new file, as any other
    saved.chmod(0o640)
    resumed = ["--resume", str(saved), "--answer", str(answer), "--save", str(saved)]
    code, _, err = run(capsys, str(APPROVALS), *resumed, "--outcome", "ask_manager=approved")
    assert (code, err) == (0, "")
    assert saved.stat().st_mode & 0o777 == 0o640
    assert json.loads(saved.read_text())["status"] == "paused"  # at the second request


@pytest.mark.parametrize(
    ("argv", "read"),
    [
        (["--input", "in.json", "--save", "in.json"], "--input"),
        (["--input", "in.json", "--save", "./sub/../in.json"], "--input"),
        (["--input", "in.json", "--save", "link.json"], "--input"),
        (["--input", "in.json", "--save", "flow.wf.json"], "the workflow"),
        (
            ["--resume", "run.json", "--answer", "answer.json", "--save", "answer.json"],
            "--answer",
        ),
    ],
)
def test_save_onto_a_file_the_run_reads_is_refused(
    capsys, tmp_path, monkeypatch, argv, read
) -> None:
    saved, _ = paused_run(capsys, tmp_path)
    flow = tmp_path / "flow.wf.json"
    flow.write_bytes(APPROVALS.read_bytes())
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.json").symlink_to(tmp_path / "in.json")
    monkeypatch.chdir(tmp_path)
    contents = {p: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    code, out, err = run(capsys, "flow.wf.json", *argv)
    target = argv[-1]
    assert (code, out, err) == (
        2,
        "",
        f"wfls: --save '{target}' is {read} file: saving there would overwrite what the "
        "run reads; save the run state to another file\n",
    )
    assert {p: p.read_bytes() for p in contents} == contents
    assert saved.exists()


# -- what is read -------------------------------------------------------------------------

READS = {  # option: the arguments around it, and what the messages call it
    "--input": ([], "input"),
    "--answer": (["--resume", "run.json"], "answer"),
    "--resume": (["--answer", "answer.json"], "run state"),
}


def reading(option: str, path: str) -> list[str]:
    around, _ = READS[option]
    return [str(APPROVALS), *around, option, path]


@pytest.mark.parametrize("option", list(READS))
@pytest.mark.parametrize(
    ("make", "name"),
    [
        (lambda folder: folder.joinpath("folder").mkdir(), "folder"),
        (lambda folder: folder.joinpath("null").symlink_to("/dev/null"), "null"),
        (lambda folder: folder.joinpath("loop").symlink_to(folder / "loop"), "loop"),
    ],
)
def test_what_is_not_a_regular_file_is_not_read(
    capsys, tmp_path, monkeypatch, option, make, name
) -> None:
    paused_run(capsys, tmp_path)
    make(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *reading(option, name))
    reason = "it is a symlink loop" if name == "loop" else "it is not a regular file"
    assert (code, out, err) == (2, "", f"wfls: cannot read {READS[option][1]} '{name}': {reason}\n")


@pytest.mark.parametrize("option", list(READS))
def test_a_fifo_is_refused_without_opening_it(capsys, tmp_path, option) -> None:
    """Opening a FIFO for reading blocks until a writer comes: the command must not."""
    paused_run(capsys, tmp_path)
    os.mkfifo(tmp_path / "fifo")
    completed = subprocess.run(
        [sys.executable, "-m", "wfls", "run", *reading(option, "fifo")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,  # a guard against the hang this tests: never reached when it passes
    )
    assert (completed.returncode, completed.stdout, completed.stderr) == (
        2,
        "",
        f"wfls: cannot read {READS[option][1]} 'fifo': it is not a regular file\n",
    )


@pytest.mark.parametrize("option", list(READS))
def test_what_is_read_is_bounded(capsys, tmp_path, monkeypatch, option) -> None:
    saved, answer = paused_run(capsys, tmp_path)
    monkeypatch.chdir(tmp_path)
    big = {"--input": tmp_path / "in.json", "--answer": answer, "--resume": saved}[option]
    text = json.loads(big.read_text())
    text["padding"] = "x" * 1_000_000  # valid JSON of the right shape, just too large
    big.write_text(json.dumps(text))
    code, out, err = run(capsys, *reading(option, big.name), "--max-read-mb", "1")
    assert (code, out, err) == (
        2,
        "",
        f"wfls: cannot read {READS[option][1]} '{big.name}': it is larger than 1 MB "
        "(--max-read-mb N reads more)\n",
    )
    code, out, err = run(capsys, *reading(option, big.name), "--max-read-mb", "2")
    assert not err.startswith(f"wfls: cannot read {READS[option][1]}")


@pytest.mark.parametrize("option", ["--input", "--answer"])
def test_standard_input_is_read_only_up_to_the_bound(capsys, tmp_path, monkeypatch, option) -> None:
    paused_run(capsys, tmp_path)
    monkeypatch.chdir(tmp_path)
    endless = io.BytesIO(b"[" + b"0," * 3_000_000)  # as /dev/zero would be: never all read
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(endless))
    code, out, err = run(capsys, *reading(option, "-"), "--max-read-mb", "1")
    assert (code, out, err) == (
        2,
        "",
        f"wfls: cannot read {READS[option][1]} from standard input: it is larger than 1 MB "
        "(--max-read-mb N reads more)\n",
    )
    assert endless.tell() <= 1_000_001 + io.DEFAULT_BUFFER_SIZE


def test_the_read_limit_is_documented_with_its_default(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert (
        "--max-read-mb N read at most N MB from each of --input, --answer and --resume, "
        "refusing more (default 64)" in text
    )


# -- what is kept -------------------------------------------------------------------------

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

WATCHING = """import sys

SEEN = []


def touch(payload, ctx):
    out = sys.stdout
    SEEN.append((payload["x"], out.getvalue(), out.flushes))
    return {}


HANDLERS = {"touch": touch}
"""


class Watched(io.StringIO):
    """Standard output that counts its flushes."""

    def __init__(self) -> None:
        super().__init__()
        self.flushes = 0

    def flush(self) -> None:
        self.flushes += 1
        super().flush()


def kept_results(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The results ``wfls run`` gets from the runtime's entry points, to see what they hold."""
    results: list[Any] = []

    def keeping(function: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            result = function(*args, **kwargs)
            results.append(result)
            return result

        return call

    for name in ("execute_workflow", "resume_workflow"):
        monkeypatch.setattr(wf_core.runtime, name, keeping(getattr(wf_core.runtime, name)))
    return results


@pytest.mark.parametrize(
    ("fmt", "headers"),
    [("text", re.compile(r"^#\d+ ", re.M)), ("json", re.compile(r"^\{", re.M))],
    ids=["text", "json"],
)
def test_the_trace_is_printed_as_the_run_goes_and_not_kept(
    tmp_path, monkeypatch, fmt, headers
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "loop.wf.toml").write_text(LOOP)
    (tmp_path / "in.json").write_text('{"xs": [10, 11, 12]}')
    (tmp_path / f"watching_{fmt}.py").write_text(WATCHING)
    results = kept_results(monkeypatch)
    out = Watched()
    monkeypatch.setattr(sys, "stdout", out)
    argv = ["loop.wf.toml", "--input", "in.json", "--trace", "--format", fmt]
    assert main(["run", *argv, "--handlers", f"watching_{fmt}:HANDLERS"]) == 0
    seen = sys.modules[f"watching_{fmt}"].SEEN
    # When item n's handler runs, the foreach's n + 1 dispatches and the n handlers before
    # it are printed, each flushed as it was written.
    assert [(x, len(headers.findall(text)), flushes) for x, text, flushes in seen] == [
        (10, 1, 1),
        (11, 3, 3),
        (12, 5, 5),
    ]
    assert len(headers.findall(out.getvalue())) == 7  # with the foreach's done
    assert [(r.status, r.trace, r.state.recorded) for r in results] == [("completed", (), 7)]


def sizes(engine: Engine) -> tuple[int, ...]:
    """What the engine and its run state hold that could grow with the activations."""
    state = engine.state
    return (
        len(engine.records),
        len(engine._views),
        len(state.frames),
        len(state.lineages),
        len(state.scopes),
        len(state.ready),
        len(state.activations),
        len(state.interrupts),
    )


def largest(engine: Engine) -> tuple[int, ...]:
    """The largest of each of :func:`sizes` at any step of the run."""
    most = sizes(engine)
    for _ in engine.steps():
        most = tuple(map(max, most, sizes(engine)))
    return tuple(map(max, most, sizes(engine)))


def model(text: str) -> Workflow:
    """The workflow of a TOML document, as ``wfls run`` reads it."""
    workflow = analyze_text(text, "toml").workflow
    assert workflow is not None
    return workflow


NESTED = model(
    """name = "nested"
start = "rows"
edges = [
  { from = "rows", outcome = "loop", to = "cells" },
  { from = "cells", outcome = "loop", to = "touch" },
  { from = "touch", outcome = "ok", to = "cells" },
  { from = "cells", outcome = "done", to = "rows" },
  { from = "rows", outcome = "done", to = "__end__" },
]

[input_schema]
type = "object"
properties = { rows = { type = "array", items = { type = "array" } } }

[[node_defs]]
name = "touch"
outcomes = ["ok"]
input_schema = { type = "object" }
output_schema = { type = "object" }

[[nodes]]
id = "rows"
type = "foreach"
over = "input.rows"
as = "row"

[[nodes]]
id = "cells"
type = "foreach"
over = "context.foreach.rows.item"
as = "cell"

[[nodes]]
id = "touch"
type = "node"
node = "touch"
"""
)


@pytest.mark.parametrize("streamed", [False, True])
def test_what_a_run_holds_does_not_grow_with_its_activations(streamed: bool) -> None:
    held = []
    for rows in (5, 50):
        printed: list[ActivationRecord] = []
        engine = prepare_run(
            NESTED,
            {"rows": [[n, n + 1, n + 2] for n in range(rows)]},
            stand_in_handlers(NESTED),
            trace=False,
            on_record=printed.append if streamed else None,
        )
        held.append(largest(engine))
        assert engine.state.status == "completed"
        assert engine.state.recorded == rows * 8 + 1  # 3 loops and touches, 2 dones a row
        assert len(printed) == (engine.state.recorded if streamed else 0)
    assert held[0] == held[1]
    assert held[0][0] == 0  # no record kept


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


def test_thirty_nested_two_item_loops_stop_at_the_step_limit_holding_as_little(
    capsys, tmp_path
) -> None:
    document = tmp_path / "nested.wf.toml"
    document.write_text(nested_loops(30))
    inputs = tmp_path / "in.json"
    inputs.write_text('{"pair": ["a", "b"]}')
    assert main(["check", str(document)]) == 0
    capsys.readouterr()
    code, out, err = run(capsys, str(document), "--input", str(inputs))
    assert (code, out) == (1, "")
    assert err == (
        f"wfls: the run stopped at its step limit of {DEFAULT_MAX_STEPS} steps, at node "
        "'work'; the workflow may loop forever (raise the limit with --max-steps N)\n"
    )
    workflow = model(nested_loops(30))
    held = []
    for limit in (500, 2_000):
        engine = prepare_run(
            workflow,
            {"pair": ["a", "b"]},
            stand_in_handlers(workflow),
            max_steps=limit,
            trace=False,
        )
        held.append(largest(engine))
        assert (engine.state.status, engine.state.steps) == ("failed", limit)
    assert held[0] == held[1]
    assert held[0][2] <= 2 * 30 + 2  # a controller and an item frame per loop, the root, a node
