"""Label, unit, source and estimate mark of every figure of an estimate."""

from __future__ import annotations

from designer.workload import facts
from designer.workload.inputs import Ledger
from designer.workload.result import Estimate

_E = True  # an estimate
_X = False  # arithmetic on the design or on published figures

# path -> (label, unit, source, estimate)
_STATIC: dict[str, tuple[str, str, str, bool]] = {
    "gpus": ("GPUs in the design", "", "the design's compute nodes (catalog)", _X),
    "gpu_model": ("GPU model", "", "the design's compute nodes (catalog)", _X),
    "gpu_memory_gb": ("Memory per GPU", "GB", "catalog x-designer.gpu.memory_gb", _X),
    "memory_gb_total.weights": (
        "Weights (one copy)",
        "GB",
        "2 B/param BF16 (training); 2 / 1 / 0.5 B/param BF16 / FP8 / FP4 (inference) "
        "(workload.md §3)",
        _X,
    ),
    "memory_gb_total.gradients": ("Gradients (one copy)", "GB", facts.STATE_SOURCE, _X),
    "memory_gb_total.optimizer": (
        "Optimizer state (one copy)",
        "GB",
        facts.STATE_SOURCE,
        _X,
    ),
    "memory_gb_total.kv_cache": (
        "KV cache (one replica)",
        "GB",
        "KV bytes per token x context x concurrent sequences (workload.md §3)",
        _X,
    ),
    "memory_gb_total.total": ("Job state (one copy)", "GB", "sum of the above", _X),
    "memory_gb_per_gpu.weights": (
        "Weights per GPU",
        "GB",
        "one copy / (TP x PP), / DP under ZeRO-3",
        _X,
    ),
    "memory_gb_per_gpu.gradients": (
        "Gradients per GPU",
        "GB",
        "one copy / (TP x PP), / DP under ZeRO-2+",
        _X,
    ),
    "memory_gb_per_gpu.optimizer": (
        "Optimizer state per GPU",
        "GB",
        "one copy / (TP x PP), / DP under ZeRO-1+",
        _X,
    ),
    "memory_gb_per_gpu.activations": (
        "Activations per GPU",
        "GB",
        facts.RECOMPUTE_SOURCE,
        _E,
    ),
    "memory_gb_per_gpu.kv_cache": (
        "KV cache per GPU",
        "GB",
        "one replica / (TP x PP)",
        _X,
    ),
    "memory_gb_per_gpu.total": (
        "Memory needed per GPU",
        "GB",
        "weights + gradients + optimizer + activations + KV cache; no allowance for "
        "the CUDA context, NCCL buffers or fragmentation",
        _E,
    ),
    "memory_gb_per_gpu.capacity": ("GPU memory", "GB", "catalog", _X),
    "kv_cache_bytes_per_token": (
        "KV cache per token",
        "B",
        "2 x layers x KV heads x head dim x 2 B (BF16) (workload.md §3); MLA: the "
        "cached latent per layer",
        _X,
    ),
    "fits": (
        "Fits on this design",
        "",
        "memory per GPU under the chosen plan <= GPU memory, plan GPUs <= design GPUs",
        _E,
    ),
    "min_gpus": (
        "Fewest GPUs that hold it",
        "",
        "smallest TP x PP x DP over the plans tried (TP <= NVLink domain and 8, "
        "PP <= layers, ZeRO 1-3, selective or full recompute)",
        _E,
    ),
    "parallelism.tp": ("Tensor parallel", "", "searched or given", _X),
    "parallelism.pp": ("Pipeline parallel", "", "searched or given", _X),
    "parallelism.dp": ("Data parallel", "", "GPUs / (TP x PP), or given", _X),
    "parallelism.zero_stage": ("ZeRO stage", "", "searched or given", _X),
    "parallelism.gpus_used": ("GPUs the job uses", "", "TP x PP x DP", _X),
    "parallelism.tp_within_nvlink": (
        "TP inside one NVLink domain",
        "",
        "TP <= NVLink domain size (workload.md §4)",
        _X,
    ),
    "flops_total": (
        "Training FLOPs",
        "FLOP",
        "6 N D (Kaplan et al. 2020) + 12 L H Q T per token when the shape is known "
        "(PaLM appendix B); LoRA 4 N D [E] (workload.md §2)",
        _E,
    ),
    "flops_6nd": (
        "Training FLOPs, 6 N D only",
        "FLOP",
        "6 x active parameters x tokens (workload.md §2)",
        _E,
    ),
    "days": (
        "Training time",
        "days",
        "FLOPs / (GPUs used x peak x MFU x 86,400) (workload.md §2)",
        _E,
    ),
    "gpu_hours": ("GPU-hours", "GPU-h", "FLOPs / (peak x MFU x 3,600)", _E),
    "step.tokens": (
        "Tokens per step",
        "tokens",
        "global batch, at least one micro-batch per DP rank",
        _E,
    ),
    "step.compute_s": (
        "Compute per step",
        "s",
        "step FLOPs / (GPUs used x peak x MFU)",
        _E,
    ),
    "step.dp_comm_s": (
        "DP gradient traffic per step",
        "s",
        "ring all-reduce of N / (TP x PP) x 2 B: S/B x 2(n-1)/n (nccl-tests "
        "PERFORMANCE.md), x1.5 under ZeRO-3 (workload.md §4); B the scale-out "
        "rate per GPU; MoE: all parameters (expert parallelism not modelled)",
        _E,
    ),
    "step.pp_comm_s": (
        "PP traffic per step",
        "s",
        "s b h x 2 B per micro-batch per stage boundary, forward and backward, / TP "
        "(workload.md §4)",
        _E,
    ),
    "step.exposed_comm_fraction": (
        "Communication share of the step",
        "",
        "(DP + PP) / (compute + DP + PP): no overlap assumed, so an upper bound",
        _E,
    ),
    "step.bubble_fraction": (
        "Pipeline bubble",
        "",
        "(PP - 1) / micro-batches (1F1B)",
        _E,
    ),
    "step.nic_gbytes_s_per_gpu": (
        "NIC rate per GPU",
        "GB/s",
        "the design: compute-fabric link capacity of the slowest compute node / its "
        "GPUs",
        _X,
    ),
    "step.scale_out_gbytes_s_per_gpu": (
        "Scale-out bandwidth per GPU",
        "GB/s",
        "NIC rate x 0.9 efficiency (Calculon) x fabric factor (workload.md §4)",
        _E,
    ),
    "step.fabric_factor": (
        "Fabric factor",
        "",
        "1 inside a leaf group; across leaves 1 / product of the tier "
        "oversubscriptions, at most the bisection ratio (workload.md §4)",
        _E,
    ),
    "step.dp_crosses_leaves": (
        "Job spans more than one leaf group",
        "",
        "job nodes > compute nodes of the smallest leaf (the design)",
        _X,
    ),
    "reliability.interruptions_per_day": (
        "Interruptions per day",
        "",
        "GPUs used x failure rate per GPU-day",
        _E,
    ),
    "reliability.mtbf_hours": (
        "Job MTBF",
        "h",
        "1 / (GPUs x rate) (workload.md §5)",
        _E,
    ),
    "reliability.checkpoint_tb": (
        "Checkpoint size",
        "TB",
        facts.CHECKPOINT_BYTES_PER_PARAM.source,
        _E,
    ),
    "reliability.storage_write_gbytes_s": (
        "Storage write bandwidth",
        "GB/s",
        "the design's cabled storage appliances (catalog), bounded by their links",
        _E,
    ),
    "reliability.checkpoint_write_s": (
        "Checkpoint write time",
        "s",
        "checkpoint size / storage write bandwidth",
        _E,
    ),
    "reliability.checkpoint_interval_min": (
        "Checkpoint interval",
        "min",
        "Young 1974: sqrt(2 x write time x MTBF) (workload.md §5)",
        _E,
    ),
    "reliability.lost_fraction": (
        "Time lost to checkpoints and failures",
        "",
        "delta / tau + tau / 2M + R / M (Young; Daly 2006) (workload.md §5)",
        _E,
    ),
    "reliability.goodput": ("Goodput", "", "1 - lost fraction", _E),
    "reliability.effective_days": (
        "Training time with failures",
        "days",
        "days / goodput",
        _E,
    ),
    "n_minus_1.bisection_ratio_live": (
        "Bisection ratio, live",
        "",
        "the validator's bisection / non-blocking",
        _X,
    ),
    "n_minus_1.bisection_ratio_after": (
        "Bisection ratio after the worst switch failure",
        "",
        "the worst single compute-switch failure found, against the live "
        "non-blocking bisection (N-1 search, docs/estimate-json.md)",
        _X,
    ),
    "n_minus_1.bisection_ratio_after_lower": (
        "Proven floor of that ratio",
        "",
        "sound lower bound over every switch; equal to the ratio when exact",
        _X,
    ),
    "n_minus_1.worst_device": (
        "Worst switch to lose",
        "",
        "the N-1 search (see method)",
        _X,
    ),
    "n_minus_1.worst_leaf": (
        "Worst leaf to lose",
        "",
        "most GPUs cut off, then most rails, then the lowest bisection",
        _X,
    ),
    "n_minus_1.bisection_gbps_after": (
        "Bisection after the worst switch failure",
        "Gb/s",
        "the same, in Gb/s one direction",
        _X,
    ),
    "n_minus_1.exact": (
        "N-1 figure exact",
        "",
        "the proven floor meets the worst failure found",
        _X,
    ),
    "n_minus_1.switches": ("Compute switches considered", "", "the design", _X),
    "n_minus_1.analysed": (
        "Failures analysed in full",
        "",
        "the rest are bounded without an analysis or are proven twins",
        _X,
    ),
    "n_minus_1.gpus_losing_rail": (
        "GPUs losing a rail (worst leaf)",
        "",
        "GPUs whose NIC is cabled to the leaf",
        _X,
    ),
    "n_minus_1.gpus_losing_fabric_path": (
        "GPUs cut off (worst leaf)",
        "",
        "GPUs no longer connected to the main fabric",
        _X,
    ),
    "tco.capex_per_gpu": ("Capex per GPU", "USD", "the design's capex / GPUs", _E),
    "tco.kw_per_gpu": (
        "Power per GPU",
        "kW",
        "the design's maximum power (servers, switches, storage) / GPUs",
        _E,
    ),
    "tco.owned_usd_per_gpu_hour": (
        "Owned cost per GPU-hour (at full use)",
        "USD",
        "capex / (years x 8,760) + kW x PUE x price + operations (workload.md §6)",
        _E,
    ),
    "tco.owned_usd_per_used_gpu_hour": (
        "Owned cost per busy GPU-hour",
        "USD",
        "owned cost / utilisation",
        _E,
    ),
    "tco.cloud_usd_per_gpu_hour": (
        "Cloud rate per GPU-hour",
        "USD",
        "reference rate (see assumptions)",
        _E,
    ),
    "tco.breakeven_utilization": (
        "Break-even utilisation",
        "",
        "owned / cloud (workload.md §6)",
        _E,
    ),
    "tco.cheaper": (
        "Cheaper at this utilisation",
        "",
        "owned cost vs utilisation x cloud rate",
        _E,
    ),
    "tco.years": ("Depreciation", "years", "see assumptions", _E),
    "tco.utilization": ("Utilisation", "", "see assumptions", _E),
    "tco.total_usd.owned_3y": (
        "Owned, 3 years (all GPUs)",
        "USD",
        "capex + 3 years of power (maximum draw, all hours) and operations",
        _E,
    ),
    "tco.total_usd.owned_5y": (
        "Owned, 5 years (all GPUs)",
        "USD",
        "capex + 5 years of power (maximum draw, all hours) and operations",
        _E,
    ),
    "tco.total_usd.cloud_3y": (
        "Cloud, 3 years (all GPUs)",
        "USD",
        "3 years x 8,760 h x GPUs x utilisation x cloud rate",
        _E,
    ),
    "tco.total_usd.cloud_5y": (
        "Cloud, 5 years (all GPUs)",
        "USD",
        "5 years x 8,760 h x GPUs x utilisation x cloud rate",
        _E,
    ),
}


def describe(est: Estimate, led: Ledger) -> None:
    """Fill ``led.figures`` for every figure ``est`` reports."""
    for path, (label, unit, source, estimate) in _STATIC.items():
        led.fig(path, label, unit, source, estimate)
    n1 = est.n_minus_1
    for tier, detail in n1.by_tier_detail.items():
        led.fig(
            f"n_minus_1.by_tier.{tier}",
            f"Bisection ratio after the worst {tier} failure",
            "",
            "worst single failure among the tier's switches"
            + ("" if detail.exact else " (a bound: see by_tier_detail)"),
            False,
        )
    exact = "exact" if n1.exact else "a bound (see ratio_lower)"
    after = led.figures["n_minus_1.bisection_ratio_after"]
    led.figures["n_minus_1.bisection_ratio_after"] = after.model_copy(
        update={"source": f"{after.source}; {exact}"}
    )
