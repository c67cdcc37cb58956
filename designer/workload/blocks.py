"""The estimate's result blocks built from the computed parts."""

from __future__ import annotations

from designer.core.workload import Job, Recompute
from designer.workload.fabric import DesignFacts, NMinusOne
from designer.workload.plan import Memory, Plan, Work, memory, state_bytes
from designer.workload.presets import ModelSpec
from designer.workload.result import (
    MemoryPerGpu,
    MemoryTotal,
    ModelInfo,
    NMinus1,
    RuleOfThumb,
    TierN1,
)

_GB = 1e9


def model_info(spec: ModelSpec | None) -> ModelInfo:
    if spec is None:
        return ModelInfo(
            name="none",
            params=None,
            active_params=None,
            layers=None,
            hidden=None,
            heads=None,
            kv_heads=None,
            seq_len=None,
            source="no model given",
        )
    return ModelInfo(
        name=spec.name,
        params=spec.params,
        active_params=spec.active,
        layers=spec.layers,
        hidden=spec.hidden,
        heads=spec.heads,
        kv_heads=spec.kv_heads,
        seq_len=spec.seq_len,
        source=spec.source,
    )


def totals(work: Work, spec: ModelSpec | None) -> MemoryTotal:
    if spec is None:
        return MemoryTotal(
            weights=None, gradients=None, optimizer=None, kv_cache=None, total=None
        )
    w, g, o = state_bytes(work)
    kv = memory(work, Plan(1, 1, 1, 0, Recompute.SELECTIVE)).kv_cache
    return MemoryTotal(
        weights=w / _GB,
        gradients=g / _GB,
        optimizer=o / _GB,
        kv_cache=kv / _GB,
        total=(w + g + o + kv) / _GB,
    )


def per_gpu(mem: Memory | None, d: DesignFacts) -> MemoryPerGpu:
    if mem is None:
        return MemoryPerGpu(
            weights=None,
            gradients=None,
            optimizer=None,
            activations=None,
            kv_cache=None,
            total=None,
            capacity=d.gpu_memory_gb,
        )
    return MemoryPerGpu(
        weights=mem.weights / _GB,
        gradients=mem.gradients / _GB,
        optimizer=mem.optimizer / _GB,
        activations=None if mem.activations is None else mem.activations / _GB,
        kv_cache=mem.kv_cache / _GB,
        total=mem.total / _GB,
        transient=mem.transient / _GB,
        capacity=d.gpu_memory_gb,
    )


def n_minus_1(n: NMinusOne) -> NMinus1:
    return NMinus1(
        worst_device=n.worst_device,
        bisection_ratio_live=n.ratio_live,
        bisection_ratio_after=n.ratio_after,
        bisection_ratio_after_lower=n.ratio_after_lower,
        bisection_gbps_after=n.gbps_after,
        exact=n.exact,
        by_tier={t: f.ratio for t, f in n.by_tier.items()},
        by_tier_detail={
            t: TierN1(
                worst_device=f.worst_device,
                ratio=f.ratio,
                ratio_lower=f.ratio_lower,
                exact=f.exact,
                switches=f.switches,
            )
            for t, f in n.by_tier.items()
        },
        worst_leaf=n.worst_leaf,
        gpus_losing_rail=n.gpus_losing_rail,
        gpus_losing_fabric_path=n.gpus_losing_fabric_path,
        switches=n.switches,
        analysed=n.evaluated,
        method=n.method,
    )


_THUMB = (
    "product brief, 'Sizing rules of thumb' (H100 80 GB): a rule of thumb, not checked"
)
_RULES: tuple[tuple[Job, float, float, str, str], ...] = (
    (Job.FINETUNE, 5e9, 10e9, "Fine-tune a 7B model", "1-2 GPUs"),
    (Job.LORA, 5e9, 10e9, "Fine-tune a 7B model", "1-2 GPUs"),
    (Job.FINETUNE, 50e9, 100e9, "Fine-tune a 70B model", "4-8 GPUs"),
    (Job.LORA, 50e9, 100e9, "Fine-tune a 70B model", "4-8 GPUs"),
    (
        Job.PRETRAIN,
        5e9,
        10e9,
        "Train a 7B model from scratch",
        "8-32 GPUs (days to weeks)",
    ),
    (
        Job.PRETRAIN,
        50e9,
        100e9,
        "Train a 70B model from scratch",
        "64-256 GPUs (weeks)",
    ),
    (
        Job.PRETRAIN,
        300e9,
        500e9,
        "Train a 405B model",
        "512-2,048 GPUs (weeks to months)",
    ),
    (
        Job.INFERENCE,
        50e9,
        100e9,
        "Inference",
        "1 GPU per 70B instance at FP8; scale out for throughput",
    ),
)


def rule_of_thumb(spec: ModelSpec | None, job: Job) -> RuleOfThumb | None:
    """The brief's rule of thumb for a similar workload, labelled as such."""
    if spec is None or spec.params is None:
        return None
    for rjob, lo, hi, what, gpus in _RULES:
        if rjob is job and lo <= spec.params <= hi:
            return RuleOfThumb(workload=what, gpus=gpus, source=_THUMB)
    return None
