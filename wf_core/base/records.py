"""``record``: the decorator of the analysis's value classes (spans, literals, issues,
occurrences, ...), immutable to the type checker and cheap to construct.

A record is a dataclass with ``__slots__``, field equality and a field hash, like a
frozen one. What differs is how its fields are set. A frozen dataclass's ``__init__``
sets each field through ``object.__setattr__`` (its own ``__setattr__`` refuses), a
call per field that makes constructing one three to five times as slow as an
ordinary slotted dataclass (seven fields: 1.3 µs against 0.25 µs). The analysis of a
16,000-node document and its semantic index make millions of them (spans, path
segments, occurrences), and the index build spent a fifth of its time in those calls.

So immutability is enforced where it costs nothing: for the type checker, which
treats every record's fields as read-only (``frozen_default``; ``make test`` runs it
in strict mode over ``wf_core`` and ``wfls``), not by a ``__setattr__`` at run time.
A record's ``__post_init__`` that normalises a field still sets it with
``object.__setattr__``, as a frozen dataclass's must. Records are hashed by their
fields, so one must not be changed once made; nothing in the project does.

What scripts and handlers hold stays frozen at run time: the model's path classes
(``wf_core.language.paths``), the Python builder's values (``wf_core.authoring.builder``) and the
runtime's records (``wf_core.runtime``: a handler's context must not be changed by
the handler, whatever its typing).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar, dataclass_transform, overload

_T = TypeVar("_T")


def _explicit_hash(cls: type) -> bool:
    """Whether the class body defines ``__hash__`` (a body defining ``__eq__`` alone
    gets ``__hash__ = None`` from Python, which does not count), as dataclasses decide."""
    body = cls.__dict__
    return "__hash__" in body and not (body["__hash__"] is None and "__eq__" in body)


@overload
def record(cls: type[_T], /) -> type[_T]: ...
@overload
def record(*, order: bool = False) -> Callable[[type[_T]], type[_T]]: ...


@dataclass_transform(frozen_default=True, eq_default=True, field_specifiers=(field,))
def record(cls: type[_T] | None = None, /, *, order: bool = False) -> Any:
    def make(target: type[_T]) -> type[_T]:
        return dataclass(target, slots=True, order=order, unsafe_hash=not _explicit_hash(target))

    return make if cls is None else make(cls)
