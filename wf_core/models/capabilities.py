"""Capability and reducer references.

A state field names its reducer by capability ref (``wf.std.append``); the
canonical JSON of a ref is structural (``{"source", "capability_key"}``) while
documents usually write the dotted string, so both forms are accepted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_serializer, model_validator

DEFAULT_REDUCER = "wf.std.replace"


def _nonblank(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} must be a string")
    if not value.strip():
        raise ValueError(f"{what} must not be empty")
    return value


class CapabilityRef(BaseModel):
    """``<source>.<name>``: the source is everything before the last dot."""

    model_config = ConfigDict(frozen=True)

    source: str
    name: str

    @model_validator(mode="before")
    @classmethod
    def _parse(cls, value: object) -> object:
        if isinstance(value, CapabilityRef):
            return {"source": value.source, "name": value.name}
        if isinstance(value, str):
            source, dot, name = value.rpartition(".")
            if not dot or not source.strip() or not name.strip():
                raise ValueError(
                    f"invalid capability ref {value!r}; expected <source>.<name> such as "
                    "wf.std.append"
                )
            return {"source": source, "name": name}
        if isinstance(value, Mapping):
            data = dict(value)
            if "capability_key" in data:
                if "name" in data:
                    raise ValueError(
                        "capability ref capability_key and name are mutually exclusive"
                    )
                data["name"] = data.pop("capability_key")
            _nonblank(data.get("source"), "capability ref source")
            _nonblank(data.get("name"), "capability ref name")
            return data
        raise ValueError("capability ref must be a string or an object")

    @model_serializer(mode="plain")
    def _dump(self) -> dict[str, str]:
        return {"source": self.source, "capability_key": self.name}

    def __str__(self) -> str:
        return f"{self.source}.{self.name}"


class ReducerRef(BaseModel):
    """A reducer: which capability merges writes into a state field, and its config."""

    ref: CapabilityRef
    config: dict[str, object] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _accept_short_forms(cls, value: object) -> object:
        if isinstance(value, str):
            return {"ref": value}
        if isinstance(value, Mapping) and "name" in value:
            if "ref" in value:
                raise ValueError("reducer ref and name are mutually exclusive")
            data = dict(value)
            data["ref"] = data.pop("name")
            return data
        return value

    @property
    def name(self) -> str:
        return str(self.ref)

    def short_form(self) -> str | dict[str, object]:
        """The dotted string when there is no config, else the full JSON (how legacy
        state ``fields`` are written back into ``properties``)."""
        if not self.config:
            return self.name
        return self.model_dump(mode="json")


def default_reducer() -> ReducerRef:
    return ReducerRef(ref=CapabilityRef(source="wf.std", name="replace"))


class ReducerSpec(BaseModel):
    """What a reducer implementation declares to the registry."""

    name: str
    description: str = ""
    config_schema: dict[str, object] = Field(
        default_factory=lambda: {
            "type": "object",
            "properties": {},
            "additionalProperties": False,
        }
    )
    sibling_write_policy: Literal["exclusive", "mergeable"] = "mergeable"
