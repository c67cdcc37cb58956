"""A state of the link table knows how it came from the states before it
(:class:`~designer.core.link_arrays.Origin`): the rows an edit left are the
earlier state's, checked here against comparing the two states row by row."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from designer.core.link_arrays import ORIGIN_DEPTH, LinkArrays, rows_run
from designer.core.link_model import Fabric, Link
from designer.core.links import LinkTable
from tests.hypo import examples


def _link(name: str, k: int) -> Link:
    return Link(
        id=name,
        a=f"d{k % 7}",
        a_port="p",
        b=f"s{k % 3}",
        b_port="q",
        cables=1 + k % 3,
        speed_gbps=(200, 400)[k % 2],
        fabric=(Fabric.COMPUTE, Fabric.STORAGE)[k % 2],
    )


def _row(state: LinkArrays, i: int) -> tuple[Any, ...]:
    """Everything a row is: its columns and its pins."""
    cols = tuple(getattr(state, n)[i].item() for n in LinkArrays._ALL if n != "ids")
    a_pins, b_pins = state.pins_of(i)
    return (state.ids[i], state.names[state.a[i]], state.names[state.b[i]],
            *cols, a_pins, b_pins)  # fmt: skip


def _claim_holds(old: LinkArrays, new: LinkArrays, head: int, tail: int) -> bool:
    if head + tail > min(len(old), len(new)):
        return False
    same_head = all(_row(old, i) == _row(new, i) for i in range(head))
    same_tail = all(
        _row(old, len(old) - 1 - i) == _row(new, len(new) - 1 - i) for i in range(tail)
    )
    return same_head and same_tail


@settings(max_examples=examples(80), deadline=None)
@given(st.data())
def test_what_a_state_says_of_its_earlier_states_is_true(data: st.DataObject) -> None:
    table = LinkTable.from_links(
        [_link(f"x{i}", i) for i in range(data.draw(st.integers(0, 30)))]
    )
    states = [table.arrays]
    undo: list[tuple[list[int], LinkTable]] = []
    fresh = iter(range(10_000))
    for _ in range(data.draw(st.integers(1, 24))):
        n = len(table)
        op = data.draw(
            st.sampled_from(
                ["delete", "undo", "insert", "append", "replace", "pins", "truncate"]
            )
        )
        last = table.arrays
        if op == "delete" and n:
            k = data.draw(st.integers(1, min(n, 5)))
            picked = data.draw(st.sets(st.integers(0, n - 1), min_size=k, max_size=k))
            undo.append((sorted(picked), table.delete(sorted(picked))))
        elif op == "undo" and undo:
            positions, rows = undo.pop()
            table.restore(positions, rows)
        elif op == "insert":
            k = next(fresh)
            table.insert(data.draw(st.integers(0, n)), _link(f"n{k}", k))
            undo.clear()
        elif op == "append":
            k = next(fresh)
            table.extend([_link(f"e{k}", k), _link(f"f{k}", k + 1)])
            undo.clear()
        elif op == "replace" and n:
            i = data.draw(st.integers(0, n - 1))
            old = table.row(i)
            table.replace_rows(
                [i],
                [
                    old.model_copy(
                        update={
                            "cables": old.cables + 1,
                            "a_pins": None,
                            "b_pins": None,
                        }
                    )
                ],
            )
            undo.clear()
        elif op == "pins" and n:
            i = data.draw(st.integers(0, n - 1))
            cables = table.row(i).cables
            table.set_pins([i], [tuple(f"p{j}" for j in range(cables))], [None])
        elif op == "truncate" and n:
            table.truncate(data.draw(st.integers(0, n)))
            undo.clear()
        else:
            continue
        now = table.arrays
        assert now.state != last.state
        # one step back is always known (these edits all say their run)
        step = rows_run(last, now)
        assert step is not None
        assert _claim_holds(last, now, *step)
        for depth, old in enumerate(reversed(states)):
            run = rows_run(old, now)
            if depth < ORIGIN_DEPTH:
                assert run is not None, (depth, op)
            if run is not None:
                assert _claim_holds(old, now, *run), (depth, run)
        states.append(now)
    assert rows_run(table.arrays, table.arrays) == (len(table), 0)


def test_unknown_origins_say_so() -> None:
    table = LinkTable.from_links([_link(f"x{i}", i) for i in range(6)])
    first = table.arrays
    copy = table.copy()
    copy.delete([2])
    # another table's states: its serials and rows are its own
    assert rows_run(first, copy.arrays) is None
    table.adopt_pins(first.a_pins, first.b_pins, first.pin_names)  # whole arrays
    assert rows_run(first, table.arrays) is None
    for k in range(ORIGIN_DEPTH + 2):
        table.delete([0]) if len(table) else table.extend([_link(f"y{k}", k)])
    assert rows_run(first, table.arrays) is None  # forgotten: too many steps ago
