"""Running workflows: structured context derived at execution time, and a readable trace.

The runtime half of wfls. It never imports the language-server libraries;
the editor calls the plain functions of :mod:`wf_core.runtime.preview`.

- :func:`execute_workflow` / :func:`resume_workflow` run a workflow with
  handlers (``(payload, ctx) -> result``) and return a :class:`RunResult`;
  :func:`prepare_run` / :func:`prepare_resume` give the :class:`Engine` before it
  runs, whose ``steps()`` a debugger drives one activation at a time.
- :func:`frame_context_view` rebuilds what a frame sees from the run state.
- :func:`dump` / :func:`load` write and read the run state as JSON.
- :func:`stand_in_handlers` makes handlers from the node defs' contracts;
  :func:`outcome_choice_problems` says which chosen outcomes they cannot return.
- ``DEFAULT_MAX_STEPS`` is the step limit of the editor's runs and of ``wfls run``.
"""

from __future__ import annotations

from wf_core.base.step_limit import DEFAULT_MAX_STEPS
from wf_core.runtime.engine import Engine, StepLimit
from wf_core.runtime.errors import InvalidRunState, WorkflowExecutionError, WorkflowRefused
from wf_core.runtime.execute import (
    RunResult,
    execute_workflow,
    prepare_resume,
    prepare_run,
    resume_workflow,
    run_result,
)
from wf_core.runtime.frames import (
    ForeachContext,
    Frame,
    FrameContextView,
    FrameKind,
    frame_context_view,
)
from wf_core.runtime.handlers import Handler, NodeResult, RuntimeContext, normalise_result
from wf_core.runtime.reducers import BUILTIN_REDUCERS, Reducer
from wf_core.runtime.standins import outcome_choice_problems, sample_value, stand_in_handlers
from wf_core.runtime.state import (
    STATE_SCHEMA_VERSION,
    ForeachActivation,
    Lineage,
    PendingInterrupt,
    RunState,
    RunStatus,
    ScopeState,
    dump,
    load,
)
from wf_core.runtime.trace import ActivationRecord, render_json_lines, render_text

__all__ = [
    "BUILTIN_REDUCERS",
    "DEFAULT_MAX_STEPS",
    "STATE_SCHEMA_VERSION",
    "ActivationRecord",
    "Engine",
    "ForeachActivation",
    "ForeachContext",
    "Frame",
    "FrameContextView",
    "FrameKind",
    "Handler",
    "InvalidRunState",
    "Lineage",
    "NodeResult",
    "PendingInterrupt",
    "Reducer",
    "RunResult",
    "RunState",
    "RunStatus",
    "RuntimeContext",
    "ScopeState",
    "StepLimit",
    "WorkflowExecutionError",
    "WorkflowRefused",
    "dump",
    "execute_workflow",
    "frame_context_view",
    "load",
    "normalise_result",
    "outcome_choice_problems",
    "prepare_resume",
    "prepare_run",
    "render_json_lines",
    "render_text",
    "resume_workflow",
    "run_result",
    "sample_value",
    "stand_in_handlers",
]
