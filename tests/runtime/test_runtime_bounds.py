"""``wfls run`` bounded and durable: what it saves survives a failed write, what it reads
is a regular file of bounded size, and what it keeps in memory does not grow with the
number of activations."""

from __future__ import annotations

import io
import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

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
