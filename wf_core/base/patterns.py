"""The author's regular expressions, matched in linear time or not at all.

JSON Schema's ``pattern`` and ``patternProperties`` come from the workflow
document and are matched against values nobody vetted: the workflow input,
node outputs, interrupt answers. Python's ``re`` backtracks, and a pattern
such as ``^(a+)+$`` against a few dozen ``a``s and a ``!`` would not finish in
a lifetime, nor can a match be interrupted from a worker thread.

Decision: wfls never hands an author's pattern to ``re`` for matching. It
uses the Rust ``regex`` engine that pydantic-core (already a dependency, for
the model) exposes through a string validator: finite automata, time linear
in the length of the text, no backtracking. That engine has no look-around
and no backreferences (and refuses patterns that compile too large); such a
pattern is refused with the engine's reason instead of being evaluated
another way. Its syntax is otherwise close to ``re``'s and to ECMA-262,
which JSON Schema names; ``$`` matches at the very end only, as in ECMA-262.

Invariant: :func:`search` is the only place wf_core matches an author's
pattern; checking that a pattern is a valid ``re`` (the meta-schema's
``format: regex``) only compiles it.
"""

from __future__ import annotations

import functools

from pydantic_core import SchemaError, SchemaValidator, core_schema

__all__ = ["UnsafePattern", "pattern_problem", "search"]


class UnsafePattern(ValueError):
    """A pattern that the linear-time engine cannot evaluate; the message says why."""


@functools.lru_cache(maxsize=1024)
def _compiled(pattern: str) -> SchemaValidator | str:
    """The matcher for ``pattern``, or why the linear-time engine refuses it."""
    try:
        return SchemaValidator(
            core_schema.str_schema(pattern=pattern, regex_engine="rust-regex", strict=True)
        )
    except SchemaError as error:
        return _reason(str(error))


def _reason(text: str) -> str:
    """The engine's own words: the ``error: ...`` line of its report, else its last line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in lines:
        if line.startswith("error:"):
            return line.removeprefix("error:").strip()
    last = lines[-1] if lines else "it cannot be compiled"
    return last.removeprefix("SchemaError:").strip()


def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot be evaluated in linear time (None: it can)."""
    compiled = _compiled(pattern)
    return compiled if isinstance(compiled, str) else None


def search(pattern: str, text: str) -> bool:
    """True when ``pattern`` matches somewhere in ``text`` (``re.search`` semantics).

    Raises :class:`UnsafePattern` for a pattern the engine refuses.
    """
    compiled = _compiled(pattern)
    if isinstance(compiled, str):
        raise UnsafePattern(
            f"pattern {pattern!r} is not evaluated: {compiled} (wfls matches patterns "
            "in linear time only)"
        )
    return compiled.isinstance_python(text)
