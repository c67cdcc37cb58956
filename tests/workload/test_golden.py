"""Golden tests: workload.md's worked examples and published runs."""

from __future__ import annotations

import pytest

from designer.core.workload import Job
from designer.workload import formulas as f
from designer.workload.presets import preset
from tests.workload.conftest import dgx_tree, run


def test_7b_on_1t_tokens_on_64_h100_takes_19_2_days() -> None:
    """workload.md §2: 4.2e22 FLOPs, 19.2 days on 64 H100 at 40 % MFU."""
    flops = f.training_flops(7e9, 1e12)
    assert flops == pytest.approx(4.2e22)
    assert f.training_days(flops, 64, 989e12, 0.4) == pytest.approx(19.2, abs=0.05)
    # the same through the estimate of a 64-GPU design (8 DGX H100, one leaf)
    est = run(dgx_tree(8), params=7e9, tokens=1e12, mfu=0.4)
    assert est.gpus == 64 and est.parallelism.gpus_used == 64
    assert est.flops_total == pytest.approx(4.2e22)  # no shape: 6 N D only
    assert est.days == pytest.approx(19.2, abs=0.05)


def test_llama3_8b_kv_cache_is_131072_bytes_per_token() -> None:
    """workload.md §3: 2 x 32 x 8 x 128 x 2 = 131,072 B; 1.07 GB per 8,192."""
    assert f.kv_bytes_per_token(32, 8, 128, 2) == 131_072
    est = run(dgx_tree(8), model="llama3-8b", job=Job.INFERENCE)
    assert est.kv_cache_bytes_per_token == 131_072
    # one replica, the default context (8,192) and one sequence in flight
    assert est.memory_gb_total.kv_cache == pytest.approx(1.07, abs=0.005)


def test_7b_full_fine_tune_holds_112_gb_and_needs_more_than_one_h100() -> None:
    """workload.md §3: 7e9 x 16 B = 112 GB > one 80 GB H100; LoRA fits on one."""
    est = run(dgx_tree(8), params=7e9, job=Job.FINETUNE)
    total = est.memory_gb_total
    assert (total.weights, total.gradients, total.optimizer) == pytest.approx(
        (14.0, 14.0, 84.0)
    )
    assert total.total == pytest.approx(112.0)
    assert est.min_gpus is not None and est.min_gpus >= 2
    lora = run(dgx_tree(8), params=7e9, job=Job.LORA)
    assert lora.min_gpus == 1


def test_dp_all_reduce_example_3_875_gb_in_0_0775_s() -> None:
    """workload.md §4: 8B, TP 8, PP 1, DP 32 on 32 DGX H100 (50 GB/s per GPU)."""
    shard = 8e9 / 8 * 2
    moved = f.all_reduce_bytes(shard, 32)
    assert moved == pytest.approx(3.875e9)
    assert moved / 50e9 == pytest.approx(0.0775)
    est = run(dgx_tree(32), params=8e9, tp=8, pp=1, dp=32)
    assert est.step.nic_gbytes_s_per_gpu == pytest.approx(50.0)  # 8 x 400G per DGX
    assert est.step.fabric_factor == 1.0  # 32 nodes: one rail-leaf group
    # the estimate applies Calculon's 0.9 network efficiency on top
    assert est.step.dp_comm_s == pytest.approx(0.0775 / 0.9)


def test_young_daly_example_19_3_minutes_10_4_percent() -> None:
    """workload.md §5: M = 11,124 s, delta = 60 s."""
    tau = f.young_interval(60.0, 11_124.0)
    assert tau == pytest.approx(1_156, abs=1.0)
    assert tau / 60 == pytest.approx(19.3, abs=0.05)
    assert f.lost_fraction(60.0, tau, 11_124.0, 0.0) == pytest.approx(0.104, abs=5e-4)


def test_default_failure_rate_gives_about_50_h_at_1024_gpus() -> None:
    """workload.md §5: 419 / (16,384 x 54) = 4.7e-4 per GPU-day; ~50 h at 1,024."""
    est = run(dgx_tree(128), model="llama3-8b")
    assert est.parallelism.gpus_used == 1024
    assert est.reliability.mtbf_hours == pytest.approx(24 / (1024 * 4.7e-4))
    assert est.reliability.mtbf_hours == pytest.approx(50, abs=1)


def test_tco_example_1_48_per_gpu_hour_and_66_percent_break_even() -> None:
    """workload.md §6: $46k, 5 years, 1.275 kW, PUE 1.3, $0.08, $0.30 ops."""
    owned = f.owned_usd_per_gpu_hour(46_000, 5, 1.275, 1.3, 0.08, 0.30)
    assert owned == pytest.approx(1.050 + 0.1326 + 0.300, abs=1e-3)
    assert round(owned, 2) == 1.48
    assert f.breakeven_utilization(owned, 2.25) == pytest.approx(0.66, abs=0.005)
    # through the estimate: the design's own kW per GPU, the example's other inputs
    design = dgx_tree(8)
    est = run(
        design,
        params=7e9,
        capex_per_gpu=46_000,
        years=5,
        pue=1.3,
        usd_per_kwh=0.08,
        ops_usd_per_gpu_hour=0.30,
        cloud_usd_per_gpu_hour=2.25,
    )
    kw = est.tco.kw_per_gpu
    assert kw is not None
    expect = 46_000 / (5 * 8760) + kw * 1.3 * 0.08 + 0.30
    assert est.tco.owned_usd_per_gpu_hour == pytest.approx(expect)
    assert est.tco.breakeven_utilization == pytest.approx(expect / 2.25)


def test_llama3_405b_flops_and_h100_hours_at_the_published_mfu() -> None:
    """Model card: 3.8e25 FLOPs and 30.84M H100-hours. 6 N D gives the FLOPs;
    with the attention term at the low end of the published 38-43 % MFU the
    GPU-hours land within 2 % of the published total (which also holds the
    time lost to failures and restarts)."""
    spec = preset("llama3-405b")
    assert spec.tokens is not None
    assert round(f.training_flops(405e9, spec.tokens) / 1e25, 1) == 3.8
    est = run(dgx_tree(128), model="llama3-405b", mfu=0.38)
    assert est.flops_6nd == pytest.approx(3.79e25, rel=0.01)
    assert est.gpu_hours == pytest.approx(30.84e6, rel=0.02)
    # 6 N D alone at 38 % falls 9 % short: the attention term matters
    assert f.gpu_hours(est.flops_6nd, 989e12, 0.38) < 0.92 * 30.84e6


def test_deepseek_v3_published_hours_imply_a_plausible_mfu() -> None:
    """2.788M H800-hours for 6 x 37B x 14.8T: about 327 TFLOP/s per GPU, 33 %
    of the H800's BF16 peak (it trained in FP8, so 17 % of that peak)."""
    spec = preset("deepseek-v3")
    assert spec.active == 37e9 and spec.tokens == 14.8e12
    per_gpu = f.training_flops(spec.active, spec.tokens) / (2.788e6 * 3600)
    assert per_gpu / 989e12 == pytest.approx(0.33, abs=0.01)
