"""The JSON Schema of a workflow document, for other TOML/JSON tools.

Derived from the model so it cannot drift from what ``wfls check`` accepts;
the three workflow schemas are optional in documents (they default to
``{ type = "object" }``), so they are dropped from ``required``.
"""

from __future__ import annotations

from typing import Any

from wf_core.models import Workflow

OPTIONAL_IN_DOCUMENTS = ("input_schema", "state_schema", "output_schema")


def document_json_schema() -> dict[str, Any]:
    schema = Workflow.model_json_schema(by_alias=True, mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "lda-wf workflow document"
    schema["required"] = [r for r in schema.get("required", []) if r not in OPTIONAL_IN_DOCUMENTS]
    return schema
