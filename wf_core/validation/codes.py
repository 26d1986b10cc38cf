"""The diagnostic code reference: one entry per code wfls can report.

``CODES`` covers lda-wf's ``ValidationIssueCode`` (in lda-wf's declaration
order), then wfls's own ``ProjectCode`` and ``read_error``. Each entry carries a
small complete workflow that produces the code and the message wfls prints for
it; ``tests/test_codes.py`` analyses every example and compares the message, so
the reference cannot drift from the checker.

``docs/diagnostics.md`` is generated from this module::

    python -m wf_core.validation.codes > docs/diagnostics.md
"""

from __future__ import annotations

import sys
from textwrap import dedent
from typing import Literal

from wf_core.base.issues import ProjectCode, Severity
from wf_core.base.records import record
from wf_core.validation.report import ValidationIssueCode

Origin = Literal["lda-wf", "wfls"]

READ_ERROR = "read_error"
"""Not an analysis finding: ``wfls check`` was given a path it cannot read."""


@record
class CodeInfo:
    """What one diagnostic code means, with an example that produces it.

    ``example`` is a complete TOML workflow document (``example_syntax ==
    "toml"``) whose analysis reports ``code`` with exactly ``message``, or a
    shell command (``"shell"``) for codes that analysis never produces. It is
    None for codes that lda-wf's model makes unreachable, and for ``internal_error``,
    which only a bug of wfls produces; ``trigger`` says why.
    """

    code: str
    origin: Origin
    severity: Severity
    title: str
    trigger: str
    example: str | None
    fix: str
    message: str
    example_syntax: Literal["toml", "shell", "workspace"] = "toml"

    @property
    def analyzed(self) -> bool:
        """True when ``example`` is a document that analysis must report ``code`` for."""
        return self.example is not None and self.example_syntax == "toml"

    def workspace_files(self) -> dict[str, str]:
        """For a ``workspace`` example: file name → text, split at ``# file: <name>`` lines."""
        files: dict[str, str] = {}
        name = None
        for line in (self.example or "").splitlines(keepends=True):
            if line.startswith("# file: "):
                name = line[len("# file: ") :].strip()
                files[name] = ""
            elif name is not None:
                files[name] += line
        return {n: text.strip("\n") + "\n" for n, text in files.items()}


def _doc(text: str) -> str:
    return dedent(text).lstrip("\n")


def _lda(
    code: ValidationIssueCode,
    title: str,
    trigger: str,
    example: str | None,
    fix: str,
    message: str,
) -> CodeInfo:
    return CodeInfo(
        code.value,
        "lda-wf",
        Severity.ERROR,
        title,
        trigger,
        _doc(example) if example is not None else None,
        fix,
        message,
    )


def _wfls(
    code: str,
    severity: Severity,
    title: str,
    trigger: str,
    example: str | None,
    fix: str,
    message: str,
    *,
    example_syntax: Literal["toml", "shell", "workspace"] = "toml",
) -> CodeInfo:
    written = _doc(example) if example is not None else None
    return CodeInfo(
        str(code), "wfls", severity, title, trigger, written, fix, message, example_syntax
    )


Code = ValidationIssueCode

_LDA_WF = (
    _lda(
        Code.DUPLICATE_NODE_DEF,
        "Duplicate node def name",
        "Two entries of `node_defs` have the same `name`. The second one is reported; wfls "
        "checks the nodes that name it against the first.",
        """
        name = "greet"
        start = "hello"
        outcomes = ["ok"]
        edges = [{ from = "hello", outcome = "ok", to = "__end__" }]

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object" }
        output_schema = { type = "object" }

        [[node_defs]]
        name = "say_hello"  # the same name again
        outcomes = ["ok"]
        input_schema = { type = "object" }
        output_schema = { type = "object" }

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_hello"
        """,
        "Rename one of the node defs (and the nodes that should use it), or delete the duplicate.",
        "duplicate node def name 'say_hello'",
    ),
    _lda(
        Code.DUPLICATE_NODE_ID,
        "Duplicate node id",
        "Two entries of `nodes` have the same `id`. Edges, `start` and `context.foreach.<id>` "
        "paths name nodes by id, so ids must be unique; the second one is reported, with the "
        "first as its related place. Until it is fixed the id names the first node: its edges, "
        "`start` and paths are checked against that one, and hover and go to definition show it.",
        """
        name = "greet"
        start = "hello"
        outcomes = ["ok"]
        edges = [{ from = "hello", outcome = "ok", to = "__end__" }]

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object" }
        output_schema = { type = "object" }

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_hello"

        [[nodes]]
        id = "hello"  # the same id again
        type = "node"
        node = "say_hello"
        """,
        "Give each node its own id and update the edges that should lead to the renamed one, "
        "or delete the duplicate.",
        "duplicate node id 'hello'",
    ),
    _lda(
        Code.UNKNOWN_START,
        "Unknown start node",
        "`start` names no node of the workflow. Without a start nothing is reachable, so "
        "findings that only follow from it (such as `context.*` reads with no context schema) "
        "are shown as `information`.",
        """
        name = "greet"
        start = "helo"  # there is no node "helo"
        outcomes = ["ok"]
        edges = [{ from = "hello", outcome = "ok", to = "__end__" }]

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object" }
        output_schema = { type = "object" }

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_hello"
        """,
        "Set `start` to the id of the first node to run. When a node id is close, the quick fix "
        "writes it.",
        "unknown start node 'helo'",
    ),
    _lda(
        Code.DUPLICATE_EDGE,
        "Two edges for one outcome",
        "Two edges have the same `from` and `outcome`. An outcome leads to exactly one next "
        "node, so the second edge is reported.",
        """
        name = "greet"
        start = "hello"
        outcomes = ["ok"]
        edges = [
          { from = "hello", outcome = "ok", to = "__end__" },
          { from = "hello", outcome = "ok", to = "__end__" },  # the same edge again
        ]

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object" }
        output_schema = { type = "object" }

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_hello"
        """,
        "Keep one edge per source and outcome; to branch, give the node def another outcome "
        "and wire that one instead.",
        "duplicate edge for source 'hello' and outcome 'ok'",
    ),
    _lda(
        Code.UNKNOWN_EDGE_SOURCE,
        "Edge from an unknown node",
        "An edge's `from` names no node of the workflow.",
        """
        name = "greet"
        start = "hello"
        outcomes = ["ok"]
        edges = [
          { from = "hello", outcome = "ok", to = "__end__" },
          { from = "helo", outcome = "ok", to = "__end__" },  # there is no node "helo"
        ]

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object" }
        output_schema = { type = "object" }

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_hello"
        """,
        "Correct `from` to an existing node id, or delete the edge. When a node id is close, the "
        "quick fix writes it.",
        "unknown source node 'helo'",
    ),
    _lda(
        Code.UNKNOWN_EDGE_DESTINATION,
        "Edge to an unknown node",
        "An edge's `to` is neither a node id nor `__end__`.",
        """
        name = "greet"
        start = "hello"
        outcomes = ["ok"]
        edges = [{ from = "hello", outcome = "ok", to = "goodbye" }]  # there is no node "goodbye"

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object" }
        output_schema = { type = "object" }

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_hello"
        """,
        "Point `to` at an existing node id or at `__end__`, or add the missing node. When a node "
        "id (or `__end__`) is close, the quick fix writes it.",
        "unknown destination node 'goodbye'",
    ),
    _lda(
        Code.UNDECLARED_EDGE_OUTCOME,
        "Edge for an outcome the node does not declare",
        "An edge's `outcome` is not one the source node can emit: a node's outcomes come from "
        "its node def, a subgraph's and an interrupt's from their `outcomes`, a condition has "
        "`true`/`false`, a foreach `loop`/`done` (plus `completed_with_errors` when items may "
        "fail without failing the loop), a join `done`, and an end node none. Edges from a "
        "node whose node def is unknown are shown as `information`, tied to "
        "`unknown_node_def`.",
        """
        name = "greet"
        start = "hello"
        outcomes = ["ok"]
        edges = [
          { from = "hello", outcome = "ok", to = "__end__" },
          { from = "hello", outcome = "failed", to = "__end__" },  # say_hello has no "failed"
        ]

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object" }
        output_schema = { type = "object" }

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_hello"
        """,
        "Use one of the node's declared outcomes, or "
        "declare the outcome, for example in the node def's `outcomes`. When a declared outcome "
        "is close, the quick fix writes it.",
        "outcome 'failed' is not declared by node 'hello'",
    ),
    _lda(
        Code.MISSING_OUTCOME_EDGE,
        "Reachable node with an unwired outcome",
        "A node reachable from `start` declares an outcome that no edge handles, so a run "
        "that takes it would have nowhere to go. The message lists every missing outcome.",
        """
        name = "greet"
        start = "hello"
        outcomes = ["ok"]
        edges = [{ from = "hello", outcome = "ok", to = "__end__" }]  # nothing for "failed"

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok", "failed"]
        input_schema = { type = "object" }
        output_schema = { type = "object" }

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_hello"
        """,
        "Add an edge from the node for each listed outcome, or remove the outcome from the "
        "declaration if the node never emits it. The quick fix appends an edge stub for each "
        "listed outcome, leading back to the loop that owns the node (or to an `end` node or "
        "`__end__`); set each stub's target.",
        "reachable node is missing edges for outcomes ['failed']",
    ),
    _lda(
        Code.UNDECLARED_WORKFLOW_OUTCOME,
        "Ending with an undeclared workflow outcome",
        "An end node's `outcome` is not in the workflow's `outcomes`, or an edge leads to "
        "`__end__` (which ends with outcome `ok`) while `ok` is not declared; the second case "
        "says `legacy __end__ requires workflow outcome 'ok' to be declared`.",
        """
        name = "greet"
        start = "hello"
        outcomes = ["ok"]
        edges = [{ from = "hello", outcome = "ok", to = "stop" }]

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object" }
        output_schema = { type = "object" }

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_hello"

        [[nodes]]
        id = "stop"
        type = "end"
        outcome = "cancelled"  # not in the workflow's outcomes
        """,
        "Add the outcome to the top-level `outcomes`, or end with one that is declared.",
        "workflow outcome 'cancelled' is not declared",
    ),
    _lda(
        Code.UNKNOWN_NODE_DEF,
        "Unknown node def",
        "A `node` node's `node` names no entry of `node_defs`. Its bindings are not checked, "
        "and its edges' outcomes are shown as `information` (`undeclared_edge_outcome`) "
        "pointing here, since a node without a def declares no outcomes. A node def that "
        "fails to load (`invalid_model`) counts as missing too.",
        """
        name = "greet"
        start = "hello"
        outcomes = ["ok"]
        edges = [{ from = "hello", outcome = "ok", to = "__end__" }]

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object" }
        output_schema = { type = "object" }

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_helo"  # the node def is "say_hello"
        """,
        "Name an existing node def, or add the node def to `node_defs`. When a node def name is "
        "close, the quick fix writes it.",
        "unknown node def 'say_helo'",
    ),
    _lda(
        Code.INVALID_NODE_INPUT_FIELD,
        "Input binding target not in the node's input schema",
        "The first segment of an input binding's `target` is not a property of the node "
        "def's (or subgraph's) `input_schema`. The same code reports bindings whose targets "
        "overlap (`input has overlapping node-local input paths`), such as `user` and "
        "`user.name`.",
        """
        name = "greet"
        start = "hello"
        outcomes = ["ok"]
        edges = [{ from = "hello", outcome = "ok", to = "__end__" }]

        [input_schema]
        type = "object"
        properties.name = { type = "string" }

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object", properties = { name = { type = "string" } } }
        output_schema = { type = "object" }

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_hello"
        input = [{ target = "nmae", path = "input.name" }]  # the field is "name"
        """,
        "Bind to a property the node's input schema declares, or declare it there; use `.` "
        "to bind the whole payload. When a declared name is close, the quick fix writes it.",
        "destination field 'nmae' is not declared in node input schema",
    ),
    _lda(
        Code.INVALID_SOURCE_PATH,
        "Source path that does not resolve",
        "A node's or subgraph's input `path` (or a path inside an input `expression`), or a "
        "workflow `output` path, reads `input.<x>` or `state.<x>` where `x` is not declared "
        "in `input_schema` or `state_schema`. wfls also checks the deeper segments: one that "
        "a closed schema rejects is this error too (`source path '...' has unknown segment "
        "...`); one that an open object merely does not declare is `undeclared_property`.",
        """
        name = "greet"
        start = "hello"
        outcomes = ["ok"]
        edges = [{ from = "hello", outcome = "ok", to = "__end__" }]

        [input_schema]
        type = "object"
        properties.name = { type = "string" }

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object", properties = { name = { type = "string" } } }
        output_schema = { type = "object" }

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_hello"
        input = [{ target = "name", path = "input.nmae" }]  # the field is "name"
        """,
        "Read a field the workflow's schema declares, or declare the field in `input_schema` "
        "or `state_schema`. When a declared name is close, the quick fix writes it.",
        "source path must start with input., state., or context. and reference a declared "
        "root field when applicable",
    ),
    _lda(
        Code.INVALID_NODE_OUTPUT_FIELD,
        "Output binding source not in the node's output schema",
        "The first segment of an output binding's `source` is not a property of the node "
        "def's (or subgraph's) `output_schema`.",
        """
        name = "greet"
        start = "hello"
        outcomes = ["ok"]
        edges = [{ from = "hello", outcome = "ok", to = "__end__" }]

        [state_schema]
        type = "object"
        properties.greeting = { type = "string" }

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object" }
        output_schema = { type = "object", properties = { greeting = { type = "string" } } }

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_hello"
        output = [{ source = "greting", target = "state.greeting" }]  # the field is "greeting"
        """,
        "Copy a property the node's output schema declares, or declare it there. When a declared "
        "name is close, the quick fix writes it.",
        "source field 'greting' is not declared in node output schema",
    ),
    _lda(
        Code.INVALID_WORKFLOW_OUTPUT_FIELD,
        "Workflow output target not in the output schema",
        "The first segment of a workflow `output` binding's `target` is not a property of "
        "the workflow's `output_schema`. The same code reports output targets that overlap "
        "(`workflow output has overlapping output payload paths`).",
        """
        name = "greet"
        start = "hello"
        outcomes = ["ok"]
        edges = [{ from = "hello", outcome = "ok", to = "__end__" }]
        output = [{ target = "greting", path = "state.greeting" }]  # the field is "greeting"

        [state_schema]
        type = "object"
        properties.greeting = { type = "string" }

        [output_schema]
        type = "object"
        properties.greeting = { type = "string" }

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object" }
        output_schema = { type = "object" }

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_hello"
        """,
        "Target a property that `output_schema` declares, or declare it there. When a declared "
        "name is close, the quick fix writes it.",
        "destination field is not declared in workflow output schema",
    ),
    _lda(
        Code.INVALID_DESTINATION_PATH,
        "Output binding target not a declared state field",
        "An output binding's `target` is `state.<x>` where `x` is not declared in "
        "`state_schema`. The same code reports targets of one node that overlap (`output has "
        "overlapping state destination paths`).",
        """
        name = "greet"
        start = "hello"
        outcomes = ["ok"]
        edges = [{ from = "hello", outcome = "ok", to = "__end__" }]

        [state_schema]
        type = "object"
        properties.greeting = { type = "string" }

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object" }
        output_schema = { type = "object", properties = { greeting = { type = "string" } } }

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_hello"
        output = [{ source = "greeting", target = "state.greting" }]  # the field is "greeting"
        """,
        "Write to a field that `state_schema` declares, or declare it there. When a declared name "
        "is close, the quick fix writes it.",
        "destination path must start with state. and reference a declared root field",
    ),
    _lda(
        Code.EMPTY_CONDITION_ARGS,
        "`and`/`or` without arguments",
        "An `and` or `or` condition with an empty `args` list. lda-wf keeps this check, but "
        "its model already requires at least one argument, so the document is rejected while "
        "loading (`invalid_model`: `must not be empty`) and this code is not reported in "
        "practice; there is no example.",
        None,
        "Give the condition at least one argument, or replace it by that argument.",
        "condition args must not be empty",
    ),
    _lda(
        Code.INVALID_CONDITION_PATH,
        "Condition path that does not resolve",
        "An `exists` path or a path operand of a condition reads `input.<x>` or `state.<x>` "
        "where `x` is not declared. As in lda-wf, the message shows the path object itself "
        "(`GraphSourcePath(...)`); an operand says `invalid operand path`. Deeper segments "
        "are checked as for `invalid_source_path`.",
        """
        name = "check_name"
        start = "has_name"
        outcomes = ["ok"]
        edges = [
          { from = "has_name", outcome = "true", to = "__end__" },
          { from = "has_name", outcome = "false", to = "__end__" },
        ]

        [input_schema]
        type = "object"
        properties.name = { type = "string" }

        [[nodes]]
        id = "has_name"
        type = "condition"
        check = { op = "exists", path = "input.nmae" }  # the field is "name"
        """,
        "Read a field the workflow's schema declares, or declare it. When a declared name is "
        "close, the quick fix writes it.",
        "invalid condition path GraphSourcePath(root='input', parts=('nmae',))",
    ),
    _lda(
        Code.INVALID_FOREACH_SOURCE,
        "Foreach `over` that is not a declared array",
        "A foreach's `over` reads `input.<x>` or `state.<x>` where `x` is not declared, or "
        "its declared schema is not an array, for any root (`foreach source '...' must "
        "resolve to an array`; lda-wf checks this for `context.*` only).",
        """
        name = "greet_all"
        start = "people"
        outcomes = ["ok"]
        edges = [
          { from = "people", outcome = "loop", to = "hello" },
          { from = "hello", outcome = "ok", to = "people" },
          { from = "people", outcome = "done", to = "__end__" },
        ]

        [input_schema]
        type = "object"
        properties.people = { type = "array", items = { type = "object" } }

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object" }
        output_schema = { type = "object" }

        [[nodes]]
        id = "people"
        type = "foreach"
        over = "input.peeple"  # the field is "people"
        as = "person"

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_hello"
        """,
        'Point `over` at a declared array field, or declare the field with `type = "array"`. '
        "When a declared name is close, the quick fix writes it.",
        "foreach source path must start with input., state., or context. and reference a "
        "declared root field when applicable",
    ),
    _lda(
        Code.INVALID_FOREACH_COLLECT_DESTINATION,
        "Bad `item_error.collect_to`",
        'A foreach with `item_error = { action = "collect", collect_to = ... }` collects '
        "item errors into a state field that is not declared (`collect_to must start with "
        "state. and reference a declared state field`) or whose schema's `type` is not "
        '`"array"`. A missing `collect_to` is already rejected by the model (`invalid_model`).',
        """
        name = "greet_all"
        start = "people"
        outcomes = ["ok"]
        edges = [
          { from = "people", outcome = "loop", to = "hello" },
          { from = "hello", outcome = "ok", to = "people" },
          { from = "people", outcome = "done", to = "__end__" },
          { from = "people", outcome = "completed_with_errors", to = "__end__" },
        ]

        [input_schema]
        type = "object"
        properties.people = { type = "array" }

        [state_schema]
        type = "object"
        properties.failures = { type = "object" }  # must be an array to collect into

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object" }
        output_schema = { type = "object" }

        [[nodes]]
        id = "people"
        type = "foreach"
        over = "input.people"
        as = "person"
        item_error = { action = "collect", collect_to = "state.failures" }

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_hello"
        """,
        'Collect into a state field declared with `type = "array"`.',
        "collect_to must reference a declared array state field",
    ),
    _lda(
        Code.INVALID_INTERRUPT_SOURCE,
        "Interrupt request path that does not resolve",
        "A `request` path of an interrupt node (or a path inside a request `expression`) "
        "reads `input.<x>` or `state.<x>` where `x` is not declared. lda-wf's other case, an "
        "empty request target (`interrupt request payload field must not be empty`), cannot "
        "occur: the model rejects an empty target while loading.",
        """
        name = "approve"
        start = "ask"
        outcomes = ["ok"]
        edges = [{ from = "ask", outcome = "submitted", to = "__end__" }]

        [input_schema]
        type = "object"
        properties.amount = { type = "number" }

        [[nodes]]
        id = "ask"
        type = "interrupt"
        kind = "approval"
        request = [{ target = "amount", path = "input.amuont" }]  # the field is "amount"
        """,
        "Read a field the workflow's schema declares, or declare it. When a declared name is "
        "close, the quick fix writes it.",
        "interrupt request source must start with input., state., or context. and reference "
        "a declared root field when applicable",
    ),
    _lda(
        Code.INVALID_INTERRUPT_DESTINATION,
        "Interrupt resume target not a declared state field",
        "A `resume` binding's `target` is `state.<x>` where `x` is not declared in "
        "`state_schema` (lda-wf checks the `state.` prefix only). An empty target (`interrupt "
        "resume field must not be empty`) is rejected by the model while loading.",
        """
        name = "approve"
        start = "ask"
        outcomes = ["ok"]
        edges = [{ from = "ask", outcome = "submitted", to = "__end__" }]

        [state_schema]
        type = "object"
        properties.approved = { type = "boolean" }

        [[nodes]]
        id = "ask"
        type = "interrupt"
        kind = "approval"
        resume = [{ source = "approved", target = "state.aproved" }]  # the field is "approved"
        """,
        "Write to a field that `state_schema` declares, or declare it there. When a declared name "
        "is close, the quick fix writes it.",
        "interrupt resume destination must start with state. and reference a declared state field",
    ),
    _lda(
        Code.UNREACHABLE_NODE,
        "Node unreachable from start",
        "No path of edges leads from `start` to the node. A node cut off only because the "
        "way to it passes through a region conflict is shown as `information` pointing at "
        "the conflict, and one cut off only by a node that fails to load is not reported.",
        """
        name = "greet"
        start = "hello"
        outcomes = ["ok"]
        edges = [
          { from = "hello", outcome = "ok", to = "__end__" },
          { from = "goodbye", outcome = "ok", to = "__end__" },
        ]

        [[node_defs]]
        name = "say"
        outcomes = ["ok"]
        input_schema = { type = "object" }
        output_schema = { type = "object" }

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say"

        [[nodes]]
        id = "goodbye"  # no edge leads here
        type = "node"
        node = "say"
        """,
        "Add an edge that leads to the node, or delete the node. The quick fix adds an edge from "
        "the nearest reachable node that has an outcome with no edge yet, and says which.",
        "node 'goodbye' is unreachable from start",
    ),
    _lda(
        Code.FOREACH_REGION_CONFLICT,
        "Node inside and outside a loop body",
        "The node can be reached with two different sets of active loops (owner stacks), "
        "typically because an edge enters a loop body from outside it or leaves it without "
        "returning to its foreach. Such a node has no context schema. wfls marks each edge "
        "that causes it with `region_breaking_edge`, and conflicts that only follow from "
        "another are shown as `information`.",
        """
        name = "greet_all"
        start = "people"
        outcomes = ["ok"]
        edges = [
          { from = "people", outcome = "loop", to = "hello" },
          { from = "hello", outcome = "ok", to = "people" },
          { from = "people", outcome = "done", to = "hello" },  # "hello" is the loop body
        ]

        [input_schema]
        type = "object"
        properties.people = { type = "array" }

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object" }
        output_schema = { type = "object" }

        [[nodes]]
        id = "people"
        type = "foreach"
        over = "input.people"
        as = "person"

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_hello"
        """,
        "Keep each node in one region: enter a loop body only through its foreach's `loop` "
        "edge, and use a separate node for work after the loop.",
        "node 'hello' is reachable under two foreach control regions",
    ),
    _lda(
        Code.INVALID_FOREACH_RETURN,
        "Loop body returns past its own foreach",
        "An edge inside a nested loop's body leads back to an outer foreach (or re-enters an "
        "active outer foreach), skipping the innermost one. An iteration must return to the "
        "foreach that started it.",
        """
        name = "greet_teams"
        start = "teams"
        outcomes = ["ok"]
        edges = [
          { from = "teams", outcome = "loop", to = "members" },
          { from = "members", outcome = "loop", to = "hello" },
          { from = "hello", outcome = "ok", to = "teams" },  # should return to "members"
          { from = "members", outcome = "done", to = "teams" },
          { from = "teams", outcome = "done", to = "__end__" },
        ]

        [input_schema]
        type = "object"
        properties.teams = { type = "array", items = { type = "object", properties = { members = { type = "array" } } } }

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object" }
        output_schema = { type = "object" }

        [[nodes]]
        id = "teams"
        type = "foreach"
        over = "input.teams"
        as = "team"

        [[nodes]]
        id = "members"
        type = "foreach"
        over = "context.foreach.teams.item.members"
        as = "member"

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_hello"
        """,  # noqa: E501
        "Return to the innermost active foreach; the outer loop continues when the inner one "
        "emits `done`.",
        "edge 'hello' -> 'teams' skips the immediate foreach owner",
    ),
    _lda(
        Code.INVALID_FOREACH_TERMINAL,
        "Loop body ends the workflow",
        "An edge inside a loop body leads to `__end__` or to an end node. Ending the workflow "
        "is only possible outside every loop.",
        """
        name = "greet_all"
        start = "people"
        outcomes = ["ok"]
        edges = [
          { from = "people", outcome = "loop", to = "hello" },
          { from = "hello", outcome = "ok", to = "__end__" },  # inside the loop body
          { from = "people", outcome = "done", to = "__end__" },
        ]

        [input_schema]
        type = "object"
        properties.people = { type = "array" }

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object" }
        output_schema = { type = "object" }

        [[nodes]]
        id = "people"
        type = "foreach"
        over = "input.people"
        as = "person"

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_hello"
        """,
        "Route the body back to its foreach, and end the workflow from the foreach's `done` edge.",
        "foreach item path 'hello' -> '__end__' targets a workflow terminal from inside a "
        "foreach body",
    ),
    _lda(
        Code.EMPTY_FOREACH_BODY,
        "Foreach loop edge to itself",
        "A foreach's `loop` edge leads straight back to the foreach, so an iteration has no "
        "body to run.",
        """
        name = "greet_all"
        start = "people"
        outcomes = ["ok"]
        edges = [
          { from = "people", outcome = "loop", to = "people" },  # no body
          { from = "people", outcome = "done", to = "__end__" },
        ]

        [input_schema]
        type = "object"
        properties.people = { type = "array" }

        [[nodes]]
        id = "people"
        type = "foreach"
        over = "input.people"
        as = "person"
        """,
        "Point the `loop` edge at the first node of the body, and lead the body back to the "
        "foreach.",
        "foreach 'people' loop targets itself; an iteration body needs a distinct node use",
    ),
    _lda(
        Code.FOREACH_BODY_NO_RETURN,
        "Loop body never returns",
        "No path of edges leads from the foreach's body back to the foreach, so no iteration "
        "could ever finish. Cycles inside the body are fine as long as some way back exists.",
        """
        name = "greet_all"
        start = "people"
        outcomes = ["ok"]
        edges = [
          { from = "people", outcome = "loop", to = "hello" },
          { from = "hello", outcome = "ok", to = "hello" },  # never back to "people"
          { from = "people", outcome = "done", to = "__end__" },
        ]

        [input_schema]
        type = "object"
        properties.people = { type = "array" }

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object" }
        output_schema = { type = "object" }

        [[nodes]]
        id = "people"
        type = "foreach"
        over = "input.people"
        as = "person"

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_hello"
        """,
        "Add an edge from the last node of the body back to the foreach.",
        "foreach 'people' body has no structural path back to its immediate owner",
    ),
    _lda(
        Code.INVALID_CONTEXT_PATH,
        "Context path that does not resolve",
        "A `context.*` read (input or request binding, condition, foreach `over`, workflow "
        "`output`) names a segment the context schema of the reading node does not have: "
        "for example a loop that is not active there, or a field its items do not declare. "
        "The message lists the names available at that segment. Unlike `input.*` and "
        "`state.*` paths, an undeclared segment is an error even where the object allows "
        "other properties; only an object that declares no properties at all accepts any "
        "name. A node that is unreachable or in a region conflict has no context schema at "
        "all (`no context schema for this program location`), shown as `information` tied to "
        "that cause.",
        """
        name = "greet_all"
        start = "people"
        outcomes = ["ok"]
        edges = [
          { from = "people", outcome = "loop", to = "hello" },
          { from = "hello", outcome = "ok", to = "people" },
          { from = "people", outcome = "done", to = "__end__" },
        ]

        [input_schema]
        type = "object"
        properties.people = { type = "array", items = { type = "object", properties = { name = { type = "string" } } } }

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object", properties = { name = { type = "string" } } }
        output_schema = { type = "object" }

        [[nodes]]
        id = "people"
        type = "foreach"
        over = "input.people"
        as = "person"

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_hello"
        input = [{ target = "name", path = "context.foreach.people.item.nmae" }]  # "name"
        """,  # noqa: E501
        "Use one of the listed names; `wfls context FILE NODE` shows every path the node can "
        "read. When a declared name is close, the quick fix writes it. A loop id or alias "
        "with a dot read without its quotes (`context.foreach.orders.v2.item` for the loop "
        "`orders.v2`) is explained under the message, and the quick fix quotes it: "
        '`context.foreach."orders.v2".item`.',
        "invalid context path 'context.foreach.people.item.nmae' at 'hello': unknown segment "
        "'nmae' (available: name)",
    ),
    _lda(
        Code.FOREACH_CONTEXT_ALIAS_CONFLICT,
        "Foreach alias that collides",
        "A foreach's `as` alias is empty or one of the reserved context keys (`prior_outcome`, "
        "`activated_incoming_edge`, `scope_id`, `lineage_id`, `parent_lineage_id`, "
        "`loop_item`, `loop_index`, `foreach`), or equals the alias of an enclosing loop that "
        "is active at the same time. Only loops with a reachable body are checked.",
        """
        name = "greet_all"
        start = "people"
        outcomes = ["ok"]
        edges = [
          { from = "people", outcome = "loop", to = "hello" },
          { from = "hello", outcome = "ok", to = "people" },
          { from = "people", outcome = "done", to = "__end__" },
        ]

        [input_schema]
        type = "object"
        properties.people = { type = "array" }

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object" }
        output_schema = { type = "object" }

        [[nodes]]
        id = "people"
        type = "foreach"
        over = "input.people"
        as = "loop_item"  # a reserved context key

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_hello"
        """,
        "Choose an alias that is not reserved and differs from the aliases of enclosing loops. "
        "The quick fix renames the alias to a free one (derived from the foreach id, or "
        "`<alias>_2`), with every read of it.",
        "foreach alias 'loop_item' for node 'people' collides with reserved context keys",
    ),
)

_WFLS = (
    _wfls(
        ProjectCode.SYNTAX_ERROR,
        Severity.ERROR,
        "TOML or JSON syntax error",
        "The text is not valid TOML (or JSON for `*.wf.json`), or the file is not UTF-8. "
        "wfls keeps reading after the error, so the rest of the document is still checked; "
        "a key whose value has the error is not reported missing as well. A `*.wf.json` file "
        "whose text is not JSON at all (TOML, say) gets one error that says so.",
        """
        # the closing quote is missing
        name = "greet
        start = "hello"
        outcomes = ["ok"]
        edges = [{ from = "hello", outcome = "ok", to = "__end__" }]

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object" }
        output_schema = { type = "object" }

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_hello"
        """,
        "Correct the syntax at the reported position.",
        "unterminated string",
    ),
    _wfls(
        ProjectCode.INVALID_MODEL,
        Severity.ERROR,
        "Value the workflow model rejects",
        "A value does not fit lda-wf's workflow model: a missing required key, a wrong type, "
        "an unknown node type or condition op, a number out of range, an unknown key where "
        "the model forbids extra keys (bindings, `item_error`, ...). The part that fails to "
        "load is left out of the rest of the analysis; edges and `start` that name a node "
        "that failed to load are not reported again. Also, in a schema (which still loads): "
        "a `$ref` that points outside the document (`http://`, `file://`, `other.json#/x`: "
        "references resolve within the document only, and nothing is fetched) or names "
        "nothing in it, and a `pattern` or `patternProperties` key that the linear-time "
        "matcher cannot evaluate (look-around, backreferences; the runtime refuses every "
        "value it would have to match).",
        """
        name = "greet"
        start = "hello"
        outcomes = ["ok"]
        edges = [{ from = "hello", outcome = "ok", to = "__end__" }]

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object" }
        output_schema = { type = "object" }

        [[nodes]]
        id = "hello"
        type = "task"  # not a node type
        node = "say_hello"
        """,
        "Change the value as the message says. For a path segment a bare key cannot hold, the "
        "quick fix quotes it.",
        "unknown node type 'task'; expected one of node, subgraph, condition, foreach, join, "
        "end, interrupt",
    ),
    _wfls(
        ProjectCode.DEPRECATED_INPUT_FORM,
        Severity.WARNING,
        "Deprecated input form",
        "The document uses a form that lda-wf still reads but that has a canonical "
        "replacement: `in_map`, `input_values` and `out_map` on nodes, `request_map` and "
        '`out_map` on interrupts, `parallel`, `mode = "parallel"` and `on_item_error` on '
        "foreach nodes, or `fields` in `state_schema`.",
        """
        name = "greet"
        start = "hello"
        outcomes = ["ok"]
        edges = [{ from = "hello", outcome = "ok", to = "__end__" }]

        [input_schema]
        type = "object"
        properties.name = { type = "string" }

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object", properties = { name = { type = "string" } } }
        output_schema = { type = "object" }

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_hello"
        in_map = { "input.name" = "name" }
        """,
        "Write the canonical form the message names; for the example, "
        '`input = [{ target = "name", path = "input.name" }]`. The quick fix replaces the key '
        "by the canonical one and its value, computed as the model reads the deprecated form.",
        "'in_map' is deprecated; use 'input' bindings ({ target, path })",
    ),
    _wfls(
        ProjectCode.UNDECLARED_PROPERTY,
        Severity.WARNING,
        "Segment an open schema does not declare",
        "A segment of an `input.*` or `state.*` path (after the first) is not declared by a "
        "schema that nevertheless allows other properties, so the read may work at runtime "
        "but is probably a typo. A closed schema makes it an error under the read's own code; "
        "in `context.*` paths it is always an error (`invalid_context_path`), as in lda-wf. "
        "In an editor, the `undeclaredPropertySeverity` setting changes the severity or turns "
        "it off.",
        """
        name = "greet"
        start = "hello"
        outcomes = ["ok"]
        edges = [{ from = "hello", outcome = "ok", to = "__end__" }]

        [input_schema]
        type = "object"
        properties.user = { type = "object", properties = { name = { type = "string" } } }

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object", properties = { name = { type = "string" } } }
        output_schema = { type = "object" }

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_hello"
        input = [{ target = "name", path = "input.user.nmae" }]  # the field is "name"
        """,
        "Use the declared name, or declare the "
        "property in the schema; `additionalProperties = false` turns such reads into errors. "
        "When a declared name is close, the quick fix writes it.",
        "'nmae' is not declared in the schema of 'input.user'",
    ),
    _wfls(
        ProjectCode.DEPRECATED_CONTEXT_KEY,
        Severity.HINT,
        "Convenience context key",
        "A read of `context.loop_item`, `context.loop_index` or a foreach alias "
        "(`context.<as>`) inside a loop body. It works, but which loop it means depends on "
        "the nesting; the structured path `context.foreach.<id>.item` (or `.index`) names the "
        "loop. Editors show the key as deprecated; the `hintDeprecatedKeys` setting turns "
        "the hint off.",
        """
        name = "greet_all"
        start = "people"
        outcomes = ["ok"]
        edges = [
          { from = "people", outcome = "loop", to = "hello" },
          { from = "hello", outcome = "ok", to = "people" },
          { from = "people", outcome = "done", to = "__end__" },
        ]

        [input_schema]
        type = "object"
        properties.people = { type = "array", items = { type = "object", properties = { name = { type = "string" } } } }

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object", properties = { name = { type = "string" } } }
        output_schema = { type = "object" }

        [[nodes]]
        id = "people"
        type = "foreach"
        over = "input.people"
        as = "person"

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_hello"
        input = [{ target = "name", path = "context.loop_item.name" }]
        """,  # noqa: E501
        "Read the structured path the message names instead. The quick fix writes that path; "
        'the source action "Migrate convenience keys" rewrites every convenience key of the '
        "document.",
        "'context.loop_item' is a convenience key; read 'context.foreach.people.item.name' instead",
    ),
    _wfls(
        ProjectCode.REGION_BREAKING_EDGE,
        Severity.INFORMATION,
        "Edge that breaks a loop region",
        "Reported with `foreach_region_conflict`, on each edge that enters a loop body from "
        "outside it, or leaves one without returning to its foreach, into the conflicted "
        "node. It points at the edge to change; the conflict itself is the error.",
        """
        name = "greet_all"
        start = "people"
        outcomes = ["ok"]
        edges = [
          { from = "people", outcome = "loop", to = "hello" },
          { from = "hello", outcome = "ok", to = "people" },
          { from = "people", outcome = "done", to = "hello" },  # "hello" is the loop body
        ]

        [input_schema]
        type = "object"
        properties.people = { type = "array" }

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object" }
        output_schema = { type = "object" }

        [[nodes]]
        id = "people"
        type = "foreach"
        over = "input.people"
        as = "person"

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_hello"
        """,
        "Redirect the edge so that it enters the body only through the foreach's `loop` "
        "edge (or leaves it only through its `done` edge), for example to a separate node.",
        "this edge enters the body of foreach 'people' from outside it, so 'hello' is "
        "reachable under two foreach control regions",
    ),
    _wfls(
        ProjectCode.UNKNOWN_KEY,
        Severity.WARNING,
        "Key lda-wf ignores",
        "A key that the workflow model does not know, at the top level, in a node, an edge, "
        "a node def or a condition. lda-wf silently ignores such keys, so a misspelt "
        "optional key has no effect. Keys inside JSON Schemas are not checked.",
        """
        name = "greet"
        start = "hello"
        outcomes = ["ok"]
        edges = [{ from = "hello", outcome = "ok", to = "__end__" }]

        [[node_defs]]
        name = "say_hello"
        outcomes = ["ok"]
        input_schema = { type = "object" }
        output_schema = { type = "object" }

        [[nodes]]
        id = "hello"
        type = "node"
        node = "say_hello"
        timout_seconds = 30  # the key is "timeout_seconds"
        """,
        "Correct the key or delete it. The quick fixes rename it to the closest known key, when "
        "one is close, or remove it.",
        "unknown key 'timout_seconds': lda-wf ignores it",
    ),
    _wfls(
        ProjectCode.UNKNOWN_SUBGRAPH,
        Severity.ERROR,
        "Subgraph names no workflow of the workspace",
        "A subgraph's `workflow = { name = ... }` names a workflow that no document of the "
        "workspace declares as its `name`. (A `{ artifact_id, version }` reference lives in a "
        "registry wfls cannot see and is accepted as it is.)",
        """
        # file: caller.wf.toml
        name = "caller"
        start = "run"
        outcomes = ["ok"]
        edges = [{ from = "run", outcome = "ok", to = "__end__" }]

        [[nodes]]
        id = "run"
        type = "subgraph"
        workflow = { name = "bililng" }  # the child is named "billing"

        # file: billing.wf.toml
        name = "billing"
        start = "end"
        outcomes = ["ok"]
        edges = []

        [[nodes]]
        id = "end"
        type = "end"
        """,
        "Name a workflow of the workspace; the quick fix offers the closest name.",
        "no workflow named 'bililng' in the workspace",
        example_syntax="workspace",
    ),
    _wfls(
        ProjectCode.SUBGRAPH_BINDING,
        Severity.ERROR,
        "Subgraph bindings do not fit the child workflow",
        "The caller's bindings do not match the child: a binding targets a field the child's "
        "`input_schema` does not accept (or reads an output the child's `output_schema` does "
        "not produce), a field the child requires has no binding, or a field the subgraph node "
        "declares is one the child does not have. When the subgraph node declares no "
        "`input_schema`/`output_schema`, the child's own schemas are the contract.",
        """
        # file: caller.wf.toml
        name = "caller"
        start = "run"
        outcomes = ["ok"]
        edges = [{ from = "run", outcome = "ok", to = "__end__" }]

        [[nodes]]
        id = "run"
        type = "subgraph"
        workflow = { name = "greet" }
        input = [{ target = "nmae", value = "Ada" }]  # the child's input is "name"

        # file: greet.wf.toml
        name = "greet"
        start = "end"
        outcomes = ["ok"]
        edges = []

        [input_schema]
        type = "object"
        additionalProperties = false
        properties.name = { type = "string" }

        [[nodes]]
        id = "end"
        type = "end"
        """,
        "Bind the fields the child declares, under the names it declares them.",
        "child workflow 'greet' does not accept input field 'nmae'",
        example_syntax="workspace",
    ),
    _wfls(
        ProjectCode.SUBGRAPH_CYCLE,
        Severity.ERROR,
        "Subgraphs call each other in a cycle",
        "Following subgraphs from workflow to workflow comes back to where it started: the "
        "run would never end. Reported once on each `workflow` value in the cycle.",
        """
        # file: a.wf.toml
        name = "a"
        start = "call"
        outcomes = ["ok"]
        edges = [{ from = "call", outcome = "ok", to = "__end__" }]

        [[nodes]]
        id = "call"
        type = "subgraph"
        workflow = { name = "b" }

        # file: b.wf.toml
        name = "b"
        start = "call"
        outcomes = ["ok"]
        edges = [{ from = "call", outcome = "ok", to = "__end__" }]

        [[nodes]]
        id = "call"
        type = "subgraph"
        workflow = { name = "a" }
        """,
        "Break the cycle: one of the workflows must not call back into the others.",
        "subgraphs call each other in a cycle: a -> b -> a",
        example_syntax="workspace",
    ),
    _wfls(
        ProjectCode.DUPLICATE_WORKFLOW_NAME,
        Severity.WARNING,
        "Two documents declare the same workflow name",
        "Subgraphs find their child by `name`. Two documents of the workspace with the same "
        "`name` (a backup copy in a subfolder, a draft) are a warning on both, with a note "
        "at the other's `name`. Where some document calls that name through a subgraph "
        "node, which of them the call runs is ambiguous: the finding is then an error on "
        "both, and one more note points at a call.",
        """
        # file: billing.wf.toml
        name = "billing"
        start = "end"
        outcomes = ["ok"]
        edges = []

        [[nodes]]
        id = "end"
        type = "end"

        # file: billing-backup.wf.toml
        name = "billing"
        start = "end"
        outcomes = ["ok"]
        edges = []

        [[nodes]]
        id = "end"
        type = "end"
        """,
        "Rename one of the workflows (and its callers), or move the copy out of the "
        "workspace (a hidden folder, such as `.old/`, is not read).",
        "another workflow document is also named 'billing'",
        example_syntax="workspace",
    ),
    _wfls(
        ProjectCode.ENDLESS_CYCLE,
        Severity.WARNING,
        "Loop that no run can leave",
        "Nodes reachable from `start` form a loop from which no `end` node and no edge to "
        "`__end__` can be reached: every edge out of them leads back into the loop (or on to "
        "nodes that cannot end either), so a run that enters it never finishes. Reported once "
        "per loop (a strongly connected part of the graph), on its first node in the "
        "document, naming one cycle through that node; the loop's other nodes are related "
        "locations. A loop with any way out is fine: a condition's other outcome, an edge to "
        "`__end__`, a foreach's `done` edge once its body returns to it. Not reported either: a "
        "loop whose only way out is an edge that is an error itself (an unknown destination, "
        "an outcome the node does not declare, or one it declares with no edge), a loop "
        "wholly inside a foreach body (`foreach_body_no_return` reports it), a loop through a "
        "node reachable under two foreach regions (reported once `foreach_region_conflict` is "
        "fixed, if it still has no way out), or one unreachable from `start`. An `interrupt` in "
        "the loop does not change it: whoever answers can only resume it with one of its "
        "declared outcomes, and each leads back into the loop.",
        """
        name = "article"
        start = "draft"
        outcomes = ["ok"]
        edges = [
          { from = "draft", outcome = "ok", to = "review" },
          { from = "review", outcome = "changes", to = "draft" },
          { from = "review", outcome = "approved", to = "draft" },  # meant: "__end__"
        ]

        [[node_defs]]
        name = "write"
        outcomes = ["ok"]
        input_schema = { type = "object" }
        output_schema = { type = "object" }

        [[nodes]]
        id = "draft"
        type = "node"
        node = "write"

        [[nodes]]
        id = "review"
        type = "interrupt"
        kind = "approval"
        outcomes = ["changes", "approved"]
        """,
        "Give the loop a way out: lead one outcome of one of its nodes (a condition's, an "
        "interrupt's, a node def's) to an `end` node, to `__end__`, or to a node from which "
        "one is reachable.",
        "these nodes loop forever: no end is reachable from draft -> review -> draft",
    ),
    _wfls(
        ProjectCode.INTERNAL_ERROR,
        Severity.ERROR,
        "The analysis of a document failed",
        "wfls itself failed while analysing the document: a bug. The document gets this one "
        "finding, at its start, naming the exception, in place of the findings that could not "
        "be made; `wfls check` goes on with the other files (and exits with 1), the language "
        "server publishes it as the document's diagnostic and logs the traceback.",
        None,
        "Report the bug with the document (the language server's log holds the traceback). "
        "Until it is fixed the document is not checked; rewriting what the message names may "
        "avoid it.",
        "wfls failed to analyse this document (TypeError: unhashable type: 'list'); its "
        "findings are missing: please report this bug",
    ),
    _wfls(
        READ_ERROR,
        Severity.ERROR,
        "Path that cannot be read",
        "A path given to `wfls check` does not exist or cannot be read. This is not an "
        "analysis finding: wfls prints the message on standard error (in every output "
        "format), checks the other paths, and exits with status 2.",
        """
        wfls check missing.wf.toml
        """,
        "Correct the path, or check that the file is readable.",
        "wfls: cannot read 'missing.wf.toml': no such file or directory",
        example_syntax="shell",
    ),
)

CODES: dict[str, CodeInfo] = {info.code: info for info in (*_LDA_WF, *_WFLS)}

# -- the reference page -----------------------------------------------------------

_INTRO = """\
# Diagnostic codes

<!-- Generated by `python -m wf_core.validation.codes > docs/diagnostics.md`; do not edit. -->

Every finding wfls reports, in an editor or from `wfls check`, carries a
*code*, a *severity*, a location and a message. The codes that come from
lda-wf's validator keep lda-wf's names, locations and messages; wfls adds a few
codes of its own. Each section below says what triggers a code, shows a small
complete workflow that produces it, the message wfls prints for it, and how to
fix it.

## Severities

| severity | meaning | `wfls check` |
| --- | --- | --- |
| `error` | the workflow is invalid, or a path cannot be read | exits with 1 |
| `warning` | valid, but likely a mistake or an outdated form | exits with 1 with `--strict` only |
| `information` | context for another finding: a consequence, or its cause | never fails |
| `hint` | a clearer way to write the same thing | never fails |

lda-wf's codes are always errors, except when a finding is only a consequence
of another one (for example, the edges of a node whose node def is unknown, or
a `context.*` read in a node that is unreachable). wfls then shows it as
`information`, with a related location pointing at the cause, so that the
number of errors is the number of mistakes. wfls's own codes are errors only
for syntax and model errors (and unreadable paths, and an analysis that failed).

`wfls check` prints each finding as `FILE:LINE:COLUMN: severity[code]:
message`, followed by the source line with the range underlined;
`--format json`, `sarif` and `github` carry the same code, severity and message.

## Codes

| code | origin | severity | title |
| --- | --- | --- | --- |
"""


def _section(info: CodeInfo) -> str:
    lines = [
        f"### `{info.code}`",
        "",
        f"**{info.title}.** Origin: {info.origin}. Default severity: `{info.severity.value}`.",
        "",
        f"**Trigger.** {info.trigger}",
        "",
    ]
    if info.example is None:
        why = "wfls does not report this code in practice"
        if info.origin == "wfls":
            why = "only a bug in wfls produces it"
        lines += [f"**Example.** None: {why}.", ""]
    else:
        fence = "toml" if info.example_syntax == "workspace" else info.example_syntax
        note = " (one workspace, a document after each `# file:` line)"
        heading = "**Example**" + (note if info.example_syntax == "workspace" else "") + "."
        lines += [heading, "", f"```{fence}", info.example.rstrip("\n"), "```"]
        lines.append("")
    if info.example_syntax == "shell":
        lines += ["**wfls prints** (on standard error):", "", "```text", info.message, "```"]
    elif info.example is None:
        lines += ["**Message** (if it were reported):", "", "```text"]
        lines += [f"{info.severity.value}[{info.code}]: {info.message}", "```"]
    else:
        lines += ["**wfls prints:**", "", "```text"]
        lines += [f"{info.severity.value}[{info.code}]: {info.message}", "```"]
    lines += ["", f"**Fix.** {info.fix}", ""]
    return "\n".join(lines)


def render_markdown() -> str:
    """``docs/diagnostics.md``: the severities, then one section per code."""
    index = [
        f"| [`{info.code}`](#{info.code}) | {info.origin} | `{info.severity.value}` | "
        f"{info.title} |"
        for info in CODES.values()
    ]
    lda_wf = [_section(info) for info in CODES.values() if info.origin == "lda-wf"]
    wfls = [_section(info) for info in CODES.values() if info.origin == "wfls"]
    parts = [
        _INTRO + "\n".join(index),
        "## lda-wf's codes\n\nIn the order lda-wf declares them. Each is an error, or "
        "`information` when it only follows from another finding.",
        *lda_wf,
        "## wfls's own codes",
        *wfls,
    ]
    return "\n\n".join(part.rstrip("\n") for part in parts) + "\n"


def main() -> int:
    sys.stdout.write(render_markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())
