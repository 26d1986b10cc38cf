"""Half of a large analysis's work done in a forked child, on the second core.

A batch command (``wfls check``) on a large document spends most of its time in
two kinds of work made of independent pieces: reading the TOML statements
(``documents.toml_statements``) and each node's own checks (``validation.core``).
The child is forked when the pieces are about to be done, so it starts with
everything the parent had built (the text, the model, the context schemas)
without copying any of it; it does the last part of them and sends back only
what that part found, pickled, which costs a small part of the work it saves,
while the parent does the first part (and, for the checks, work of its own that
needs nothing the child finds).

Forking is refused unless the process asked for it (``allow``): only a
single-threaded batch process may fork safely, and a language server has
threads. It is refused too where ``os.fork`` does not exist.

Invariant: what a child sends is what the parent would have computed for the
same pieces (each piece is a pure function of what both processes share), and
whenever a child fails (an exception, a signal, a short pipe) the caller gets
None and computes the pieces itself: forking changes how long the work takes,
never its result.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
from collections.abc import Callable
from typing import Generic, TypeVar

_T = TypeVar("_T")

_allowed = False


def allow() -> None:
    """Let this process fork for the work of its large analyses. Only for a process with
    no other thread, whose output the child must not write to (``wfls check``)."""
    global _allowed
    _allowed = hasattr(os, "fork") and _usable_cpus() > 1


def _usable_cpus() -> int:
    """The processors this process may run on (a container's or ``taskset``'s share, where
    the system says), not all the machine has."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def allowed() -> bool:
    return _allowed


def set_allowed(value: bool) -> bool:
    """Allow forking, or refuse it, whatever the machine; returns what was in force. For
    tests, which compare the results of both ways on any machine (by the invariant above,
    they are the same)."""
    global _allowed
    previous, _allowed = _allowed, value
    return previous


class Pending(Generic[_T]):
    """What a forked child is computing; ``result`` waits for it."""

    __slots__ = ("_pid", "_read")

    def __init__(self, pid: int, read: int) -> None:
        self._pid = pid
        self._read = read

    @property
    def pid(self) -> int:
        """The child's process id."""
        return self._pid

    def result(self) -> _T | None:
        """The child's value; None when it failed. Reads the whole pipe before waiting
        for the child: a child whose value outgrows the pipe's buffer blocks until then."""
        try:
            with os.fdopen(self._read, "rb") as pipe:
                data = pipe.read()
        finally:
            _, status = os.waitpid(self._pid, 0)
        if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0 or not data:
            return None
        try:
            value: _T = pickle.loads(data)  # (what ``work`` returned in the child)
        except Exception:
            return None
        return value

    def cancel(self) -> None:
        """For a parent that will not read the result (its own half failed, or it never
        needed that work): the child is ended at once, not waited for to finish it."""
        os.close(self._read)
        with contextlib.suppress(ProcessLookupError):
            os.kill(self._pid, signal.SIGKILL)
        os.waitpid(self._pid, 0)


def in_child(work: Callable[[], _T]) -> Pending[_T] | None:
    """Start ``work`` in a forked child; None when this process may not fork (then the
    caller does the work itself)."""
    if not _allowed:
        return None
    try:
        read, write = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        return None
    if pid == 0:  # the child: never returns
        status = 1
        try:
            os.close(read)
            data = pickle.dumps(work(), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write, "wb") as pipe:
                pipe.write(data)
            status = 0
        finally:
            # No cleanup of the parent's state (buffered output, exit handlers): the
            # child owns none of it.
            os._exit(status)
    os.close(write)
    return Pending(pid, read)
