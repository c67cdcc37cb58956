"""What the findings read: the index, the graph, the metrics and the bisection."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.analysis.bounds import BisectionResult
from designer.analysis.ends import EndTable
from designer.analysis.graph import ComputeGraph
from designer.analysis.index import DesignIndex, IntArray
from designer.analysis.metrics import Tiers
from designer.analysis.report import Cost, TierClass
from designer.core.model import Design

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
