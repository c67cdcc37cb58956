"""Capex build-up (bill of materials lines) and the scale-tier classifier.

The build-up is hardware capex: devices at catalog price (or
``settings.price_overrides``), plus cables and pluggable optics from the optics
table. The tier's typical cost is an all-in rule of thumb (~$100k per GPU,
including facility, power and support; product-brief "Scale tiers"), so the
build-up usually comes out at roughly half of it (hardware.md §3.1).
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from designer.analysis.index import DesignIndex
from designer.analysis.report import Cost, CostLine, TierClass
from designer.catalog.optics import CableClass, Transceiver
from designer.catalog.schema import Category
from designer.core.model import Design, Purpose

_CATEGORY = {
    Category.COMPUTE: "compute",
    Category.SWITCH: "fabric",
    Category.STORAGE: "storage",
    Category.MANAGEMENT: "management",
}
CATEGORIES = ("compute", "fabric", "cables_optics", "storage", "management")
TIER_NOTE = (
    "The typical range is an all-in rule of thumb (about $100k per GPU including "
    "facility, power and support); the computed cost is hardware capex only, "
    "which for component prices usually comes out at roughly half of it."
)


def _money(x: float) -> float:
    return round(float(x), 2)


def cost_build_up(
    design: Design,
    index: DesignIndex,
    modules: dict[str, int],
    cables: dict[str, int],
    gpus: int,
) -> Cost:
    """Cost lines by category; line extensions add up to the total exactly.

    ``modules``: pluggable modules by id; ``cables``: cables by cable class id
    (:func:`designer.analysis.metrics.cable_class_counts`).
    """
    overrides = design.settings.price_overrides
    lines: list[CostLine] = []
    counts = np.bincount(index.dev_catalog, minlength=len(index.catalog_ids))
    for c, cid in enumerate(index.catalog_ids):
        entry = index.entries[c]
        qty = int(counts[c])
        if entry is None or qty == 0:
            continue
        price = entry.ext.price
        if cid in overrides:
            unit, estimate, source = overrides[cid], False, "price override (design)"
        else:
            unit, estimate = price.usd, price.estimate
            source = f"{price.source} ({price.date})"
        lines.append(
            CostLine(
                category=_CATEGORY[entry.category],
                catalog_id=cid,
                description=f"{entry.manufacturer} {entry.model}",
                quantity=qty,
                unit_usd=_money(unit),
                extended_usd=_money(qty * _money(unit)),
                estimate=estimate,
                source=source,
            )
        )
    optics = index.catalog.optics
    classes = {c.id: c for c in optics.cables}
    parts: list[tuple[str, int, Transceiver | CableClass]] = [
        (mid, qty, optics.transceiver(mid)) for mid, qty in sorted(modules.items())
    ]
    parts += [(cid, qty, classes[cid]) for cid, qty in sorted(cables.items())]
    for part_id, qty, part in parts:
        unit = overrides.get(part_id, part.price.usd)
        lines.append(
            CostLine(
                category="cables_optics",
                catalog_id=part_id,
                description=part.description,
                quantity=qty,
                unit_usd=_money(unit),
                extended_usd=_money(qty * _money(unit)),
                estimate=part.price.estimate and part_id not in overrides,
                source=f"{part.price.source} ({part.price.date})",
            )
        )
    per_cat = dict.fromkeys(CATEGORIES, 0.0)
    total = 0.0
    for line in lines:
        per_cat[line.category] += line.extended_usd
        total += line.extended_usd
    return Cost(
        total=total,
        lines=lines,
        per_gpu=(total / gpus) if gpus else None,
        **per_cat,
    )


# -- scale tiers (product-brief "Scale tiers") --------------------------------------

DEV = ("Development cluster", 8, 32, (500e3, 3e6))
MID = ("Mid-scale training cluster", 64, 256, (5e6, 25e6))
LARGE = ("Large-scale training cluster", 512, 4096, (50e6, 300e6))
HYPER = ("Hyperscale AI cluster", 4096, None, (500e6, None))
INFERENCE = ("Inference cluster", 8, 512, (1e6, 50e6))
_SIZE_TIERS = (DEV, MID, LARGE, HYPER)


def _tier(
    spec: tuple[str, int, int | None, tuple[float, float | None]], reason: str
) -> TierClass:
    name, _, _, cost = spec
    return TierClass(
        name=name, reason=reason, typical_cost_usd=cost, typical_cost_note=TIER_NOTE
    )


def _rng(spec: tuple[str, int, int | None, tuple[float, float | None]]) -> str:
    _, lo, hi, _ = spec
    return f"{lo:,}-{hi:,}" if hi else f"{lo:,}+"


def classify(gpus: int, purpose: Purpose) -> TierClass:
    """Scale tier and reason: inference by purpose, otherwise by GPU count."""
    if purpose is Purpose.INFERENCE:
        extra = f"; {gpus:,} GPUs is past the tier's typical 512" if gpus > 512 else ""
        return _tier(
            INFERENCE,
            f"purpose is inference (classified by purpose, "
            f"not size; typical 8-512 GPUs){extra}",
        )
    if gpus < DEV[1]:
        return _tier(
            DEV,
            f"{gpus} GPUs is below the smallest tier (8-32 GPUs); "
            "nearest is Development",
        )
    if gpus == 4096:
        return _tier(
            LARGE,
            "4,096 GPUs is in both Large-scale (512-4,096) and "
            "Hyperscale (4,096+); classified Large-scale, the top of its "
            "range",
        )
    for spec in _SIZE_TIERS:
        _, lo, hi, _ = spec
        if gpus >= lo and (hi is None or gpus <= hi):
            return _tier(spec, f"{gpus:,} GPUs is in the {_rng(spec)} GPU range")
    for low, high in pairwise(_SIZE_TIERS):
        if low[2] is not None and low[2] < gpus < high[1]:
            near = low if gpus / low[2] <= high[1] / gpus else high
            return _tier(
                near,
                f"{gpus:,} GPUs falls in the gap between {low[0]} ({_rng(low)}) and "
                f"{high[0]} ({_rng(high)}); nearest on a log scale is {near[0]}",
            )
    return _tier(HYPER, f"{gpus:,} GPUs")  # pragma: no cover - ranges are exhaustive
