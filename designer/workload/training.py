"""Time and step figures: FLOPs, days, the per-step communication over the
design's own scale-out bandwidth, and goodput under failures and checkpoints."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from designer.core.workload import Job, Recompute
from designer.workload import facts
from designer.workload.fabric import DesignFacts
from designer.workload.formulas import (
    all_reduce_bytes,
    attention_flops_per_token,
    gpu_hours,
    lost_fraction,
    training_days,
    young_interval,
)
from designer.workload.inputs import Ledger
from designer.workload.plan import Plan, Work
from designer.workload.result import Reliability, Step


@dataclass(frozen=True)
class Rates:
    """Throughput inputs resolved for this design."""

    peak_flops: float | None
    mfu: float


def flops_per_token(work: Work) -> tuple[float | None, float | None]:
    """(training FLOPs per token incl. the attention term, 6 N only)."""
    spec = work.spec
    active = spec.active
    if work.job is Job.INFERENCE or active is None:
        return None, None
    six_n = 6.0 * active
    # LoRA: frozen weights need no weight gradients, forward 2N + backward 2N [E]
    base = 4.0 * active if work.job is Job.LORA else six_n
    attn = 0.0
    if spec.has_shape and spec.head_dim is not None:
        assert spec.layers and spec.heads and spec.seq_len
        attn = attention_flops_per_token(
            spec.layers, spec.heads, spec.head_dim, work.seq or spec.seq_len
        )
    return base + attn, six_n


def time_figures(
    work: Work, plan: Plan, tokens: float | None, rates: Rates, led: Ledger
) -> tuple[float | None, float | None, float | None, float | None]:
    """(FLOPs total, 6ND, days, GPU-hours)."""
    per_token, six_n = flops_per_token(work)
    if per_token is None or six_n is None:
        reason = (
            "inference job: no training run"
            if work.job is Job.INFERENCE
            else "no model given"
        )
        for path in ("flops_total", "flops_6nd", "days", "gpu_hours"):
            led.why(path, reason)
        return None, None, None, None
    if tokens is None:
        for path in ("flops_total", "flops_6nd", "days", "gpu_hours"):
            led.why(path, "no token count: give the number of training tokens")
        return None, None, None, None
    flops = per_token * tokens
    if rates.peak_flops is None:
        for path in ("days", "gpu_hours"):
            led.why(path, "the GPU's dense peak is not known (give the peak per GPU)")
        return flops, six_n * tokens, None, None
    days = training_days(flops, plan.gpus, rates.peak_flops, rates.mfu)
    return flops, six_n * tokens, days, gpu_hours(flops, rates.peak_flops, rates.mfu)


def fabric_factor(d: DesignFacts, job_nodes: int) -> tuple[float, bool, str]:
    """Share of the NIC rate cross-leaf traffic gets, whether the job crosses
    leaves, and how the share was obtained."""
    crosses = d.nodes_per_leaf is not None and job_nodes > d.nodes_per_leaf
    if not crosses:
        return (
            1.0,
            False,
            (
                "the job fits under one leaf group "
                f"({d.nodes_per_leaf} nodes per leaf): no oversubscribed tier crossed"
                if d.nodes_per_leaf is not None
                else "no leaf tier: no oversubscribed tier crossed"
            ),
        )
    product = 1.0
    parts = []
    for tier, ratio in d.tier_ratios.items():
        if ratio is not None and ratio > 1.0:
            product *= ratio
            parts.append(f"{tier} {ratio:.3g}:1")
    cap = 1.0 if d.bisection_ratio is None else d.bisection_ratio
    factor = min(1.0, 1.0 / product, cap)
    why = (
        "cross-leaf traffic: 1 / ("
        + (" x ".join(parts) if parts else "no tier oversubscribed")
        + (
            "), no bisection (fewer than two compute nodes)"
            if d.bisection_ratio is None
            else f"), bounded by the bisection ratio {d.bisection_ratio:.3g}"
            + ("" if d.bisection_exact else " (an upper bound: bisection not exact)")
        )
    )
    return factor, True, why


@dataclass(frozen=True)
class StepTimes:
    """One step's figures (None: not known)."""

    tokens: float
    compute_s: float | None
    dp_s: float | None
    pp_s: float | None
    bubble: float | None
    nic: float | None
    bandwidth: float | None
    factor: float | None
    crosses: bool | None


def step_times(
    work: Work,
    plan: Plan,
    d: DesignFacts,
    rates: Rates,
    batch_tokens: float,
    zero3_factor: float,
) -> StepTimes:
    """Compute and fabric time of one training step under ``plan``."""
    per_token, _ = flops_per_token(work)
    seq = work.seq
    tokens = batch_tokens
    if seq is not None:
        tokens = max(batch_tokens, float(plan.dp * work.micro_batch * seq))
    compute = None
    if per_token is not None and rates.peak_flops is not None:
        compute = per_token * tokens / (plan.gpus * rates.peak_flops * rates.mfu)
    if d.nic_gbps_per_gpu is None:
        return StepTimes(tokens, compute, None, None, None, None, None, None, None)
    per_node = max(1, round(d.gpus / max(d.compute_nodes, 1)))
    factor, crosses, _ = fabric_factor(d, math.ceil(plan.gpus / per_node))
    nic = d.nic_gbps_per_gpu * 1e9 / 8.0
    bw = nic * facts.NET_EFFICIENCY.value * factor
    n = work.spec.params or 0.0
    grads = work.lora_params if work.job is Job.LORA else n
    shard = grads * 2.0 / (plan.tp * plan.pp)
    volume = all_reduce_bytes(shard, plan.dp)
    if plan.zero >= 3:
        volume *= zero3_factor
    pp_s: float | None
    bubble: float | None
    hidden = work.spec.hidden
    if plan.pp == 1:
        pp_s, bubble = 0.0, 0.0
    elif hidden is None or seq is None:
        pp_s = bubble = None
    else:
        micro = tokens / (seq * work.micro_batch * plan.dp)
        per_micro = seq * work.micro_batch * hidden * 2.0 / plan.tp
        pp_s = micro * 2.0 * per_micro / bw
        bubble = (plan.pp - 1) / max(micro, 1.0)
    return StepTimes(
        tokens, compute, volume / bw, pp_s, bubble, nic, bw, factor, crosses
    )


FULL_RECOMPUTE_COST = 1.0 / 3.0
"""Full recomputation repeats the forward pass: 2N of the 6N FLOPs per token [E]."""


def plan_cost(
    work: Work, d: DesignFacts, rates: Rates, batch_tokens: float, zero3_factor: float
) -> Callable[[Plan], float]:
    """Step time of a plan, to rank the plans that fit: compute (with the
    recomputation and the pipeline bubble) plus unoverlapped DP and PP traffic."""
    ranking = rates if rates.peak_flops is not None else Rates(1e15, rates.mfu)

    def cost(plan: Plan) -> float:
        t = step_times(work, plan, d, ranking, batch_tokens, zero3_factor)
        compute = (t.compute_s or 0.0) * (
            1.0 + (FULL_RECOMPUTE_COST if plan.recompute is Recompute.FULL else 0.0)
        )
        return compute * (1.0 + (t.bubble or 0.0)) + (t.dp_s or 0.0) + (t.pp_s or 0.0)

    return cost


def step_figures(
    work: Work,
    plan: Plan,
    d: DesignFacts,
    rates: Rates,
    batch_tokens: float,
    zero3_factor: float,
    led: Ledger,
) -> Step:
    """One step's compute and fabric time (no overlap assumed: the exposed share
    is an upper bound)."""
    step = Step()
    if work.job is Job.INFERENCE:
        for name in Step.model_fields:
            led.why(f"step.{name}", "inference job: no training step")
        return step
    t = step_times(work, plan, d, rates, batch_tokens, zero3_factor)
    step.tokens = t.tokens
    step.compute_s = t.compute_s
    if t.compute_s is None:
        led.why("step.compute_s", "the GPU's dense peak is not known")
    if t.nic is None or t.bandwidth is None:
        for name in (
            "dp_comm_s",
            "pp_comm_s",
            "exposed_comm_fraction",
            "bubble_fraction",
            "nic_gbytes_s_per_gpu",
            "scale_out_gbytes_s_per_gpu",
            "fabric_factor",
            "dp_crosses_leaves",
        ):
            led.why(f"step.{name}", "no compute node has a compute-fabric link")
        return step
    step.nic_gbytes_s_per_gpu = t.nic / 1e9
    step.scale_out_gbytes_s_per_gpu = t.bandwidth / 1e9
    step.fabric_factor = t.factor
    step.dp_crosses_leaves = t.crosses
    step.dp_comm_s = t.dp_s
    step.pp_comm_s = t.pp_s
    step.bubble_fraction = t.bubble
    if t.pp_s is None:
        led.why("step.pp_comm_s", "pipeline traffic needs the hidden size and sequence")
        led.why("step.bubble_fraction", "needs the sequence length")
    if t.compute_s is not None and t.pp_s is not None and t.dp_s is not None:
        comm = t.dp_s + t.pp_s
        step.exposed_comm_fraction = comm / (t.compute_s + comm)
    else:
        led.why("step.exposed_comm_fraction", "needs the compute and comm times")
    return step


def reliability_figures(
    work: Work,
    plan: Plan,
    days: float | None,
    rate: float,
    restart_s: float,
    d: DesignFacts,
    led: Ledger,
) -> Reliability:
    """Interruptions from the per-GPU rate, Young/Daly checkpointing, goodput."""
    rel = Reliability()
    if work.job is Job.INFERENCE:
        for name in Reliability.model_fields:
            led.why(f"reliability.{name}", "inference job: no training checkpoints")
        return rel
    per_day = plan.gpus * rate
    rel.interruptions_per_day = per_day
    mtbf_s = 86_400.0 / per_day if per_day > 0 else math.inf
    never = not math.isfinite(mtbf_s)  # a rate of 0, or too small to matter
    rel.mtbf_hours = None if never else mtbf_s / 3600.0
    if never:
        led.why("reliability.mtbf_hours", "no interruptions at this failure rate")
    st = d.storage
    rel.storage_write_gbytes_s = st.write_gbytes_s
    if st.write_gbytes_s is None:
        led.why(
            "reliability.storage_write_gbytes_s",
            st.why_unknown or "the storage reports no write bandwidth",
        )
    n = work.spec.params
    if n is None:
        for name in (
            "checkpoint_tb",
            "checkpoint_write_s",
            "checkpoint_interval_min",
            "lost_fraction",
            "goodput",
            "effective_days",
        ):
            led.why(f"reliability.{name}", "no model given")
        return rel
    saved = work.lora_params if work.job is Job.LORA else n
    ckpt = saved * facts.CHECKPOINT_BYTES_PER_PARAM.value
    rel.checkpoint_tb = ckpt / 1e12
    if st.write_gbytes_s is None or st.write_gbytes_s <= 0:
        reason = st.why_unknown or "the storage reports no write bandwidth"
        for name in (
            "storage_write_gbytes_s",
            "checkpoint_write_s",
            "checkpoint_interval_min",
            "lost_fraction",
            "goodput",
            "effective_days",
        ):
            led.why(f"reliability.{name}", reason)
        return rel
    write_s = ckpt / (st.write_gbytes_s * 1e9)
    rel.checkpoint_write_s = write_s
    if never:
        rel.lost_fraction = 0.0
        led.why("reliability.checkpoint_interval_min", "no failures: no checkpoints")
    else:
        tau = young_interval(write_s, mtbf_s)
        rel.checkpoint_interval_min = tau / 60.0
        rel.lost_fraction = lost_fraction(write_s, tau, mtbf_s, restart_s)
    rel.goodput = max(0.0, 1.0 - rel.lost_fraction)
    if days is None:
        led.why("reliability.effective_days", "the training time is not known")
    elif rel.goodput <= 0:
        led.why(
            "reliability.effective_days",
            "checkpointing and failures take all of the time: the run never ends",
        )
    else:
        rel.effective_days = days / rel.goodput
    return rel
