"""``wfls run FILE``: run a workflow, with stand-ins or the user's handlers.

Exit statuses: 0 the run completed (or paused at an interrupt, with the way
to resume printed), 1 the run failed, stopped at its step limit or was refused
(validation errors, an input that does not match ``input_schema``, a missing
handler), 2 bad arguments (an ``--outcome`` no node can take among them) or an
input, answer, handler module or run-state file that cannot be read. Every
error is one line on stderr; no traceback.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import shlex
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wf_core.models import Workflow
    from wf_core.runtime import ActivationRecord, Handler, PendingInterrupt, RunResult
    from wf_core.workspace.catalog import Workspace

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

DEFAULT_READ_MB = 64
"""What ``--input``, ``--answer`` and ``--resume`` read at most, in MB (``--max-read-mb``):
no JSON a person or a paused run writes comes near it, and reading ``/dev/zero`` or an
endless pipe would otherwise fill the memory."""


class UsageError(Exception):
    """Exit 2 with this one line."""


class RunFailed(Exception):
    """Exit 1 with this one line."""


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    from wf_core.base.step_limit import DEFAULT_MAX_STEPS  # a constant: imports nothing

    parser.add_argument("file", help="the workflow document (*.wf.toml or *.wf.json)")
    parser.add_argument(
        "--root",
        metavar="DIR",
        help="resolve subgraphs in the documents under DIR (default: the file's folder "
        "and below), as wfls check --root does",
    )
    parser.add_argument(
        "--input",
        metavar="INPUT.json",
        help="the workflow input (JSON); - reads it from standard input",
    )
    parser.add_argument(
        "--handlers",
        metavar="MODULE:MAPPING",
        help="a mapping of node def name to handler, e.g. myflows.handlers:HANDLERS "
        "(default: stand-ins built from the node defs' output schemas)",
    )
    parser.add_argument(
        "--outcome",
        action="append",
        default=[],
        metavar="NODE=OUTCOME",
        help="the outcome a node's stand-in returns, or an interrupt resumes with (repeatable)",
    )
    parser.add_argument(
        "--trace", action="store_true", help="print every activation, as it happens"
    )
    parser.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        dest="fmt",
        help="text (default), or json: the result as one JSON object, or with --trace the "
        "activations as JSON Lines",
    )
    parser.add_argument("--resume", metavar="RUN.json", help="continue a paused run")
    parser.add_argument(
        "--answer",
        metavar="ANSWER.json",
        help="the answer to the interrupt (JSON); - reads it from standard input",
    )
    parser.add_argument("--save", metavar="RUN.json", help="write the run state here")
    parser.add_argument(
        "--max-read-mb",
        type=_positive,
        default=DEFAULT_READ_MB,
        metavar="N",
        help=f"read at most N MB from each of --input, --answer and --resume, refusing more "
        f"(default {DEFAULT_READ_MB})",
    )
    parser.add_argument(
        "--save-test",
        metavar="FILE",
        help="write a test document (*.wf.test.toml or *.wf.test.json) whose pins are what "
        "the handlers returned and whose expectations are what happened (wfls test runs it)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        help="orders concurrent items (default 0; a resumed run goes on with the saved one)",
    )
    parser.add_argument(
        "--max-steps",
        type=_positive,
        default=DEFAULT_MAX_STEPS,
        metavar="N",
        help=f"stop the run after N steps, so that a workflow that loops forever ends "
        f"(default {DEFAULT_MAX_STEPS}, as in the editor; counted afresh by each --resume)",
    )


def _positive(text: str) -> int:
    """``--max-steps``: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got '{text}'")
    return value


def run_workflow(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except UsageError as problem:
        print(f"wfls: {problem}", file=sys.stderr)
        return EXIT_USAGE
    except RunFailed as problem:
        print(f"wfls: {problem}", file=sys.stderr)
        return EXIT_FAILED


def _parse_outcomes(specs: list[str]) -> dict[str, str]:
    outcomes: dict[str, str] = {}
    for spec in specs:
        node, sep, outcome = spec.rpartition("=")
        if not sep or not node or not outcome:
            raise UsageError(f"--outcome expects NODE=OUTCOME, got '{spec}'")
        outcomes[node] = outcome
    return outcomes


def read_json(path: str, what: str, max_mb: int = DEFAULT_READ_MB, hint: str = "") -> Any:
    """The JSON value of the file at ``path``, or of standard input for ``-``, read by
    :func:`read_bytes`."""
    where = "from standard input" if path == "-" else f"'{path}'"
    data = read_bytes(path, what, max_mb, hint)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"cannot read {what} {where}: not UTF-8 text") from None
    if not text.strip():
        raise UsageError(f"{what} {where} is empty: expected JSON")
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(f"{what} {where} is not JSON: {error}") from None
    except RecursionError:  # the decoder recurses once per level
        raise UsageError(f"{what} {where} nests too deeply to be read") from None


def read_bytes(
    path: str, what: str, max_mb: int = DEFAULT_READ_MB, hint: str = "", *, stdin: bool = True
) -> bytes:
    """The bytes of the file at ``path`` (or of standard input for ``-`` when ``stdin``), at most
    ``max_mb`` MB. A file is read only when it is a regular file, as ``wfls check`` reads
    the files it is given (``wf_core.workspace.files.read_regular_file``): a FIFO would
    block the run, a device never end. ``hint`` follows the reason when the limit is what
    refused it (how to raise it)."""
    from wf_core.workspace.files import larger_than, read_regular_file

    limit = max_mb * 1_000_000
    if stdin and path == "-":
        where = "from standard input"
        try:
            data: bytes | str = _stdin_bytes(limit + 1)
        except OSError as error:
            data = error.strerror or str(error)
        if isinstance(data, bytes) and len(data) > limit:
            data = larger_than(limit)
    else:
        where = f"'{path}'"
        data = read_regular_file(Path(path), limit)
    if isinstance(data, str):
        more = f" {hint}" if hint and data == larger_than(limit) else ""
        raise UsageError(f"cannot read {what} {where}: {data}{more}")
    return data


def _stdin_bytes(size: int) -> bytes:
    """At most ``size`` bytes of standard input, so that its encoding is checked like a
    file's and its length bounded like one."""
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is not None:
        data: bytes = buffer.read(size)
        return data
    return sys.stdin.read(size).encode("utf-8")


def load_runnable(file: Path, root: str | None) -> tuple[Workflow, dict[str, Workflow]]:
    """The workflow of ``file`` and the children its subgraph nodes reach, found as
    ``wfls check FILE`` finds them (the same workspace rule: ``wfls.cli.check.workspace_for``).
    Refused, with every finding printed as ``wfls check`` prints it, when the document
    or a child it reaches has an error ``wfls check`` reports."""
    from wf_core.validation.subgraphs import ChildMissing, called_workflows
    from wfls.cli.check import workspace_for

    if not file.is_file():
        why = "no such file or directory" if not file.exists() else "not a regular file"
        raise UsageError(f"cannot read '{file}': {why}")
    if root is not None and not Path(root).is_dir():
        raise UsageError(f"--root {root!r} is not a folder")
    workspace, uri, problem = workspace_for(file, root)
    if problem is not None:
        raise UsageError(f"cannot read '{file}': {problem}")
    workflow = _runnable(workspace, uri, str(file))

    def child(name: str) -> Workflow | None:
        document = workspace.resolve(name)
        if document is None:
            return None
        return _runnable(workspace, document.uri, str(document.path or document.uri))

    try:
        return workflow, called_workflows(workflow, child)
    except ChildMissing as missing:
        if missing.published:
            raise RunFailed(
                f"a subgraph node calls the published workflow '{missing.display}', which "
                "wfls cannot fetch; give it a document in the workspace"
            ) from None
        raise RunFailed(  # check reports it as unknown_subgraph; here for a child's child
            f"a subgraph node calls '{missing.display}': no document under "
            f"'{root or file.parent}' declares it"
        ) from None


def _runnable(workspace: Workspace, uri: str, name: str) -> Workflow:
    """The workflow of the workspace document ``uri``, when ``wfls check`` finds no error in
    it; else its findings go to stderr as ``wfls check`` prints them and the run stops."""
    from wf_core.base.issues import Severity
    from wf_core.workspace.checks import document_issues
    from wfls.cli.check import other_document
    from wfls.cli.reporting import text_for

    document = workspace.document(uri)
    assert document is not None
    snapshot = document.snapshot
    issues = document_issues(workspace, uri)
    errors = [p for p in issues if p.severity == Severity.ERROR]
    if errors or snapshot.workflow is None:
        # Every finding, as ``wfls check`` prints it: an error's consequences are part of it.
        sys.stderr.write(text_for(name, snapshot, issues, other_document(workspace)).text)
        raise RunFailed(f"'{name}' has {len(errors)} error(s); fix them before running it")
    workflow: Workflow = snapshot.workflow
    return workflow


def import_handlers(spec: str) -> dict[str, Handler]:
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise UsageError(f"--handlers expects MODULE:MAPPING, got '{spec}'")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except Exception as error:
        raise UsageError(f"cannot import handler module '{module_name}': {error}") from None
    value: Any = module
    for part in attribute.split("."):
        if not hasattr(value, part):
            raise UsageError(f"module '{module_name}' has no '{attribute}'")
        value = getattr(value, part)
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and callable(v) for k, v in value.items()
    ):
        raise UsageError(f"'{spec}' is not a mapping of node def names to callables")
    return dict(value)


def _run(args: argparse.Namespace) -> int:
    from wf_core.runtime import stand_in_handlers

    _check_combination(args)
    outcomes = _parse_outcomes(args.outcome)
    workflow, subgraphs = load_runnable(Path(args.file), args.root)
    _check_outcomes(workflow, subgraphs, outcomes, stand_ins=args.handlers is None)
    if args.handlers is not None:
        handlers = import_handlers(args.handlers)
    else:
        handlers = stand_in_handlers(workflow, outcomes=outcomes, subgraphs=subgraphs)
    if args.resume is None:
        result = _start(args, workflow, subgraphs, handlers)
    else:
        result = _resume(args, workflow, subgraphs, handlers, outcomes)
    if args.save_test is not None:
        _save_test(args, workflow, result)
    if args.save is not None:
        from wfls.cli.writing import replace_atomically

        try:
            replace_atomically(Path(args.save), result.dump_state().encode("utf-8"))
        except OSError as error:
            raise UsageError(f"cannot write '{args.save}': {error.strerror or error}") from None
    _report(result, args, workflow, subgraphs)
    return EXIT_FAILED if result.status == "failed" else EXIT_OK


def _save_test(args: argparse.Namespace, workflow: Workflow, result: RunResult) -> None:
    """Write ``--save-test``: the run as a test document. Its workflow is named by name
    when the document goes beside the workflow (where ``wfls test`` looks names up), else
    by its path relative to the document."""
    from wf_core.base.reading import syntax_of
    from wf_core.runtime.frames import ROOT_SCOPE_ID
    from wf_core.workflow_tests.saving import (
        ExportError,
        document_from_run,
        render_test_document,
    )

    target = Path(args.save_test)
    source = Path(args.file)
    same_folder = target.parent.resolve() == source.parent.resolve()
    reference = workflow.name if same_folder else os.path.relpath(source, target.parent)
    data = result.state.scopes[ROOT_SCOPE_ID].input
    document = document_from_run(reference, data, result, result.trace, seed=args.seed or 0)
    try:
        text = render_test_document(document, syntax_of(target))
    except ExportError as error:
        raise UsageError(
            f"cannot write '{target}': {error}; a .wf.test.json file can hold it"
        ) from None
    from wfls.cli.writing import replace_atomically

    try:
        replace_atomically(target, text.encode("utf-8"))
    except OSError as error:
        raise UsageError(f"cannot write '{target}': {error.strerror or error}") from None


def _check_combination(args: argparse.Namespace) -> None:
    """Options that cannot go together, before anything is read."""
    if args.resume is None and args.input is None:
        raise UsageError(
            "--input INPUT.json is required (or --resume RUN.json --answer ANSWER.json)"
        )
    if args.resume is not None and args.input is not None:
        raise UsageError("--input cannot be used with --resume: the saved run has its input")
    if args.resume is not None and args.seed is not None:
        raise UsageError("--seed cannot be used with --resume: the saved run goes on with its own")
    if (args.resume is None) != (args.answer is None):
        raise UsageError("--resume and --answer go together")
    if args.save is not None:
        _check_save_target(args)
    if args.save_test is not None:
        from wf_core.workflow_tests import is_test_document

        if args.resume is not None:
            raise UsageError(
                "--save-test records a run from its start: it cannot be used with --resume"
            )
        if not is_test_document(args.save_test):
            raise UsageError(
                f"--save-test '{args.save_test}': name it *.wf.test.toml or *.wf.test.json"
            )


def _check_save_target(args: argparse.Namespace) -> None:
    """``--save`` never names a file the run reads: the state would replace the input,
    the answer or the workflow itself. (The checkpoint ``--resume`` read may be
    replaced: it is read whole before the run, and replaced only once the new state is
    written.)"""
    target = Path(args.save)
    read = (("the workflow", args.file), ("--input", args.input), ("--answer", args.answer))
    for what, path in read:
        if path is None or path == "-":
            continue
        try:
            same = os.path.samefile(target, path)
        except OSError:  # one of them does not exist (yet): they are not one file
            same = False
        if same:
            raise UsageError(
                f"--save '{args.save}' is {what} file: saving there would overwrite what the "
                "run reads; save the run state to another file"
            )


def _check_outcomes(
    workflow: Workflow, subgraphs: dict[str, Workflow], outcomes: dict[str, str], *, stand_ins: bool
) -> None:
    """Every ``--outcome`` names a node (or node def) that can take the outcome it gives."""
    from wf_core.runtime import outcome_choice_problems

    problems = outcome_choice_problems(workflow, outcomes, subgraphs=subgraphs, stand_ins=stand_ins)
    if problems:
        key, problem = next(iter(problems.items()))
        raise UsageError(f"--outcome {key}={outcomes[key]}: {problem}")


def _start(
    args: argparse.Namespace,
    workflow: Workflow,
    subgraphs: dict[str, Workflow],
    handlers: dict[str, Handler],
) -> RunResult:
    from wf_core.runtime import WorkflowExecutionError, execute_workflow

    data = read_json(args.input, "input", args.max_read_mb, _READ_HINT)
    try:
        return execute_workflow(
            workflow,
            data,
            handlers,
            subgraphs=subgraphs,
            seed=args.seed if args.seed is not None else 0,
            max_steps=args.max_steps,
            trace=args.save_test is not None,  # the test document is written from it
            on_record=_trace_printer(args),
        )
    except WorkflowExecutionError as error:
        problems = getattr(error, "problems", ())
        for problem in problems[1:]:
            print(f"wfls: {problem}", file=sys.stderr)
        raise RunFailed(str(problems[0]) if problems else str(error)) from None


_READ_HINT = "(--max-read-mb N reads more)"


def _resume(
    args: argparse.Namespace,
    workflow: Workflow,
    subgraphs: dict[str, Workflow],
    handlers: dict[str, Handler],
    outcomes: dict[str, str],
) -> RunResult:
    from wf_core.runtime import InvalidRunState, WorkflowExecutionError, load, resume_workflow

    saved_bytes = read_bytes(args.resume, "run state", args.max_read_mb, _READ_HINT, stdin=False)
    try:
        saved_text = saved_bytes.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"cannot read run state '{args.resume}': not UTF-8 text") from None
    try:
        saved = load(saved_text)
    except WorkflowExecutionError as error:
        raise UsageError(f"'{args.resume}': {error}") from None
    answer = read_json(args.answer, "answer", args.max_read_mb, _READ_HINT)
    waiting = saved.interrupts[0].node_id if saved.interrupts else None
    try:
        return resume_workflow(
            saved,
            answer,
            workflow,
            handlers,
            outcome=outcomes.get(waiting) if waiting is not None else None,
            subgraphs=subgraphs,
            max_steps=args.max_steps,
            trace=False,
            on_record=_trace_printer(args),
        )
    except InvalidRunState as error:  # what only the workflow shows wrong in the checkpoint
        raise UsageError(f"'{args.resume}': {error}") from None
    except WorkflowExecutionError as error:
        message = str(error)
        if waiting is not None and waiting not in outcomes and "choose" in message:
            message += f" (--outcome {waiting}=OUTCOME)"
        raise RunFailed(message) from None


def _trace_printer(args: argparse.Namespace) -> Callable[[ActivationRecord], None] | None:
    """With ``--trace``, what prints each activation as it happens, flushed at once, so a
    long run shows its progress and the trace is never held in memory; else None."""
    if not args.trace:
        return None
    from wf_core.runtime import render_json_lines, render_text

    render = render_json_lines if args.fmt == "json" else render_text

    def emit(record: ActivationRecord) -> None:
        out = sys.stdout
        out.write(render((record,)))
        out.flush()

    return emit


def _report(
    result: RunResult, args: argparse.Namespace, workflow: Workflow, subgraphs: dict[str, Workflow]
) -> None:
    """The end of the run: its result (the trace went out as it happened)."""
    out = sys.stdout
    if args.fmt == "json":
        if args.trace:
            sys.stderr.write(_summary_text(result, args, workflow, subgraphs))
            return
        pending = result.interrupt
        document = {
            "status": result.status,
            "outcome": result.outcome,
            "output": result.output,
            "error": result.error,
            "interrupt": None
            if pending is None
            else {"node": pending.node_id, "kind": pending.kind, "request": pending.request},
        }
        out.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
        if result.step_limit is not None:
            sys.stderr.write(_summary_text(result, args, workflow, subgraphs))
        return
    if args.trace:
        out.write("\n")
    summary = _summary_text(result, args, workflow, subgraphs)
    (sys.stderr if result.step_limit is not None else out).write(summary)


def _summary_text(
    result: RunResult, args: argparse.Namespace, workflow: Workflow, subgraphs: dict[str, Workflow]
) -> str:
    if result.status == "completed":
        output = json.dumps(result.output, indent=2, ensure_ascii=False)
        return f"completed with outcome '{result.outcome}'\noutput: {output}\n"
    if result.step_limit is not None:
        stop = result.step_limit
        return (
            f"wfls: the run stopped at its step limit of {stop.limit} steps, at {stop.where}; "
            "the workflow may loop forever (raise the limit with --max-steps N)\n"
        )
    if result.status == "failed":
        return f"failed: {result.error}\n"
    pending = result.interrupt
    if pending is None:  # pragma: no cover - a run ends completed, failed or paused
        return f"{result.status}\n"
    request = json.dumps(pending.request, indent=2, ensure_ascii=False)
    lines = [
        f"paused at interrupt '{pending.node_id}' (kind '{pending.kind}')",
        f"request: {request}",
    ]
    if args.save is None:
        lines.append("the run state was not saved: run again with --save RUN.json to resume it")
        return "\n".join(lines) + "\n"
    command, choose = _resume_command(args, result, pending, workflow, subgraphs)
    lines.append(f"resume with: {command}")
    if choose:
        lines.append(f"OUTCOME is one of: {', '.join(choose)}")
    return "\n".join(lines) + "\n"


def _resume_command(
    args: argparse.Namespace,
    result: RunResult,
    pending: PendingInterrupt,
    workflow: Workflow,
    subgraphs: dict[str, Workflow],
) -> tuple[str, list[str]]:
    """The command that resumes this run as it ran (the same file, handlers, chosen
    outcomes and step limit; the seed is in the saved state), quoted for a POSIX shell,
    and the outcomes to choose from when the interrupt needs one (``OUTCOME`` in it)."""
    from wf_core.base.step_limit import DEFAULT_MAX_STEPS

    words = ["wfls", "run", args.file, "--resume", args.save, "--answer", "ANSWER.json"]
    if args.root is not None:
        words += ["--root", args.root]
    if args.handlers is not None:
        words += ["--handlers", args.handlers]
    for spec in args.outcome:
        words += ["--outcome", spec]
    choose: list[str] = []
    node = result.interrupt_node(workflow, subgraphs)
    chosen = _parse_outcomes(args.outcome)
    if node is not None and len(node.outcomes) > 1 and pending.node_id not in chosen:
        words += ["--outcome", f"{pending.node_id}=OUTCOME"]
        choose = list(node.outcomes)
    if args.max_steps != DEFAULT_MAX_STEPS:
        words += ["--max-steps", str(args.max_steps)]
    words += ["--save", args.save]
    return " ".join(shlex.quote(word) for word in words), choose
