"""The trace: one record per activation, for people to read.

A trace is history. It is never read back to rebuild a run: the run state
alone is the source of truth (a resumed run starts a new trace).

A record holds the node, the loops active there (``owner_stack``, taken
from the context itself), the graph context the node resolved its paths
against, its input payload and its outcome. Foreach nodes get one record per
outcome they emit: ``loop`` per dispatched item (input: the index and item)
and ``done``/``completed_with_errors`` when the activation ends. An interrupt
gets a record when it pauses (outcome None) and one when it is answered.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from wf_core.language.paths import format_owner_stack, format_segment
from wf_core.runtime.json_values import JsonObject, JsonValue

__all__ = ["ActivationRecord", "render_json_lines", "render_text", "to_json_line"]


@dataclass(frozen=True, slots=True)
class ActivationRecord:
    """One activation as it happened. ``outcome`` is None when the node paused or failed."""

    seq: int
    node_id: str
    node_type: str
    scope_id: str
    call_path: tuple[str, ...]
    frame_id: str
    lineage_id: str
    owner_stack: tuple[str, ...]
    context: JsonObject
    input: JsonValue
    outcome: str | None
    output: JsonValue = None
    error: str | None = None
    attempts: int = 1

    def as_json(self) -> JsonObject:
        """The JSON Lines object: exactly ``node``, ``owner_stack``, ``context``,
        ``input`` and ``outcome``."""
        return {
            "node": self.node_id,
            "owner_stack": list(self.owner_stack),
            "context": self.context,
            "input": self.input,
            "outcome": self.outcome,
        }


def to_json_line(record: ActivationRecord) -> str:
    return json.dumps(record.as_json(), ensure_ascii=False, separators=(",", ":"))


def render_json_lines(records: Iterable[ActivationRecord]) -> str:
    return "".join(to_json_line(record) + "\n" for record in records)


def _short(value: object, limit: int) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render_text(records: Iterable[ActivationRecord], *, width: int = 100) -> str:
    """A readable trace: a header line per activation, then the loop entries it saw
    (``customers[0] = {...}``), its input and, when it failed, why.

    Activations of a child run are indented under the subgraph node that
    called them.
    """
    lines: list[str] = []
    for record in records:
        indent = "    " * len(record.call_path)
        where = " / ".join(record.call_path)
        place = f"{where}: " if where else ""
        if record.outcome is not None:
            result = f"→ {record.outcome}"
        elif record.error is not None:
            result = "✗ failed"
        else:
            result = "⏸ paused"
        lines.append(
            f"{indent}#{record.seq} {place}{record.node_id} ({record.node_type}) "
            f"[{format_owner_stack(record.owner_stack)}] {result}"
        )
        body = indent + "    "
        entries = record.context.get("foreach")
        if isinstance(entries, dict):
            for owner, entry in entries.items():
                if isinstance(entry, dict):
                    label = f"{format_segment(owner)}[{entry.get('index')}]"
                    room = max(20, width - len(body) - len(label) - 3)
                    lines.append(f"{body}{label} = {_short(entry.get('item'), room)}")
        room = max(20, width - len(body) - 7)
        lines.append(f"{body}input  {_short(record.input, room)}")
        if record.error is not None:
            lines.append(f"{body}error  {record.error}")
    return "\n".join(lines) + ("\n" if lines else "")
