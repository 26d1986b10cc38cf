"""What a debug session runs: a launch's or an attach's arguments, read into a
:class:`Target` that holds everything needed to run the workflow again from its start.

The workflow and its subgraph children are read as ``wfls run`` reads them, with its
own functions (``wfls.cli.run``): a document ``wfls check`` finds an error in is
refused. Handlers are the stand-ins ``wfls run`` makes unless ``handlers`` names the
user's: the adapter runs no user code otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wf_core.base.step_limit import DEFAULT_MAX_STEPS

if TYPE_CHECKING:
    from wf_core.models import Workflow
    from wf_core.runtime import Handler
    from wf_core.runtime.frames import Frame
    from wf_core.runtime.json_values import JsonValue

__all__ = ["Answer", "Target", "TargetError", "read_target"]


class TargetError(Exception):
    """The launch or attach cannot be made; the message says why, in one line."""


@dataclass(frozen=True, slots=True)
class Answer:
    """The answer an interrupt gets when the run pauses there, and the outcome to
    resume with (None when the interrupt declares one)."""

    value: JsonValue
    outcome: str | None = None


@dataclass(slots=True)
class Target:
    """A run, replayable: the same workflows, handlers, input and seed make the same
    activations, which is how the debugger steps back. ``documents`` maps the workflow
    of each scope (``""`` for the root, else the name subgraph nodes call) to its file;
    ``saved_steps`` is how far an attached saved run had come (None for a launch);
    ``observe`` sees each frame before it is activated (a test case's pins count the
    activations they name with it)."""

    program: Path
    workflow: Workflow
    subgraphs: dict[str, Workflow]
    handlers: Mapping[str, Handler]
    input: JsonValue
    seed: int = 0
    max_steps: int = DEFAULT_MAX_STEPS
    answers: list[Answer] = field(default_factory=list)
    documents: dict[str, Path] = field(default_factory=dict)
    saved_steps: int | None = None
    observe: Callable[[Frame], None] | None = None


def _json_argument(value: object, what: str, base: Path) -> Any:
    """A JSON value given inline, or the file a string names (relative to ``base``)."""
    from wfls.cli.run import RunFailed, UsageError, read_json

    if isinstance(value, str):
        path = Path(value)
        if not path.is_absolute():
            path = base / path
        try:
            return read_json(str(path), what)
        except (UsageError, RunFailed) as error:
            raise TargetError(str(error)) from None
    return value


def _answers(arguments: Mapping[str, Any], base: Path) -> list[Answer]:
    raw = arguments.get("answers", [])
    if not isinstance(raw, list):
        raise TargetError('\'answers\' is a list of {"answer": ..., "outcome"?: ...}')
    answers: list[Answer] = []
    for entry in raw:
        if not isinstance(entry, Mapping) or "answer" not in entry:
            raise TargetError('each of \'answers\' is {"answer": FILE or object, "outcome"?}')
        outcome = entry.get("outcome")
        answers.append(
            Answer(
                _json_argument(entry["answer"], "answer", base),
                outcome if isinstance(outcome, str) else None,
            )
        )
    return answers


def _case_target(arguments: Mapping[str, Any], base: Path) -> Target:
    """The target of a case of a workflow test document (``tests``, ``case``): the
    workflow it names, its input, seed and interrupt answers, and its pins answering
    before the stand-ins (or ``handlers``), as ``wfls test`` runs it."""
    from wf_core.base.reading import syntax_of
    from wf_core.workflow_tests import case_handlers, find_subject, read_test_document
    from wf_core.workflow_tests.subject import SubjectProblem
    from wf_core.workspace.files import path_of_uri
    from wfls.cli.check import workspace_for
    from wfls.cli.run import RunFailed, UsageError, import_handlers

    path = (base / str(arguments["tests"])).resolve()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or error
        raise TargetError(f"cannot read test document '{path}': {reason}") from None
    loaded = read_test_document(text, syntax_of(path))
    wanted = arguments.get("case")
    found = [c for c in loaded.cases if wanted is None or c.name == wanted]
    if not found or found[0].case is None or loaded.workflow is None:
        names = ", ".join(repr(c.name) for c in loaded.cases if c.name) or "none"
        what = f"no case named {wanted!r}" if found == [] else "its case does not load"
        raise TargetError(f"'{path.name}': {what} (cases: {names}); wfls test says more")
    case = found[0].case
    root = arguments.get("root")
    workspace, _, _ = workspace_for(path, str(root) if isinstance(root, str) and root else None)
    subject = find_subject(workspace, loaded.workflow, path.parent)
    if isinstance(subject, SubjectProblem):
        raise TargetError(subject.message)
    spec = arguments.get("handlers")
    try:
        user = import_handlers(spec) if isinstance(spec, str) and spec else None
    except (UsageError, RunFailed) as error:
        raise TargetError(str(error)) from None
    pinned = case_handlers(case, subject, user)
    program = path_of_uri(subject.uri) or path
    documents = {"": Path(program)}
    for name in subject.subgraphs:
        document = workspace.resolve(name)
        if document is not None and document.path is not None:
            documents[name] = Path(document.path)
    return Target(
        program=Path(program),
        workflow=subject.workflow,
        subgraphs=subject.subgraphs,
        handlers=pinned.handlers,
        input=case.input,
        seed=case.seed,
        answers=[Answer(a.answer, a.outcome) for a in case.interrupt],
        documents=documents,
        observe=pinned.activating,
    )


def read_target(arguments: Mapping[str, Any], *, attach: bool) -> Target:
    """The target of a ``launch`` (``program``, ``input``; or ``tests`` and ``case``: a
    case of a workflow test document) or an ``attach`` (``program``, ``run``: a run
    state ``wfls run --save`` wrote, replayed from its own input and seed). Both take
    ``handlers`` (``MODULE:MAPPING``), ``outcomes`` (node id → the outcome its stand-in
    returns), ``answers``, ``root``, ``seed`` and ``maxSteps``."""
    from wf_core.runtime import WorkflowExecutionError, load, stand_in_handlers
    from wf_core.runtime.frames import ROOT_SCOPE_ID
    from wfls.cli.check import workspace_for
    from wfls.cli.run import RunFailed, UsageError, import_handlers, load_runnable

    base = Path(str(arguments.get("cwd") or Path.cwd()))
    if not attach and isinstance(arguments.get("tests"), str):
        target = _case_target(arguments, base)
        max_steps = arguments.get("maxSteps", DEFAULT_MAX_STEPS)
        if not isinstance(max_steps, int) or isinstance(max_steps, bool) or max_steps < 1:
            raise TargetError("'maxSteps' is a whole number of at least 1")
        target.max_steps = max_steps
        return target
    program_text = arguments.get("program")
    if not isinstance(program_text, str) or not program_text:
        raise TargetError("'program' names the workflow document to run")
    program = (base / program_text).resolve()
    root = arguments.get("root")
    root = str(root) if isinstance(root, str) and root else None
    outcomes = arguments.get("outcomes") or {}
    if not isinstance(outcomes, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in outcomes.items()
    ):
        raise TargetError("'outcomes' maps node ids to the outcome their stand-in returns")
    max_steps = arguments.get("maxSteps", DEFAULT_MAX_STEPS)
    if not isinstance(max_steps, int) or isinstance(max_steps, bool) or max_steps < 1:
        raise TargetError("'maxSteps' is a whole number of at least 1")
    handlers_spec = arguments.get("handlers")
    try:
        workflow, subgraphs = load_runnable(program, root)
        if isinstance(handlers_spec, str) and handlers_spec:
            handlers: Mapping[str, Handler] = import_handlers(handlers_spec)
        else:
            handlers = stand_in_handlers(workflow, outcomes=dict(outcomes), subgraphs=subgraphs)
    except (UsageError, RunFailed) as error:
        raise TargetError(str(error)) from None
    workspace, _, _ = workspace_for(program, root)
    documents = {"": program}
    for name in subgraphs:
        document = workspace.resolve(name)
        if document is not None and document.path is not None:
            documents[name] = Path(document.path)
    target = Target(
        program=program,
        workflow=workflow,
        subgraphs=subgraphs,
        handlers=handlers,
        input=None,
        max_steps=max_steps,
        answers=_answers(arguments, base),
        documents=documents,
    )
    seed = arguments.get("seed")
    if attach:
        run_file = arguments.get("run")
        if not isinstance(run_file, str) or not run_file:
            raise TargetError("'run' names the run state a run saved (wfls run --save)")
        path = Path(run_file) if Path(run_file).is_absolute() else base / run_file
        try:
            saved = load(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as error:
            reason = getattr(error, "strerror", None) or error
            raise TargetError(f"cannot read run state '{run_file}': {reason}") from None
        except WorkflowExecutionError as error:
            raise TargetError(f"'{run_file}': {error}") from None
        if saved.workflow != workflow.name:
            raise TargetError(
                f"the run state belongs to workflow '{saved.workflow}', not '{workflow.name}'"
            )
        target.input = saved.scopes[ROOT_SCOPE_ID].input
        target.seed = saved.seed
        target.saved_steps = saved.steps
        return target
    if "input" not in arguments:
        raise TargetError("'input' is the workflow input: a JSON file or an object")
    target.input = _json_argument(arguments["input"], "input", base)
    if seed is not None:
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise TargetError("'seed' is a whole number")
        target.seed = seed
    return target
