"""The job's inputs of an estimate, read through the ledger: its choices (job,
precision), the design's GPU facts, peak rates and MFU, the job's sizes, the
plans that may be tried, training tokens and the global batch."""

from __future__ import annotations

from typing import TypeVar

from designer.core.workload import Job, Precision
from designer.workload import facts, modelled
from designer.workload.fabric import DesignFacts
from designer.workload.inputs import Ledger, lora_params
from designer.workload.plan import Space, Work
from designer.workload.presets import ModelSpec
from designer.workload.training import Rates

__all__ = [
    "note_design",
    "read_batch",
    "read_choice",
    "read_rates",
    "read_space",
    "read_tokens",
    "read_work",
]

_E = TypeVar("_E", Job, Precision)


def read_choice(led: Ledger, name: str, default: _E, source: str) -> _E:
    """An enum input: given, else ``default`` (recorded as such)."""
    if led.origin(name) is not None:
        value = led.pick(name, None)
        return type(default)(value)
    led.note(name, default.value, "", source, True, "default")
    return default


def read_batch(led: Ledger) -> float:
    """Global batch in tokens (recorded once)."""
    if not any(a.name == "global_batch_tokens" for a in led.assumptions):
        return float(led.pick("global_batch_tokens", facts.GLOBAL_BATCH_TOKENS))
    return float(led.given("global_batch_tokens") or facts.GLOBAL_BATCH_TOKENS.value)


def note_design(d: DesignFacts, led: Ledger) -> None:
    """Record the design's GPUs, GPU model, memory and NVLink domain as inputs."""
    led.note(
        "gpus", d.gpus, "", "the design: GPUs of its compute nodes", False, "design"
    )
    led.note(
        "gpu_model",
        d.gpu_model,
        "",
        "the design's compute nodes (catalog)",
        False,
        "design",
    )
    led.note(
        "gpu_memory_gb",
        d.gpu_memory_gb,
        "GB",
        "catalog x-designer.gpu.memory_gb",
        False,
        "design",
    )
    led.note(
        "nvlink_domain",
        d.nvlink_domain,
        "GPUs",
        "catalog x-designer.gpu.nvlink_domain (largest in the design)",
        False,
        "design",
    )


def read_rates(
    d: DesignFacts,
    precision: Precision,
    led: Ledger,
    pk: modelled.Peaks,
    *,
    default_mfu: bool,
) -> Rates:
    """Peak FLOP/s per GPU (given, else the catalog's) and the MFU (given; the
    default only where no step can be modelled)."""
    if led.origin("mfu") is not None or default_mfu:
        mfu = float(led.pick("mfu", facts.MFU))
    else:
        mfu = facts.MFU.value  # unused: the step model gives the MFU
    if led.given("peak_tflops") is not None:
        led.note(
            "peak_tflops",
            led.given("peak_tflops"),
            "TFLOP/s",
            "as given",
            False,
            led.origin("peak_tflops") or "",
        )
        return Rates(pk.flops, mfu)
    if pk.flops is None:
        led.why(
            "peak_tflops",
            f"no published dense {precision.value.upper()} peak for "
            f"{d.gpu_model or 'these GPUs'} (give the peak per GPU)",
        )
        return Rates(None, mfu)
    led.note(
        "peak_tflops",
        pk.flops / 1e12,
        "TFLOP/s",
        f"{d.gpu_model} {precision.value.upper()}: {pk.source}",
        pk.estimate,
        "default",
    )
    return Rates(pk.flops, mfu)


def read_work(
    led: Ledger, spec: ModelSpec | None, job: Job, precision: Precision
) -> Work:
    """The job's sizes: sequence, micro-batch, LoRA adapters, inference load."""
    seq = spec.seq_len if spec is not None else None
    micro = int(led.pick("micro_batch", facts.MICRO_BATCH))
    lp = 0.0
    if job is Job.LORA and spec is not None:
        rank = int(led.pick("lora_rank", facts.LORA_RANK))
        lp, how = lora_params(spec, rank)
        led.note("lora_params", lp, "", how, True, "default")
    context: int | None = None
    sequences = 1
    if job is Job.INFERENCE:
        context = led.pick("context_length", None, "tokens")
        if context is None and seq is not None:
            context = seq
            led.note(
                "context_length",
                seq,
                "tokens",
                "the model's training sequence length [E: default]",
                True,
                "preset",
            )
        sequences = int(led.pick("concurrent_sequences", facts.INFERENCE_SEQUENCES))
    return Work(
        spec or ModelSpec("none", "no model", None),
        job,
        precision,
        seq,
        micro,
        lp,
        context,
        sequences,
    )


def read_space(led: Ledger, job: Job, d: DesignFacts) -> Space:
    """Which plans may be tried (given values fixed, the rest searched)."""
    space = Space(
        led.pick("tp", None),
        led.pick("pp", None),
        led.pick("dp", None),
        led.pick("zero_stage", None),
        led.given("recompute"),
        d.nvlink_domain,
    )
    if job is Job.INFERENCE:
        return space
    for name in ("vpp", "cp", "ep"):
        led.pick(name, None)
    if space.tp is None:
        led.note(
            "tp",
            "searched",
            "",
            facts.TP_LIMIT.source + " (TP <= NVLink domain)",
            True,
            "default",
        )
    if space.zero is None:
        led.note("zero_stage", "searched", "", facts.ZERO_STAGE.source, True, "default")
    if space.recompute is None:
        led.note(
            "recompute",
            "selective, else full",
            "",
            facts.RECOMPUTE_SOURCE,
            True,
            "default",
        )
    else:
        led.note(
            "recompute",
            space.recompute.value,
            "",
            "as given",
            False,
            led.origin("recompute") or "",
        )
    return space


def read_tokens(led: Ledger, spec: ModelSpec | None, job: Job) -> float | None:
    """Training tokens: given, else the preset's published count (pre-training)."""
    if job is Job.INFERENCE:
        return None
    if led.origin("tokens") is not None:
        return float(led.pick("tokens", None, "tokens"))
    if job is Job.PRETRAIN and spec is not None and spec.tokens is not None:
        led.note(
            "tokens",
            spec.tokens,
            "tokens",
            f"{spec.name}: {spec.source}",
            False,
            "preset",
        )
        return spec.tokens
    return None
