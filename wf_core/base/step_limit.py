"""The step limit of runs that nobody steps through by hand.

The editor's sample run and ``wfls run`` (unless given ``--max-steps``) stop a
run after this many steps, so a workflow that loops forever ends with a clear
failure instead of growing without end. ``wf_core.runtime`` exports it; it is
defined here, in a module that imports nothing, so that the command line can
show it in ``--help`` without loading the runtime.
"""

from __future__ import annotations

__all__ = ["DEFAULT_MAX_STEPS"]

DEFAULT_MAX_STEPS = 10_000
