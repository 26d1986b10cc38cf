"""The semantic token legend, read from ``semantic_legend.json`` (the one source of truth,
also read by the VS Code extension's tests). A module of its own: ``initialize``
advertises the legend before the analysis is imported."""

from __future__ import annotations

import json
from importlib import resources

_LEGEND = json.loads(
    resources.files("wfls.features").joinpath("semantic_legend.json").read_text(encoding="utf-8")
)
TOKEN_TYPES: tuple[str, ...] = tuple(_LEGEND["tokenTypes"])
TOKEN_MODIFIERS: tuple[str, ...] = tuple(_LEGEND["tokenModifiers"])
