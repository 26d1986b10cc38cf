"""Tampered checkpoints: each change no run could have made is refused, with its own
message, when the state is loaded or resumed (and by ``wfls run --resume``, exit 2)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from rt_support import ROWS, Recorder, loop, probe, workflow

from wf_core.runtime import (
    InvalidRunState,
    RunState,
    dump,
    execute_workflow,
    load,
    resume_workflow,
)
from wfls.cli import main

# A loop whose first item waits at an interrupt: the checkpoint holds an activation, an
# item frame and its lineage, and the interrupt's frame.
PAUSED = workflow(
    [
        loop("rows", "input.rows", "row"),
        {
            "id": "ask",
            "type": "interrupt",
            "kind": "approval",
            "outcomes": ["yes"],
            "resume_schema": {"type": "object"},
        },
        probe("after", a="context.row.name"),
    ],
    ["rows:loop->ask", "ask:yes->after", "after:ok->rows", "rows:done->__end__"],
)
FOREVER = 9223372036854775807  # the largest count a state holds
Change = Callable[[dict[str, Any]], object]


def checkpoint() -> dict[str, Any]:
    result = execute_workflow(PAUSED, {"rows": ROWS}, {"probe": Recorder()})
    assert result.status == "paused"
    data: dict[str, Any] = json.loads(dump(result.state))
    assert list(data["frames"]) == ["root", "frame_1", "frame_4", "frame_5"]
    assert list(data["activations"]) == ["act_2"] and data["counter"] == 5
    return data


def item(data: dict[str, Any]) -> dict[str, Any]:
    frame: dict[str, Any] = data["frames"]["frame_4"]
    return frame


def rename_loop_node(data: dict[str, Any], node: str) -> None:
    """The loop's records all name ``node`` instead of ``rows``: consistent, so only the
    workflow shows it wrong."""
    data["activations"]["act_2"]["node_id"] = node
    data["frames"]["frame_1"]["node_id"] = node
    item(data)["node_id"] = node
    item(data)["metadata"]["foreach_node_id"] = node


def wait_at(data: dict[str, Any], node: str) -> None:
    data["frames"]["frame_5"]["node_id"] = node
    data["interrupts"][0]["node_id"] = node


ON_LOAD: list[tuple[str, Change, str]] = [
    ("negative counter", lambda d: d.update(counter=-1), f"counter -1 is outside 0 to {FOREVER}"),
    (
        "astronomical counter",
        lambda d: d.update(counter=10**30),
        f"counter 1000000000000000000000000000000 is outside 0 to {FOREVER}",
    ),
    (
        "counter below the ids in use",
        lambda d: d.update(counter=3),
        "'frame_4' is above counter 3: a new id would repeat it",
    ),
    ("negative steps", lambda d: d.update(steps=-2), f"steps -2 is outside 0 to {FOREVER}"),
    (
        "astronomical recorded",
        lambda d: d.update(recorded=2**70),
        f"recorded 1180591620717411303424 is outside 0 to {FOREVER}",
    ),
    (
        "rng beyond 64 bits",
        lambda d: d.update(rng=2**1000),
        "rng 107150860718… (302 digits) is outside 0 to 18446744073709551615",
    ),
    (
        "negative rng",
        lambda d: d.update(rng=-1),
        "rng -1 is outside 0 to 18446744073709551615",
    ),
    (
        "astronomical loop_index",
        lambda d: item(d)["metadata"].update(loop_index=10**30),
        "item frame 'frame_4' has loop_index 1000000000000000000000000000000, which "
        "activation 'act_2' has not dispatched (1 of 2 items)",
    ),
    (
        "loop_index of an item not dispatched",
        lambda d: item(d)["metadata"].update(loop_index=1),
        "item frame 'frame_4' has loop_index 1, which activation 'act_2' has not dispatched "
        "(1 of 2 items)",
    ),
    (
        "item frame of another activation",
        lambda d: item(d)["metadata"].update(activation_id="act_9"),
        "item frame 'frame_4' is not running in activation 'act_9'",
    ),
    (
        "activation without its item",
        lambda d: d["activations"]["act_2"].update(running=[]),
        "item frame 'frame_4' is not running in activation 'act_2'",
    ),
    (
        "activation on another node than its frame's",
        lambda d: d["activations"]["act_2"].update(node_id="after"),
        "activation 'act_2' of node 'after' is not that of its controller frame 'frame_1'",
    ),
    (
        "more failed items than started",
        lambda d: d["activations"]["act_2"].update(failed=2),
        "activation 'act_2' counts 2 failed items of 1 started",
    ),
    (
        "activation bound below one",
        lambda d: d["activations"]["act_2"].update(max_active=0),
        f"activation 'act_2' has bounds outside 1 to {FOREVER}",
    ),
    (
        "lineage its own parent",
        lambda d: d["lineages"]["lin_3"].update(parent_lineage_id="lin_3"),
        "cyclic lineage ancestry at lineage 'lin_3'",
    ),
    (
        "two lineages each other's parent",
        lambda d: d["lineages"]["root"].update(parent_lineage_id="lin_3"),
        "cyclic lineage ancestry at lineage 'root'",
    ),
    (
        "lineage with a missing parent",
        lambda d: d["lineages"]["lin_3"].update(parent_lineage_id="lin_9"),
        "lineage 'lin_3' names unknown parent 'lin_9'",
    ),
    (
        "lineage of a missing scope",
        lambda d: d["lineages"]["lin_3"].update(scope_id="scope_4"),
        "lineage 'lin_3' names unknown scope",
    ),
    (
        "interrupt at another node than its frame's",
        lambda d: d["interrupts"][0].update(node_id="after"),
        "interrupt at 'after' is not that of its frame 'frame_5'",
    ),
    ("unknown top-level key", lambda d: d.update(owner="mallory"), "owner: unknown key"),
    (
        "unknown key in a frame",
        lambda d: item(d).update(extra=1),
        "frames.frame_4.extra: unknown key",
    ),
    (
        "unknown key in an activation",
        lambda d: d["activations"]["act_2"].update(extra=1),
        "activations.act_2.extra: unknown key",
    ),
]

ON_RESUME: list[tuple[str, Change, str]] = [
    (
        "activation on a node that is not a foreach",
        lambda d: rename_loop_node(d, "after"),
        "activation 'act_2' belongs to node 'after', which is a node, not a foreach",
    ),
    (
        "waiting at a node that is not an interrupt",
        lambda d: wait_at(d, "after"),
        "the run waits at node 'after', which is a node, not an interrupt",
    ),
    (
        "a frame at a node the workflow does not have",
        lambda d: wait_at(d, "ghost"),
        "frame 'frame_5' runs node 'ghost', which workflow 'test' does not have",
    ),
]


@pytest.mark.parametrize(
    ("change", "message"), [c[1:] for c in ON_LOAD], ids=[c[0] for c in ON_LOAD]
)
def test_a_tampered_checkpoint_is_refused_on_load(change: Change, message: str) -> None:
    data = checkpoint()
    change(data)
    with pytest.raises(InvalidRunState) as caught:
        load(json.dumps(data))
    assert str(caught.value) == f"invalid run state: {message}"


@pytest.mark.parametrize(
    ("change", "message"), [c[1:] for c in ON_RESUME], ids=[c[0] for c in ON_RESUME]
)
def test_a_checkpoint_wrong_for_its_workflow_is_refused_on_resume(
    change: Change, message: str
) -> None:
    data = checkpoint()
    change(data)
    state = load(json.dumps(data))  # consistent in itself
    with pytest.raises(InvalidRunState) as caught:
        resume_workflow(state, {}, PAUSED, {"probe": Recorder()})
    assert str(caught.value) == f"invalid run state: {message}"


def test_the_checkpoint_as_written_loads_and_resumes() -> None:
    """The changes above are what is refused: the untouched checkpoint goes on."""
    state: RunState = load(json.dumps(checkpoint()))
    result = resume_workflow(state, {}, PAUSED, {"probe": Recorder()})
    assert (result.status, result.state.interrupts[0].node_id) == ("paused", "ask")
    assert result.state.counter > 5


WORKFLOW_FILE = json.dumps(PAUSED.model_dump(mode="json", by_alias=True, exclude_none=True))


@pytest.mark.parametrize(
    ("change", "message"),
    [ON_LOAD[1][1:], ON_LOAD[-3][1:], ON_RESUME[0][1:]],
    ids=["on load", "unknown key", "on resume"],
)
def test_wfls_run_refuses_a_tampered_checkpoint(
    capsys, tmp_path, monkeypatch, change: Change, message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "test.wf.json").write_text(WORKFLOW_FILE)
    (tmp_path / "in.json").write_text(json.dumps({"rows": ROWS}))
    (tmp_path / "answer.json").write_text("{}")
    assert main(["run", "test.wf.json", "--input", "in.json", "--save", "run.json"]) == 0
    data = json.loads((tmp_path / "run.json").read_text())
    change(data)
    (tmp_path / "run.json").write_text(json.dumps(data))
    capsys.readouterr()
    code = main(["run", "test.wf.json", "--resume", "run.json", "--answer", "answer.json"])
    out, err = capsys.readouterr()
    assert (code, out, err) == (2, "", f"wfls: 'run.json': invalid run state: {message}\n")
