"""Plan search: the fastest plan that fits, and the next two with why they lose.

Searched (each fixed when given): TP in powers of two up to the NVLink domain
(and the 8 of facts.TP_LIMIT) dividing the heads; CP in powers of two while the
local sequence keeps >= 1,024 tokens; PP over the layer counts that divide the
layers (or leave the first and last stage one layer short, as Llama 3 did);
virtual stages dividing a stage's layers (interleaved 1F1B needs the
micro-batches to be a multiple of PP); EP over powers of two dividing the
experts and DP x CP; ZeRO 1-3; recompute none, selective, full; micro-batch 1,
2, 4 sequences. DP is what is left of the GPUs, at most the global batch in
micro-batches; GPUs no plan can use are reported idle.

Memory is checked before a plan is timed (most candidates never reach the step
model), collective times are memoised per (op, bytes, group) and a plan whose
compute alone cannot beat the best so far is not timed: the naive search
(``naive=True``, the benchmark's baseline) times every candidate in full.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache

from designer.core.workload import Recompute
from designer.workload import facts
from designer.workload.collectives import FabricView, Group, Op, Timing, collective
from designer.workload.plan import Plan, Work, ladder_needs, memory, with_rung
from designer.workload.step import (
    Hardware,
    StepPlan,
    StepResult,
    compute_per_microbatch,
    step,
)

MIN_CP_TOKENS = 1024
"""Ring attention keeps at least this many tokens per CP rank [E: below it the
per-chunk attention is too small to hide the K/V exchange]."""
MAX_VPP = 8
MICRO_BATCHES = (1, 2, 4)
TIE = 0.01
"""Plans within 1 % of each other's time per token count as equally fast; the
simpler one (less recompute, smaller TP x CP x PP) is chosen."""


@dataclass(frozen=True)
class Fixed:
    """Plan fields given by the user (None: searched)."""

    tp: int | None = None
    pp: int | None = None
    dp: int | None = None
    vpp: int | None = None
    cp: int | None = None
    ep: int | None = None
    zero: int | None = None
    recompute: Recompute | None = None
    micro_batch: int | None = None


@dataclass
class Scored:
    """A plan that fits, with its step."""

    plan: Plan
    result: StepResult
    why: str = ""

    @property
    def per_token(self) -> float:
        """Seconds per token of the step."""
        return self.result.step_s / self.result.tokens


@dataclass
class SearchResult:
    """The chosen plan (or the closest when none fits) and the runners-up."""

    plan: Plan
    result: StepResult | None
    fits: bool
    why_not: str | None
    alternatives: list[Scored] = field(default_factory=list)
    tried: int = 0
    timed: int = 0


Timer = Callable[[FabricView, Op, float, Group], Timing]


def _cached_timer() -> Timer:
    @lru_cache(maxsize=4096)
    def timer(view: FabricView, op: Op, size: float, group: Group) -> Timing:
        return collective(view, op, size, group)

    return timer


def _pow2(limit: int) -> list[int]:
    out, t = [], 1
    while t <= limit:
        out.append(t)
        t *= 2
    return out


def candidates(
    work: Work, fixed: Fixed, gpus: int, domain: int, batch_seqs: int
) -> Iterator[Ladder]:
    """Every plan of the space (DP derived) as ladders: the same layout with
    ever more memory saved (recompute none, selective, full; ZeRO 1, 2, 3 at
    each), cheapest first."""
    s = work.spec
    assert s.layers and s.heads and work.seq
    layers, seq = s.layers, work.seq
    tps = (
        [fixed.tp]
        if fixed.tp
        else [
            t
            for t in _pow2(min(int(facts.TP_LIMIT.value), max(domain, 1)))
            if s.heads % t == 0
        ]
    )
    cps = (
        [fixed.cp]
        if fixed.cp
        else [c for c in _pow2(64) if seq % (2 * c) == 0 and seq // c >= MIN_CP_TOKENS]
        or [1]
    )
    pps = (
        [fixed.pp]
        if fixed.pp
        else [
            p
            for p in range(1, layers + 1)
            if math.ceil(layers / p) * p - layers <= (0 if p == 1 else 2)
        ]
    )
    experts = s.experts if s.is_moe else None
    recs = (
        [fixed.recompute]
        if fixed.recompute
        else [Recompute.NONE, Recompute.SELECTIVE, Recompute.FULL]
    )
    zeros = [fixed.zero] if fixed.zero is not None else [1, 2, 3]
    mbs = [fixed.micro_batch] if fixed.micro_batch else list(MICRO_BATCHES)
    if True:
        for tp in tps:
            for cp in cps:
                for pp in pps:
                    per = math.ceil(layers / pp)
                    if fixed.vpp:
                        vpps = [fixed.vpp]
                    elif pp == 1:
                        vpps = [1]
                    else:
                        vpps = [v for v in range(1, MAX_VPP + 1) if per % v == 0]
                    for b in mbs:
                        most = gpus // (tp * cp * pp)
                        dp = fixed.dp or min(most, max(1, batch_seqs // b))
                        if dp < 1 or tp * cp * pp * dp > gpus:
                            continue
                        if experts:
                            eps = (
                                [fixed.ep]
                                if fixed.ep
                                else [
                                    e
                                    for e in _pow2(min(experts, dp * cp))
                                    if experts % e == 0
                                ]
                            )
                        else:
                            eps = [1]
                        for ep in eps:
                            # EP divides DP x CP: fewer DP ranks (idle GPUs) if not
                            dpe = dp
                            while dpe > 0 and (dpe * cp) % ep:
                                dpe -= 1
                            if dpe < 1 or (fixed.dp and dpe != fixed.dp):
                                continue
                            m = math.ceil(batch_seqs / (dpe * b))
                            for v in vpps:
                                if v > 1 and m % pp:
                                    continue
                                yield Ladder(
                                    Plan(tp, pp, dpe, zeros[0], recs[0], v, cp, ep, b),
                                    recs,
                                    zeros,
                                )


@dataclass(frozen=True, slots=True)
class Ladder:
    """One layout's rungs: ``layout`` with each recompute and, within each, each
    ZeRO stage (ever more memory saved, at a cost in time)."""

    layout: Plan
    recomputes: list[Recompute]
    zeros: list[int]

    def rungs(self) -> list[tuple[Recompute, int]]:
        """(recompute, ZeRO stage) of each rung, in order."""
        return [(rec, zero) for rec in self.recomputes for zero in self.zeros]


def _key(plan: Plan) -> tuple[int, int, int, int, int]:
    order = (Recompute.NONE, Recompute.SELECTIVE, Recompute.FULL)
    return (
        order.index(plan.recompute),
        plan.tp * plan.cp * plan.pp,
        plan.zero,
        plan.vpp,
        plan.ep,
    )


def search(
    work: Work,
    fixed: Fixed,
    view: FabricView,
    hw: Hardware,
    *,
    gpus: int,
    capacity: float,
    batch_tokens: float,
    naive: bool = False,
    keep: int = 3,
) -> SearchResult:
    """The fastest plan per token that fits in ``capacity`` bytes per GPU."""
    s = work.spec
    assert work.seq and s.layers
    seq = work.seq
    batch_seqs = max(1, math.ceil(batch_tokens / seq))
    timer: Timer = collective if naive else _cached_timer()
    scored: list[Scored] = []
    closest: tuple[float, Plan] | None = None
    tried = timed = 0
    best = math.inf
    for ladder in candidates(work, fixed, gpus, view.domain_gpus, batch_seqs):
        layout = ladder.layout
        m = math.ceil(batch_seqs / (layout.dp * layout.micro_batch))
        rungs = ladder.rungs()
        if not naive:
            needs = ladder_needs(work, layout, rungs, m)
        for k, (rec, zero) in enumerate(rungs):
            tried += 1
            if naive:
                plan = with_rung(layout, rec, zero)
                r = step(
                    s, _step_plan(plan), view, hw, seq=seq, batch_tokens=batch_tokens
                )
                timed += 1
                need = memory(work, plan, m).total
                if need > capacity:
                    if closest is None or need < closest[0]:
                        closest = (need, plan)
                    continue
                scored.append(Scored(plan, r))
                continue
            need = needs[k]
            if need > capacity:
                if closest is None or need < closest[0]:
                    closest = (need, with_rung(layout, rec, zero))
                continue
            plan = with_rung(layout, rec, zero)
            # the first rung that fits: the rest of the ladder only saves
            # memory this layout does not need, at a cost in time
            floor = _floor(work, plan, hw, m)
            tokens = m * plan.dp * plan.micro_batch * seq
            if floor / tokens <= best * (1 + TIE):
                r = step(
                    s,
                    _step_plan(plan),
                    view,
                    hw,
                    seq=seq,
                    batch_tokens=batch_tokens,
                    timer=timer,
                )
                timed += 1
                item = Scored(plan, r)
                scored.append(item)
                best = min(best, item.per_token)
            break
    if not scored:
        return _none_fits(work, fixed, gpus, capacity, closest, tried, timed)
    scored.sort(key=lambda x: x.per_token)
    fastest = scored[0].per_token
    tied = [x for x in scored if x.per_token <= fastest * (1 + TIE)]
    chosen = min(tied, key=lambda x: (_key(x.plan), x.per_token))
    rest: list[Scored] = []
    seen = {_shape(chosen.plan)}
    for x in scored:
        if len(rest) >= keep - 1:
            break
        if _shape(x.plan) in seen:
            continue
        seen.add(_shape(x.plan))
        x.why = why_slower(chosen, x)
        rest.append(x)
    return SearchResult(chosen.plan, chosen.result, True, None, rest, tried, timed)


def evaluate(
    work: Work,
    plan: Plan,
    view: FabricView,
    hw: Hardware,
    *,
    batch_tokens: float,
) -> StepResult:
    """The step of one given plan."""
    assert work.seq
    return step(
        work.spec, _step_plan(plan), view, hw, seq=work.seq, batch_tokens=batch_tokens
    )


def _shape(plan: Plan) -> tuple[int, ...]:
    return (plan.tp, plan.cp, plan.pp, plan.vpp, plan.ep, plan.dp, plan.micro_batch)


def _step_plan(plan: Plan) -> StepPlan:
    return StepPlan(
        plan.tp,
        plan.pp,
        plan.dp,
        plan.vpp,
        plan.cp,
        plan.ep,
        plan.zero,
        plan.recompute,
        plan.micro_batch,
    )


def _floor(work: Work, plan: Plan, hw: Hardware, m: int) -> float:
    """A lower bound of the step: forward, backward and recompute of every
    micro-batch on the busiest stage and the pipeline bubble, no traffic."""
    assert work.seq
    fwd, extra = compute_per_microbatch(work.spec, _step_plan(plan), hw, work.seq)
    mb = 3.0 * fwd + extra
    bubble = (plan.pp - 1) / plan.vpp * mb if plan.pp > 1 else 0.0
    return m * mb + bubble


_PARTS = (
    ("compute", "compute and recompute"),
    ("bubble", "pipeline bubble"),
    ("tp", "exposed TP traffic"),
    ("cp", "exposed CP traffic"),
    ("ep", "exposed EP all-to-all"),
    ("pp", "exposed PP sends"),
    ("dp", "exposed DP traffic"),
)


def _parts(r: StepResult) -> dict[str, float]:
    per = 1.0 / r.tokens
    out = {
        "compute": r.compute_s * per,
        "bubble": r.bubble_s * per,
    }
    out |= {k: v * per for k, v in r.exposed.items()}
    return out


def why_slower(best: Scored, other: Scored) -> str:
    """The one or two parts of the step that make ``other`` slower per token."""
    a, b = _parts(best.result), _parts(other.result)
    scale = other.result.tokens
    deltas = sorted(
        ((b[k] - a.get(k, 0.0)) * scale, label) for k, label in _PARTS if k in b
    )
    worse = [f"+{d:,.2f} s {label}" for d, label in reversed(deltas) if d > 0][:2]
    pct = other.per_token / best.per_token - 1.0
    if pct <= TIE:
        return (
            f"as fast within {TIE:.0%} ({pct:+.1%} per token): the chosen plan is "
            "simpler (less recompute, fewer GPUs per model replica, lower ZeRO)"
        )
    what = ", ".join(worse) if worse else "no single part"
    return f"{pct:.1%} slower per token: {what} (per step of {scale:,.0f} tokens)"


def _none_fits(
    work: Work,
    fixed: Fixed,
    gpus: int,
    capacity: float,
    closest: tuple[float, Plan] | None,
    tried: int,
    timed: int,
) -> SearchResult:
    if closest is None:
        tp = fixed.tp or 1
        pp = fixed.pp or 1
        plan = Plan(tp, pp, max(fixed.dp or 1, 1), fixed.zero or 1, Recompute.FULL)
        why = f"TP {tp} x PP {pp} needs {tp * pp:,} GPUs; the design has {gpus:,}"
        return SearchResult(plan, None, False, why, [], tried, timed)
    need, plan = closest
    why = (
        f"{need / 1e9:,.1f} GB per GPU with the best plan tried (TP {plan.tp}, "
        f"CP {plan.cp}, PP {plan.pp}, EP {plan.ep}, DP {plan.dp}, ZeRO "
        f"{plan.zero}, {plan.recompute.value} recompute); each GPU has "
        f"{capacity / 1e9:,.0f} GB"
    )
    return SearchResult(plan, None, False, why, [], tried, timed)
