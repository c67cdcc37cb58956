"""What the estimate reads from a design: the one module that uses the analysis.

Everything else in :mod:`designer.workload` sees only :class:`DesignFacts` and
:class:`NMinusOne`. The analysis is used through its public entry points
(:func:`~designer.analysis.build_index`, :func:`~designer.analysis.analyze_index`,
the :class:`~designer.analysis.Report`), the compute-fabric graph
(:func:`~designer.analysis.graph.compute_graph`, ``bfs_levels``) and colour
refinement (:func:`~designer.analysis.flow.refine`), so re-pointing the estimate
at a changed analysis means changing this file only.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field, replace

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from designer.analysis import Report, analyze_index, build_index
from designer.analysis.flow import refine
from designer.analysis.graph import bfs_levels, compute_graph
from designer.analysis.index import (
    KIND_COMPUTE,
    KIND_STORAGE,
    KIND_SWITCH,
    DesignIndex,
)
from designer.analysis.metrics import TIER_NAMES
from designer.analysis.report import Finding, Severity
from designer.catalog.loader import Catalog, default_catalog
from designer.core.model import FABRIC_CODE, LINK_COLUMNS, Design, Fabric, LinkTable
from designer.workload.collectives import FabricView, Level
from designer.workload.failures import (
    FabricGraph,
    FailureResult,
    IntArray,
    worst_failures,
)

__all__ = [
    "DesignFacts",
    "Finding",
    "GpuPeak",
    "NMinusOne",
    "Severity",
    "fabric_view",
    "read_design",
]

_COMPUTE = FABRIC_CODE[Fabric.COMPUTE]
_STORAGE = FABRIC_CODE[Fabric.STORAGE]
WORK_PER_ANALYSIS = 4_000_000
"""N-1 budget: full analyses allowed = this / compute links (8 to 256)."""


def tier_name(rank: int) -> str:
    """leaf, spine, core; deeper tiers by number."""
    return TIER_NAMES.get(rank, f"tier {rank}")


@dataclass
class Storage:
    """Aggregate checkpoint write bandwidth of the design's storage."""

    write_gbytes_s: float | None
    why_unknown: str | None
    source: str
    estimate: bool
    appliances: int


@dataclass
class DesignFacts:
    """The design's own figures the estimate is computed from."""

    report: Report
    gpus: int
    compute_nodes: int
    gpu_model: str | None
    gpu_models: dict[str, int]
    gpu_memory_gb: float | None
    nvlink_domain: int
    nic_gbps_per_gpu: float | None
    nic_gbps_per_gpu_median: float | None
    gpus_without_fabric: int
    nodes_per_leaf: int | None
    tier_ratios: dict[str, float | None]
    bisection_ratio: float | None
    """None: fewer than two compute nodes (no bisection)."""
    bisection_exact: bool
    power_kw: float
    capex_usd: float
    capex_estimate: bool
    storage: Storage
    _index: DesignIndex = field(repr=False)
    _design: Design = field(repr=False)
    _rank: IntArray = field(repr=False)
    nvlink_gbytes_s: float | None = None
    """NVLink per GPU, GB/s bidirectional (catalog; the slowest wired node)."""
    gpu_peak: GpuPeak | None = None
    """Dense peak per precision of the design's GPU model (catalog)."""
    _view: FabricView | None = field(repr=False, default=None)

    def fabric(self) -> FabricView:
        """The design's fabric as the collectives see it (built once)."""
        if self._view is None:
            self._view = fabric_view(self)
        return self._view

    def n_minus_1(self, *, budget: int | None = None) -> NMinusOne:
        """The worst single switch failure of the compute fabric (see
        :mod:`designer.workload.failures`)."""
        return _n_minus_1(self, budget)


@dataclass
class TierFigure:
    """Worst failure among one tier's switches."""

    worst_device: str | None
    ratio: float
    ratio_lower: float
    exact: bool
    switches: int


@dataclass
class NMinusOne:
    """N-1 figures, ratios against the live design's non-blocking bisection."""

    switches: int
    worst_device: str | None
    ratio_live: float | None
    ratio_after: float | None
    ratio_after_lower: float | None
    gbps_after: float | None
    exact: bool
    by_tier: dict[str, TierFigure]
    worst_leaf: str | None
    gpus_losing_rail: int
    gpus_losing_fabric_path: int
    evaluated: int
    method: str
    analysed: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class GpuPeak:
    """Dense peak TFLOP/s per precision of one GPU model (None: not published)."""

    model: str
    bf16: float | None
    fp8: float | None
    fp4: float | None
    source: str
    estimate: bool


def _peak(index: DesignIndex, comp: IntArray, model: str | None) -> GpuPeak | None:
    """The catalog's dense peaks of the design's (most numerous) GPU model."""
    for i in comp.tolist():
        entry = index.entries[index.dev_catalog[i]]
        if entry is None or entry.ext.gpu is None or entry.ext.gpu.model != model:
            continue
        peak = entry.ext.gpu.peak_tflops
        if peak is None:
            return None
        return GpuPeak(
            entry.ext.gpu.model,
            peak.bf16,
            peak.fp8,
            peak.fp4,
            f"catalog {entry.id} x-designer.gpu.peak_tflops: {peak.source}",
            "gpu.peak_tflops" in entry.estimated_fields,
        )
    return None


def read_design(
    design: Design,
    catalog: Catalog | None = None,
    *,
    index: DesignIndex | None = None,
    report: Report | None = None,
) -> DesignFacts:
    """Collect what the estimate needs from ``design``.

    ``index`` and ``report``: the analysis the validator already made of this
    very state (the editor's worker); without them the design is analysed here.
    """
    if index is None or report is None:
        catalog = catalog or default_catalog()
        index = build_index(design, catalog)
        report = analyze_index(index, design)
    comp = np.flatnonzero(index.kind == KIND_COMPUTE)
    models: Counter[str] = Counter()
    memory: dict[str, float] = {}
    for i in comp.tolist():
        entry = index.entries[index.dev_catalog[i]]
        if entry is None or entry.ext.gpu is None:
            continue
        models[entry.ext.gpu.model] += int(index.gpus[i])
        memory[entry.ext.gpu.model] = entry.ext.gpu.memory_gb
    model = models.most_common(1)[0][0] if models else None
    cf = index.fabric == _COMPUTE
    inj = np.bincount(index.a[cf], weights=index.cap[cf], minlength=index.n_devices)
    inj += np.bincount(index.b[cf], weights=index.cap[cf], minlength=index.n_devices)
    has_gpu = comp[index.gpus[comp] > 0]
    wired = has_gpu[inj[has_gpu] > 0]
    per_gpu = (inj[wired] / index.gpus[wired]).tolist()
    lines = report.cost_usd.lines
    rank = _ranks(index)
    nvlink = [
        entry.ext.gpu.nvlink_gbytes_s
        for entry in (index.entries[index.dev_catalog[i]] for i in wired.tolist())
        if entry is not None and entry.ext.gpu is not None
    ]
    peak = _peak(index, comp, model)
    return DesignFacts(
        report=report,
        gpus=report.gpus,
        compute_nodes=report.compute_nodes,
        gpu_model=model,
        gpu_models=dict(models),
        gpu_memory_gb=memory.get(model) if model else None,
        nvlink_domain=max(report.nvlink_domain_size, 1),
        nic_gbps_per_gpu=min(per_gpu) if per_gpu else None,
        nic_gbps_per_gpu_median=statistics.median(per_gpu) if per_gpu else None,
        gpus_without_fabric=int(index.gpus[has_gpu].sum() - index.gpus[wired].sum())
        if report.compute_nodes > 1
        else 0,
        nodes_per_leaf=_nodes_per_leaf(index, rank),
        tier_ratios=dict(report.oversubscription),
        bisection_ratio=report.bisection.ratio,
        bisection_exact=report.bisection.exact,
        power_kw=report.power_kw,
        capex_usd=report.cost_usd.total,
        capex_estimate=any(line.estimate for line in lines),
        storage=_storage(index),
        nvlink_gbytes_s=min(nvlink) if nvlink else None,
        gpu_peak=peak,
        _index=index,
        _design=design,
        _rank=rank,
    )


def _ranks(index: DesignIndex) -> IntArray:
    """Switch tier per device as the analysis assigns it: declared, else the
    BFS level from the compute nodes (0: not a compute-fabric switch)."""
    g = compute_graph(index)
    routing = g.endpoint | g.switch
    keep = routing[g.u] & routing[g.v]
    level = bfs_levels(g.n, g.endpoint, g.u[keep], g.v[keep])
    level[~routing] = -1
    dev_level = np.full(index.n_devices, -1, dtype=np.int64)
    dev_level[g.dev] = level
    rank = np.where(index.declared_rank > 0, index.declared_rank, dev_level)
    return np.where((index.kind == KIND_SWITCH) & (rank > 0), rank, 0).astype(np.int64)


def _nodes_per_leaf(index: DesignIndex, rank: IntArray) -> int | None:
    """Fewest compute nodes one leaf reaches directly (None: no leaf)."""
    cf = index.fabric == _COMPUTE
    a, b = index.a[cf], index.b[cf]
    comp = index.kind == KIND_COMPUTE
    n = index.n_devices
    pairs = [
        x[(rank[x] == 1) & comp[y]] * n + y[(rank[x] == 1) & comp[y]]
        for x, y in ((a, b), (b, a))
    ]
    unique = np.unique(np.concatenate(pairs))
    if not len(unique):
        return None
    counts = np.bincount(unique // n)
    return int(counts[counts > 0].min())


def _storage(index: DesignIndex) -> Storage:
    """Write bandwidth of the cabled storage appliances, bounded by their links
    and, on a separate storage fabric, by the compute nodes' storage links."""
    stor = np.flatnonzero(index.kind == KIND_STORAGE)
    if not len(stor):
        return Storage(
            None,
            "the design has no storage appliances; add storage to estimate the "
            "checkpoint write time",
            "",
            False,
            0,
        )
    link_cap = np.bincount(index.a, weights=index.cap, minlength=index.n_devices)
    link_cap += np.bincount(index.b, weights=index.cap, minlength=index.n_devices)
    cabled = stor[link_cap[stor] > 0]
    if not len(cabled):
        return Storage(
            None,
            f"the {len(stor)} storage appliances are not cabled to any fabric",
            "",
            False,
            len(stor),
        )
    write = 0.0
    estimate = False
    notes: list[str] = []
    for i in cabled.tolist():
        entry = index.entries[index.dev_catalog[i]]
        assert entry is not None and entry.ext.storage is not None
        write += entry.ext.storage.write_gbytes_s
        if "storage.write_gbytes_s" in entry.estimated_fields and entry.id not in notes:
            estimate = True
            notes.append(entry.id)
    links = float(link_cap[cabled].sum()) / 8.0
    bounds = [(write, "appliance write rates (catalog)"), (links, "appliance links")]
    sf = index.fabric == _STORAGE
    comp = index.kind == KIND_COMPUTE
    node_side = float(
        index.cap[sf & comp[index.a]].sum() + index.cap[sf & comp[index.b]].sum()
    )
    if node_side > 0:
        bounds.append((node_side / 8.0, "compute nodes' storage-fabric links"))
    value, binding = min(bounds)
    source = (
        f"{len(cabled)} cabled appliances: {write:,.1f} GB/s write (catalog), "
        f"{links:,.1f} GB/s of appliance links"
        + (
            f", {node_side / 8.0:,.1f} GB/s of compute storage links"
            if node_side
            else ""
        )
        + f"; the {binding} bound it"
        + (
            f"; catalog write rates are estimates ({', '.join(notes)}: x-designer."
            "estimates)"
            if estimate
            else ""
        )
    )
    return Storage(value, None, source, estimate, len(cabled))


def _seed(index: DesignIndex) -> IntArray:
    """What an automorphism of the fabric must preserve, one code per device."""
    cf = index.fabric == _COMPUTE
    speed = np.zeros(index.n_devices, dtype=np.int64)
    np.maximum.at(speed, index.a[cf], index.speed[cf])
    np.maximum.at(speed, index.b[cf], index.speed[cf])
    keys = [
        (
            int(index.dev_catalog[i]),
            int(index.kind[i]),
            int(index.declared_rank[i]),
            int(index.gpus[i]),
            int(index.compute_ports[i]),
            int(speed[i]),
            repr(sorted((index.device_ports[i] or {}).items())),
        )
        for i in range(index.n_devices)
    ]
    code: dict[tuple[int, int, int, int, int, int, str], int] = {}
    return np.fromiter(
        (code.setdefault(k, len(code)) for k in keys), dtype=np.int64, count=len(keys)
    )


def _n_minus_1(facts: DesignFacts, budget: int | None) -> NMinusOne:
    index, design, report = facts._index, facts._design, facts.report
    bis = report.bisection
    rank = facts._rank
    switches = np.flatnonzero(rank > 0)
    cf = np.flatnonzero(index.fabric == _COMPUTE)
    ratio_live = bis.ratio
    if report.compute_nodes < 2 or bis.full_gbps <= 0:
        return NMinusOne(
            len(switches),
            None,
            ratio_live,
            None,
            None,
            None,
            True,
            {},
            None,
            0,
            0,
            0,
            "fewer than two compute nodes: no bisection to lose",
        )
    crossing = set(bis.cut_links)
    cut = np.fromiter(
        (lid in crossing for lid in index.link_ids), dtype=np.bool_, count=index.n_links
    )
    g = FabricGraph(
        n=index.n_devices,
        u=index.a[cf],
        v=index.b[cf],
        cap=index.cap[cf].astype(np.float64),
        cables=index.cables[cf],
        compute=index.kind == KIND_COMPUTE,
        gpus=index.gpus.astype(np.int64),
        ports=index.compute_ports.astype(np.int64),
        rank=rank,
        seed=_seed(index),
        live_lower=bis.lower_gbps,
        live_upper=bis.upper_gbps,
        cut=cut[cf],
    )
    # the compute-fabric rows as object arrays: a failure's table is one mask away
    columns = {
        name: np.asarray(getattr(design.links, name), dtype=object)[cf]
        for name in LINK_COLUMNS
        if name not in ("a_pins", "b_pins")  # the bisection reads no ports
    }
    ends_a, ends_b = g.u, g.v

    def evaluate(s: int) -> tuple[float, float]:
        keep = (ends_a != s) & (ends_b != s)
        part = Design.model_construct(
            schema_version=design.schema_version,
            settings=design.settings,
            groups=design.groups,
            devices=design.devices,
            links=LinkTable.from_columns(
                {name: col[keep].tolist() for name, col in columns.items()}
            ),
        )
        b = analyze_index(build_index(part, index.catalog), part).bisection
        return b.lower_gbps, b.upper_gbps

    def classes(seed: IntArray) -> IntArray:
        c = g.cap.astype(np.int64)
        lab = refine(g.n, g.u, g.v, c, seed, max_classes=max(g.n, 1))
        return seed if lab is None else lab

    if budget is None:
        budget = int(np.clip(WORK_PER_ANALYSIS // max(len(cf), 1), 8, 256))
    res = worst_failures(g, switches, evaluate, classes, budget)
    return _figures(facts, res, switches, rank, budget)


def _figures(
    facts: DesignFacts,
    res: FailureResult,
    switches: IntArray,
    rank: IntArray,
    budget: int,
) -> NMinusOne:
    index = facts._index
    bis = facts.report.bisection
    full = bis.full_gbps
    ids = index.device_ids

    def ratio(x: float) -> float:
        return x / full

    by_tier: dict[str, TierFigure] = {}
    for r, w in res.by_rank.items():
        by_tier[tier_name(r)] = TierFigure(
            ids[w.device] if w.device is not None else None,
            ratio(w.upper),
            ratio(w.lower),
            w.exact,
            w.switches,
        )
    leaves = switches[rank[switches] == 1]
    worst_leaf: str | None = None
    lose_rail = lose_path = 0
    if len(leaves):
        # most GPUs cut off, then most rails lost, then the lowest bisection
        key = np.lexsort(
            (res.upper[leaves], -res.rail_gpus[leaves], -res.cut_off_gpus[leaves])
        )
        leaf = int(leaves[key[0]])
        worst_leaf = ids[leaf]
        lose_rail = int(res.rail_gpus[leaf])
        lose_path = int(res.cut_off_gpus[leaf])
    o = res.overall
    how = (
        f"{len(switches):,} compute switches: sound bounds for each (live lower "
        "bound minus half the switch's capacity; live cut without its links), "
        f"{len(res.evaluated):,} analysed in full"
        + (f" (budget {budget})" if res.budget_hit else "")
        + f", {res.twins_proven:,} proven interchangeable with another (twins)"
        + ("; exact" if o.exact else "; the worst failure is bounded, not exact")
    )
    return NMinusOne(
        switches=len(switches),
        worst_device=ids[o.device] if o.device is not None else None,
        ratio_live=bis.ratio,
        ratio_after=ratio(o.upper) if o.device is not None else bis.ratio,
        ratio_after_lower=ratio(o.lower) if o.device is not None else bis.ratio,
        gbps_after=o.upper if o.device is not None else bis.gbps,
        exact=o.exact,
        by_tier=by_tier,
        worst_leaf=worst_leaf,
        gpus_losing_rail=lose_rail,
        gpus_losing_fabric_path=lose_path,
        evaluated=len(res.evaluated),
        method=how,
        analysed=[ids[i] for i in res.evaluated],
    )


def fabric_view(facts: DesignFacts) -> FabricView:
    """The design's fabric as the collectives see it: NVLink domain and rate,
    NIC rate per GPU, and per switch tier the groups of domains it joins with
    the capacity that leaves each (from the compute-fabric links and the
    analysis' tier of each switch)."""
    index, rank = facts._index, facts._rank
    d = max(facts.nvlink_domain, 1)
    nic = (facts.nic_gbps_per_gpu or 0.0) * 1e9 / 8.0 or None
    nvlink = (facts.nvlink_gbytes_s or 0.0) * 1e9 / 2.0
    bis = facts.report.bisection
    view = FabricView(
        gpus=facts.gpus,
        domain_gpus=d,
        nvlink_bytes_s=nvlink if nvlink > 0 else 1.0,
        nic_bytes_s=nic,
        bisection_bytes_s=bis.gbps * 1e9 / 8.0 if bis.gbps > 0 else None,
    )
    if index is None or nic is None:
        return view
    cf = index.fabric == _COMPUTE
    a, b = index.a[cf], index.b[cf]
    cap = index.cap[cf].astype(np.float64) * 1e9 / 8.0
    n = index.n_devices
    comp = (index.kind == KIND_COMPUTE) & (index.gpus > 0)
    touched = np.zeros(n, dtype=np.bool_)
    touched[a] = True
    touched[b] = True
    wired = np.flatnonzero(comp & touched)
    if not len(wired):
        return view
    gpus = index.gpus.astype(np.float64)
    levels: list[Level] = []
    top = int(rank.max()) if len(rank) else 0
    for t in range(1, top + 1):
        member = comp | ((rank > 0) & (rank <= t))
        keep = member[a] & member[b]
        graph = csr_matrix((np.ones(int(keep.sum())), (a[keep], b[keep])), shape=(n, n))
        _, label = connected_components(graph, directed=False)
        low_a = (rank[a] > 0) & (rank[a] <= t) & (rank[b] > t)
        low_b = (rank[b] > 0) & (rank[b] <= t) & (rank[a] > t)
        lows = np.concatenate([a[low_a], b[low_b]])
        up = np.bincount(
            label[lows],
            weights=np.concatenate([cap[low_a], cap[low_b]]),
            minlength=n,
        )
        gp = np.bincount(label[wired], weights=gpus[wired], minlength=n)
        groups = np.flatnonzero(gp > 0)
        if len(groups) <= 1 and up[groups].sum() <= 0:
            break  # this tier joins every GPU: nothing above it to cross
        share = up[groups] / gp[groups]
        worst = int(np.argmin(share))
        small = int(groups[np.argmin(gp[groups])])
        name = tier_name(t)
        levels.append(
            Level(
                name=name,
                domains=max(1, int(gp[small]) // d),
                gpus=int(gp[small]),
                up_bytes_s=float(share[worst]) * float(gp[small]),
                ratio=facts.tier_ratios.get(name),
            )
        )
    leaves = rank == 1
    fan = np.zeros(n, dtype=np.int64)
    for x, y in ((a, b), (b, a)):
        sel = comp[x] & leaves[y]
        pairs = np.unique(x[sel] * n + y[sel])
        np.add.at(fan, pairs // n, 1)
    rail = bool(len(wired)) and float(np.median(fan[wired])) >= 2
    return replace(
        view,
        levels=tuple(levels),
        rail_optimized=rail,
        source=(
            f"{len(wired):,} wired compute nodes; NVLink domain {d} GPUs; "
            + ", ".join(
                f"{lv.name}: groups of {lv.domains:,} domains, "
                f"{lv.up_per_gpu * 8 / 1e9:,.0f} Gb/s up per GPU"
                for lv in levels
            )
        ),
    )
