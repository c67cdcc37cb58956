"""Collectives on the design's own fabric: NCCL ring and tree on NVLink, NICs
and the switch tiers the traffic crosses.

The fabric is seen through :class:`FabricView` (built from the analysis by
:func:`designer.workload.fabric.fabric_view`): the NVLink domain and its rate,
the NIC rate per GPU, and for each switch tier the groups of NVLink domains it
joins (``Level``: the domains under one leaf group, one pod, ...) with the
uplink capacity that leaves such a group. A group of ranks is laid over the
domains in rank order (:class:`Group`: ``n`` ranks at a ``stride`` of GPUs),
as a scheduler that fills leaf groups in order places a job.

Time of a collective of ``S`` bytes (nccl-tests' "size") = latency + the
slowest of these transfers, each at its own bandwidth (NCCL pipelines them):

- NVLink: the intra-domain share, ``2(g-1)/g S`` for all-reduce, ``(g-1)/g S``
  for all-gather / reduce-scatter (hierarchical ring);
- NIC: the inter-domain share per GPU, ``2(m-1)/m S/g`` (all-reduce), ``(m-1)/m
  S/g`` (all-gather, reduce-scatter), ``(n-g)/n S`` (all-to-all);
- each tier: what leaves one group of the tier per GPU of that group. A ring
  leaves a group once per ring (its members sit next to each other), an
  all-to-all sends ``(m-q)/(m-1)`` of its inter-domain bytes out of it (``q``
  members' domains inside), so a rail-local ring barely notices a 2:1 leaf
  uplink and an all-to-all across leaves takes about twice as long;
- the bisection, for an all-to-all: half of it crosses the design's best cut.

Bus bandwidth as nccl-tests defines it (doc/PERFORMANCE.md): algbw = S / t;
busbw = algbw x 2(n-1)/n (all-reduce), x (n-1)/n (all-gather, reduce-scatter,
all-to-all).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from enum import StrEnum


class Op(StrEnum):
    """A collective."""

    ALL_REDUCE = "all-reduce"
    ALL_GATHER = "all-gather"
    REDUCE_SCATTER = "reduce-scatter"
    ALL_TO_ALL = "all-to-all"
    SEND_RECV = "send-recv"


NVLINK_EFFICIENCY = 0.75
"""Share of the NVLink rate per direction a collective reaches: nccl-tests
all_reduce_perf inside a DGX reaches ~230 GB/s bus bandwidth of A100's 300 and
~360 GB/s of H100's 450 (NVIDIA developer forums and nccl-tests issues) [S];
Calculon's system files use 0.6 [P]."""
NIC_EFFICIENCY = 0.9
"""Calculon's InfiniBand efficiency (workload.md §4) [P]."""
NVLINK_LATENCY_S = 1e-6
"""Per ring step inside a domain: Calculon's NVLink latency, 1 us [P]."""
NET_LATENCY_S = 2e-6
"""Per ring step across the scale-out fabric: Calculon's InfiniBand latency,
2 us [P]; NCCL's own tuning model adds a few us of base latency per call."""
BASE_LATENCY_S = 5e-6
"""Launch and protocol overhead per NCCL call [E: NCCL's tuning model quotes
base latencies of a few to ~10 us per algorithm and protocol]."""


@dataclass(frozen=True)
class Level:
    """One switch tier seen from the GPUs: the groups of NVLink domains it joins."""

    name: str
    domains: int
    """NVLink domains in the smallest such group."""
    gpus: int
    """GPUs in that group."""
    up_bytes_s: float
    """Capacity out of that group to the tiers above, bytes/s one direction
    (the smallest share per GPU over the tier's groups, times ``gpus``)."""
    ratio: float | None = None
    """The analysis' oversubscription of the tier (down/up), for the words."""

    @property
    def up_per_gpu(self) -> float:
        """Uplink bytes/s per GPU of a group when all its GPUs send."""
        return self.up_bytes_s / max(self.gpus, 1)


@dataclass(frozen=True)
class FabricView:
    """What the collectives need to know of one design."""

    gpus: int
    domain_gpus: int
    nvlink_bytes_s: float
    """Per GPU and direction (the catalog's bidirectional figure / 2)."""
    nic_bytes_s: float | None
    """Per GPU and direction (the slowest compute node's links / its GPUs)."""
    levels: tuple[Level, ...] = ()
    bisection_bytes_s: float | None = None
    rail_optimized: bool = False
    source: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)

    def non_blocking(self) -> FabricView:
        """The same GPUs on a non-blocking fabric: every tier's groups send at
        the full NIC rate and the bisection is full."""
        nic = self.nic_bytes_s or 0.0
        levels = tuple(
            lv
            if lv.up_bytes_s >= nic * lv.gpus
            else replace(lv, up_bytes_s=nic * lv.gpus, ratio=1.0)
            for lv in self.levels
        )
        full = nic * self.gpus / 2.0 if nic else None
        bis = self.bisection_bytes_s
        if full is not None and (bis is None or bis < full):
            bis = full
        return replace(self, levels=levels, bisection_bytes_s=bis)


@dataclass(frozen=True)
class Group:
    """``n`` ranks, consecutive ranks ``stride`` GPUs apart (Megatron's order:
    TP fastest, then CP, EP within DP, DP, PP)."""

    n: int
    stride: int = 1


@dataclass(frozen=True)
class Layout:
    """Where a group's ranks sit: ``g`` per domain over ``m`` domains that are
    ``step`` domains apart."""

    g: int
    m: int
    step: int


def layout(view: FabricView, group: Group) -> Layout:
    """Ranks per domain, domains, and the domain step of ``group``."""
    d = max(view.domain_gpus, 1)
    n, s = max(group.n, 1), max(group.stride, 1)
    if s >= d:
        return Layout(1, n, max(1, s // d))
    g = min(n, max(1, d // s))
    return Layout(g, math.ceil(n / g), 1)


@dataclass(frozen=True)
class Timing:
    """One collective's time on the design."""

    op: Op
    bytes: float
    gpus: int
    algorithm: str
    time_s: float
    algbw_bytes_s: float
    busbw_bytes_s: float
    bottleneck: str
    terms: dict[str, float]
    """Seconds of each transfer (nvlink, nic, a tier, bisection, latency)."""
    spans_domains: bool


def bus_factor(op: Op, n: int) -> float:
    """nccl-tests' busbw / algbw for ``op`` on ``n`` ranks."""
    if n <= 1:
        return 0.0
    if op is Op.ALL_REDUCE:
        return 2.0 * (n - 1) / n
    if op is Op.SEND_RECV:
        return 1.0
    return (n - 1) / n


def collective(
    view: FabricView,
    op: Op,
    size: float,
    group: Group,
    *,
    concurrent: bool = True,
    algorithm: str | None = None,
) -> Timing:
    """Time of ``op`` on ``size`` bytes over ``group`` on ``view``.

    ``concurrent``: every GPU of each tier group runs the same collective at
    the same time (training: all DP groups reduce at once), so a group's
    uplinks are shared by all its GPUs; otherwise only this group's ranks use
    them (``estimate --collective``). ``algorithm``: force one (``ring``,
    ``tree``); otherwise the faster, as NCCL's tuner picks.
    """
    n = max(group.n, 1)
    if n == 1 or size <= 0:
        return Timing(op, size, n, "none", 0.0, math.inf, math.inf, "none", {}, False)
    lay = layout(view, group)
    best: Timing | None = None
    for algo in (algorithm,) if algorithm else _algorithms(op, lay):
        t = _timing(view, op, size, n, lay, algo, concurrent)
        if best is None or t.time_s < best.time_s:
            best = t
    assert best is not None
    return best


def _algorithms(op: Op, lay: Layout) -> tuple[str, ...]:
    if op is Op.ALL_REDUCE and lay.m > 1:
        return ("ring", "tree")
    if op is Op.ALL_TO_ALL:
        return ("pairwise",)
    if op is Op.SEND_RECV:
        return ("p2p",)
    return ("ring",)


def _volumes(
    op: Op, size: float, n: int, lay: Layout, algorithm: str
) -> tuple[float, float]:
    """(NVLink bytes per GPU, NIC bytes per GPU)."""
    g, m = lay.g, lay.m
    if op is Op.ALL_REDUCE:
        intra = 2.0 * (g - 1) / g * size
        inter = (2.0 * (m - 1) / m if algorithm == "ring" else 2.0) * size / g
    elif op in (Op.ALL_GATHER, Op.REDUCE_SCATTER):
        intra = (g - 1) / g * size
        inter = (m - 1) / m * size / g
    elif op is Op.ALL_TO_ALL:
        # PXN: inter-domain bytes first cross NVLink to the GPU on the
        # destination's rail (NCCL >= 2.12 on rail-optimized fabrics)
        inter = (n - g) / n * size
        intra = (g - 1) / n * size + inter * (g - 1) / g
    else:  # send/recv to the next stage
        inter = size if m > 1 else 0.0
        intra = size if m == 1 else 0.0
    return (intra if g > 1 else 0.0), (inter if m > 1 else 0.0)


def _crossing(op: Op, lay: Layout, level: Level, algorithm: str) -> tuple[float, int]:
    """(share of a GPU's NIC bytes that leaves one group of ``level``, domains of
    the group's members inside one such group)."""
    m = lay.m
    q = min(m, max(1, level.domains // lay.step))
    if m <= q:
        return 0.0, q
    if op is Op.ALL_TO_ALL:
        return (m - q) / (m - 1), q
    if op is Op.SEND_RECV:
        return (1.0 if lay.step >= level.domains else 1.0 / q), q
    if algorithm == "tree":
        # a binary tree over the members leaves a group about log2(m/q) + 1 times
        return min(1.0, (math.log2(m / q) + 1.0) / q), q
    return 1.0 / q, q  # a ring leaves each group once


def _timing(
    view: FabricView,
    op: Op,
    size: float,
    n: int,
    lay: Layout,
    algorithm: str,
    concurrent: bool,
) -> Timing:
    intra, inter = _volumes(op, size, n, lay, algorithm)
    terms: dict[str, float] = {}
    if intra > 0:
        terms["nvlink"] = intra / (view.nvlink_bytes_s * NVLINK_EFFICIENCY)
    nic = view.nic_bytes_s
    if inter > 0:
        if not nic:
            terms["nic"] = math.inf
        else:
            terms["nic"] = inter / (nic * NIC_EFFICIENCY)
            for level in view.levels:
                share, q = _crossing(op, lay, level, algorithm)
                if share <= 0:
                    continue
                active = level.gpus if concurrent else q * lay.g
                per_gpu = level.up_bytes_s / max(active, 1)
                if per_gpu <= 0:
                    terms[level.name] = math.inf
                    continue
                terms[level.name] = inter * share / (per_gpu * NIC_EFFICIENCY)
            bis = view.bisection_bytes_s
            if op is Op.ALL_TO_ALL and bis:
                active = view.gpus if concurrent else n
                # half of each GPU's traffic crosses a cut between two halves
                crossing = min(active, view.gpus) / 2.0 * inter / 2.0
                terms["bisection"] = crossing / (bis * NIC_EFFICIENCY)
    bottleneck = max(terms, key=lambda k: terms[k]) if terms else "none"
    transfer = terms[bottleneck] if terms else 0.0
    latency = BASE_LATENCY_S + _latency(op, n, lay, algorithm)
    time_s = transfer + latency
    algbw = size / time_s if time_s > 0 else math.inf
    return Timing(
        op,
        size,
        n,
        algorithm,
        time_s,
        algbw,
        algbw * bus_factor(op, n),
        bottleneck,
        terms | {"latency": latency},
        lay.m > 1,
    )


def _latency(op: Op, n: int, lay: Layout, algorithm: str) -> float:
    hop = NET_LATENCY_S if lay.m > 1 else NVLINK_LATENCY_S
    if op is Op.SEND_RECV:
        return hop
    if algorithm == "tree":
        return (
            2.0 * math.ceil(math.log2(lay.m)) * NET_LATENCY_S
            + 2.0 * (lay.g - 1) * NVLINK_LATENCY_S
        )
    steps = 2 * (n - 1) if op is Op.ALL_REDUCE else n - 1
    return steps * hop
