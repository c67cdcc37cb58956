"""The SLO search: the best replica shape (TP, PP, EP, batch) for a request mix
under TTFT / TPOT limits, the replicas a design holds, optional disaggregated
prefill and decode pools, and the GPUs a requests/s target needs.

Shapes: TP a power of two dividing the heads (up to :data:`MAX_TP`), PP a
power of two up to :data:`MAX_PP` and the layers, EP 1 or TP for MoE. For each
shape the largest micro-batch meeting the limits is found by bisection (TPOT
and TTFT grow with the batch, throughput never falls until the KV cache is
full: tests/workload/test_serving_properties.py); the pool split of a
disaggregated design is solved in closed form and its integer neighbours
checked. :func:`naive_search` times every batch and every split instead
(bench/bench_serving.py compares the two).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from designer.workload.collectives import NIC_EFFICIENCY, NVLINK_EFFICIENCY
from designer.workload.serving import Load, Point, ReplicaModel, Shape
from designer.workload.serving_facts import MAX_PP, MAX_TP


@dataclass
class ShapeResult:
    """One replica shape: the KV cache's batch limit and its best point."""

    shape: Shape
    max_batch: int
    best: Point | None
    why: str | None
    replicas: int
    first: Point | None = None
    """Its batch-1 point (the latency floor), when it fits."""

    @property
    def tokens_per_s(self) -> float:
        """Output tokens per second of the design with this shape."""
        return self.best.tokens_per_s * self.replicas if self.best else 0.0


@dataclass
class Disaggregated:
    """Separate prefill and decode pools with the KV cache sent between them."""

    prefill: Shape
    prefill_replicas: int
    decode: Point
    decode_replicas: int
    kv_transfer_s: float
    ttft_s: float
    tpot_s: float
    requests_per_s: float
    tokens_per_s: float
    gpus: int
    link: str


@dataclass
class ServingPlan:
    """The search's answer."""

    best: ShapeResult | None
    shapes: list[ShapeResult]
    evaluated: int
    disaggregated: Disaggregated | None = None
    notes: list[str] = field(default_factory=list)


def replicas(shape: Shape, gpus: int, domain: int) -> int:
    """Replicas of ``shape`` on ``gpus`` GPUs in NVLink domains of ``domain``:
    a replica inside a domain never straddles two; a larger one takes whole
    domains where it can."""
    g = shape.gpus
    if g <= 0 or gpus < g:
        return 0
    d = max(domain, 1)
    if g <= d:
        whole, rest = divmod(gpus, d)
        return whole * (d // g) + rest // g
    return gpus // g


def shapes(model: ReplicaModel, gpus: int, *, every: bool = False) -> list[Shape]:
    """Replica shapes to try (``every``: every TP and PP that divides, not just
    powers of two; the naive sweep)."""
    s = model.spec
    heads = s.heads or 1
    layers = s.layers or 1
    if every:
        tps = [t for t in range(1, min(MAX_TP, heads) + 1) if heads % t == 0]
        pps = list(range(1, min(MAX_PP, layers) + 1))
    else:
        tps = [2**i for i in range(7) if 2**i <= MAX_TP and heads % 2**i == 0]
        pps = [2**i for i in range(5) if 2**i <= min(MAX_PP, layers)]
    out: list[Shape] = []
    for tp in tps:
        for pp in pps:
            if tp * pp > gpus:
                continue
            out.append(Shape(tp, pp, 1))
            if s.is_moe and tp > 1 and s.experts and s.experts % tp == 0:
                out.append(Shape(tp, pp, tp))
    return out


def _ok(p: Point, load: Load) -> bool:
    if load.tpot_s is not None and p.tpot_s > load.tpot_s:
        return False
    return load.ttft_s is None or p.ttft_s <= load.ttft_s


def _why(p: Point, load: Load) -> str:
    if load.tpot_s is not None and p.tpot_s > load.tpot_s:
        return (
            f"TPOT {p.tpot_s * 1000:,.1f} ms at batch 1, over the "
            f"{load.tpot_s * 1000:,.0f} ms limit"
        )
    assert load.ttft_s is not None
    return (
        f"TTFT {p.ttft_s * 1000:,.0f} ms at batch 1, over the "
        f"{load.ttft_s * 1000:,.0f} ms limit"
    )


def best_point(
    model: ReplicaModel, shape: Shape, gpus: int, domain: int, *, naive: bool = False
) -> tuple[ShapeResult, int]:
    """The largest batch of ``shape`` meeting the load's limits (bisection, or
    every batch when ``naive``); returns it and the points evaluated."""
    load = model.load
    cap = model.max_batch(shape)
    n = replicas(shape, gpus, domain)
    if cap < 1:
        mem = model.memory(shape)
        why = (
            f"{mem.weights / 1e9:,.1f} GB of weights per GPU leave no room for "
            f"the KV cache of one sequence in {mem.capacity / 1e9:,.0f} GB"
        )
        return ShapeResult(shape, 0, None, why, n), 0
    pf = model.prefill(shape)
    first = model.point(shape, 1, prefill=pf)
    if not _ok(first, load):
        return ShapeResult(shape, cap, None, _why(first, load), n, first), 1
    if naive:
        best, count = first, 1
        for b in range(2, cap + 1):
            p = model.point(shape, b, prefill=pf)
            count += 1
            if _ok(p, load) and p.tokens_per_s >= best.tokens_per_s:
                best = p
        return ShapeResult(shape, cap, best, None, n, first), count
    lo, hi, count = 1, cap, 1
    best = first
    while lo < hi:
        mid = (lo + hi + 1) // 2
        p = model.point(shape, mid, prefill=pf)
        count += 1
        if _ok(p, load):
            lo, best = mid, p
        else:
            hi = mid - 1
    return ShapeResult(shape, cap, best, None, n, first), count


def _rank(r: ShapeResult) -> tuple[float, float, int]:
    # the design's tokens/s first, then per GPU of a replica, then fewer GPUs
    per_gpu = r.best.tokens_per_s / r.shape.gpus if r.best else 0.0
    return (round(r.tokens_per_s, 6), round(per_gpu, 6), -r.shape.gpus)


def search(
    model: ReplicaModel, gpus: int, domain: int, *, naive: bool = False
) -> ServingPlan:
    """Best colocated replica shape on ``gpus`` GPUs (``naive``: every TP/PP
    that divides and every batch)."""
    results: list[ShapeResult] = []
    evaluated = 0
    for shape in shapes(model, gpus, every=naive):
        r, n = best_point(model, shape, gpus, domain, naive=naive)
        results.append(r)
        evaluated += n
    ok = [r for r in results if r.best is not None and r.replicas > 0]
    best = max(ok, key=_rank) if ok else None
    return ServingPlan(best, results, evaluated)


def kv_link(
    model: ReplicaModel, prefill: Shape, decode: Shape, domain: int
) -> tuple[float, str]:
    """Bytes/s a prefill replica sends its KV cache to a decode replica at: over
    NVLink when both fit one domain, else over the fabric's NICs."""
    view = model.view
    lanes = min(prefill.gpus, decode.gpus)
    if prefill.gpus + decode.gpus <= domain and view.nvlink_bytes_s > 0:
        return lanes * view.nvlink_bytes_s * NVLINK_EFFICIENCY, "NVLink"
    nic = view.nic_bytes_s or 0.0
    return lanes * nic * NIC_EFFICIENCY, "fabric"


def split(
    gpus: int, gp: int, rp: float, gd: int, rd: float, *, naive: bool = False
) -> tuple[int, int, float, int]:
    """Prefill and decode replicas (``gp``, ``gd`` GPUs each, ``rp``, ``rd``
    requests/s each) on ``gpus`` GPUs that serve the most requests/s; returns
    (prefill replicas, decode replicas, requests/s, splits tried)."""
    if rp <= 0 or rd <= 0:
        return 0, 0, 0.0, 0

    def value(np_: int) -> tuple[float, int]:
        nd = (gpus - np_ * gp) // gd
        return min(np_ * rp, nd * rd), nd

    if naive:
        best = (0.0, 0, 0)
        tried = 0
        for np_ in range(1, gpus // gp + 1):
            v, nd = value(np_)
            tried += 1
            if v > best[0]:
                best = (v, np_, nd)
        return best[1], best[2], best[0], tried
    # balance n_p r_p = n_d r_d with n_p g_p + n_d g_d = G, then the neighbours
    real = gpus * rd / (gp * rd + gd * rp)
    best = (0.0, 0, 0)
    tried = 0
    for np_ in {
        math.floor(real) - 1,
        math.floor(real),
        math.ceil(real),
        math.ceil(real) + 1,
    }:
        if np_ < 1 or np_ * gp > gpus:
            continue
        v, nd = value(np_)
        tried += 1
        if v > best[0]:
            best = (v, np_, nd)
    return best[1], best[2], best[0], tried


def disaggregate(
    model: ReplicaModel,
    gpus: int,
    domain: int,
    plan: ServingPlan,
    *,
    naive: bool = False,
) -> tuple[Disaggregated | None, int]:
    """Separate prefill and decode pools: each prefill shape with each decode
    shape (its largest batch meeting the TPOT limit, decoding only), the KV
    cache sent between them; the pair and split that serve the most requests/s.
    Returns it (None if no pair meets the limits) and the evaluations made."""
    load = model.load
    evaluated = 0
    decodes: list[Point] = []
    for r in plan.shapes:
        if r.max_batch < 1:
            continue
        shape = r.shape
        first = model.decode_point(shape, 1)
        evaluated += 1
        if load.tpot_s is not None and first.tpot_s > load.tpot_s:
            continue
        lo, hi, best = 1, r.max_batch, first
        if naive:
            for b in range(2, r.max_batch + 1):
                p = model.decode_point(shape, b)
                evaluated += 1
                if (load.tpot_s is None or p.tpot_s <= load.tpot_s) and (
                    p.tokens_per_s >= best.tokens_per_s
                ):
                    best = p
        else:
            while lo < hi:
                mid = (lo + hi + 1) // 2
                p = model.decode_point(shape, mid)
                evaluated += 1
                if load.tpot_s is None or p.tpot_s <= load.tpot_s:
                    lo, best = mid, p
                else:
                    hi = mid - 1
        decodes.append(best)
    prefills = [(r.shape, model.prefill(r.shape)) for r in plan.shapes]
    kv_bytes = load.prompt * model.kv_per_token()
    winner: Disaggregated | None = None
    for sp, (pf, work) in prefills:
        if model.memory(sp).kv_space <= 0:
            continue
        # a prefill pool batches prompts (one weight read for many) and
        # pipelines them over its stages
        rp = sp.pp / work if work > 0 else 0.0
        for d in decodes:
            rate, link = kv_link(model, sp, d.shape, domain)
            transfer = kv_bytes / rate if rate > 0 else math.inf
            ttft = pf + transfer + d.tpot_s
            if load.ttft_s is not None and ttft > load.ttft_s:
                continue
            rd = d.requests_per_s
            if link == "fabric" and model.view.nic_bytes_s:
                # the decode replica's NICs take in the KV of every request
                ingest = d.shape.gpus * model.view.nic_bytes_s * NIC_EFFICIENCY
                rd = min(rd, ingest / kv_bytes) if kv_bytes > 0 else rd
            np_, nd, rps, tried = split(
                gpus, sp.gpus, rp, d.shape.gpus, rd, naive=naive
            )
            evaluated += tried
            if rps <= 0:
                continue
            if winner is None or rps > winner.requests_per_s * (1 + 1e-9):
                winner = Disaggregated(
                    sp,
                    np_,
                    d,
                    nd,
                    transfer,
                    ttft,
                    d.tpot_s,
                    rps,
                    rps * load.output,
                    np_ * sp.gpus + nd * d.shape.gpus,
                    link,
                )
    return winner, evaluated


def gpus_for(rate: float, point: Point, node_gpus: int) -> tuple[int, int]:
    """Replicas and GPUs (whole nodes) that serve ``rate`` requests/s at
    ``point``."""
    per = point.requests_per_s
    if per <= 0:
        return 0, 0
    n = math.ceil(rate / per - 1e-9)
    g = n * point.shape.gpus
    node = max(node_gpus, 1)
    return n, math.ceil(g / node) * node
