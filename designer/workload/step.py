"""The step-time model: one training step of a plan on this design's GPUs and
fabric, with MFU as an output (docs/step-model.md has the formulas and sources).

Per micro-batch and pipeline stage: the forward, backward and recomputed
FLOPs at an achievable matrix-math efficiency of the GPU generation and
precision (attention at its own, BF16, efficiency), plus the exposed parts of
the tensor-parallel (with sequence parallelism), context-parallel (ring
attention) and expert-parallel (all-to-all) traffic. The pipeline schedule
(1F1B, interleaved with ``vpp`` virtual stages) repeats it over the
micro-batches and adds its bubble; the pipeline's sends and the data-parallel
reduce-scatter / all-gather (ZeRO 1-2), all-reduce (ZeRO 0) or per-micro-batch
gathers (ZeRO 3 / FSDP) add what they cannot hide. Every collective is timed on
the design's fabric by :mod:`designer.workload.collectives`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from itertools import pairwise

from designer.core.workload import Precision, Recompute
from designer.workload.collectives import FabricView, Group, Op, Timing, collective
from designer.workload.presets import ModelSpec

ACT_BYTES = 2.0
"""BF16 activations on the wire (TP, CP, PP, EP) [E: the usual training type]."""
GRAD_BYTES = 4.0
"""Gradients reduce-scattered in FP32 (Megatron-Core distributed optimizer's
default main-grad buffer) [P: Megatron-Core docs]."""
PARAM_BYTES = 2.0
"""Parameters all-gathered in BF16 [P: Megatron-Core distributed optimizer]."""
BUCKET_PARAMS = 40e6
"""Megatron-Core DDP bucket size, 40M parameters [P: ddp_config bucket_size]."""


@dataclass(frozen=True)
class Efficiency:
    """Achievable share of the dense peak (matrix math, attention)."""

    matrix: float
    attention: float
    source: str


@dataclass(frozen=True)
class StepPlan:
    """A parallelism plan as the step model reads it."""

    tp: int = 1
    pp: int = 1
    dp: int = 1
    vpp: int = 1
    cp: int = 1
    ep: int = 1
    zero: int = 1
    recompute: Recompute = Recompute.SELECTIVE
    micro_batch: int = 1

    @property
    def gpus(self) -> int:
        """GPUs the plan uses (EP is carved out of DP x CP)."""
        return self.tp * self.cp * self.pp * self.dp


@dataclass(frozen=True)
class Hardware:
    """Peak and efficiency for one precision on one GPU model."""

    peak_flops: float
    """Dense peak of the precision the matrix math runs at, FLOP/s."""
    bf16_flops: float
    """Dense BF16 peak (attention runs in BF16), FLOP/s."""
    eff: Efficiency
    precision: Precision = Precision.BF16


@dataclass
class StepResult:
    """One step's figures (seconds unless named otherwise)."""

    step_s: float
    tokens: float
    micro_batches: int
    compute_s: float
    """Forward, backward and recompute of all micro-batches (no bubble)."""
    bubble_s: float
    bubble_fraction: float
    tp_comm_s: float
    cp_comm_s: float
    ep_comm_s: float
    pp_comm_s: float
    dp_comm_s: float
    exposed_comm_s: float
    exposed: dict[str, float]
    model_flops: float
    """Per step, all GPUs, without recompute (the MFU numerator)."""
    hardware_flops: float
    mfu: float
    hfu: float
    tflops_per_gpu: float
    tokens_per_s: float
    layers_per_stage: int
    timings: dict[str, Timing] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def model_flops_per_token(spec: ModelSpec, seq: int) -> float:
    """6 N + 12 L H Q T (PaLM appendix B), N the active parameters less the
    input embedding (a table lookup, no matrix math; the output head counts)."""
    active = max(0.0, (spec.active or 0.0) - (spec.vocab or 0) * (spec.hidden or 0))
    attn = 0.0
    if spec.layers and spec.heads:
        q = spec.attention_head_dim or spec.head_dim or 0
        attn = 12.0 * spec.layers * spec.heads * q * seq
    return 6.0 * active + attn


@cache
def expert_params(spec: ModelSpec) -> float:
    """Routed-expert parameters: total - dense, from the total and active counts
    and the routing (active = dense + k/E x experts)."""
    if not spec.is_moe or spec.params is None or spec.active_params is None:
        return 0.0
    assert spec.experts and spec.top_k
    share = spec.top_k / spec.experts
    dense = (spec.active_params - spec.params * share) / (1.0 - share)
    return max(0.0, spec.params - max(dense, 0.0))


def layers_per_stage(layers: int, pp: int, vpp: int) -> int:
    """Layers on the busiest pipeline stage (virtual stages of equal size)."""
    return math.ceil(layers / (pp * vpp)) * vpp


def compute_per_microbatch(
    spec: ModelSpec, plan: StepPlan, hw: Hardware, seq: int
) -> tuple[float, float]:
    """(forward, recompute) seconds of one micro-batch on the busiest stage."""
    fwd, extra, _ = _compute(spec, plan, hw, seq)
    return fwd, extra


def _compute(
    spec: ModelSpec, plan: StepPlan, hw: Hardware, seq: int
) -> tuple[float, float, float]:
    """(forward, recompute, attention forward) seconds of one micro-batch."""
    assert spec.layers and spec.hidden and spec.heads
    L, h = spec.layers, spec.hidden
    tp, cp = plan.tp, plan.cp
    mb_tokens = plan.micro_batch * seq / cp
    ls = layers_per_stage(L, plan.pp, plan.vpp)
    vocab = spec.vocab or 0
    q = spec.attention_head_dim or spec.head_dim or 0
    active = spec.active or 0.0
    # routed experts: k of E experts per token in the MoE layers; their GEMMs
    # get the tokens of the whole EP group, split over the experts
    expert_active = 0.0
    expert_gemm = 0.0
    if spec.is_moe:
        assert spec.experts and spec.top_k
        moe_layers = spec.moe_layers or L
        per_expert = expert_params(spec) / (moe_layers * spec.experts)
        expert_active = spec.top_k * per_expert * moe_layers
        moe_ls = ls * moe_layers / L
        expert_gemm = 2.0 * spec.top_k * per_expert * moe_ls * mb_tokens / tp
    dense_params = max(0.0, active - 2.0 * vocab * h - expert_active) / L
    # forward FLOPs per GPU of one micro-batch on the busiest stage
    gemm_f = 2.0 * dense_params * ls * mb_tokens / tp
    # the output head runs on the last stage; pipelines balance the stages
    # around it (Llama 3 drops a layer from the first and the last stage)
    gemm_f += 2.0 * vocab * h * mb_tokens / tp / plan.pp
    attn_f = 4.0 * spec.heads * q * seq * mb_tokens * ls / tp
    # small GEMMs (a thin shard of a micro-batch) run below the large-GEMM share
    per_gemm = gemm_f / max(ls * GEMMS_PER_LAYER, 1)
    matrix = hw.peak_flops * hw.eff.matrix * gemm_scale(per_gemm)
    expert_s = 0.0
    if expert_gemm > 0:
        assert spec.experts and spec.top_k
        tokens = max(plan.ep, 1) * mb_tokens * spec.top_k / spec.experts
        one = (
            2.0
            * tokens
            * expert_params(spec)
            / ((spec.moe_layers or L) * spec.experts * tp * EXPERT_GEMMS)
        )
        rate = hw.peak_flops * hw.eff.matrix * gemm_scale(one)
        expert_s = expert_gemm / rate
    attention = hw.bf16_flops * min(hw.eff.attention, hw.eff.matrix)
    attn_fwd = attn_f / attention
    fwd = gemm_f / matrix + expert_s + attn_fwd
    if plan.recompute is Recompute.FULL:
        extra = fwd
    elif plan.recompute is Recompute.SELECTIVE:
        extra = attn_fwd
    else:
        extra = 0.0
    return fwd, extra, attn_fwd


def step(
    spec: ModelSpec,
    plan: StepPlan,
    view: FabricView,
    hw: Hardware,
    *,
    seq: int,
    batch_tokens: float,
    timer: Callable[[FabricView, Op, float, Group], Timing] = collective,
) -> StepResult:
    """Time one training step of ``plan``; ``batch_tokens`` is the global batch
    (rounded up to whole micro-batches of every DP rank)."""
    assert spec.layers and spec.hidden and spec.heads
    L, h = spec.layers, spec.hidden
    tp, cp, pp, dp, v = plan.tp, plan.cp, plan.pp, plan.dp, plan.vpp
    b = plan.micro_batch
    seqs = max(1, math.ceil(batch_tokens / seq))
    m = max(1, math.ceil(seqs / (dp * b)))
    tokens = float(m * dp * b * seq)
    ls = layers_per_stage(L, pp, v)
    moe_share = (spec.moe_layers or L) / L if spec.is_moe else 0.0
    moe_ls = ls * moe_share
    q = spec.attention_head_dim or spec.head_dim or 0
    fwd, extra, attn_fwd = _compute(spec, plan, hw, seq)
    compute_mb = 3.0 * fwd + extra
    timings: dict[str, Timing] = {}
    notes: list[str] = []
    exposed: dict[str, float] = {}

    # tensor parallel with sequence parallelism: per layer 2 all-gathers and 2
    # reduce-scatters of the layer's activations forward, the same backward,
    # and again for a fully recomputed forward
    tp_mb = 0.0
    if tp > 1:
        act = b * seq / cp * h * ACT_BYTES
        t_ag = timer(view, Op.ALL_GATHER, act, Group(tp, 1))
        t_rs = timer(view, Op.REDUCE_SCATTER, act, Group(tp, 1))
        timings["tp"] = t_ag
        per_pass = 2.0 * (t_ag.time_s + t_rs.time_s) * ls
        passes = 2.0 + (1.0 if plan.recompute is Recompute.FULL else 0.0)
        tp_mb = per_pass * passes
        if t_ag.spans_domains:
            notes.append(
                f"TP {tp} spans NVLink domains of {view.domain_gpus} GPUs: its "
                "traffic crosses the scale-out fabric"
            )
    tp_exp = tp_mb * TP_EXPOSED
    # context parallel: ring attention passes K and V around the CP ring
    # forward, K, V and their gradients backward, behind the attention math
    cp_mb = cp_exp = 0.0
    if cp > 1:
        kv = spec.kv_heads or spec.heads
        chunk = 2.0 * b * seq / cp * kv * (spec.head_dim or q) * ACT_BYTES / tp
        t = timer(view, Op.SEND_RECV, chunk, Group(cp, tp))
        timings["cp"] = t
        per_layer_f = (cp - 1) * t.time_s
        cp_mb = 3.0 * per_layer_f * ls
        hide = 3.0 * attn_fwd
        cp_exp = max(0.0, cp_mb - hide * CP_OVERLAP)
    # expert parallel: dispatch and combine all-to-all forward and backward
    ep_mb = 0.0
    if spec.is_moe and plan.ep > 1 and moe_ls > 0:
        assert spec.top_k
        # node-limited routing sends a token to at most route_nodes nodes
        # (DeepSeek-V3: 4), once per node, then over NVLink to its experts
        copies = min(spec.top_k, spec.route_nodes or spec.top_k)
        size = b * seq / (cp * tp) * h * copies * ACT_BYTES
        t = timer(view, Op.ALL_TO_ALL, size, Group(plan.ep, tp * cp))
        timings["ep"] = t
        passes = 4.0 + (2.0 if plan.recompute is Recompute.FULL else 0.0)
        ep_mb = passes * t.time_s * moe_ls
    ep_exp = ep_mb * EP_EXPOSED
    mb = compute_mb + tp_exp + cp_exp + ep_exp
    bubble = (pp - 1) / v * mb if pp > 1 else 0.0
    pipeline = m * mb + bubble
    # pipeline sends: each micro-batch crosses every (virtual) stage boundary
    # forward and backward; what the fill and drain wait for is exposed
    pp_total = pp_exp = 0.0
    if pp > 1:
        act = b * seq / cp * h * ACT_BYTES / tp
        t = timer(view, Op.SEND_RECV, act, Group(pp, tp * cp * dp))
        timings["pp"] = t
        pp_total = 2.0 * m * v * t.time_s
        pp_exp = 2.0 * (pp - 1) * t.time_s
    # data parallel over DP x CP (experts over DP x CP / EP)
    experts = expert_params(spec) if spec.is_moe else 0.0
    dense = (spec.params or 0.0) - experts
    local = dense / (tp * pp) + experts / (max(plan.ep, 1) * tp * pp)
    ranks = dp * cp
    dp_total = dp_exp = 0.0
    if ranks > 1 and local > 0:
        group = Group(ranks, tp)
        fwd_stage = fwd  # one micro-batch through the stage, forward
        bwd_stage = 2.0 * fwd + extra
        if plan.zero >= 3:
            gather = timer(view, Op.ALL_GATHER, local * PARAM_BYTES, group)
            scatter = timer(view, Op.REDUCE_SCATTER, local * GRAD_BYTES, group)
            timings["dp"] = scatter
            per_mb = 2.0 * gather.time_s + scatter.time_s
            dp_total = m * per_mb
            first = min(gather.time_s, gather.time_s * BUCKET_PARAMS / local)
            dp_exp = m * max(0.0, per_mb - (fwd_stage + bwd_stage)) + first
        else:
            if plan.zero == 0:
                red = timer(view, Op.ALL_REDUCE, local * GRAD_BYTES, group)
                gat = None
            else:
                red = timer(view, Op.REDUCE_SCATTER, local * GRAD_BYTES, group)
                gat = timer(view, Op.ALL_GATHER, local * PARAM_BYTES, group)
            timings["dp"] = red
            buckets = max(1.0, local / BUCKET_PARAMS)
            last = red.time_s / buckets
            dp_total = red.time_s + (gat.time_s if gat else 0.0)
            dp_exp = max(last, red.time_s - bwd_stage * DP_OVERLAP)
            if gat is not None:
                dp_exp += max(gat.time_s / buckets, gat.time_s - fwd_stage * DP_OVERLAP)
    step_s = pipeline + pp_exp + dp_exp
    exposed = {
        "tp": m * tp_exp,
        "cp": m * cp_exp,
        "ep": m * ep_exp,
        "pp": pp_exp,
        "dp": dp_exp,
    }
    per_token = model_flops_per_token(spec, seq)
    model = per_token * tokens
    gpus = plan.gpus
    recompute_flops = 0.0
    if plan.recompute is Recompute.FULL:
        recompute_flops = model / 3.0
    elif plan.recompute is Recompute.SELECTIVE:
        attn_token = 4.0 * L * spec.heads * q * seq
        recompute_flops = attn_token * tokens
    peak_all = step_s * gpus * hw.peak_flops
    return StepResult(
        step_s=step_s,
        tokens=tokens,
        micro_batches=m,
        compute_s=m * compute_mb,
        bubble_s=bubble,
        bubble_fraction=(pp - 1) / (v * m) if pp > 1 else 0.0,
        tp_comm_s=m * tp_mb,
        cp_comm_s=m * cp_mb,
        ep_comm_s=m * ep_mb,
        pp_comm_s=pp_total,
        dp_comm_s=dp_total,
        exposed_comm_s=sum(exposed.values()),
        exposed=exposed,
        model_flops=model,
        hardware_flops=model + recompute_flops,
        mfu=model / peak_all,
        hfu=(model + recompute_flops) / peak_all,
        tflops_per_gpu=model / (step_s * gpus) / 1e12,
        tokens_per_s=tokens / step_s,
        layers_per_stage=ls,
        timings=timings,
        notes=notes,
    )


EXPERT_GEMMS = 3
"""Gate, up and down projections of one expert (SwiGLU)."""
GEMMS_PER_LAYER = 4
"""QKV, attention output, MLP up (with gate) and down projections."""
GEMM_EFFICIENCY = ((128e9, 0.95), (16e9, 0.9), (1e9, 0.6), (0.0, 0.1))
"""Matrix efficiency by GEMM size (FLOPs): Calculon's A100 and H100 system
files (repo calculon-ai/calculon, systems/*.json, matrix gflops_efficiency)
[P]; used relative to its large-GEMM 0.95."""


def gemm_scale(flops: float) -> float:
    """Share of the large-GEMM efficiency a GEMM of ``flops`` FLOPs reaches
    (linear between Calculon's points)."""
    top = GEMM_EFFICIENCY[0][1]
    for (hi, e_hi), (lo, e_lo) in pairwise(GEMM_EFFICIENCY):
        if flops >= hi:
            return e_hi / top
        if flops >= lo:
            return (e_lo + (e_hi - e_lo) * (flops - lo) / (hi - lo)) / top
    return GEMM_EFFICIENCY[-1][1] / top


TP_EXPOSED = 0.5
"""Share of the TP all-gathers / reduce-scatters left on the critical path:
Megatron-Core with Transformer Engine overlaps them with the GEMMs they feed
(tp_comm_overlap, on in NVIDIA's H100 recipes), not all of them [E]."""
CP_OVERLAP = 1.0
"""Ring attention sends the next K/V chunk while computing on this one
(Megatron-Core / Transformer Engine context parallelism) [P]."""
EP_EXPOSED = 1.0
"""Megatron-Core's MoE all-to-all is not overlapped unless asked for
(overlap_moe_expert_parallel_comm is off by default) [P: Megatron-Core MoE
docs]."""
DP_OVERLAP = 1.0
"""Gradient reduce-scatter overlaps the last micro-batch's backward, parameter
all-gather the first one's forward, bucket by bucket (overlap_grad_reduce,
overlap_param_gather) [P: Megatron-Core distributed optimizer docs]; the last
bucket always waits."""
