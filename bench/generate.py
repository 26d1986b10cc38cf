"""The generated workflows the benchmarks measure on (``wf_core.authoring.generate``, which the
tests read too); run as a script, it prints one: ``python bench/generate.py 2000``."""

from __future__ import annotations

import sys

from wf_core.authoring.generate import TASKS_PER_GROUP, generate_toml

__all__ = ["TASKS_PER_GROUP", "generate_toml"]

if __name__ == "__main__":
    sys.stdout.write(generate_toml(int(sys.argv[1]) if len(sys.argv) > 1 else 2000))
