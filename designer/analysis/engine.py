"""The analysis pipeline: index -> graph -> bisection, metrics, findings -> Report."""

from __future__ import annotations

from collections import Counter
from math import ceil

import numpy as np

from designer.analysis.bisection import bisect
from designer.analysis.cost import classify, cost_build_up
from designer.analysis.findings import Context, all_findings
from designer.analysis.graph import compute_graph
from designer.analysis.index import (
    FABRIC_CODE,
    FABRICS,
    KIND_COMPUTE,
    KIND_SWITCH,
    DesignIndex,
    build_index,
)
from designer.analysis.metrics import (
    TIER_NAMES,
    cable_classes,
    end_table,
    port_budget,
    switch_fabric_names,
    switch_tiers,
    transceivers,
)
from designer.analysis.report import Bisection, Report, TierOversubscription
from designer.catalog.loader import Catalog
from designer.core.model import Design, Fabric


def analyze(design: Design, catalog: Catalog | None = None) -> Report:
    """Analyse a design against the catalog (the shipped one when None)."""
    return analyze_index(build_index(design, catalog), design)


def _radix_and_ports(
    index: DesignIndex,
    ends: object,
    budget: tuple[np.ndarray, np.ndarray, np.ndarray],
    rank: np.ndarray,
) -> tuple[int, int]:
    """(modal effective radix of compute switches, endpoint ports on the fabric)."""
    from designer.analysis.metrics import EndTable

    assert isinstance(ends, EndTable)
    cf = ends.fabric == FABRIC_CODE[Fabric.COMPUTE]
    at_node = cf & (index.kind[ends.dev] == KIND_COMPUTE)
    endpoint_ports = int(ends.cables[at_node].sum())
    at_sw = cf & (rank[ends.dev] > 0) & ends.known
    if not at_sw.any():
        return 0, endpoint_ports
    keys, _, avail = budget
    n_ports = max(len(index.port_names), 1)
    pos = np.searchsorted(keys, ends.dev[at_sw] * n_ports + ends.port[at_sw])
    split = ends.cables[at_sw] / ends.usage[at_sw]
    radix = np.rint(avail[pos] * split).astype(np.int64)
    counts = Counter(dict(zip(*np.unique(radix, return_counts=True), strict=True)))
    return int(counts.most_common(1)[0][0]), endpoint_ports


def _clos_floor(n_ports: int, k: int) -> tuple[int | None, int]:
    """Switch floor (2t-1)N/k of a non-blocking folded Clos and its tier count."""
    if n_ports <= 0 or k < 2:
        return None, 0
    t = 1
    while (k if t == 1 else 2 * (k // 2) ** t) < n_ports and t < 8:
        t += 1
    return ceil((2 * t - 1) * n_ports / k), t


def _nominal_injection(index: DesignIndex) -> np.ndarray:
    """Compute ports x the speed they run at (native when not cabled), per device."""
    cf = index.fabric == FABRIC_CODE[Fabric.COMPUTE]
    speed = index.compute_native.copy()
    run = np.zeros(index.n_devices, dtype=np.int64)
    np.maximum.at(run, index.a[cf], index.speed[cf])
    np.maximum.at(run, index.b[cf], index.speed[cf])
    speed = np.where(run > 0, run, speed)
    return (index.compute_ports * speed).astype(np.float64)


def analyze_index(index: DesignIndex, design: Design) -> Report:
    """Analyse from a prebuilt :class:`DesignIndex` (keep it between edits)."""
    g = compute_graph(index)
    nominal = _nominal_injection(index)[g.dev][g.endpoint]
    bis = bisect(g, nominal, index.endpoint_order)
    ends = end_table(index)
    budget = port_budget(index, ends)
    tiers = switch_tiers(index)

    sw = np.flatnonzero(index.kind == KIND_SWITCH)
    names = switch_fabric_names(index, tiers)
    switches = dict.fromkeys(TIER_NAMES.values(), 0)
    switches.update(Counter(names))
    cables_by_fabric = np.bincount(index.fabric, weights=index.cables, minlength=4)
    cables = {f.value: int(cables_by_fabric[i]) for i, f in enumerate(FABRICS)}
    modules = transceivers(index, ends)

    keys, used, avail = budget
    n_ports = max(len(index.port_names), 1)
    ports_code = index.port_names.index("ports") if "ports" in index.port_names else -1
    tier_rows: dict[str, TierOversubscription] = {}
    ratios: dict[str, float | None] = {}
    per_switch: dict[str, float | None] = {}
    ranks = tiers.rank
    top = int(ranks.max()) if len(ranks) else 0
    kdev, kport = np.divmod(keys, n_ports)
    for r, name in TIER_NAMES.items():
        members = sw[ranks[sw] == r]
        if not len(members):
            continue
        down = float(tiers.down[members].sum())
        up = float(tiers.up[members].sum())
        ratio = down / up if up > 0 and r < top else None
        with np.errstate(divide="ignore", invalid="ignore"):
            each = tiers.down[members] / tiers.up[members]
        finite = each[np.isfinite(each)]
        in_tier = np.isin(kdev, members) & (kport == ports_code)
        tier_rows[name] = TierOversubscription(
            switches=len(members),
            down_gbps=down,
            up_gbps=up,
            ratio=ratio,
            worst_ratio=float(finite.max())
            if len(finite) and ratio is not None
            else None,
            ports_used=int(np.ceil(used[in_tier] - 1e-9).sum()),
            ports_total=int(avail[in_tier].sum())
            + _unused_ports(index, members, kdev[in_tier]),
        )
        ratios[name] = ratio
    comp_sw = sw[ranks[sw] > 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        each = tiers.down[comp_sw] / tiers.up[comp_sw]
    ids = index.device_ids
    for i, val in zip(comp_sw.tolist(), each.tolist(), strict=True):
        per_switch[ids[i]] = None if not np.isfinite(val) else float(val)

    comp = index.kind == KIND_COMPUTE
    gpus = int(index.gpus[comp].sum())
    nvl = index.nvlink_domain[comp]
    domains = int(np.ceil(index.gpus[comp] / np.maximum(nvl, 1)).sum())
    power_kw = float(index.power_w.sum()) / 1000.0
    by_rack: dict[str, float] = {}
    if (index.rack >= 0).any():
        placed = index.rack >= 0
        kw = np.bincount(index.rack[placed], weights=index.power_w[placed]) / 1000.0
        by_rack = {name: float(kw[i]) for i, name in enumerate(index.rack_names)}

    cost = cost_build_up(design, index, modules, cable_classes(index), gpus)
    tier = classify(gpus, design.settings.purpose)
    radix, n_ep_ports = _radix_and_ports(index, ends, budget, ranks)
    floor, floor_t = _clos_floor(n_ep_ports, radix)

    bis_out = _bisection(index, g, bis)
    ctx = Context(
        design=design,
        index=index,
        graph=g,
        ends=ends,
        budget=budget,
        tiers=tiers,
        bisection=bis,
        tier_ratios=ratios,
        gpus=gpus,
        cost=cost,
        tier=tier,
        switch_floor=floor,
        floor_tiers=floor_t,
        radix=radix,
        endpoint_ports=n_ep_ports,
    )
    return Report(
        gpus=gpus,
        compute_nodes=int(comp.sum()),
        nvlink_domains=domains,
        nvlink_domain_size=int(nvl.max()) if len(nvl) else 0,
        switches=switches,
        cables=cables,
        transceivers=int(sum(modules.values())),
        transceivers_by_type=modules,
        bisection=bis_out,
        oversubscription=ratios,
        tiers=tier_rows,
        switch_oversubscription=per_switch,
        cost_usd=cost,
        power_kw=power_kw,
        power_kw_by_rack=by_rack,
        rack_units=float(index.u_height.sum()),
        racks=len(index.rack_names),
        tier=tier,
        findings=all_findings(ctx),
        switch_floor=floor,
    )


def _unused_ports(
    index: DesignIndex, members: np.ndarray, with_links: np.ndarray
) -> int:
    """Native 'ports' of tier members that have no link at all."""
    idle = np.setdiff1d(members, with_links)
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


def _bisection(index: DesignIndex, g: object, bis: object) -> Bisection:
    from designer.analysis.bisection import BisectionResult
    from designer.analysis.graph import ComputeGraph

    assert isinstance(g, ComputeGraph) and isinstance(bis, BisectionResult)
    ids = np.asarray(index.device_ids, dtype=object)
    side_a: list[str] = []
    side_b: list[str] = []
    cut: list[str] = []
    if bis.side is not None and bis.crossing is not None:
        side_a = ids[g.dev[bis.side]].tolist()
        side_b = ids[g.dev[~bis.side]].tolist()
        links = np.asarray(index.link_ids, dtype=object)
        cut = links[g.link[bis.crossing]].tolist()
    ratio = bis.upper / bis.full if bis.full > 0 else 1.0
    return Bisection(
        gbps=bis.upper,
        ratio=ratio,
        exact=bis.exact,
        lower_gbps=bis.lower,
        upper_gbps=bis.upper,
        full_gbps=bis.full,
        method=bis.method,
        side_a=side_a,
        side_b=side_b,
        cut_links=cut,
    )
