"""The engine driven one activation at a time (``Engine.steps``), as a debugger drives it."""

from __future__ import annotations

from rt_support import ROWS, Recorder, loop, probe, workflow

from wf_core.runtime import execute_workflow, frame_context_view, prepare_run, run_result

LOOP = workflow(
    [loop("rows", "input.rows", "row"), probe("body", a="context.foreach.rows.item.name")],
    ["rows:loop->body", "body:ok->rows", "rows:done->__end__"],
)


def test_each_step_yields_the_frame_about_to_run_before_running_it() -> None:
    recorder = Recorder()
    engine = prepare_run(LOOP, {"rows": ROWS}, {"probe": recorder})
    seen: list[tuple[str | None, int, object]] = []
    for frame in engine.steps():
        # Nothing of this activation has happened yet: the handler was called once per
        # earlier body activation only, and the frame's context is what it will read.
        view = frame_context_view(engine.state, frame)
        item = view.graph.get("loop_item")
        seen.append((frame.node_id, len(recorder.calls), item))
    assert seen == [
        ("rows", 0, None),
        ("body", 0, ROWS[0]),
        ("body", 1, ROWS[1]),
    ]
    assert run_result(engine).status == "completed"


def test_a_stepped_run_ends_as_the_whole_run_does() -> None:
    stepped = prepare_run(LOOP, {"rows": ROWS}, {"probe": Recorder()}, seed=3)
    for _ in stepped.steps():
        pass
    whole = execute_workflow(LOOP, {"rows": ROWS}, {"probe": Recorder()}, seed=3)
    assert [r.as_json() for r in run_result(stepped).trace] == [r.as_json() for r in whole.trace]
    assert run_result(stepped).state.steps == whole.state.steps == 3


def test_the_step_limit_ends_a_stepped_run_too() -> None:
    engine = prepare_run(LOOP, {"rows": ROWS}, {"probe": Recorder()}, max_steps=2)
    assert [frame.node_id for frame in engine.steps()] == ["rows", "body"]
    result = run_result(engine)
    assert result.status == "failed" and result.step_limit is not None
    assert result.step_limit.node_id == "body"
