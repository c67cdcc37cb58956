"""Defaults and published figures the estimate uses, each with its source.

Sources are quoted from ``reference/workload.md`` (section numbers below) unless
stated; marks: [P] primary, [S] secondary, [E] derived or assumed. A figure is
an *estimate* when it is [E] or [S], or when it stands in for a measurement of
this very cluster (an MFU or failure rate taken from another run).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Fact:
    """A number with its unit, its source and whether it is an estimate."""

    value: float
    unit: str
    source: str
    estimate: bool


@dataclass(frozen=True)
class Peak:
    """Dense peak throughput of one GPU model (TFLOP/s; None: not published)."""

    bf16: float | None
    fp8: float | None
    source: str
    estimate: bool


PEAKS: dict[str, Peak] = {
    "H100 SXM": Peak(
        989,
        1979,
        "NVIDIA H100 datasheet, dense (workload.md §1) [P]",
        False,
    ),
    "H200 SXM": Peak(
        989,
        1979,
        "NVIDIA H100/H200 datasheet, dense (workload.md §1) [P]",
        False,
    ),
    "B200": Peak(
        2250,
        4500,
        "DGX B200: 72 PFLOPS FP8 training per 8 GPUs [P], halved for dense "
        "(workload.md §1) [E]",
        True,
    ),
    "B200 (GB200)": Peak(
        2500,
        5000,
        "GB200 NVL72: 360 PFLOPS BF16 with sparsity per 72 GPUs [P], halved for "
        "dense (workload.md §1) [E]",
        True,
    ),
    "B300": Peak(
        2500,
        5000,
        "Blackwell Ultra keeps Blackwell's BF16/FP8 rates (workload.md §1) [S]",
        True,
    ),
    "B300 (GB300)": Peak(
        2500,
        5000,
        "Blackwell Ultra keeps Blackwell's BF16/FP8 rates (workload.md §1) [S]",
        True,
    ),
    "L40S": Peak(362, 733, "NVIDIA L40S datasheet, dense (workload.md §1) [P]", False),
}
"""By the catalog's ``x-designer.gpu.model``. Rubin is absent on purpose: NVIDIA
publishes NVFP4 rates only (workload.md §1), so its BF16 peak is unknown."""

GENERATION: dict[str, str] = {
    "A100 SXM 80GB": "ampere",
    "H100 SXM": "hopper",
    "H200 SXM": "hopper",
    "B200": "blackwell",
    "B200 (GB200)": "blackwell",
    "B300": "blackwell",
    "B300 (GB300)": "blackwell",
    "L40S": "ada",
    "Rubin": "rubin",
}
"""Catalog GPU model -> tensor-core generation."""

_CAL = (
    "calibrated [E]: set once so that the run named here matches; every other "
    "published run in tests/workload/test_step_golden.py is a holdout"
)
EFFICIENCY: dict[tuple[str, str], Fact] = {
    ("ampere", "bf16"): Fact(
        0.65,
        "",
        "A100 BF16: GEMMs of Megatron-size layers reach ~80 % of peak, less "
        "the memory-bound norms and activations; " + _CAL + " (MegaScale 175B on "
        "12,288 GPUs: 55.2 % MFU, NSDI 2024 [P])",
        True,
    ),
    ("hopper", "bf16"): Fact(
        0.57,
        "",
        "H100 BF16: " + _CAL + " (Llama 3 405B on 16,384 H100: 400 TFLOP/s per "
        "GPU, Llama 3 paper Table 4 [P])",
        True,
    ),
    ("hopper", "fp8"): Fact(
        0.45,
        "",
        "H100 FP8 (of the FP8 peak; FP8 GEMMs only, attention stays BF16): "
        + _CAL
        + " (NeMo Llama 3 70B on 64 H100: 727 TFLOP/s, Megatron-Bridge "
        "performance summary 25.09 [P])",
        True,
    ),
    ("blackwell", "bf16"): Fact(
        0.50,
        "",
        "Blackwell BF16: no dense BF16 run with its plan published; the Hopper "
        "share less 0.07 as the FP8 runs show (NeMo GB200/B200 tables) [E]",
        True,
    ),
    ("blackwell", "fp8"): Fact(
        0.42,
        "",
        "Blackwell FP8: NeMo Llama 3 70B FP8 on 64 GB200 1,815-1,937 TFLOP/s of "
        "5,000 (36-39 % MFU, Megatron-Bridge performance summary) [P], plus the "
        "losses the step model adds [E]",
        True,
    ),
    ("blackwell", "fp4"): Fact(
        0.25,
        "",
        "Blackwell NVFP4: NeMo Llama 3 70B NVFP4 on 64 GB200 2,004 TFLOP/s of "
        "10,000 and on GB300 3,056 of 15,000 (20 %, Megatron-Bridge performance "
        "summary 26.02) [P], plus the losses the step model adds [E]",
        True,
    ),
    ("ada", "bf16"): Fact(
        0.50, "", "L40S: no published training run; assumed as Blackwell [E]", True
    ),
    ("ada", "fp8"): Fact(
        0.40, "", "L40S FP8: no published training run; assumed [E]", True
    ),
    ("rubin", "fp4"): Fact(
        0.25, "", "Rubin NVFP4: no published run; Blackwell's NVFP4 share [E]", True
    ),
}
"""Achievable share of the dense peak of the precision the matrix math runs at,
for a transformer layer's GEMMs and the memory-bound work between them. Never
"peak x 2": FP8 and FP4 have their own, lower shares."""
ATTENTION_EFFICIENCY = Fact(
    0.50,
    "",
    "FlashAttention-2 forward and backward on A100 / H100: 50-73 % of the BF16 "
    "peak forward, less backward (Dao 2023) [P]; 50 % used, never above the "
    "matrix share",
    True,
)


MFU = Fact(
    0.40,
    "",
    "workload.md §1: Llama 3 405B ran at 38-43 % MFU on 16,384 H100 [P: Llama 3 "
    "paper Table 4]; Megatron-LM 52 %, MegaScale 55.2 % [P]; default 40 %",
    True,
)
BYTES_WEIGHT = 2
BYTES_GRADIENT = 2
BYTES_OPTIMIZER = 12
STATE_SOURCE = (
    "16 B/param mixed-precision Adam: 2 weights + 2 gradients + 12 optimizer "
    "(ZeRO, Rajbhandari et al. 2019; workload.md §3) [P]"
)
CHECKPOINT_BYTES_PER_PARAM = Fact(
    14,
    "B/param",
    "resumable checkpoint ~14 B/param (weights + master + m + v); BLOOM 176B "
    "measured 13.1 (BigScience; workload.md §3) [P]",
    True,
)
FAILURE_RATE = Fact(
    4.7e-4,
    "per GPU-day",
    "419 unexpected interruptions / (16,384 H100 x 54 days), Llama 3 405B run "
    "[P: Llama 3 paper Table 5] (workload.md §5) [E]",
    True,
)
RESTART_MINUTES = Fact(
    0.0,
    "min",
    "no sourced default: restarts are left out of the lost fraction unless a "
    "restart time is given (as in workload.md §5's worked example)",
    True,
)
LOST_FINDING = Fact(
    0.10,
    "",
    "Llama 3 405B kept > 90 % effective training time (workload.md §5) [P]",
    False,
)
NET_EFFICIENCY = Fact(
    0.9,
    "",
    "achievable share of the NIC rate: Calculon's InfiniBand efficiency 0.9 "
    "(workload.md §4) [P], applied to any fabric",
    True,
)
GLOBAL_BATCH_TOKENS = Fact(
    4e6,
    "tokens",
    "Llama 3 405B pre-training started at a 4M-token batch (Llama 3 paper §3.4.1) [P]",
    True,
)
MICRO_BATCH = Fact(1, "sequences", "one sequence per micro-batch [E: assumed]", True)
ZERO_STAGE = Fact(
    1,
    "",
    "optimizer state sharded over the data-parallel group (ZeRO stage 1, the "
    "Megatron-LM distributed optimizer) [E: assumed]; stages 2-3 are tried when "
    "it does not fit",
    True,
)
RECOMPUTE_SOURCE = (
    "activations per layer s b h (34 + 5 a s / h) / t, selective recompute "
    "s b h 34 / t, full recompute 2 s b h (Korthikanti et al., MLSys 2023, "
    "Table 2) [P]; 1F1B keeps about L layers' worth on the first stage"
)
TP_LIMIT = Fact(
    8,
    "GPUs",
    "TP up to the GPUs of a server, then PP (Narayanan et al. SC21, takeaway 1) "
    "[P]; NVL72 recipes still use TP 2-8 (workload.md §4) [S]",
    True,
)
LORA_RANK = Fact(
    16,
    "",
    "rank-16 adapters on the four attention projections [E: assumed]",
    True,
)
LORA_SHARE = Fact(
    0.0025,
    "of parameters",
    "trainable share when the shape is unknown: rank 16 on four h x h "
    "projections is 0.12-0.24 % of Llama 3 8B-70B [E]",
    True,
)
YEARS = Fact(
    5,
    "years",
    "depreciation: Amazon 5 years (subset, from 2025), Meta 5.5, Microsoft and "
    "Alphabet 6 (10-K filings, workload.md §6) [S]",
    True,
)
UTILIZATION = Fact(
    1.0,
    "",
    "full use, as workload.md §6 defines the owned cost per GPU-hour",
    True,
)
PUE = Fact(
    1.3,
    "",
    "new large sites 1.3 or better; the 2024 average is 1.56 (Uptime, workload.md "
    "§6) [S]",
    True,
)
USD_PER_KWH = Fact(
    0.0806,
    "USD/kWh",
    "US industrial electricity 8.06 cents/kWh, 2023 (EIA, workload.md §6) [S]",
    True,
)
OPS_USD_PER_GPU_HOUR = Fact(
    0.30,
    "USD/GPU-h",
    "operations allowance of workload.md §6's worked example [E]",
    True,
)
INFERENCE_SEQUENCES = Fact(
    1, "sequences", "one sequence in flight per replica [E: assumed]", True
)


@dataclass(frozen=True)
class RefRate:
    """A built-in cloud reference price per GPU-hour."""

    name: str
    gpu: str
    usd_per_gpu_hour: float
    source: str
    date: str | None


CLOUD_RATES: tuple[RefRate, ...] = (
    RefRate(
        "Market H100 on-demand (midpoint of $2.00-2.50)",
        "H100",
        2.25,
        "workload.md §6: market H100 on-demand about $2.00-2.50/GPU-h [S]",
        "2026-05",
    ),
    RefRate(
        "AWS EC2 Capacity Blocks p5.48xlarge ($39.33/h for 8 GPUs)",
        "H100",
        39.33 / 8,
        "workload.md §6 [P]; price valid until Jan 2025",
        "2025-01",
    ),
    RefRate(
        "CoreWeave HGX H100 ($49.24 per 8-GPU hour)",
        "H100",
        49.24 / 8,
        "workload.md §6 [S]",
        "2026-02",
    ),
    RefRate(
        "B200 on specialised clouds (midpoint of $4.50-6.00)",
        "B200",
        5.25,
        "workload.md §6 [S]; the reference gives no date",
        None,
    ),
)
"""The first rate of a GPU family is the default cloud rate for that family."""

GPU_FAMILY: dict[str, str] = {"H100 SXM": "H100", "B200": "B200"}
"""Catalog GPU model -> the family the reference rates are quoted for."""
