"""The serving model's inputs for an estimate: the design's (or a catalog's)
GPU as the serving model sees it, the request mix and latency limits, and the
KV cache's format, each noted in the ledger with its source."""

from __future__ import annotations

from designer.core.workload import Precision
from designer.workload import facts, serving_facts
from designer.workload.fabric import DesignFacts
from designer.workload.inputs import Ledger
from designer.workload.modelled import peaks
from designer.workload.serving import Load, ServingGpu

_GB = 1e9


def serving_gpu(
    d: DesignFacts, weights: Precision, led: Ledger, given_peak: float | None
) -> tuple[ServingGpu | None, str | None]:
    """The design's GPU as the serving model sees it (None and why if a fact is
    missing). FP4 weights on a GPU without FP4 math run at its FP8 rate."""
    model = d.gpu_model or ""
    hbm = serving_facts.HBM_TBYTES_S.get(model)
    if hbm is None:
        return None, f"no HBM bandwidth known for {model or 'these GPUs'}"
    math_prec = weights
    pk = peaks(d, weights, given_peak)
    if pk.flops is None and weights is Precision.FP4:
        math_prec = Precision.FP8
        pk = peaks(d, Precision.FP8, given_peak)
    if pk.flops is None or pk.bf16 is None:
        return None, (
            f"no dense {weights.value.upper()} peak for {model or 'these GPUs'} "
            "(give --peak-tflops)"
        )
    gen = facts.GENERATION.get(model, "")
    eff = serving_facts.SERVING_EFFICIENCY.get((gen, math_prec.value))
    if eff is None:
        return None, (f"no serving efficiency for {model} at {math_prec.value.upper()}")
    mem = (d.gpu_memory_gb or 0.0) * _GB
    if mem <= 0:
        return None, "the GPUs' memory is not in the catalog"
    led.note("hbm_tbytes_s", hbm.value, hbm.unit, hbm.source, hbm.estimate, "default")
    led.note(
        "serving_efficiency",
        eff.value,
        "",
        f"{model} {math_prec.value.upper()}: {eff.source}",
        eff.estimate,
        "default",
    )
    for name, fact in (
        ("hbm_efficiency", serving_facts.HBM_EFFICIENCY),
        ("moe_gemm_share", serving_facts.MOE_SHARE),
        ("runtime_reserve", serving_facts.RUNTIME_RESERVE),
    ):
        led.note(name, fact.value, fact.unit, fact.source, fact.estimate, "default")
    return (
        ServingGpu(
            model,
            mem,
            hbm.value * 1e12,
            pk.flops,
            pk.bf16,
            eff.value,
            serving_facts.HBM_EFFICIENCY.value,
            serving_facts.ATTENTION_SHARE.value,
            serving_facts.MOE_SHARE.value,
            serving_facts.RUNTIME_RESERVE.value,
        ),
        None,
    )


def gpu_from_catalog(
    model: str,
    memory_gb: float,
    peaks_tflops: dict[str, float | None],
    weights: Precision,
) -> ServingGpu | None:
    """A catalog GPU (model, memory, dense peaks by precision) as the serving
    model sees it, with the defaults of :mod:`.serving_facts`; None when a
    fact is missing. FP4 weights without FP4 math run at the FP8 rate."""
    hbm = serving_facts.HBM_TBYTES_S.get(model)
    prec = weights
    peak = peaks_tflops.get(prec.value)
    if peak is None and prec is Precision.FP4:
        prec = Precision.FP8
        peak = peaks_tflops.get(prec.value)
    bf16 = peaks_tflops.get("bf16") or peak
    eff = serving_facts.SERVING_EFFICIENCY.get(
        (facts.GENERATION.get(model, ""), prec.value)
    )
    if hbm is None or peak is None or bf16 is None or eff is None or memory_gb <= 0:
        return None
    return ServingGpu(
        model,
        memory_gb * _GB,
        hbm.value * 1e12,
        peak * 1e12,
        bf16 * 1e12,
        eff.value,
        serving_facts.HBM_EFFICIENCY.value,
        serving_facts.ATTENTION_SHARE.value,
        serving_facts.MOE_SHARE.value,
        serving_facts.RUNTIME_RESERVE.value,
    )


def serving_load(led: Ledger) -> Load:
    """The request mix and latency limits: given, else the serving defaults."""
    prompt = int(led.pick("prompt_tokens", serving_facts.PROMPT_TOKENS))
    output = int(led.pick("output_tokens", serving_facts.OUTPUT_TOKENS))
    ttft = float(led.pick("ttft_ms", serving_facts.TTFT_MS))
    tpot = float(led.pick("tpot_ms", serving_facts.TPOT_MS))
    return Load(prompt, output, ttft / 1000.0, tpot / 1000.0)


def kv_precision(led: Ledger, weights: Precision) -> Precision:
    """The KV cache's format: given, else FP8 with FP8/FP4 weights, BF16 else."""
    if led.origin("kv_precision") is not None:
        return Precision(led.pick("kv_precision", None))
    kv = Precision.BF16 if weights is Precision.BF16 else Precision.FP8
    led.note(
        "kv_precision", kv.value, "", serving_facts.KV_DEFAULT_SOURCE, True, "default"
    )
    return kv
