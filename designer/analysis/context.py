"""What the findings read: the index, the graph, the metrics and the bisection."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from designer.analysis.bounds import BisectionResult
from designer.analysis.ends import EndTable
from designer.analysis.graph import ComputeGraph
from designer.analysis.index import DesignIndex, IntArray
from designer.analysis.metrics import Tiers
from designer.analysis.report import Cost, Finding, Severity, TierClass
from designer.core.model import Design, Purpose

MAX_ITEMS = 50
"""Most ids a finding lists in ``items`` (a click selects them)."""


@dataclass
class Context:
    """Everything the checks read."""

    design: Design
    index: DesignIndex
    graph: ComputeGraph
    ends: EndTable
    budget: tuple[IntArray, np.ndarray, np.ndarray]
    tiers: Tiers
    bisection: BisectionResult
    tier_ratios: dict[str, float | None]
    gpus: int
    cost: Cost
    tier: TierClass
    switch_floor: int | None
    floor_tiers: int
    radix: int
    endpoint_ports: int
    over_radix: list[tuple[int, int, int]]
    joined: bool = False
    """Every compute node is joined to every other through switches (the
    fabric's levels reach one block), so the fabric is in one part."""
    derived: Callable[[str, tuple[object, ...], Callable[[], Any]], Any] | None = None
    """``derived(name, inputs, make)``: ``make()``, or what it gave for the
    very same ``inputs`` in the last state analysed (arrays an index shares
    with the last state's: :meth:`designer.analysis.reuse.Reuse.derived`);
    None: made afresh."""


def derive(
    ctx: Context, name: str, inputs: tuple[object, ...], make: Callable[[], Any]
) -> Any:
    """``make()``, kept by :attr:`Context.derived` for the same ``inputs``."""
    return make() if ctx.derived is None else ctx.derived(name, inputs, make)


def item_ids(ctx: Context, devs: IntArray | list[int]) -> list[str]:
    """The ids of ``devs`` (index rows) a finding lists, at most :data:`MAX_ITEMS`."""
    arr = np.asarray(devs, dtype=np.int64)[:MAX_ITEMS]
    return [ctx.index.device_ids[i] for i in arr.tolist()]


def first_listed(n: int) -> str:
    """What a finding says when it lists only the first of ``n`` items."""
    return f" (first {MAX_ITEMS} listed)" if n > MAX_ITEMS else ""


def finding(
    code: str, sev: Severity, msg: str, items: list[str] | None = None
) -> Finding:
    """A finding (no items: an empty list)."""
    return Finding(code=code, severity=sev, message=msg, items=items or [])


def is_training(ctx: Context) -> bool:
    """The design is for training (or mixed use)."""
    return ctx.design.settings.purpose in (Purpose.TRAINING, Purpose.MIXED)
