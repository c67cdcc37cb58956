"""Golden tests of the step model: published runs, their plan forced, MFU
predicted (never given). Each test states its tolerance before comparing.

Sources:
- Llama 3 405B (Meta, "The Llama 3 Herd of Models", 2024, Table 4): 8,192 H100,
  TP 8 CP 1 PP 16 DP 64, 8K sequence, 16M-token batch: 430 TFLOP/s per GPU;
  16,384 H100, DP 128: 400; CP 16 at a 131K sequence, DP 8: 380.
- Megatron-LM 1T (Narayanan et al., SC21, Table 1): 3,072 A100, TP 8 PP 64,
  batch 3,072 x 2,048, full recompute: 163 TFLOP/s per GPU, 52 % of peak
  counting the recomputed forward (HFU).
- MegaScale 175B (Jiang et al., NSDI 2024): 12,288 GPUs (A100), 55.2 % MFU;
  its plan (TP 8, PP 8, interleaved) and batch 6,144 x 2,048 from the paper's
  strong-scaling table; sliding-window attention and the parallel block are not
  modelled.
- NVIDIA Megatron-Bridge performance summary (NeMo 25.09, DGX-H100, FP8):
  Llama 3 70B on 64 H100, TP 4 PP 8 VP 5, GBS 128: 727 TFLOP/s; Llama 3.1
  405B on 1,024 H100, TP 8 PP 8 CP 2 VP 8, GBS 512: 763; DeepSeek-V3 on
  1,024 H100, TP 2 PP 8 VP 4 EP 64, GBS 8,192: 338; Llama 3 8B on 8 H100,
  FSDP, GBS 128: 725.
The 16K-GPU fabrics are rail-optimized non-blocking fat trees as in the DGX
SuperPOD RA (SUs of 32 DGX, 8 x 400G per node), built as a FabricView; the
64-GPU run uses a generated design.
"""

from __future__ import annotations

import pytest

from designer.core.workload import Precision, Recompute
from designer.generate import fat_tree
from designer.workload import facts, read_design
from designer.workload.collectives import FabricView, Level
from designer.workload.presets import ModelSpec, custom, preset
from designer.workload.step import Efficiency, Hardware, StepPlan, step

DENSE = 0.12
"""Dense runs: predicted TFLOP/s per GPU within 12 % of the published figure."""
MOE = 0.20
"""MoE runs: within 20 % (routing balance and dispatch kernels vary most)."""


def superpod(gpus: int, nic: float = 50e9, nvlink: float = 450e9) -> FabricView:
    """A non-blocking rail-optimized SuperPOD of ``gpus`` 8-GPU nodes."""
    levels = [Level("leaf", 32, 256, 256 * nic)]
    if gpus > 2048:
        levels.append(Level("spine", 256, 2048, 2048 * nic))
    return FabricView(gpus, 8, nvlink, nic, tuple(levels), gpus / 2 * nic)


def hw(gen: str, precision: Precision) -> Hardware:
    bf16 = {"hopper": 989e12, "ampere": 312e12}[gen]
    peak = bf16 * (2 if precision is Precision.FP8 else 1)
    eff = facts.EFFICIENCY[(gen, precision.value)].value
    att = facts.ATTENTION_EFFICIENCY.value
    return Hardware(peak, bf16, Efficiency(eff, att, ""), precision)


L405 = preset("llama3-405b")
T1 = ModelSpec(
    "1t",
    "Megatron 1T",
    1008e9,
    layers=128,
    hidden=25600,
    heads=160,
    seq_len=2048,
    vocab=51200,
)
G175 = ModelSpec(
    "175b",
    "MegaScale 175B",
    175e9,
    layers=96,
    hidden=12288,
    heads=128,
    seq_len=2048,
    vocab=64000,
)

CASES = [
    # name, spec, plan, view, gen, precision, seq, batch tokens, published, tol
    (
        "Llama 3 405B, 8,192 H100",
        L405,
        StepPlan(tp=8, pp=16, dp=64, vpp=4, zero=1, recompute=Recompute.NONE),
        superpod(8192),
        "hopper",
        Precision.BF16,
        8192,
        16e6,
        430.0,
        DENSE,
    ),
    (
        "Llama 3 405B, 16,384 H100",
        L405,
        StepPlan(tp=8, pp=16, dp=128, vpp=4, zero=1, recompute=Recompute.NONE),
        superpod(16384),
        "hopper",
        Precision.BF16,
        8192,
        16e6,
        400.0,
        DENSE,
    ),
    (
        "Llama 3 405B, 16,384 H100, 131K context (CP 16)",
        custom(L405, seq_len=131072),
        StepPlan(tp=8, pp=16, dp=8, cp=16, vpp=4, zero=1, recompute=Recompute.NONE),
        superpod(16384),
        "hopper",
        Precision.BF16,
        131072,
        16e6,
        380.0,
        DENSE,
    ),
    (
        "MegaScale 175B, 12,288 A100",
        G175,
        StepPlan(tp=8, pp=8, dp=192, vpp=6, zero=1, recompute=Recompute.SELECTIVE),
        superpod(12288, nic=25e9, nvlink=300e9),
        "ampere",
        Precision.BF16,
        2048,
        6144 * 2048,
        0.552 * 312,
        DENSE,
    ),
    (
        "NeMo Llama 3 70B FP8, 64 H100",
        preset("llama3-70b"),
        StepPlan(tp=4, pp=8, dp=2, vpp=5, zero=1, recompute=Recompute.NONE),
        superpod(64),
        "hopper",
        Precision.FP8,
        8192,
        128 * 8192,
        727.0,
        DENSE,
    ),
    (
        "NeMo Llama 3.1 405B FP8, 1,024 H100",
        L405,
        StepPlan(tp=8, pp=8, dp=8, cp=2, vpp=8, zero=1, recompute=Recompute.NONE),
        superpod(1024),
        "hopper",
        Precision.FP8,
        8192,
        512 * 8192,
        763.0,
        DENSE,
    ),
    (
        "NeMo Llama 3 8B FP8, 8 H100 (FSDP)",
        preset("llama3-8b"),
        StepPlan(tp=1, pp=1, dp=8, zero=3, recompute=Recompute.NONE),
        superpod(8),
        "hopper",
        Precision.FP8,
        8192,
        128 * 8192,
        725.0,
        DENSE,
    ),
    (
        "NeMo DeepSeek-V3 FP8, 1,024 H100",
        preset("deepseek-v3"),
        StepPlan(
            tp=2, pp=8, dp=64, vpp=4, ep=64, zero=1, recompute=Recompute.SELECTIVE
        ),
        superpod(1024),
        "hopper",
        Precision.FP8,
        4096,
        8192 * 4096,
        338.0,
        MOE,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_published_plan_gives_published_throughput(case: tuple) -> None:  # type: ignore[type-arg]
    _, spec, plan, view, gen, precision, seq, batch, published, tol = case
    r = step(spec, plan, view, hw(gen, precision), seq=seq, batch_tokens=batch)
    assert r.tflops_per_gpu == pytest.approx(published, rel=tol)


def test_megatron_1t_52_percent_is_hfu_not_mfu() -> None:
    """SC21's 52 % counts the recomputed forward pass: tolerance 12 % on the
    HFU; the MFU (without the recompute) comes out a quarter lower."""
    plan = StepPlan(tp=8, pp=64, dp=6, zero=0, recompute=Recompute.FULL)
    r = step(
        T1,
        plan,
        superpod(3072, nic=25e9, nvlink=300e9),
        hw("ampere", Precision.BF16),
        seq=2048,
        batch_tokens=3072 * 2048,
    )
    assert r.hfu == pytest.approx(0.52, rel=DENSE)
    assert r.mfu == pytest.approx(r.hfu * 3 / 4, rel=0.05)


def test_16k_runs_slower_per_gpu_than_8k_as_published() -> None:
    """Table 4: 430 -> 400 TFLOP/s from 8K to 16K GPUs (half the micro-batches
    per pipeline, a larger bubble share)."""
    a = step(
        L405,
        CASES[0][2],
        superpod(8192),
        hw("hopper", Precision.BF16),
        seq=8192,
        batch_tokens=16e6,
    )
    b = step(
        L405,
        CASES[1][2],
        superpod(16384),
        hw("hopper", Precision.BF16),
        seq=8192,
        batch_tokens=16e6,
    )
    assert b.tflops_per_gpu < a.tflops_per_gpu
    assert a.tflops_per_gpu / b.tflops_per_gpu == pytest.approx(430 / 400, rel=0.05)
    assert b.bubble_s / b.step_s > a.bubble_s / a.step_s


def test_fp8_is_not_peak_times_two() -> None:
    """Published FP8 runs imply far less than twice the BF16 throughput."""
    plan = StepPlan(tp=4, pp=8, dp=2, vpp=5, zero=1, recompute=Recompute.NONE)
    spec = preset("llama3-70b")
    bf = step(
        spec,
        plan,
        superpod(64),
        hw("hopper", Precision.BF16),
        seq=8192,
        batch_tokens=128 * 8192,
    )
    f8 = step(
        spec,
        plan,
        superpod(64),
        hw("hopper", Precision.FP8),
        seq=8192,
        batch_tokens=128 * 8192,
    )
    assert 1.2 < f8.tokens_per_s / bf.tokens_per_s < 1.8
    assert f8.mfu < bf.mfu


def test_same_run_on_a_generated_design_matches_the_superpod_view() -> None:
    """The 64-GPU NeMo run on a drawn 8 x DGX H100 design (one rail group)."""
    view = read_design(fat_tree("dgx-h100", 8, "qm9700")).fabric()
    plan = StepPlan(tp=4, pp=8, dp=2, vpp=5, zero=1, recompute=Recompute.NONE)
    r = step(
        preset("llama3-70b"),
        plan,
        view,
        hw("hopper", Precision.FP8),
        seq=8192,
        batch_tokens=128 * 8192,
    )
    assert r.tflops_per_gpu == pytest.approx(727.0, rel=DENSE)
