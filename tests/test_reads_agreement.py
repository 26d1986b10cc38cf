"""Validation and the semantic index agree on which strings are graph reads.

Validation walks the loaded model (``wf_core.validation.reads``), where paths are
already parsed and deprecated forms already canonical; the semantic index walks
the document's values (``wf_core.semantic.build``), where every string has a
span. Both must name the same places, or an editor would offer, colour or
rename a path that validation never checks (or the reverse). Compared over the
examples and generated workflows, in document locations.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from builders import every_read_kind, workflow_dict

from wf_core.authoring.generate import generate_toml
from wf_core.base.locations import Location
from wf_core.base.reading import is_workflow_file
from wf_core.validation.reads import node_reads
from wf_core.version.snapshot import DocumentSnapshot, analyze_text

ROOT = Path(__file__).parent.parent

# Reads hidden in expressions, nested conditions, operands and requests.
NESTED = workflow_dict(*every_read_kind("context.foreach.loop.item"))


def _index_reads(snapshot: DocumentSnapshot) -> set[Location]:
    return {
        path.location
        for path in snapshot.index.paths
        if path.role.reads_graph and path.location[:1] == ("nodes",)
    }


def _validation_reads(snapshot: DocumentSnapshot) -> set[Location]:
    workflow = snapshot.workflow
    assert workflow is not None
    positions = snapshot.load.node_positions
    return {
        ("nodes", positions[model_index], *read.location[2:])
        for model_index, node in enumerate(workflow.nodes)
        for read in node_reads(node, model_index)
    }


def _documents() -> list[tuple[str, str, str]]:
    found = [
        (path.name, path.read_text(encoding="utf-8"), "json" if path.suffix == ".json" else "toml")
        for path in sorted(filter(is_workflow_file, (ROOT / "examples").iterdir()))
    ]
    found.append(("generated-40", generate_toml(40), "toml"))
    found.append(("nested", json.dumps(NESTED), "json"))
    return found


@pytest.mark.parametrize(("name", "text", "syntax"), _documents(), ids=lambda v: str(v)[:20])
def test_validation_reads_the_paths_the_index_holds(name: str, text: str, syntax: str) -> None:
    snapshot = analyze_text(text, syntax)  # type: ignore[arg-type]
    assert not any(p.code == "deprecated_input_form" for p in snapshot.issues), (
        f"{name}: canonical forms only (a deprecated form has other model locations)"
    )
    index = _index_reads(snapshot)
    assert index, f"{name} reads something"
    assert _validation_reads(snapshot) == index
