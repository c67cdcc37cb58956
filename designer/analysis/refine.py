"""Refinement of a first bisection result: stages with a deadline.

:func:`refine_bisection` is a generator with a cancel check between stages:
the regular-fabric bound for large fabrics, METIS / spectral splits improved
by max-flow placement and local moves (:mod:`designer.analysis.partition`),
hose-routing LPs (:mod:`designer.analysis.hose`), and the exact methods with
the time left. Each stage that improves a bound yields a new result; every
bound is sound on its own, so any prefix of the stages gives an honest
interval. :func:`refined` runs the first result and its refinement for a
given time (the CLI and the exports).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import replace

import numpy as np

from designer.analysis import completion, hose, partition
from designer.analysis.balance import balance
from designer.analysis.bisection import (
    REGULAR_LIVE_LINKS,
    bisect,
    exact_stage,
    fabric_parts,
    kept_endpoints,
    with_unwired,
)
from designer.analysis.bounds import (
    BisectionResult,
    CutState,
    finish,
    lift_lower,
    short,
    take_upper,
    whole_capacities,
)
from designer.analysis.candidates import split_cut
from designer.analysis.graph import ComputeGraph
from designer.analysis.index import BoolArray, FloatArray, IntArray
from designer.analysis.levels import Hierarchy

TREE_DETOUR_VARS = 12_000
"""Detour variables of the first tree LP (about 0.3 s); a second, larger one
runs when the deadline leaves room."""


def refine_bisection(
    g: ComputeGraph,
    h: Hierarchy,
    nominal: FloatArray,
    first: BisectionResult,
    *,
    deadline: float | None = None,
    should_stop: Callable[[], bool] | None = None,
    names: np.ndarray | None = None,
) -> Iterator[BisectionResult]:
    """Improve ``first`` in stages; yield a new result whenever a bound moves.

    Pure numpy/scipy, no Qt. Between stages it returns when ``should_stop()``
    is true or ``deadline`` (a ``time.perf_counter()`` value) has passed; a
    stage itself may run past the deadline by the time of one max-flow round
    (the LPs and the integer program get the time left as their limit).
    """
    if first.exact or not first.defined or first.side is None:
        return
    bal = first.balance if first.balance is not None else balance(g.weight[g.endpoints])
    parts = fabric_parts(g, h)
    if first.wired is not None:
        # refine the wired part alone; each of its results bounds the whole
        wired = first.wired
        sub_names = None if names is None else names[wired.keep]
        sub_nominal = nominal[kept_endpoints(g, wired.keep)]
        for better in refine_bisection(
            wired.g,
            wired.h,
            sub_nominal,
            wired.result,
            deadline=deadline,
            should_stop=should_stop,
            names=sub_names,
        ):
            step = replace(wired, result=better)
            yield with_unwired(g, nominal, bal, parts, step, better.stage)
        return
    side = first.side.copy()
    st = CutState(
        first.upper,
        side,
        first.upper_how,
        first.lower,
        first.lower_how,
        list(first.candidates),
        whole=whole_capacities(g),
    )

    def stop() -> bool:
        if should_stop is not None and should_stop():
            return True
        return deadline is not None and time.perf_counter() >= deadline

    def left(default: float) -> float:
        if deadline is None:
            return default
        return max(0.0, deadline - time.perf_counter())

    def place(in_a: BoolArray) -> tuple[float, BoolArray]:
        value, s, _ = split_cut(g, in_a, h)
        return value, s

    stages: list[tuple[str, Callable[[], bool]]] = []

    def partition_stage() -> bool:
        changed = False
        value, s = partition.improve(g, bal, st.side, place, deadline=deadline)
        changed |= take_upper(st, value, s, st.upper_how + "; improved by local moves")
        for name, start in partition.candidate_sides(g, bal):
            if stop():
                break
            value, s = partition.improve(g, bal, start, place, deadline=deadline)
            st.tried.append((name, value))
            changed |= take_upper(
                st, value, s, f"{name} split, improved by max-flow and local moves"
            )
        return changed

    def tree_stage(budget: int) -> Callable[[], bool]:
        def run() -> bool:
            if not short(st):
                return False
            dl = None if deadline is None else deadline
            tb = hose.tree_bound(g, bal, deadline=dl, detour_max_vars=budget)
            return tb is not None and lift_lower(st, tb.value, tb.how)

        return run

    def regular_stage() -> bool:
        if not short(st) or len(g.u) <= REGULAR_LIVE_LINKS:
            return False  # the first result tried it already
        rb = completion.regular_bound(g, bal)
        return rb is not None and lift_lower(st, rb[0], rb[1])

    def class_stage() -> bool:
        if not short(st):
            return False
        cb = hose.class_bound(g, bal, deadline=deadline)
        return cb is not None and lift_lower(st, cb.value, cb.how)

    def integer_stage() -> bool:
        if not short(st):
            return False
        return exact_stage(g, bal, st, left(10.0), names)

    stages = [
        ("regular-fabric bound", regular_stage),
        ("tree hose LP", tree_stage(TREE_DETOUR_VARS)),
        ("local search and METIS", partition_stage),
        ("class hose LP", class_stage),
        ("tree hose LP with detours", tree_stage(hose.TREE_LP_MAX_VARS)),
        ("integer program", integer_stage),
    ]
    for name, run in stages:
        if stop() or not short(st):
            return
        if run():
            yield finish(g, st, nominal, bal, parts, name)


def refined(
    g: ComputeGraph,
    h: Hierarchy,
    nominal: FloatArray,
    dev_orders: dict[str, IntArray],
    known_lower: float | None = None,
    *,
    seconds: float = 2.0,
    names: np.ndarray | None = None,
) -> BisectionResult:
    """The first result refined until ``seconds`` have passed (CLI, exports)."""
    deadline = time.perf_counter() + seconds
    result = bisect(g, h, nominal, dev_orders, known_lower, names=names)
    for better in refine_bisection(
        g, h, nominal, result, deadline=deadline, names=names
    ):
        result = better
    return result


__all__ = ["TREE_DETOUR_VARS", "refine_bisection", "refined"]
