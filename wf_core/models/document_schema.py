"""The JSON Schema of a workflow document, for other TOML/JSON tools.

Derived from the model so it cannot drift from what ``wfls check`` accepts;
the three workflow schemas are optional in documents (they default to
``{ type = "object" }``), so they are dropped from ``required``. Every table
with a fixed set of keys (``wf_core.models.keys``) is closed with
``additionalProperties: false``, so Taplo or VS Code's JSON support flag an
unknown key just as ``wfls check`` does; deprecated keys stay allowed and are
marked ``deprecated``.
"""

from __future__ import annotations

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaValue

from wf_core.models import Workflow
from wf_core.models.keys import CONDITION_MODELS, DEPRECATED_KEYS, STEP_MODELS, TOP_LEVEL_EXTRAS
from wf_core.models.schemas import NodeDef
from wf_core.models.workflow import Edge

OPTIONAL_IN_DOCUMENTS = ("input_schema", "state_schema", "output_schema")
_CLOSED: tuple[type[BaseModel], ...] = (
    Edge,
    NodeDef,
    *STEP_MODELS.values(),
    *CONDITION_MODELS.values(),
)


def _close(schema: JsonSchemaValue, deprecated: tuple[str, ...]) -> None:
    properties = schema.setdefault("properties", {})
    for key in deprecated:
        properties.setdefault(key, {"deprecated": True, "description": "deprecated input form"})
    schema["additionalProperties"] = False


def document_json_schema() -> JsonSchemaValue:
    schema = Workflow.model_json_schema(by_alias=True, mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "lda-wf workflow document"
    schema["required"] = [r for r in schema.get("required", []) if r not in OPTIONAL_IN_DOCUMENTS]
    for key in TOP_LEVEL_EXTRAS:
        schema["properties"][key] = {"type": "string", "description": "the schema of this document"}
    schema["additionalProperties"] = False
    definitions = schema.get("$defs", {})
    for model in _CLOSED:
        definition = definitions.get(model.__name__)
        if definition is not None:
            _close(definition, DEPRECATED_KEYS.get(model, ()))
    return schema
