"""The workflow graph as one self-contained HTML page (``wfls graph --format html``).

The page is the same interactive view as VS Code's "wfls: Show Graph" (pan, zoom,
loops that collapse, export to SVG and PNG): the view's script and stylesheet,
built from ``editors/vscode/src/graph/`` with Graphviz compiled to WebAssembly
inside, are committed in ``wfls/assets/`` so that no npm is needed here, and are
inlined together with the graph JSON. The page's Content-Security-Policy allows
no network at all, so that it works offline (a CI artefact, a file opened from
Neovim) and an untrusted document's page cannot fetch anything.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from collections.abc import Mapping, Sequence
from importlib import resources

SCRIPT = "graph-view.js"
STYLESHEET = "graph-view.css"
DATA_ID = "wfls-graph-data"


def asset(name: str) -> str:
    """One of the view's built files, as the package carries it."""
    return (resources.files("wfls") / "assets" / name).read_text(encoding="utf-8")


def _json_in_html(value: object) -> str:
    """JSON that cannot end the ``<script>`` element holding it (``</script>``, ``<!--``)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _hash(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def render_html(
    graph: Mapping[str, object],
    *,
    source: str | None = None,
    trace: Sequence[Mapping[str, object]] | None = None,
) -> str:
    """The page showing ``graph`` (the JSON of ``wfls graph --format json``).

    ``source`` is the document's path, shown in the title and when a node is
    clicked; ``trace`` a run's activations (``node`` and ``outcome`` each), drawn as
    counts on the nodes and edges.
    """
    script = asset(SCRIPT)
    if "</script" in script.lower():  # the built view never holds one; inlined, it would end early
        raise ValueError(f"{SCRIPT} cannot be inlined: it contains </script")
    data: dict[str, object] = {"graph": graph, "source": source}
    if trace is not None:
        data["trace"] = [{"node": a.get("node"), "outcome": a.get("outcome")} for a in trace]
    workflow = graph.get("workflow")
    title = f"{workflow} — workflow graph" if isinstance(workflow, str) else "workflow graph"
    policy = (
        "default-src 'none'; "
        f"script-src 'sha256-{_hash(script)}' 'wasm-unsafe-eval'; "
        "style-src 'unsafe-inline'; img-src data:"
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{html.escape(policy)}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n"
        f"<style>\n{asset(STYLESHEET)}\n</style>\n"
        "</head>\n<body>\n"
        f'<script type="application/json" id="{DATA_ID}">{_json_in_html(data)}</script>\n'
        f"<script>{script}</script>\n"
        "</body>\n</html>\n"
    )
