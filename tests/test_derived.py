"""``wf_core.base.derived``: a value is found again under an equal key, in the next run of its
query only, and only under the same dependencies."""

from __future__ import annotations

from collections import Counter

from wf_core.base.derived import Derivations, stale_limit


def made(log: list[str], value: str):
    def make() -> str:
        log.append(value)
        return value

    return make


def test_a_value_is_found_again_under_an_equal_key_in_the_next_run() -> None:
    derived, log = Derivations(), list[str]()
    run = derived.begin("q")
    first = run.get(("a", "text of a"), made(log, "A"))
    run = derived.begin("q")
    # An equal key made afresh (a tuple of another identity) finds the value.
    assert run.get(("a", "".join(["text ", "of a"])), made(log, "A again")) is first
    assert run.get(("b", "text of b"), made(log, "B")) == "B"
    assert log == ["A", "B"]


def test_only_the_last_run_is_kept() -> None:
    derived, log = Derivations(), list[str]()
    derived.begin("q").get("a", made(log, "A"))
    derived.begin("q").get("b", made(log, "B"))  # a run that did not read "a"
    assert derived.begin("q").get("a", made(log, "A again")) == "A again"
    assert log == ["A", "B", "A again"]


def test_queries_are_apart_and_a_none_key_is_never_kept() -> None:
    derived, log = Derivations(), list[str]()
    derived.begin("model:nodes").get("k", made(log, "node"))
    derived.begin("model:edges").get("k", made(log, "edge"))
    assert derived.begin("model:nodes").get("k", made(log, "?")) == "node"
    run = derived.begin("q")
    run.get(None, made(log, "x"))
    assert derived.begin("q").get(None, made(log, "y")) == "y"
    assert log == ["node", "edge", "x", "y"]


def test_other_dependencies_drop_the_last_run() -> None:
    model, other = object(), object()
    derived, log = Derivations(), list[str]()
    derived.begin("q", (model, ("ok",))).get("a", made(log, "A"))
    # The same objects (and equal strings) in a new tuple: the last run is read.
    assert derived.begin("q", (model, ("o" + "k",))).get("a", made(log, "?")) == "A"
    # Another object, though perhaps equal: made again.
    assert derived.begin("q", (other, ("ok",))).get("a", made(log, "A2")) == "A2"
    assert log == ["A", "A2"]


def test_a_value_at_an_index_is_found_again_at_that_index_only() -> None:
    derived, log = Derivations(), list[str]()
    derived.begin("q").at(1, "a", made(log, "A at 1"))
    run = derived.begin("q")
    assert run.at(1, "a", made(log, "?")) == "A at 1"
    assert run.at(2, "a", made(log, "A at 2")) == "A at 2"  # another index: made
    assert derived.begin("q").at(1, "b", made(log, "B at 1")) == "B at 1"
    assert log == ["A at 1", "A at 2", "B at 1"]


def test_a_whole_list_at_once_is_what_each_element_alone_gives() -> None:
    """``get_all`` and ``at_all`` give what ``get`` and ``at`` would, element by element,
    over runs whose keys change, move, repeat, run short or are None, and make no more
    than they would: a list mostly like the last one keeps the last run's table, so a
    key that left it and came back may be found where ``get`` or ``at`` makes it again."""
    import random

    rng = random.Random(3)
    pool = ["a", "b", "c", ("d", 1), "e", None]
    one, whole = Derivations(), Derivations()
    for _ in range(60):
        count = rng.randrange(6)
        keys = [rng.choice(pool) for _ in range(rng.randrange(7))]
        for query in ("get", "at"):
            log_one: list[str] = []
            log_whole: list[str] = []
            run_one, run_whole = one.begin(query), whole.begin(query)
            if query == "get":
                alone = [
                    run_one.get(
                        keys[i] if i < len(keys) else None, made(log_one, f"{keys[i : i + 1]}")
                    )
                    for i in range(count)
                ]
                together = run_whole.get_all(
                    keys, count, lambda i, k=keys, log=log_whole: made(log, f"{k[i : i + 1]}")()
                )
            else:
                alone = [
                    run_one.at(
                        i,
                        keys[i] if i < len(keys) else None,
                        made(log_one, f"{i}{keys[i : i + 1]}"),
                    )
                    for i in range(count)
                ]
                together = run_whole.at_all(
                    keys, count, lambda i, k=keys, log=log_whole: made(log, f"{i}{k[i : i + 1]}")()
                )
            # What each run kept shows in what the next one finds and makes.
            assert together == alone
            assert Counter(log_whole) <= Counter(log_one)


def test_a_list_like_the_last_one_makes_its_changed_elements_alone() -> None:
    """A list whose keys are the last run's objects but one makes that one element, and
    gives the last values elsewhere; the keys it replaced stay in the table for an undo,
    at most ``stale_limit`` of them before the list is looked up whole again."""
    derived, log = Derivations(), list[str]()
    count = 2000
    keys: list[object] = [f"node {i}" for i in range(count)]
    first = derived.begin("q").get_all(keys, count, lambda i: made(log, f"{keys[i]}")())
    assert len(log) == count
    for step in range(200):
        keys = list(keys)
        keys[7] = f"node 7 typed {step}"
        log.clear()
        values = derived.begin("q").get_all(keys, count, lambda i, k=keys: made(log, f"{k[i]}")())
        assert values == [f"{key}" for key in keys]
        assert values[8] is first[8]  # found again, not made
        assert log == [f"node 7 typed {step}"]
    # The table holds the list's keys and at most the limit's worth of replaced ones.
    assert derived.kept("q") <= count + stale_limit(count) + 1
    # An undo finds the value typed a step before.
    keys = list(keys)
    keys[7] = "node 7 typed 198"
    log.clear()
    derived.begin("q").get_all(keys, count, lambda i: made(log, f"{keys[i]}")())
    assert log == []


def test_a_list_at_indexes_like_the_last_one_makes_its_changed_elements_alone() -> None:
    """``at_all`` of keys that are the last run's but one makes that index alone and gives
    the last values elsewhere; an index whose key is not known (None) is made every run."""
    derived, log = Derivations(), list[str]()
    count = 2000
    keys: list[object] = [f"node {i}" for i in range(count)]
    keys[5] = None
    first = derived.begin("q").at_all(keys, count, lambda i, k=keys: made(log, f"{i}:{k[i]}")())
    assert len(log) == count
    for step in range(3):
        keys = list(keys)
        keys[7] = f"node 7 typed {step}"
        log.clear()
        values = derived.begin("q").at_all(
            keys, count, lambda i, k=keys: made(log, f"{i}:{k[i]}")()
        )
        assert values == [f"{i}:{key}" for i, key in enumerate(keys)]
        assert values[8] is first[8]
        assert log == ["5:None", f"7:node 7 typed {step}"]
