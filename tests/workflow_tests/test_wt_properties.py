"""A run saved with ``wfls run --save-test`` is a regression test: for generated
workflows and inputs, the saved test passes, and fails once the workflow is changed so
that nodes run in another order (the last two tasks of a group's chain swapped)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wf_core.authoring.generate import TASKS_PER_GROUP, generate_toml
from wfls.cli import main

ORDER = st.fixed_dictionaries(
    {"sku": st.text("ABC-0123", min_size=1, max_size=5), "qty": st.integers(0, 9)}
)
CUSTOMER = st.fixed_dictionaries(
    {"name": st.text("abcxyz", min_size=1, max_size=6), "orders": st.lists(ORDER, max_size=3)}
)
# At least one order: with none, no task runs and skipping one changes nothing.
INPUTS = st.lists(CUSTOMER, min_size=1, max_size=3).filter(
    lambda customers: any(customer["orders"] for customer in customers)
)


def _swap_last_tasks(text: str, group: int) -> str:
    """The workflow with the last two tasks of group ``group``'s chain run the other way
    round: every node still runs as often, in another order."""
    *_, before, one, two = (f"g{group}_t{t}" for t in range(TASKS_PER_GROUP))
    loop = f"g{group}_orders.v2"

    def edge(source: str, target: str) -> str:
        return f'{{ from = "{source}", outcome = "ok", to = "{target}" }}'

    swapped = {
        edge(before, one): edge(before, two),
        edge(one, two): edge(one, loop),
        edge(two, loop): edge(two, one),
    }
    for old, new in swapped.items():
        assert old in text
        text = text.replace(old, new)
    return text


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    nodes=st.integers(10, 30),
    customers=INPUTS,
    seed=st.integers(0, 3),
    fmt=st.sampled_from(["toml", "json"]),
)
def test_a_saved_run_passes_and_fails_after_a_mutation(
    nodes: int, customers: list[object], seed: int, fmt: str
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        workflow = root / "generated.wf.toml"
        text = generate_toml(nodes)
        workflow.write_text(text, encoding="utf-8")
        data = root / "input.json"
        data.write_text(json.dumps({"customers": customers}), encoding="utf-8")
        saved = root / f"generated.wf.test.{fmt}"
        args = ["run", str(workflow), "--input", str(data), "--seed", str(seed)]
        assert main([*args, "--save-test", str(saved)]) == 0
        assert main(["test", str(saved), "--format", "json"]) == 0
        workflow.write_text(_swap_last_tasks(text, 0), encoding="utf-8")
        assert main(["test", str(saved), "--format", "json"]) == 1
