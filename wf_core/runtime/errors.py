"""Errors of the runtime.

Every way a run can go wrong that is not a node's own failure ends in a
:class:`WorkflowExecutionError` with one readable line: callers (the command
line, the editor preview) print it as it is, never a traceback.
"""

from __future__ import annotations

from collections.abc import Sequence


class WorkflowExecutionError(Exception):
    """The run cannot go on: corrupt state, an unresolvable read, a bad result.

    Raised for problems of the run as a whole. A node's failure inside a run
    is not raised: it becomes the run's ``failed`` status (or an item error of
    the enclosing foreach), so the caller still gets the state and the trace.
    """


class WorkflowRefused(WorkflowExecutionError):
    """The run was refused before any node ran.

    ``problems`` holds one line per reason (validation errors, an input that
    does not match ``input_schema``, a missing handler or subgraph), so a
    caller can list them all rather than only the first.
    """

    def __init__(self, message: str, problems: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.problems: tuple[str, ...] = tuple(problems)


class InvalidRunState(WorkflowExecutionError):
    """A checkpoint no run could have written (a wrong shape, a dangling reference, a
    number out of range, a record naming a node of the wrong type): refused when it is
    loaded or resumed, before anything runs. The message starts ``invalid run state:``."""
