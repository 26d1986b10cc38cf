"""Model locations: structured inside ``wf_core``, lda-wf's strings only at the edge.

lda-wf names a place in the model with strings such as ``nodes[2].input[0].path``,
``edges[3]``, ``output[0].path`` or, for graph-level findings, ``nodes[<id>]``.
Inside the project a location is always the structured form, a tuple of keys
(``str``), list indexes (``int``) and node references (:class:`NodeRef`, a node
named by its id): ``("nodes", 2, "input", 0, "path")``, ``("nodes", NodeRef("x]y"))``.
Keys are the document's keys (aliases such as ``from`` and ``as``), never Python
field names.

Invariant: nothing parses a formatted location back. :func:`format_location`
is for output only (the CLI, the protocol layer, messages), so an id holding
``]`` or ``.`` can never lose its place.
"""

from __future__ import annotations

from wf_core.base.records import record


@record
class NodeRef:
    """A node named by its id: lda-wf's graph-level ``nodes[<id>]``."""

    id: str


LocationPart = str | int | NodeRef
Location = tuple[LocationPart, ...]


def format_location(location: Location) -> str:
    """``("nodes", 2, "over")`` → ``nodes[2].over``; ``("nodes", NodeRef("a"))`` → ``nodes[a]``."""
    out: list[str] = []
    for part in location:
        if isinstance(part, str):  # the commonest part first: one call per finding printed
            out.append(f".{part}" if out else part)
        elif isinstance(part, int):
            out.append(f"[{part}]")
        else:
            out.append(f"[{part.id}]")
    return "".join(out)
