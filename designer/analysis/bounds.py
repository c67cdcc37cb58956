"""The bounds of a bisection while its stages run, and the result they give.

:class:`CutState` holds the best cut (upper bound) and the best proven lower
bound so far; a stage takes a better one through :func:`take_upper` or
:func:`lift_lower`, and :func:`finish` turns the state into a
:class:`BisectionResult` (see :mod:`designer.analysis.bisection`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from designer.analysis.balance import Balance, min_side_injection
from designer.analysis.graph import ComputeGraph
from designer.analysis.index import BoolArray, FloatArray, IntArray
from designer.analysis.levels import Hierarchy

REL = 1e-9
"""Relative tolerance: bounds this close meet."""


@dataclass
class BisectionResult:
    """Bounds, the best cut and how they were found.

    ``parts`` lists, per part of the compute fabric that holds compute nodes
    (connected through compute links, largest first), the design-index rows
    of all its devices; ``parts_compute`` the compute nodes alone. ``defined``
    is False with fewer than two compute nodes (no bisection, no ratio).
    """

    upper: float
    lower: float
    full: float
    exact: bool
    method: str
    side: BoolArray | None = None
    crossing: BoolArray | None = None
    candidates: list[tuple[str, float]] = field(default_factory=list)
    parts: list[IntArray] = field(default_factory=list)
    parts_compute: list[IntArray] = field(default_factory=list)
    defined: bool = True
    balance: Balance | None = None
    upper_how: str = ""
    lower_how: str = ""
    stage: str = "first result"
    wired: Wired | None = field(default=None, compare=False, repr=False)
    """With unwired compute nodes: the wired part's graph and result, which
    the refinement refines (see :func:`with_unwired`)."""


@dataclass
class Wired:
    """The compute fabric without its unwired compute nodes (see
    :func:`with_unwired`): the subgraph, its levels, the local ids it keeps
    and its own bisection result."""

    g: ComputeGraph
    h: Hierarchy
    keep: IntArray
    result: BisectionResult


@dataclass
class CutState:
    """Best bounds so far while the stages run.

    ``whole``: every cut of the graph is a whole number of Gb/s (its link
    capacities are whole, :func:`whole_capacities`), so a lower bound is
    rounded up to the next whole Gb/s (:func:`whole_lower`). A hose LP's bound
    carries a safety margin (:mod:`designer.analysis.hose`) that would keep
    it a hair under a cut it proves optimal; rounded, the bounds meet."""

    upper: float
    side: BoolArray
    upper_how: str
    lower: float
    lower_how: str
    tried: list[tuple[str, float]]
    whole: bool = False

    def __post_init__(self) -> None:
        if self.whole:
            self.lower, self.lower_how = _rounded(self.lower, self.lower_how)


def whole_capacities(g: ComputeGraph) -> bool:
    """Every link capacity of ``g`` is a whole number of Gb/s (so is every cut)."""
    c = g.c
    return bool(np.issubdtype(c.dtype, np.integer) or np.all(c == np.rint(c)))


def whole_lower(value: float) -> float:
    """A lower bound on a whole number, rounded up to the next whole number.
    ``value`` less the tolerance :data:`REL` is rounded, so floating-point
    error in a bound that is already whole never lifts it past the whole
    number it stands for."""
    return max(value, float(math.ceil(value - REL * max(value, 1.0))))


def _rounded(value: float, how: str) -> tuple[float, str]:
    up = whole_lower(value)
    if up == value:
        return value, how
    return (
        up,
        f"{how}, rounded up to a whole Gb/s (a cut sums whole link capacities)",
    )


def finish(
    g: ComputeGraph,
    st: CutState,
    nominal: FloatArray,
    bal: Balance,
    parts: list[IntArray],
    stage: str,
) -> BisectionResult:
    """The result of the current state (sides include pruned devices)."""
    side = st.side.copy()
    g.place_pruned(side)
    lower = min(st.lower, st.upper)
    exact_ = st.upper - lower <= REL * max(st.upper, 1.0)
    if exact_:
        lower = st.upper
    ep = g.endpoints
    if bal.homogeneous:
        full = min_side_injection(nominal, g.weight[ep], bal)
    else:
        in_a = side[ep]
        full = float(min(nominal[in_a].sum(), nominal[~in_a].sum()))
    method = f"upper bound: {st.upper_how}; lower bound: {st.lower_how}" + (
        "; bounds meet: exact" if exact_ else ""
    )
    return BisectionResult(
        st.upper,
        lower,
        full,
        exact_,
        method,
        side,
        side[g.u] != side[g.v],
        list(st.tried),
        parts=[g.dev[p] for p in parts],
        parts_compute=[g.dev[p[g.endpoint[p]]] for p in parts],
        balance=bal,
        upper_how=st.upper_how,
        lower_how=st.lower_how,
        stage=stage,
    )


def short(st: CutState) -> bool:
    return st.lower < st.upper * (1 - REL)


def lift_lower(st: CutState, value: float, how: str) -> bool:
    """Take a better lower bound; True when it raised the bound."""
    if st.whole:
        value, how = _rounded(value, how)
    if value > st.lower + REL * max(st.upper, 1.0):
        st.lower, st.lower_how = value, how
        return True
    return False


def take_upper(st: CutState, value: float, side: BoolArray, how: str) -> bool:
    """Take a better cut; True when it lowered the bound."""
    if value < st.upper - REL * max(st.upper, 1.0):
        st.upper, st.side, st.upper_how = value, side, how
        return True
    return False


__all__ = [
    "REL",
    "BisectionResult",
    "CutState",
    "Wired",
    "finish",
    "lift_lower",
    "short",
    "take_upper",
    "whole_capacities",
    "whole_lower",
]
