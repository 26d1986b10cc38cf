"""What a handler receives and returns.

A handler is ``(payload, ctx) -> result``. Its result is normalised as lda-wf
does (lda-wf-model §1.4): a :class:`NodeResult` is used as it is; a dict with
both ``outcome`` and ``output`` is validated as one; any other dict is the
output of outcome ``ok``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from types import MappingProxyType
from typing import Any, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from wf_core.runtime.frames import ForeachContext, FrameContextView
from wf_core.runtime.json_values import JsonObject, copy_json

__all__ = ["Handler", "NodeResult", "RuntimeContext", "normalise_result"]


class NodeResult(BaseModel):
    """A node's result: the outcome that picks the next edge, and its output payload."""

    model_config = ConfigDict(extra="allow")

    outcome: str
    output: dict[str, Any] = Field(default_factory=dict)
    meta: dict[str, Any] = Field(default_factory=dict)


@dataclass(frozen=True)
class RuntimeContext:
    """What a handler may know about where it runs, besides its payload.

    ``foreach`` holds the active loops of the node's own scope, outermost
    first, keyed by static foreach id: ``ctx.foreach["orders.v2"].item``.
    ``graph`` is the same context as JSON, exactly what ``context.*`` paths
    of the node resolved against. ``node_def`` is the node def's name (the
    registry key); ``attempt`` counts from 1 across retries.

    Both are copies made on first access, so a handler can never change what
    the run holds (and one that never looks pays nothing).
    """

    node_id: str
    node_def: str
    attempt: int
    frame_id: str
    scope_id: str
    lineage_id: str
    view: FrameContextView = field(repr=False, compare=False)

    @cached_property
    def graph(self) -> JsonObject:
        copied = copy_json(self.view.graph)
        assert isinstance(copied, dict)
        return copied

    @cached_property
    def foreach(self) -> Mapping[str, ForeachContext]:
        return MappingProxyType(
            {
                key: replace(entry, item=copy_json(entry.item))
                for key, entry in self.view.foreach.items()
            }
        )


Handler: TypeAlias = Callable[[JsonObject, RuntimeContext], object]
"""``(payload, ctx) -> NodeResult | dict``; anything else is a node failure."""


def normalise_result(raw: object) -> NodeResult:
    """lda-wf's normalisation; raises ``ValueError`` with a readable reason otherwise."""
    if isinstance(raw, NodeResult):
        return raw
    if isinstance(raw, Mapping):
        if "outcome" in raw and "output" in raw:
            try:
                return NodeResult.model_validate(dict(raw))
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"])
                raise ValueError(f"invalid NodeResult ({where}: {first['msg']})") from None
        return NodeResult(outcome="ok", output=dict(raw))
    raise ValueError(f"handler returned {type(raw).__name__}; expected a NodeResult or a dict")
