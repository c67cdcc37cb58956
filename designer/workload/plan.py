"""Memory per GPU of a parallelism plan, the plan search and the fewest GPUs.

Training state is 16 B/param (ZeRO); tensor (TP) and pipeline (PP) parallelism
split it over TP x PP GPUs, ZeRO stages 1/2/3 further shard optimizer /
gradients / weights over the data-parallel (DP) group. Activations follow
Korthikanti et al. (1F1B: the first stage holds about L layers' worth).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import product

from designer.core.workload import Job, Precision, Recompute
from designer.workload import facts
from designer.workload.formulas import activation_bytes_per_layer, kv_bytes_per_token
from designer.workload.presets import ModelSpec

WEIGHT_BYTES = {Precision.BF16: 2.0, Precision.FP8: 1.0, Precision.FP4: 0.5}
"""Inference weights per parameter (workload.md §3)."""
_RECOMPUTE_ORDER = (Recompute.NONE, Recompute.SELECTIVE, Recompute.FULL)
COST_TOLERANCE = 0.05
"""A plan later in preference order must be more than 5 % faster to be chosen
(the step model is an estimate; small gains do not justify more parallelism)."""


@dataclass(frozen=True)
class Work:
    """What is run: the model, the job and the sizes that set the memory."""

    spec: ModelSpec
    job: Job
    precision: Precision
    seq: int | None
    micro_batch: int
    lora_params: float
    context: int | None
    sequences: int


@dataclass(frozen=True, slots=True)
class Plan:
    """A parallelism plan (EP is carved out of DP x CP, as in Megatron-Core)."""

    tp: int
    pp: int
    dp: int
    zero: int
    recompute: Recompute
    vpp: int = 1
    cp: int = 1
    ep: int = 1
    micro_batch: int = 1

    @property
    def gpus(self) -> int:
        """GPUs the plan uses."""
        return self.tp * self.cp * self.pp * self.dp


@dataclass(frozen=True, slots=True)
class Memory:
    """Bytes per GPU by kind (activations None when the shape is unknown)."""

    weights: float
    gradients: float
    optimizer: float
    activations: float | None
    kv_cache: float
    transient: float = 0.0
    """Buffers that live during the step: logits, all-gather buckets, MoE
    dispatch and TP gather buffers."""

    @property
    def total(self) -> float:
        """Everything counted (activations 0 when unknown)."""
        return (
            self.weights
            + self.gradients
            + self.optimizer
            + (self.activations or 0.0)
            + self.kv_cache
            + self.transient
        )


def is_training(job: Job) -> bool:
    """Whether the job trains (keeps gradients and optimizer state)."""
    return job is not Job.INFERENCE


def kv_per_token(spec: ModelSpec, bytes_per_value: float = 2.0) -> float | None:
    """KV-cache bytes per token (None when the shape is unknown)."""
    if spec.layers is None:
        return None
    if spec.kv_elements_per_layer is not None:
        return float(spec.layers * spec.kv_elements_per_layer * bytes_per_value)
    head_dim = spec.head_dim
    if head_dim is None:
        return None
    kv = spec.kv_heads if spec.kv_heads is not None else spec.heads
    assert kv is not None
    return kv_bytes_per_token(spec.layers, kv, head_dim, bytes_per_value)


def state_bytes(work: Work) -> tuple[float, float, float]:
    """Weights, gradients and optimizer bytes of one unsharded model copy."""
    n = work.spec.params or 0.0
    if work.job is Job.INFERENCE:
        return n * WEIGHT_BYTES[work.precision], 0.0, 0.0
    if work.job is Job.LORA:
        lp = work.lora_params
        return (
            facts.BYTES_WEIGHT * (n + lp),
            facts.BYTES_GRADIENT * lp,
            facts.BYTES_OPTIMIZER * lp,
        )
    return facts.BYTES_WEIGHT * n, facts.BYTES_GRADIENT * n, facts.BYTES_OPTIMIZER * n


def memory(work: Work, plan: Plan, micro_batches: int | None = None) -> Memory:
    """Bytes per GPU of ``work`` under ``plan`` (``micro_batches`` per step and
    pipeline: fewer than the stages hold fewer activations)."""
    w, g, o, experts = _split_state(work, plan)
    w, g, o, transient = _sharded(work, plan, w, g, o, experts)
    return Memory(
        w, g, o, _activations(work, plan, micro_batches), _kv(work, plan), transient
    )


def _sharded(
    work: Work, plan: Plan, w: float, g: float, o: float, experts: float
) -> tuple[float, float, float, float]:
    """The state bytes after ``plan``'s ZeRO stage, and the step's buffers
    (training only: inference keeps whole weights and no buffers)."""
    if not is_training(work.job):
        return w, g, o, 0.0
    dp = plan.dp * plan.cp
    if plan.zero >= 1:
        o /= dp
    if plan.zero >= 2:
        g /= dp
    if plan.zero >= 3:
        w /= dp
    return w, g, o, _transient(work, plan, experts)


def _split_state(work: Work, plan: Plan) -> tuple[float, float, float, float]:
    """Weights, gradients and optimizer bytes per GPU before ZeRO, and the
    routed experts' parameters."""
    w, g, o = state_bytes(work)
    n = work.spec.params or 0.0
    share = _expert_share(work)
    mp = plan.tp * plan.pp
    # routed experts are split over EP as well; the dense part over TP x PP
    split = (1.0 - share) / mp + share / (mp * plan.ep)
    return w * split, g * split, o * split, share * n


def ladder_needs(
    work: Work,
    layout: Plan,
    rungs: Sequence[tuple[Recompute, int]],
    micro_batches: int | None = None,
) -> list[float]:
    """``memory(work, plan, micro_batches).total`` of each rung of one layout:
    ``layout`` with each (recompute, ZeRO stage) of ``rungs``, in that order.

    What the rungs share (the model state's split, the KV cache) is worked out
    once, the activations once per recompute and the sharded state and buffers
    once per stage; each total is summed as :func:`memory` sums it, in its
    order, so it equals memory()'s float for float (tests/workload/test_plan.py)."""
    w0, g0, o0, experts = _split_state(work, layout)
    kv = _kv(work, layout)
    acts: dict[Recompute, float] = {}
    states: dict[int, tuple[float, float, float, float]] = {}
    out: list[float] = []
    for rec, zero in rungs:
        if rec not in acts:
            rung = with_rung(layout, rec, layout.zero)
            acts[rec] = _activations(work, rung, micro_batches) or 0.0
        if zero not in states:
            rung = with_rung(layout, layout.recompute, zero)
            states[zero] = _sharded(work, rung, w0, g0, o0, experts)
        w, g, o, transient = states[zero]
        out.append(w + g + o + acts[rec] + kv + transient)
    return out


def with_rung(layout: Plan, recompute: Recompute, zero: int) -> Plan:
    """``layout`` with another recompute and ZeRO stage (dataclasses.replace
    costs several times the constructor)."""
    p = layout
    return Plan(p.tp, p.pp, p.dp, zero, recompute, p.vpp, p.cp, p.ep, p.micro_batch)


def _expert_share(work: Work) -> float:
    """Share of the parameters that are routed experts (0: a dense model)."""
    if not work.spec.is_moe:
        return 0.0
    from designer.workload.step import expert_params

    n = work.spec.params or 0.0
    return expert_params(work.spec) / n if n > 0 else 0.0


def _activations(
    work: Work, plan: Plan, micro_batches: int | None = None
) -> float | None:
    if not is_training(work.job):
        return 0.0
    s = work.spec
    if s.layers is None or s.hidden is None or s.heads is None or work.seq is None:
        return None
    per_layer = activation_bytes_per_layer(
        work.seq // max(plan.cp, 1),
        plan.micro_batch,
        s.hidden,
        s.heads,
        plan.tp,
        plan.recompute,
    )
    pp, v = plan.pp, plan.vpp
    stage = -(-s.layers // (pp * v)) * v
    # 1F1B: the first stage keeps min(m, pp) micro-batches in flight, L layers'
    # worth; interleaving keeps (1 + (pp - 1) / (pp v)) times that
    in_flight = float(pp if micro_batches is None else min(micro_batches, pp))
    layers = stage * in_flight
    if v > 1:
        layers *= 1.0 + (pp - 1) / (pp * v)
    return per_layer * layers


def _transient(work: Work, plan: Plan, experts: float) -> float:
    """Logits (FP32, with their gradient), ZeRO-3 prefetch, TP gather and MoE
    dispatch buffers of one micro-batch."""
    s = work.spec
    if s.hidden is None or work.seq is None:
        return 0.0
    tokens = plan.micro_batch * work.seq / plan.cp
    out = 0.0
    if s.vocab:
        out += 2.0 * tokens * s.vocab * 4.0 / plan.tp
    if s.layers and plan.zero >= 3:
        dense = (s.params or 0.0) - experts
        out += 2.0 * dense / s.layers / plan.tp * facts.BYTES_WEIGHT
    if plan.tp > 1:
        out += 2.0 * tokens * s.hidden * 2.0
    if s.is_moe and s.top_k:
        out += 2.0 * tokens / plan.tp * s.hidden * s.top_k * 2.0
    return out


def _kv(work: Work, plan: Plan) -> float:
    if work.job is not Job.INFERENCE or work.context is None:
        return 0.0
    per_token = kv_per_token(work.spec)
    if per_token is None:
        return 0.0
    return per_token * work.context * work.sequences / (plan.tp * plan.pp)


@dataclass(frozen=True)
class Space:
    """Which plans may be tried: given values, or the ranges searched."""

    tp: int | None
    pp: int | None
    dp: int | None
    zero: int | None
    recompute: Recompute | None
    nvlink_domain: int


def _tps(work: Work, space: Space) -> list[int]:
    if space.tp is not None:
        return [space.tp]
    limit = min(int(facts.TP_LIMIT.value), max(space.nvlink_domain, 1))
    heads = work.spec.heads
    out, t = [], 1
    while t <= limit:
        if heads is None or heads % t == 0:
            out.append(t)
        t *= 2
    return out


def _pps(work: Work, space: Space) -> list[int]:
    if space.pp is not None:
        return [space.pp]
    layers = work.spec.layers
    return list(range(1, (layers or 64) + 1))


def _zeros(work: Work, space: Space) -> list[int]:
    if not is_training(work.job):
        return [0]
    if space.zero is not None:
        return [space.zero]
    return [int(facts.ZERO_STAGE.value), 2, 3]


def _recomputes(work: Work, space: Space) -> list[Recompute]:
    if not is_training(work.job) or not work.spec.has_shape:
        return [space.recompute or Recompute.SELECTIVE]
    if space.recompute is not None:
        return [space.recompute]
    return [Recompute.SELECTIVE, Recompute.FULL]


def _candidates(work: Work, space: Space) -> list[tuple[int, int, int, Recompute]]:
    """(tp, pp, zero, recompute) in the order they are preferred: the least
    recomputation, then the smallest model-parallel size TP x PP (Narayanan et
    al. SC21, takeaway 2), then the lowest ZeRO stage, then TP before PP."""
    combos = product(
        _recomputes(work, space),
        _tps(work, space),
        _pps(work, space),
        _zeros(work, space),
    )
    return sorted(
        ((t, p, z, r) for r, t, p, z in combos),
        key=lambda c: (_RECOMPUTE_ORDER.index(c[3]), c[0] * c[1], c[2], c[1]),
    )


def choose(
    work: Work,
    space: Space,
    gpus: int,
    capacity: float,
    cost: Callable[[Plan], float] | None = None,
) -> tuple[Plan, bool, str | None]:
    """The plan to run on ``gpus`` GPUs of ``capacity`` bytes: of those that fit,
    the first in preference order whose ``cost`` (step time) is within
    :data:`COST_TOLERANCE` of the fastest; without a ``cost``, the first that
    fits. When none fits, the one that comes closest. Returns (plan, fits, why
    not)."""
    best: tuple[float, Plan] | None = None
    fitting: list[tuple[float, Plan]] = []
    for tp, pp, zero, rec in _candidates(work, space):
        dp = space.dp if space.dp is not None else gpus // (tp * pp)
        if dp < 1:
            continue
        plan = Plan(tp, pp, dp, zero, rec)
        need = memory(work, plan).total
        if need <= capacity and plan.gpus <= gpus:
            if cost is None:
                return plan, True, None
            fitting.append((cost(plan), plan))
        elif best is None or need < best[0]:
            best = (need, plan)
    if fitting:
        # the first plan in preference order within COST_TOLERANCE of the fastest
        fastest = min(value for value, _ in fitting)
        for value, plan in fitting:
            if value <= fastest * (1.0 + COST_TOLERANCE):
                return plan, True, None
    if best is None:
        tp = _tps(work, space)[0]
        pp = _pps(work, space)[0]
        plan = Plan(
            tp,
            pp,
            max(space.dp or 1, 1),
            _zeros(work, space)[0],
            _recomputes(work, space)[0],
        )
        return (
            plan,
            False,
            f"TP {tp} x PP {pp} needs {tp * pp:,} GPUs; the design has {gpus:,}",
        )
    need, plan = best
    if plan.gpus > gpus:
        return (
            plan,
            False,
            f"the plan needs {plan.gpus:,} GPUs; the design has {gpus:,}",
        )
    return (
        plan,
        False,
        f"{need / 1e9:,.1f} GB per GPU with the best plan tried "
        f"(TP {plan.tp}, PP {plan.pp}, DP {plan.dp}, ZeRO {plan.zero}); "
        f"each GPU has {capacity / 1e9:,.0f} GB",
    )


def min_gpus(work: Work, space: Space, capacity: float) -> tuple[int, Plan] | None:
    """Fewest GPUs that hold the job with some plan of ``space`` (DP free)."""
    best: tuple[int, Plan] | None = None
    for tp, pp, zero, rec in _candidates(work, space):
        one = memory(work, Plan(tp, pp, 1, zero, rec))
        if is_training(work.job):
            # per GPU = fixed + sharded / dp for the ZeRO-sharded terms
            sharded = (
                (one.optimizer if zero >= 1 else 0.0)
                + (one.gradients if zero >= 2 else 0.0)
                + (one.weights if zero >= 3 else 0.0)
            )
        else:
            sharded = 0.0
        fixed = one.total - sharded
        if fixed > capacity or (sharded > 0 and fixed >= capacity):
            continue
        if space.dp is not None:
            dp = space.dp
            if fixed + sharded / dp > capacity:
                continue
        else:
            dp = 1 if sharded <= 0 else max(1, math.ceil(sharded / (capacity - fixed)))
            while fixed + sharded / dp > capacity:  # guard the float rounding
                dp += 1
        n = tp * pp * dp
        if best is None or n < best[0]:
            best = (n, Plan(tp, pp, dp, zero, rec))
    return best
