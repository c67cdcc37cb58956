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
    "memory_gb_per_gpu.transient": (
        "Transient buffers per GPU",
        "GB",
        "FP32 logits and their gradient, ZeRO-3 prefetch of two layers, TP gather "
        "and MoE dispatch buffers of one micro-batch",
        _E,
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
        "weights + gradients + optimizer + activations + KV cache + transient "
        "buffers; no allowance for "
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
    "parallelism.dp": (
        "Data parallel",
        "",
        "GPUs / (TP x CP x PP), at most the global batch in micro-batches; or given",
        _X,
    ),
    "parallelism.vpp": (
        "Virtual pipeline stages",
        "",
        "searched or given (interleaved 1F1B; 1: plain 1F1B)",
        _X,
    ),
    "parallelism.cp": ("Context parallel", "", "searched or given", _X),
    "parallelism.ep": ("Expert parallel", "", "searched or given (MoE)", _X),
    "parallelism.micro_batch": (
        "Micro-batch",
        "sequences",
        "searched or given",
        _X,
    ),
    "parallelism.idle_gpus": (
        "GPUs left idle",
        "",
        "design GPUs - TP x CP x PP x DP",
        _X,
    ),
    "parallelism.zero_stage": ("ZeRO stage", "", "searched or given", _X),
    "parallelism.gpus_used": ("GPUs the job uses", "", "TP x CP x PP x DP", _X),
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
        "tokens / modelled tokens per second / 86,400 (docs/step-model.md); with "
        "a given MFU: FLOPs / (GPUs used x peak x MFU x 86,400) (workload.md §2)",
        _E,
    ),
    "gpu_hours": ("GPU-hours", "GPU-h", "days x 24 x GPUs used", _E),
    "nonblocking_days": (
        "Training time on a non-blocking fabric of the same GPUs",
        "days",
        "the same search and step model with every tier at 1:1 and a full "
        "bisection; the difference is what the fabric costs",
        _E,
    ),
    "step.step_s": (
        "Step time",
        "s",
        "micro-batches x (compute + exposed TP/CP/EP) + bubble + exposed PP and DP "
        "(docs/step-model.md)",
        _E,
    ),
    "step.tokens_per_s": ("Tokens per second", "tokens/s", "tokens / step", _E),
    "step.mfu": (
        "MFU",
        "",
        "model FLOPs (6 N + attention, no recompute) / (step x GPUs x dense peak); "
        "an output of the step model unless the MFU is given",
        _E,
    ),
    "step.hfu": (
        "HFU",
        "",
        "MFU with the recomputed FLOPs counted",
        _E,
    ),
    "step.tflops_per_gpu": (
        "Model TFLOP/s per GPU",
        "TFLOP/s",
        "model FLOPs / (step x GPUs)",
        _E,
    ),
    "step.bubble_s": (
        "Pipeline bubble per step",
        "s",
        "(PP - 1) / VPP x one micro-batch's time (1F1B, interleaved)",
        _E,
    ),
    "step.tp_comm_s": (
        "TP traffic per step",
        "s",
        "2 all-gathers + 2 reduce-scatters of b s h x 2 B per layer and pass "
        "(sequence parallel), on the design; half overlapped",
        _E,
    ),
    "step.cp_comm_s": (
        "CP traffic per step",
        "s",
        "ring attention K/V sends, hidden behind the attention math where it lasts",
        _E,
    ),
    "step.ep_comm_s": (
        "EP all-to-all per step",
        "s",
        "dispatch + combine forward and backward per MoE layer (not overlapped, "
        "Megatron-Core default)",
        _E,
    ),
    "step.exposed_comm_s": (
        "Exposed communication per step",
        "s",
        "the TP, CP, EP, PP and DP time compute does not hide",
        _E,
    ),
    "step.mfu_source": ("MFU from", "", "model, given or default", _X),
    "step.tokens": (
        "Tokens per step",
        "tokens",
        "global batch, at least one micro-batch per DP rank",
        _E,
    ),
    "step.compute_s": (
        "Compute per step",
        "s",
        "forward, backward and recompute of every micro-batch on the busiest stage "
        "at the achievable efficiency (no bubble)",
        _E,
    ),
    "step.dp_comm_s": (
        "DP gradient traffic per step",
        "s",
        "reduce-scatter of FP32 gradients + all-gather of BF16 parameters (ZeRO "
        "1-2), all-reduce (ZeRO 0), per micro-batch gathers (ZeRO 3) of the GPU's "
        "share, on the design's fabric (NCCL ring/tree, nccl-tests PERFORMANCE.md)",
        _E,
    ),
    "step.pp_comm_s": (
        "PP traffic per step",
        "s",
        "s b h x 2 B / TP per micro-batch and (virtual) stage boundary, forward "
        "and backward, on the design (workload.md §4)",
        _E,
    ),
    "step.exposed_comm_fraction": (
        "Communication share of the step",
        "",
        "exposed communication / step (docs/step-model.md)",
        _E,
    ),
    "step.bubble_fraction": (
        "Pipeline bubble",
        "",
        "(PP - 1) / (VPP x micro-batches) (1F1B, interleaved)",
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
    other = est.other_job_on_plan
    if other is None:
        led.fig(
            "other_job_on_plan",
            "The other fine-tuning job on this plan",
            "",
            "full fine-tuning beside LoRA and LoRA beside full fine-tuning",
            False,
        )
        led.why(
            "other_job_on_plan",
            "only full fine-tuning and LoRA are compared on one plan"
            if est.job in ("pretrain", "inference")
            else "no model or no GPUs",
        )
    else:
        words = "LoRA" if other.job == "lora" else "full fine-tuning"
        led.fig(
            "other_job_on_plan.memory_gb_per_gpu",
            f"Memory per GPU of {words} on this plan",
            "GB",
            "the same memory model on this job's TP, PP, DP, ZeRO and recompute: "
            "each job's plan is searched for it, so the two compare here",
            True,
        )
        led.fig(
            "other_job_on_plan.fits",
            f"{words[0].upper()}{words[1:]} fits on this plan",
            "",
            "its memory per GPU against the GPUs' memory",
            True,
        )
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
