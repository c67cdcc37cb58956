"""General leaf-spine(-core) fat tree for any compute model and switch model."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from designer.catalog import CatalogEntry, Category
from designer.core.model import Design, Purpose, Settings
from designer.generate.fabric import Extra, build_design
from designer.generate.parts import (
    CatalogLike,
    check_media,
    common_speed,
    entry,
    node_prefix,
    port_group,
    positive_int,
    resolve,
)
from designer.generate.plan import (
    GeneratorError,
    Plan,
    as_ratio,
    choose_plan,
    fmt_ratio,
    max_down,
)

MAX_ENDPOINT_PORTS = 1_000_000
"""Largest fabric the generators build (compute NIC ports)."""


def parse_ratios(oversubscription: Sequence[float]) -> tuple[Fraction, ...]:
    """Per-tier down:up ratios from the leaves up (at most leaf and spine)."""
    if isinstance(oversubscription, (int, float)):
        oversubscription = (oversubscription,)
    ratios = tuple(
        as_ratio(r, f"oversubscription[{i}]") for i, r in enumerate(oversubscription)
    )
    if len(ratios) > 2:
        raise GeneratorError(
            f"oversubscription has {len(ratios)} ratios; a fabric of at most three "
            "tiers has uplinks at two tiers (leaf, spine)"
        )
    return ratios or (Fraction(1),)


def default_su_size(item: CatalogEntry, ports: int, radix: int, leaf: Fraction) -> int:
    """32 nodes for 8-GPU systems, 8 racks for NVL72, else one leaf's worth."""
    gpu = item.ext.gpu
    if gpu is not None and gpu.count == 8:
        return 32
    if gpu is not None and gpu.nvlink_domain >= 72 and gpu.count >= 72:
        return 8
    return max(1, max_down(radix, leaf))


def split_sus(nodes: int, su_size: int) -> tuple[int, ...]:
    """Nodes per scalable unit: full SUs, then the remainder."""
    full, rest = divmod(nodes, su_size)
    return (su_size,) * full + ((rest,) if rest else ())


def _describe(plan: Plan) -> str:
    parts = [f"{plan.tiers}-tier"]
    if plan.planes > 1:
        parts.append(f"{plan.planes} rail planes")
    parts.append("rail-optimized" if plan.rail_optimized else "not rail-optimized")
    over = [fmt_ratio(r) for r in plan.ratios[: plan.tiers - 1] if r != 1]
    parts.append("oversubscribed " + "/".join(over) if over else "non-blocking")
    return ", ".join(parts)


def fabric_design(
    *,
    compute: CatalogEntry,
    switch: CatalogEntry,
    su_nodes: tuple[int, ...],
    su_size: int,
    rail_optimized: bool,
    ratios: tuple[Fraction, ...],
    tiers: int | None,
    name: str,
    purpose: Purpose = Purpose.TRAINING,
    extras: tuple[Extra, ...] = (),
    scheduler: str | None = None,
    monitoring: tuple[str, ...] = (),
    notes: tuple[str, ...] = (),
    radix: int | None = None,
    speed_gbps: int | None = None,
    compute_ports: int | None = None,
    side: float = 0.0,
) -> tuple[Design, Plan]:
    """Plan and build a fat tree of ``compute`` nodes on ``switch`` switches."""
    nic = port_group(compute, "compute")
    sw = port_group(switch, "ports")
    check_media(nic, compute.slug, sw, switch.slug)
    speed = speed_gbps or common_speed(nic, compute.slug, sw, switch.slug)
    k = sw.ports_at(speed, radix)  # breakout: 64 x 800G SN5600 = 128 x 400G
    ports = compute_ports or nic.count
    if k < 2:
        raise GeneratorError(f"{switch.slug} has {k} ports; a fabric needs at least 2")
    if sum(su_nodes) * ports > MAX_ENDPOINT_PORTS:
        raise GeneratorError(
            f"{sum(su_nodes) * ports:,} endpoint ports is more than the generator "
            f"builds ({MAX_ENDPOINT_PORTS:,})"
        )
    extra_leaves: dict[int, set[int]] = {}
    for e in extras:
        extra_leaves.setdefault(e.su, set()).add(e.leaf)
    plan = choose_plan(
        su_nodes=su_nodes,
        su_size=su_size,
        ports=ports,
        radix=k,
        ratios=ratios,
        rail_optimized=rail_optimized,
        tiers=tiers,
        extra_leaves=extra_leaves,
    )
    gpus = sum(su_nodes) * compute.gpus
    lines = [
        f"Generated from first principles: {sum(su_nodes):,} x {compute.model} "
        f"({gpus:,} GPUs), {ports} x {speed}G ports each, on {k}-port "
        f"{switch.model} switches; {_describe(plan)}.",
        *plan.notes,
        *notes,
    ]
    settings = Settings(
        name=name,
        purpose=purpose,
        scheduler=scheduler,
        monitoring=list(monitoring),
        notes="\n".join(lines),
    )
    design = build_design(
        plan,
        compute_id=compute.slug,
        compute_model=compute.model,
        switch_id=switch.slug,
        speed_gbps=speed,
        settings=settings,
        prefix=node_prefix(compute.slug),
        extras=extras,
        switch_ports=radix,
        compute_ports=compute_ports,
        side=side,
    )
    return design, plan


def fat_tree(
    compute: str,
    nodes: int,
    switch: str,
    *,
    su_size: int | None = None,
    rail_optimized: bool = True,
    oversubscription: Sequence[float] = (1.0,),
    tiers: int | None = None,
    catalog: CatalogLike | None = None,
) -> Design:
    """A leaf-spine(-core) fat tree of ``nodes`` ``compute`` nodes on ``switch``.

    ``oversubscription`` gives the down:up ratio per tier from the leaves up
    (``(2.0,)`` = 2:1 at the leaves); ``tiers`` None picks the fewest tiers that
    fit (then splits a rail-optimized fabric into rail planes if three tiers of
    this switch cannot hold it).
    """
    cat = resolve(catalog)
    c = entry(cat, compute, Category.COMPUTE, "compute model")
    s = entry(cat, switch, Category.SWITCH, "switch")
    n = positive_int(nodes, "nodes")
    if tiers is not None and (
        isinstance(tiers, bool) or not isinstance(tiers, int) or tiers not in (1, 2, 3)
    ):
        raise GeneratorError(f"tiers must be 1, 2, 3 or None (auto), got {tiers!r}")
    ratios = parse_ratios(oversubscription)
    nic = port_group(c, "compute")
    sw = port_group(s, "ports")
    radix = sw.ports_at(common_speed(nic, c.slug, sw, s.slug))
    if su_size is None:
        # a design smaller than one default SU is sized for what it has
        size = min(n, default_su_size(c, nic.count, radix, ratios[0]))
    else:
        size = positive_int(su_size, "su_size")
    gpus = n * c.gpus
    design, _ = fabric_design(
        compute=c,
        switch=s,
        su_nodes=split_sus(n, size),
        su_size=size,
        rail_optimized=bool(rail_optimized),
        ratios=ratios,
        tiers=tiers,
        name=f"Fat tree: {n:,} x {c.model} ({gpus:,} GPUs) on {s.model}",
    )
    return design
