"""The analysis pipeline: index -> graph -> bisection, metrics, findings -> Report."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from math import ceil
from typing import TYPE_CHECKING, Any

import numpy as np

from designer.analysis.bisection import bisect
from designer.analysis.bounds import BisectionResult
from designer.analysis.context import Context
from designer.analysis.cost import classify, cost_build_up
from designer.analysis.ends import EndTable, ends_of
from designer.analysis.findings import Kept, all_findings
from designer.analysis.graph import ComputeGraph, compute_graph, switch_planes
from designer.analysis.index import (
    KIND_COMPUTE,
    DesignIndex,
    build_index,
)
from designer.analysis.levels import Hierarchy, hierarchy
from designer.analysis.metrics import (
    TIER_NAMES,
    Tiers,
    cable_class_counts,
    port_budget,
    switch_counts,
    tier_ranks,
    transceivers,
)
from designer.analysis.physical_checks import physical_report
from designer.analysis.refine import refine_bisection
from designer.analysis.report import Bisection, Report, TierOversubscription
from designer.analysis.sums import link_sums
from designer.catalog.loader import Catalog
from designer.core.model import FABRIC_CODE, FABRICS, Design, Fabric

if TYPE_CHECKING:
    from designer.analysis.ledger import BoundLedger
    from designer.analysis.reuse import Reuse


def analyze(
    design: Design,
    catalog: Catalog | None = None,
    *,
    refine_seconds: float | None = None,
) -> Report:
    """Analyse a design against the catalog (the shipped one when None)."""
    return analyze_index(
        build_index(design, catalog), design, refine_seconds=refine_seconds
    )


@dataclass
class Planes:
    """Compute-fabric planes (switch components) against the folded-Clos limits."""

    radix: int
    endpoint_ports: int
    floor: int | None
    floor_tiers: int
    over_radix: list[tuple[int, int, int]]  # (ports, tiers, limit) per bad plane


def _clos_tiers(n_ports: int, k: int) -> int:
    """Fewest tiers of radix-k switches that serve n_ports non-blocking."""
    t = 1
    while _clos_limit(t, k) < n_ports and t < 8:
        t += 1
    return t


def _clos_limit(t: int, k: int) -> int:
    """Endpoint ports t tiers of radix-k switches serve non-blocking: 2(k/2)^t."""
    return k if t == 1 else 2 * (k // 2) ** t


def _planes(
    index: DesignIndex,
    g: ComputeGraph,
    rank: np.ndarray,
    budget: tuple[np.ndarray, ...],
    plane: np.ndarray,
) -> Planes:
    """Per plane (component of the switch-only compute graph): ports, tiers, floor."""
    keys, _, avail = budget
    n_ports = max(len(index.port_names), 1)
    cables = index.cables[g.link]
    node_edge = g.endpoint[g.u] ^ g.endpoint[g.v]
    endpoint_ports = int(cables[node_edge].sum())
    sw_local = g.switch & (rank[g.dev] > 0)
    if not sw_local.any() or "ports" not in index.port_names:
        return Planes(0, endpoint_ports, None, 0, [])
    # modal effective radix: native 'ports' count x breakout at the modal speed
    pcode = index.port_names.index("ports")
    sw_dev = g.dev[sw_local]
    pos = np.searchsorted(keys, sw_dev * n_ports + pcode)
    pos = np.minimum(pos, len(keys) - 1)
    native = np.where(keys[pos] == sw_dev * n_ports + pcode, avail[pos], 0)
    native = native[native > 0].astype(np.int64)
    speeds = index.speed[g.link[node_edge]]
    speed = int(np.bincount(speeds).argmax()) if len(speeds) else 0
    cat = int(np.bincount(index.dev_catalog[sw_dev]).argmax())
    entry = index.entries[cat]
    iface = entry.interface("ports") if entry else None
    split = max(iface.split(speed), 1) if iface is not None else 1
    radix = int(np.bincount(native).argmax()) * split if len(native) else 0
    if radix < 2:
        return Planes(radix, endpoint_ports, None, 0, [])
    lab = np.where(sw_local, plane, 0)
    sw_end = np.where(g.endpoint[g.u], g.v, g.u)[node_edge]
    ok = sw_local[sw_end]
    plane_ports = np.bincount(
        lab[sw_end[ok]], weights=cables[node_edge][ok], minlength=g.n
    )
    tiers = np.zeros(g.n, dtype=np.int64)
    np.maximum.at(tiers, lab[sw_local], rank[g.dev[sw_local]])
    floor, worst_t, bad = 0, 0, []
    for p in np.flatnonzero(plane_ports > 0).tolist():
        n_p, t_p = int(plane_ports[p]), int(tiers[p])
        t_min = _clos_tiers(n_p, radix)
        floor += ceil((2 * t_min - 1) * n_p / radix)
        worst_t = max(worst_t, t_min)
        if t_p and n_p > _clos_limit(t_p, radix):
            bad.append((n_p, t_p, _clos_limit(t_p, radix)))
    return Planes(radix, endpoint_ports, floor or None, worst_t, bad)


def _nominal_injection(index: DesignIndex) -> np.ndarray:
    """Compute ports x the speed they run at (native when not cabled), per device."""
    cf = index.fabric == FABRIC_CODE[Fabric.COMPUTE]
    speed = index.compute_native.copy()
    run = np.zeros(index.n_devices, dtype=np.int64)
    np.maximum.at(run, index.a[cf], index.speed[cf])
    np.maximum.at(run, index.b[cf], index.speed[cf])
    speed = np.where(run > 0, run, speed)
    return (index.compute_ports * speed).astype(np.float64)


def _tier_rows(
    index: DesignIndex, tiers: Tiers, budget: tuple[np.ndarray, ...]
) -> tuple[dict[str, TierOversubscription], dict[str, float | None]]:
    """Down/up capacity, ratios and port use per tier of the compute fabric."""
    keys, used, avail = budget
    n_ports = max(len(index.port_names), 1)
    pcode = index.port_names.index("ports") if "ports" in index.port_names else -1
    ranks = tiers.rank
    top = int(ranks.max()) if len(ranks) else 0
    kdev, kport = np.divmod(keys, n_ports)
    is_ports = kport == pcode
    rows: dict[str, TierOversubscription] = {}
    ratios: dict[str, float | None] = {}
    for r, name in TIER_NAMES.items():
        members = np.flatnonzero(ranks == r)
        if not len(members):
            continue
        down = float(tiers.down[members].sum())
        up = float(tiers.up[members].sum())
        ratio = down / up if up > 0 and r < top else None
        ups = tiers.up[members]
        each = tiers.down[members][ups > 0] / ups[ups > 0]
        in_tier = is_ports & (ranks[kdev] == r)
        rows[name] = TierOversubscription(
            switches=len(members),
            down_gbps=down,
            up_gbps=up,
            ratio=ratio,
            worst_ratio=float(each.max()) if len(each) and ratio is not None else None,
            ports_used=int(np.ceil(used[in_tier] - 1e-9).sum()),
            ports_total=int(avail[in_tier].sum())
            + _unused_ports(index, members, kdev[in_tier]),
        )
        ratios[name] = ratio
    return rows, ratios


def analyze_index(
    index: DesignIndex,
    design: Design,
    *,
    known_lower: float | None = None,
    refine_seconds: float | None = None,
) -> Report:
    """Analyse from a prebuilt :class:`DesignIndex`.

    Of ``design`` only the settings are read (the index holds the rest), so a
    worker may get a design without its links. ``known_lower``: a bisection lower
    bound proven for this design (see :mod:`designer.analysis.ledger`).
    ``refine_seconds``: refine the bisection bounds for up to this long
    (:func:`designer.analysis.refine.refine_bisection`) before reporting.
    """
    deadline = None
    if refine_seconds is not None:
        deadline = time.perf_counter() + refine_seconds
    stages = analyze_stages(index, design, known_lower=known_lower, deadline=deadline)
    report = next(stages)
    if deadline is not None:
        for report in stages:  # noqa: B007 - the last one is the answer
            pass
    return report


@dataclass
class _Figures:
    """What the report takes from the index alone (not from the settings)."""

    g: ComputeGraph
    h: Hierarchy
    nominal: np.ndarray
    names: np.ndarray
    bis: BisectionResult
    ends: EndTable
    budget: tuple[np.ndarray, np.ndarray, np.ndarray]
    tiers: Tiers
    cables: dict[str, int]
    modules: dict[str, int]
    tier_rows: dict[str, TierOversubscription]
    ratios: dict[str, float | None]
    per_switch: dict[str, float | None]
    gpus: int
    compute_nodes: int
    domains: int
    domain_size: int
    by_rack: dict[str, float]
    planes: Planes
    cable_counts: dict[str, int]
    switches: dict[str, int]
    physical: Any
    findings: Kept = field(default_factory=dict)
    """What the checks of the index alone found (:func:`all_findings`)."""
    block: Bisection | None = None
    """The report's bisection block of ``bis`` (its sides and cut as ids)."""


def _fabric(index: DesignIndex, reuse: Reuse | None) -> tuple[ComputeGraph, Hierarchy]:
    """The compute graph and its levels, from an earlier state when the same."""
    if reuse is None:
        g = compute_graph(index)
        h = hierarchy(g)
        h.plane = switch_planes(g)
        return g, h
    top = reuse.topology(index)
    g = reuse.graph(index, top)
    return g, reuse.levels(index, top, g)


def _figures(
    index: DesignIndex,
    known_lower: float | None,
    reuse: Reuse | None,
    ledger: BoundLedger | None = None,
) -> _Figures:
    """Everything of the report that depends on the index alone (and on the
    cut ``ledger`` carries from an earlier state: see :func:`analyze_stages`)."""
    g, h = _fabric(index, reuse)
    if reuse is None:
        injection = _nominal_injection(index)
    else:  # the same arrays as the last state's (a cable count): the same figure
        inputs: tuple[object, ...] = (index.fabric, index.a, index.b, index.speed)
        inputs += (index.compute_native, index.compute_ports)
        injection = reuse.derived(
            "nominal injection", inputs, lambda: _nominal_injection(index)
        )
    nominal = injection[g.dev][g.endpoint]
    names = index.device_ids_arr[g.dev]
    known_side = None
    if ledger is not None:
        known_side = ledger.side_for(names, g.endpoint, g.weight)
    bis = bisect(
        g,
        h,
        nominal,
        index.endpoint_order,
        known_lower,
        names=names,
        known_side=known_side,
    )
    if ledger is not None and bis.side is not None:
        ledger.record_cut(names, g.endpoint, g.weight, bis.side)
    ends = ends_of(index)
    dev_level = np.full(index.n_devices, -1, dtype=np.int64)
    dev_level[g.dev] = h.level
    rank = tier_ranks(index, dev_level, g)
    sums = (
        link_sums(index, ends, rank) if reuse is None else reuse.sums(index, ends, rank)
    )
    budget = port_budget(index, ends, (sums.seen, sums.used))
    tiers = Tiers(rank=rank, down=sums.down, up=sums.up)
    cables_by_fabric = np.bincount(index.fabric, weights=index.cables, minlength=4)
    modules = transceivers(index, ends, sums.lanes)
    tier_rows, ratios = _tier_rows(index, tiers, budget)
    comp_sw = np.flatnonzero(tiers.rank > 0)
    up = tiers.up[comp_sw]
    each = np.where(up > 0, tiers.down[comp_sw] / np.where(up > 0, up, 1), np.nan)
    per_switch = dict(
        zip(
            index.device_ids_arr[comp_sw].tolist(),
            [None if v != v else v for v in each.tolist()],
            strict=True,
        )
    )
    comp = index.kind == KIND_COMPUTE
    nvl = index.nvlink_domain[comp]
    by_rack: dict[str, float] = {}
    if (index.rack >= 0).any():
        placed = index.rack >= 0
        kw = np.bincount(index.rack[placed], weights=index.power_w[placed]) / 1000.0
        by_rack = {name: float(kw[i]) for i, name in enumerate(index.rack_names)}
    return _Figures(
        g=g,
        h=h,
        nominal=nominal,
        names=names,
        bis=bis,
        ends=ends,
        budget=budget,
        tiers=tiers,
        cables={f.value: int(cables_by_fabric[i]) for i, f in enumerate(FABRICS)},
        modules=modules,
        tier_rows=tier_rows,
        ratios=ratios,
        per_switch=per_switch,
        gpus=int(index.gpus[comp].sum()),
        compute_nodes=int(comp.sum()),
        domains=int(np.ceil(index.gpus[comp] / np.maximum(nvl, 1)).sum()),
        domain_size=int(nvl.max()) if len(nvl) else 0,
        by_rack=by_rack,
        planes=_planes(
            index,
            g,
            tiers.rank,
            budget,
            h.plane if h.plane is not None else switch_planes(g),
        ),
        cable_counts=cable_class_counts(index),
        switches=switch_counts(index, tiers),
        physical=physical_report(index, modules),
    )


def analyze_stages(
    index: DesignIndex,
    design: Design,
    *,
    known_lower: float | None = None,
    deadline: float | None = None,
    should_stop: Callable[[], bool] | None = None,
    reuse: Reuse | None = None,
    ledger: BoundLedger | None = None,
) -> Iterator[Report]:
    """The report at once, then a new one each time refining the bisection
    moves a bound, until the bounds meet, ``deadline`` (a
    ``time.perf_counter()`` value) passes or ``should_stop()`` says so.

    Everything but the bisection and the findings is computed once; a later
    report differs from the first in those two only. ``reuse``: what an earlier
    state of the design shares with this one (:mod:`designer.analysis.reuse`).
    ``ledger``: the first result starts from the best cut it recorded for an
    earlier state of the same nodes, and each best cut is recorded in it
    (:mod:`designer.analysis.ledger`; its lower bounds come as ``known_lower``).
    """
    fig = reuse.facts(index) if reuse is not None else None
    if fig is None or not fig.bis.exact:
        fig = _figures(index, known_lower, reuse, ledger)
        if reuse is not None:
            reuse.keep_facts(index, fig)
    g, h, nominal, names, bis = fig.g, fig.h, fig.nominal, fig.names, fig.bis
    if fig.block is None:
        fig.block = _bisection(index, g, bis)
    gpus = fig.gpus
    cost = cost_build_up(design, index, fig.modules, fig.cable_counts, gpus)
    tier = classify(gpus, design.settings.purpose)
    planes = fig.planes
    ctx = Context(
        design=design,
        index=index,
        graph=g,
        ends=fig.ends,
        budget=fig.budget,
        tiers=fig.tiers,
        bisection=bis,
        tier_ratios=fig.ratios,
        gpus=gpus,
        cost=cost,
        tier=tier,
        switch_floor=planes.floor,
        floor_tiers=planes.floor_tiers,
        radix=planes.radix,
        endpoint_ports=planes.endpoint_ports,
        over_radix=planes.over_radix,
        joined=h.top is not None,
        derived=reuse.derived if reuse is not None else None,
    )
    report = Report.model_construct(
        gpus=gpus,
        compute_nodes=fig.compute_nodes,
        nvlink_domains=fig.domains,
        nvlink_domain_size=fig.domain_size,
        switches=fig.switches,
        cables=fig.cables,
        transceivers=int(sum(fig.modules.values())),
        transceivers_by_type=fig.modules,
        bisection=fig.block,
        oversubscription=fig.ratios,
        tiers=fig.tier_rows,
        switch_oversubscription=fig.per_switch,
        cost_usd=cost,
        power_kw=float(index.power_w.sum()) / 1000.0,
        power_kw_by_rack=fig.by_rack,
        rack_units=float(index.u_height.sum()),
        racks=len(index.rack_names),
        tier=tier,
        findings=all_findings(ctx, fig.findings),
        switch_floor=planes.floor,
        physical=fig.physical,
    )
    yield report
    if bis.exact or (deadline is None and should_stop is None):
        return
    for better in refine_bisection(
        g, h, nominal, bis, deadline=deadline, should_stop=should_stop, names=names
    ):
        if ledger is not None and better.side is not None:
            ledger.record_cut(names, g.endpoint, g.weight, better.side)
        ctx = replace(ctx, bisection=better)
        report = report.model_copy(
            update={
                "bisection": _bisection(index, g, better),
                "findings": all_findings(ctx, fig.findings),
            }
        )
        yield report


def _unused_ports(
    index: DesignIndex, members: np.ndarray, with_links: np.ndarray
) -> int:
    """Native 'ports' of tier members that have no link at all."""
    linked = np.zeros(index.n_devices, dtype=np.bool_)
    linked[with_links] = True
    idle = members[~linked[members]]  # (members ascending, as a set difference)
    total = 0
    for i in idle.tolist():
        entry = index.entries[index.dev_catalog[i]]
        iface = entry.interface("ports") if entry else None
        if iface is None:
            continue
        ports = index.device_ports[i]
        total += (
            ports["ports"]
            if entry and entry.configurable and ports and "ports" in ports
            else iface.count
        )
    return total


def _bisection(index: DesignIndex, g: ComputeGraph, bis: BisectionResult) -> Bisection:
    """The report's bisection block, with the cut as device and link ids."""
    side_a: list[str] = []
    side_b: list[str] = []
    cut: list[str] = []
    if bis.side is not None and bis.crossing is not None:
        side_a = index.device_ids_arr[g.dev[bis.side]].tolist()
        side_b = index.device_ids_arr[g.dev[~bis.side]].tolist()
        cut = index.link_ids_arr[g.link[bis.crossing]].tolist()
    return Bisection.model_construct(
        gbps=bis.upper,
        ratio=bis.upper / bis.full if bis.defined and bis.full > 0 else None,
        exact=bis.exact,
        lower_gbps=bis.lower,
        upper_gbps=bis.upper,
        full_gbps=bis.full,
        method=bis.method,
        side_a=side_a,
        side_b=side_b,
        cut_links=cut,
    )
