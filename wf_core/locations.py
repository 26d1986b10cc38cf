"""Model locations: lda-wf's location strings and their structured form.

lda-wf names a place in the model with strings such as ``nodes[2].input[0].path``,
``edges[3]``, ``output[0].path`` or, for graph-level findings, ``nodes[<id>]``.
The source map is keyed by the structured form, a tuple of keys (``str``) and
list indexes (``int``): ``("nodes", 2, "input", 0, "path")``. Keys are the
document's keys (aliases such as ``from`` and ``as``), never Python field names.
"""

from __future__ import annotations

import re

Location = tuple[str | int, ...]

_TOKEN = re.compile(r"\[(?P<index>[^\]]*)\]|\.?(?P<key>[^.\[]+)")


def format_location(location: Location) -> str:
    """``("nodes", 2, "over")`` → ``nodes[2].over``."""
    out: list[str] = []
    for part in location:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif out:
            out.append(f".{part}")
        else:
            out.append(part)
    return "".join(out)


def parse_location(text: str) -> Location:
    """``nodes[2].over`` → ``("nodes", 2, "over")``; ``nodes[charge]`` → ``("nodes", "[charge]")``.

    A bracketed part that is not a number is a node id (lda-wf's graph-level
    form); it is kept as the string ``"[<id>]"`` so callers can tell it apart
    from a key and resolve it against the node list.
    """
    parts: list[str | int] = []
    for match in _TOKEN.finditer(text):
        index = match.group("index")
        if index is not None:
            parts.append(int(index) if index.isdigit() else f"[{index}]")
        else:
            parts.append(match.group("key"))
    return tuple(parts)
