"""The test document: a workflow to run, and cases of input, pins and expectations.

One pydantic model per table, each closed (an unknown key is a finding, as in a
workflow document), so that the JSON Schema ``wfls schema --test`` prints is derived
from the same classes the reader validates with and cannot drift from it.

A case's ``expect`` may be written as one table or as an array of tables (TOML's
``[case.expect]`` or ``[[case.expect]]``); every table of it must hold.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import JsonSchemaValue

__all__ = [
    "Attempt",
    "Case",
    "Expect",
    "InterruptAnswer",
    "Pin",
    "Saw",
    "TestDocument",
    "workflow_tests_json_schema",
]

FAILED_ATTEMPT = "error"
"""In ``attempts``, this string is an attempt that fails (the node def's outcome of that
name, if it declares one, is written ``{ outcome = "error" }``)."""


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Attempt(_Closed):
    """One attempt of a pinned node: an outcome with an output, or a failure."""

    outcome: str | None = Field(default=None, description="the outcome this attempt returns")
    output: dict[str, Any] | None = Field(
        default=None, description="the output this attempt returns (default: the pin's)"
    )
    error: str | None = Field(default=None, description="this attempt fails with this message")


class Pin(_Closed):
    """What a node returns instead of running its handler (or stand-in)."""

    node: str = Field(description="the id of a node of type 'node' in the workflow")
    when: dict[str, Any] | None = Field(
        default=None,
        description="only activations whose context holds these values: context path -> "
        "value (objects match as subsets)",
    )
    activation: int | None = Field(
        default=None, ge=0, description="only this activation of the node, counted from 0"
    )
    outcome: str | None = Field(
        default=None, description="the outcome returned (default: the node def's first)"
    )
    output: dict[str, Any] | None = Field(
        default=None, description="the output returned (default: the stand-in's sample)"
    )
    error: str | None = Field(default=None, description="every attempt fails with this message")
    attempts: list[str | Attempt] | None = Field(
        default=None,
        description="one entry per attempt, for retries: an outcome, 'error' (the attempt "
        "fails) or a table; attempts past the last repeat it",
    )


class InterruptAnswer(_Closed):
    """The answer given when the run pauses at an interrupt, in the order the run pauses."""

    node: str = Field(description="the id of the interrupt the run is expected to wait at")
    request: dict[str, Any] | None = Field(
        default=None, description="what the request is expected to hold (subset)"
    )
    answer: dict[str, Any] = Field(default_factory=dict, description="the answer to resume with")
    outcome: str | None = Field(
        default=None, description="the outcome to resume with, when the interrupt declares several"
    )


class Saw(_Closed):
    """What one activation of a node saw."""

    node: str = Field(description="the id of a node of the workflow")
    activation: int = Field(default=0, ge=0, description="which activation, counted from 0")
    context: dict[str, Any] | None = Field(
        default=None, description="the node's graph context (subset)"
    )
    input: dict[str, Any] | None = Field(
        default=None, description="the node's input payload (subset)"
    )


class Expect(_Closed):
    """What must have happened. Every key given must hold."""

    status: Literal["completed", "paused", "failed"] | None = None
    outcome: str | None = Field(default=None, description="the workflow's outcome")
    output: dict[str, Any] | None = Field(default=None, description="the workflow output (subset)")
    error: str | None = Field(default=None, description="a part of the failure's message")
    visited: list[str] | None = Field(
        default=None, description="node ids that ran in this order (a subsequence of the trace)"
    )
    saw: list[Saw] = Field(default_factory=list)


class Case(_Closed):
    """One run of the workflow."""

    name: str = Field(min_length=1)
    input: Any = Field(default_factory=dict, description="the workflow input")
    seed: int = Field(default=0, description="orders concurrent items")
    pin: list[Pin] = Field(default_factory=list)
    interrupt: list[InterruptAnswer] = Field(default_factory=list)
    expect: list[Expect] | Expect = Field(default_factory=list)

    @property
    def expectations(self) -> list[Expect]:
        return self.expect if isinstance(self.expect, list) else [self.expect]


class TestDocument(_Closed):
    """A ``*.wf.test.toml`` / ``*.wf.test.json`` document."""

    __test__ = False  # not a pytest class

    schema_: str | None = Field(
        default=None, alias="$schema", description="the schema of this document"
    )
    workflow: str = Field(
        description="a workflow name of the workspace, or a path relative to this document"
    )
    case: list[Case] = Field(default_factory=list)


def workflow_tests_json_schema() -> JsonSchemaValue:
    """The JSON Schema of a test document (``wfls schema --test``)."""
    schema = TestDocument.model_json_schema(by_alias=True, mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "wfls workflow test document"
    return schema
