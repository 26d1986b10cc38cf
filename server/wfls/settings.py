"""User settings (section ``wfls``) and how they shape the diagnostics and hints.

Settings arrive as ``initializationOptions`` and later from
``workspace/configuration``. They change only the presentation of issues and
which inlay hints are shown, never the analysis, so a snapshot stays valid when
settings change; the diagnostics derived from it are recomputed instead.

``inlayHints.itemTypes`` (and ``format.width``) may arrive nested (``{"inlayHints":
{"itemTypes": true}}``, as ``workspace/configuration`` gives it) or flat
(``{"inlayHints.itemTypes": true}``, as an editor reads a dotted setting).
"""

from __future__ import annotations

from typing import Any

from wf_core.base.issues import ProjectCode, Severity
from wf_core.base.line_width import LINE_WIDTH
from wf_core.base.records import record

SECTION = "wfls"
_SEVERITIES = {
    "error": Severity.ERROR,
    "warning": Severity.WARNING,
    "information": Severity.INFORMATION,
    "hint": Severity.HINT,
    "off": None,
}


@record
class Settings:
    """Resolved settings. ``undeclared_property_severity`` None means "off"."""

    undeclared_property_severity: Severity | None = Severity.WARNING
    hint_deprecated_keys: bool = True
    extra_globs: tuple[str, ...] = ()  # more documents, relative to the workspace folders
    inlay_item_types: bool = True  # after a foreach's ``over``: the item type
    inlay_path_types: bool = True  # after a binding's ``path``: the type it reads
    inlay_owner_stacks: bool = False  # after a body node's ``id``: its owner stack
    format_width: int = LINE_WIDTH  # the line width of formatting (``wf_core.formatting``)

    def severity_of(self, code: str, severity: Severity) -> Severity | None:
        """The severity to show for an issue, or None to hide it."""
        if code == ProjectCode.UNDECLARED_PROPERTY:
            return self.undeclared_property_severity
        if code == ProjectCode.DEPRECATED_CONTEXT_KEY and not self.hint_deprecated_keys:
            return None
        return severity


def parse_settings(raw: Any) -> tuple[Settings, list[str]]:
    """Settings from a client value, plus a description of each bad entry.

    Unknown keys are ignored (other parts of the server or newer clients may
    add them); a bad value falls back to its default and is reported.
    ``raw`` may be the section itself or an object holding a ``wfls`` section.
    """
    if raw is None:
        return Settings(), []
    if not isinstance(raw, dict):
        return Settings(), [f"settings must be an object, not {type(raw).__name__}"]
    if isinstance(raw.get(SECTION), dict):
        raw = raw[SECTION]
    problems: list[str] = []
    defaults = Settings()
    severity = defaults.undeclared_property_severity
    if "undeclaredPropertySeverity" in raw:
        value = raw["undeclaredPropertySeverity"]
        if isinstance(value, str) and value.lower() in _SEVERITIES:
            severity = _SEVERITIES[value.lower()]
        else:
            problems.append(
                f"undeclaredPropertySeverity must be one of {', '.join(_SEVERITIES)}, not {value!r}"
            )
    hint = _flag(raw, "hintDeprecatedKeys", defaults.hint_deprecated_keys, problems)
    globs = defaults.extra_globs
    if "extraGlobs" in raw:
        value = raw["extraGlobs"]
        if isinstance(value, list) and all(_relative_glob(v) for v in value):
            globs = tuple(value)
        else:
            problems.append(
                "extraGlobs must be a list of glob patterns relative to the workspace folders "
                f"(no '..', not absolute), not {value!r}"
            )
    hints = raw.get("inlayHints")
    if "inlayHints" in raw and not isinstance(hints, dict):
        problems.append(f"inlayHints must be an object, not {hints!r}")
    flat = {k.removeprefix("inlayHints."): v for k, v in raw.items() if k.startswith("inlayHints.")}
    hints = {**flat, **(hints if isinstance(hints, dict) else {})}
    return Settings(
        format_width=_format_width(raw, problems),
        undeclared_property_severity=severity,
        hint_deprecated_keys=hint,
        inlay_item_types=_flag(hints, "itemTypes", defaults.inlay_item_types, problems, _HINTS),
        inlay_path_types=_flag(hints, "pathTypes", defaults.inlay_path_types, problems, _HINTS),
        inlay_owner_stacks=_flag(
            hints, "ownerStacks", defaults.inlay_owner_stacks, problems, _HINTS
        ),
        extra_globs=globs,
    ), problems


_HINTS = "inlayHints."
_WIDTHS = (20, 1000)
"""The line widths formatting takes, as ``wfls fmt --width`` does."""


def _format_width(raw: dict[str, Any], problems: list[str]) -> int:
    """``format.width``, nested or flat; anything but a whole number of ``_WIDTHS`` is
    reported and gives the default."""
    section = raw.get("format")
    value = section.get("width") if isinstance(section, dict) else None
    value = raw.get("format.width", value)
    if value is None:
        return LINE_WIDTH
    low, high = _WIDTHS
    if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
        return value
    problems.append(f"format.width must be a whole number from {low} to {high}, not {value!r}")
    return LINE_WIDTH


class ProblemReports:
    """Which settings problems to show the user: each invalid configuration once.

    The same settings are often read more than once: Neovim sends
    ``workspace/didChangeConfiguration`` right after initialization, and the server then
    asks for the section again, as it did at ``initialized``; a client may also give
    the same values as ``initializationOptions`` and as its configuration. Problems
    equal to the ones reported last are that configuration read again. Valid settings
    end it: the same mistake made again later is reported again.
    """

    def __init__(self) -> None:
        self._last: tuple[str, ...] = ()

    def to_report(self, problems: list[str]) -> bool:
        """Whether ``problems`` (from :func:`parse_settings`) are to be shown now."""
        current = tuple(problems)
        fresh = bool(current) and current != self._last
        self._last = current
        return fresh


def _flag(
    raw: dict[str, Any], key: str, default: bool, problems: list[str], prefix: str = ""
) -> bool:
    """A boolean setting; anything else is reported and gives ``default``."""
    if key not in raw:
        return default
    value = raw[key]
    if isinstance(value, bool):
        return value
    problems.append(f"{prefix}{key} must be true or false, not {value!r}")
    return default


def _relative_glob(value: Any) -> bool:
    """A pattern that cannot reach outside the folder it is matched in."""
    return (
        isinstance(value, str)
        and bool(value)
        and not value.startswith(("/", "\\"))
        and ":" not in value
        and ".." not in value.replace("\\", "/").split("/")
    )
