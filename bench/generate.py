"""The generated workflows the benchmarks measure on (``wf_core.authoring.generate``, which the
tests read too); run as a script, it prints one: ``python bench/generate.py 2000 [FINDINGS]``."""

from __future__ import annotations

import re
import sys

from wf_core.authoring.generate import TASKS_PER_GROUP, generate_toml

__all__ = ["TASKS_PER_GROUP", "generate_toml", "with_findings"]

_QTY_READ = re.compile(r'(path = "context\.order\d+\.)qty"')


def with_findings(text: str, findings: int) -> str:
    """``text`` (of ``generate_toml``) with ``findings`` of its tasks' ``qty`` reads
    misspelt (``qtx``, a property the order's schema does not have), spread evenly over
    the document: one error each, where the read had a hint before. A document with
    fewer tasks gets one in every task."""
    reads = list(_QTY_READ.finditer(text))
    count = min(findings, len(reads))
    chosen = {reads[i * len(reads) // count].start(1) for i in range(count)} if count else set()
    return _QTY_READ.sub(
        lambda m: f'{m.group(1)}qtx"' if m.start(1) in chosen else m.group(0), text
    )


if __name__ == "__main__":
    nodes = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    findings = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    sys.stdout.write(with_findings(generate_toml(nodes), findings))
