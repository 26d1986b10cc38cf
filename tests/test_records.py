"""``record``: equal and hashed by fields, slotted, and read-only to the type checker."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from mypy import api as mypy_api

from wf_core.base.records import record
from wf_core.base.spans import Span

ROOT = Path(__file__).parent.parent


@record
class _Pair:
    left: int
    right: tuple[str, ...] = ()


@record
class _Named:
    name: str

    def __hash__(self) -> int:
        return 7


def test_a_record_compares_and_hashes_by_its_fields_and_has_slots() -> None:
    assert _Pair(1, ("a",)) == _Pair(1, ("a",)) and _Pair(1) != _Pair(2)
    assert len({_Pair(1, ("a",)), _Pair(1, ("a",)), _Pair(2)}) == 2
    assert not hasattr(_Pair(1), "__dict__")
    assert dataclasses.replace(_Pair(1), right=("b",)) == _Pair(1, ("b",))
    assert Span(1, 2) < Span(1, 3) < Span(2, 2)  # ``order=True`` is kept
    with pytest.raises(ValueError):
        Span(3, 1)  # ``__post_init__`` still runs


def test_a_records_own_hash_is_kept() -> None:
    assert hash(_Named("a")) == hash(_Named("b")) == 7


def test_the_type_checker_refuses_to_change_a_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Immutability is enforced by the type checker, not at run time: assigning a field
    of a record is an error for mypy (as for a frozen dataclass)."""
    monkeypatch.chdir(ROOT)  # where mypy finds ``wf_core``
    snippet = tmp_path / "snippet.py"
    snippet.write_text(
        "from wf_core.base.spans import Span\n"
        "span = Span(1, 2)\nspan.start = 0\nreveal_type(span.end)\n"
    )
    out, _, status = mypy_api.run(
        [
            "--no-incremental",
            "--config-file",
            "",
            "--python-version",
            "3.11",
            str(snippet),
        ]
    )
    assert status == 1
    assert 'Property "start" defined in "Span" is read-only' in out
    assert 'Revealed type is "int"' in out
