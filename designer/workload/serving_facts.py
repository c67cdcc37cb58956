"""Serving defaults and GPU facts the serving model adds to :mod:`.facts`, each
with its source (docs/serving-model.md). Marks: [P] primary, [S] secondary,
[E] derived or assumed here; a figure marked [E] or [S] is an estimate.
"""

from __future__ import annotations

from designer.workload.facts import Fact

HBM_TBYTES_S: dict[str, Fact] = {
    "A100 SXM 80GB": Fact(2.039, "TB/s", "NVIDIA A100 80GB SXM datasheet [P]", False),
    "H100 SXM": Fact(
        3.35, "TB/s", "H100 SXM 80 GB HBM3, 3.35 TB/s (hardware.md §2.1) [S]", True
    ),
    "H200 SXM": Fact(
        4.8, "TB/s", "H200 SXM 141 GB HBM3e, 4.8 TB/s (hardware.md §2.1) [S]", True
    ),
    "B200": Fact(8.0, "TB/s", "B200 HBM3e 8 TB/s (hardware.md §2.1) [S]", True),
    "B200 (GB200)": Fact(
        8.0,
        "TB/s",
        "GB200 8 TB/s per GPU (hardware.md §2.1) [S]; Azure measured 7.35 TB/s on "
        "ND GB200 v6 (Azure HPC blog, 2025) [S]",
        True,
    ),
    "B300": Fact(8.0, "TB/s", "B300 HBM3e 8 TB/s (hardware.md §2.1) [S]", True),
    "B300 (GB300)": Fact(
        8.0, "TB/s", "GB300 HBM3e 8 TB/s (hardware.md §2.1) [S]", True
    ),
    "L40S": Fact(0.864, "TB/s", "NVIDIA L40S datasheet, 864 GB/s GDDR6 [P]", False),
    "Rubin": Fact(
        13.0,
        "TB/s",
        "Rubin HBM4: sources conflict, ~13 vs 22 TB/s (hardware.md §2.1) [S]; the "
        "lower figure is used",
        True,
    ),
}
"""HBM bandwidth per GPU by the catalog's ``x-designer.gpu.model``."""

HBM_EFFICIENCY = Fact(
    0.80,
    "",
    "achievable share of HBM bandwidth in decode: Azure measured 92 % of GB200's "
    "8 TB/s with a streaming kernel (Azure HPC blog, 2025) [S]; attention and "
    "GEMV kernels of a decode step reach less; 80 % assumed [E]",
    True,
)

_CAL = (
    "calibrated [E]: set once so that the MLPerf Inference result named here "
    "matches; every other published result in tests/workload/"
    "test_serving_golden.py is a holdout"
)
SERVING_EFFICIENCY: dict[tuple[str, str], Fact] = {
    ("ampere", "bf16"): Fact(
        0.55,
        "",
        "A100 BF16 inference GEMMs: the training share (0.65, step model) less "
        "the unfused serving kernels [E]",
        True,
    ),
    ("hopper", "bf16"): Fact(
        0.50,
        "",
        "H100/H200 BF16 inference: the FP8 share's ratio to the training share "
        "applied to BF16 [E]",
        True,
    ),
    ("hopper", "fp8"): Fact(
        0.43,
        "",
        "H100/H200 FP8 (of the FP8 dense peak): "
        + _CAL
        + " (DGX H100, Llama 2 70B Offline, 24,524.9 tokens/s, MLPerf Inference "
        "v4.1 closed, NVIDIA [P])",
        True,
    ),
    ("blackwell", "bf16"): Fact(
        0.45,
        "",
        "Blackwell BF16 inference: no published run; assumed [E]",
        True,
    ),
    ("blackwell", "fp8"): Fact(
        0.40,
        "",
        "Blackwell FP8 inference: no closed result at FP8 in the stored rounds; "
        "the Hopper share less 0.03, as in the training table [E]",
        True,
    ),
    ("blackwell", "fp4"): Fact(
        0.35,
        "",
        "Blackwell NVFP4 (of the FP4 dense peak): "
        + _CAL
        + " (1 x B200, Llama 2 70B Offline, 11,264.4 tokens/s, MLPerf Inference "
        "v4.1 closed, NVIDIA [P])",
        True,
    ),
    ("ada", "bf16"): Fact(0.45, "", "L40S BF16 inference: assumed [E]", True),
    ("ada", "fp8"): Fact(0.38, "", "L40S FP8 inference: assumed [E]", True),
    ("rubin", "fp4"): Fact(
        0.35, "", "Rubin NVFP4: no published run; Blackwell's share [E]", True
    ),
}
"""Achievable share of the dense peak for the GEMMs of prefill and of a
compute-bound decode step, by GPU generation and the precision the math runs
at. Inference shares sit above the training ones (no backward, no
data-parallel traffic)."""

ATTENTION_SHARE = Fact(
    0.50,
    "",
    "attention products at the BF16 peak x 0.5 (FlashAttention-2 forward, Dao "
    "2023 [P]; the step model's attention share)",
    True,
)
MOE_SHARE = Fact(
    0.55,
    "of the serving share",
    "routed-expert (grouped) GEMMs of a MoE model: token permutation, routing "
    "and many small per-expert GEMMs; "
    + _CAL
    + " (DGX H100, Mixtral 8x7B Server, 50,795.6 tokens/s, MLPerf Inference v4.1 "
    "closed, NVIDIA [P])",
    True,
)
RUNTIME_RESERVE = Fact(
    0.10,
    "of GPU memory",
    "vLLM's default gpu_memory_utilization = 0.9 leaves 10 % to the CUDA context, "
    "NCCL and the framework (vLLM engine arguments) [P]",
    False,
)
PREFILL_CHUNK = Fact(
    8192,
    "tokens",
    "tokens per scheduler step (TensorRT-LLM max_num_tokens default 8,192) [P]; "
    "the activation workspace is sized for one such chunk",
    True,
)
ACTIVATION_BYTES_PER_TOKEN_HIDDEN = 16.0
"""Workspace per token and hidden element per GPU (QKV, attention output, the
MLP's gate/up and down buffers in BF16, divided over TP) [E]."""

PROMPT_TOKENS = Fact(
    1024,
    "tokens",
    "a chat prompt with its context; MLPerf Llama 2 70B prompts reach 1,024 "
    "tokens (MLCommons LLM task force) [E: default]",
    True,
)
OUTPUT_TOKENS = Fact(256, "tokens", "a chat answer of 256 tokens [E: default]", True)
TTFT_MS = Fact(
    450.0,
    "ms",
    "MLPerf Inference v5.0 Llama 2 70B Interactive: TTFT 450 ms, TPOT 40 ms "
    "(MLCommons LLM task force, April 2025) [P]",
    False,
)
TPOT_MS = Fact(
    40.0,
    "ms",
    "MLPerf Inference v5.0 Llama 2 70B Interactive: TTFT 450 ms, TPOT 40 ms "
    "(MLCommons LLM task force, April 2025) [P]",
    False,
)
KV_DEFAULT_SOURCE = (
    "KV cache in FP8 when the weights are FP8 or FP4 (TensorRT-LLM's MLPerf "
    "submissions quantize the KV cache to FP8), else BF16 [E: default]"
)
MAX_TP = 64
"""Largest tensor-parallel size tried (powers of two dividing the heads)."""
MAX_PP = 16
"""Largest pipeline size tried (powers of two)."""
