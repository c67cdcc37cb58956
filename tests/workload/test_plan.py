"""Memory accounting, the plan search, the fewest GPUs, and the chart series."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.core.workload import Job, Precision, Recompute, Workload
from designer.workload import estimate
from designer.workload.curves import cost_vs_utilization, days_vs_gpus
from designer.workload.formulas import activation_bytes_per_layer
from designer.workload.plan import (
    Plan,
    Space,
    Work,
    choose,
    ladder_needs,
    memory,
    min_gpus,
)
from designer.workload.presets import PRESETS, custom, preset
from tests.hypo import examples
from tests.workload.conftest import dgx_tree, run

GB = 1e9


def work(name: str, job: Job = Job.PRETRAIN) -> Work:
    spec = preset(name)
    return Work(spec, job, Precision.BF16, spec.seq_len, 1, 0.0, spec.seq_len, 1)


def test_zero_stages_shard_what_they_should() -> None:
    w = work("llama3-70b")
    n = 70.6e9
    for zero, expect in (
        (0, (2 * n / 8, 2 * n / 8, 12 * n / 8)),
        (1, (2 * n / 8, 2 * n / 8, 12 * n / 64)),
        (2, (2 * n / 8, 2 * n / 64, 12 * n / 64)),
        (3, (2 * n / 64, 2 * n / 64, 12 * n / 64)),
    ):
        m = memory(w, Plan(8, 1, 8, zero, Recompute.SELECTIVE))
        assert (m.weights, m.gradients, m.optimizer) == pytest.approx(expect)


def test_activations_follow_korthikanti() -> None:
    # 34 s b h / t per layer with selective recompute; 2 s b h with full
    sbh = 8192 * 1 * 8192
    assert activation_bytes_per_layer(8192, 1, 8192, 64, 8, Recompute.SELECTIVE) == (
        pytest.approx(34 * sbh / 8)
    )
    assert activation_bytes_per_layer(8192, 1, 8192, 64, 8, Recompute.FULL) == (
        pytest.approx(2 * sbh)
    )
    full = activation_bytes_per_layer(8192, 1, 8192, 64, 1, Recompute.NONE)
    assert full == pytest.approx(sbh * (34 + 5 * 64 * 8192 / 8192))
    m = memory(work("llama3-70b"), Plan(8, 4, 1, 1, Recompute.SELECTIVE))
    assert m.activations == pytest.approx(80 * 34 * sbh / 8)  # L layers on stage 1


_RECS = [Recompute.NONE, Recompute.SELECTIVE, Recompute.FULL]


@settings(max_examples=examples(150), deadline=None)
@given(
    name=st.sampled_from(sorted(PRESETS)),
    job=st.sampled_from(list(Job)),
    shape=st.tuples(*(st.sampled_from([1, 2, 4, 8]) for _ in range(6))),
    micro_batch=st.sampled_from([1, 2, 4]),
    micro_batches=st.one_of(st.none(), st.integers(1, 64)),
    recs=st.lists(st.sampled_from(_RECS), min_size=1, max_size=3, unique=True),
    zeros=st.lists(st.integers(0, 3), min_size=1, max_size=4, unique=True),
    zero_major=st.booleans(),
)
def test_a_ladders_needs_are_memorys_totals_exactly(
    name: str,
    job: Job,
    shape: tuple[int, ...],
    micro_batch: int,
    micro_batches: int | None,
    recs: list[Recompute],
    zeros: list[int],
    zero_major: bool,
) -> None:
    """The plan search reads a ladder's needs from ladder_needs: each equals
    memory()'s total of that rung, float for float, in the order asked."""
    spec = preset(name)
    seq = spec.seq_len
    w = Work(spec, job, Precision.FP8, seq, micro_batch, 3e6, seq, 4)
    tp, pp, dp, vpp, cp, ep = shape
    layout = Plan(tp, pp, dp, zeros[0], recs[0], vpp, cp, ep, micro_batch)
    rungs = [(r, z) for r in recs for z in zeros]
    if zero_major:
        rungs = [(r, z) for z in zeros for r in recs]
    got = ladder_needs(w, layout, rungs, micro_batches)
    want = [
        memory(w, Plan(tp, pp, dp, z, r, vpp, cp, ep, micro_batch), micro_batches).total
        for r, z in rungs
    ]
    assert got == want


def test_min_gpus_is_the_smallest_count_that_fits() -> None:
    """min_gpus fits, and one GPU fewer fits with no plan of the search."""
    space = Space(None, None, None, None, None, 8)
    capacity = 80 * GB
    for name in ("llama3-8b", "llama3-70b"):
        w = work(name, Job.FINETUNE)
        found = min_gpus(w, space, capacity)
        assert found is not None
        n, plan = found
        assert plan.gpus == n
        assert memory(w, plan).total <= capacity
        _, fits, _ = choose(w, space, n, capacity)
        assert fits
        if n > 1:
            _, fits_less, _ = choose(w, space, n - 1, capacity)
            assert not fits_less, (name, n)


@settings(max_examples=examples(25), deadline=None)
@given(params=st.floats(1e9, 500e9), memory_gb=st.sampled_from([48, 80, 141, 180]))
def test_more_memory_never_needs_more_gpus(params: float, memory_gb: int) -> None:
    spec = custom(None, params=params)
    w = Work(spec, Job.FINETUNE, Precision.BF16, None, 1, 0.0, None, 1)
    space = Space(None, None, None, None, None, 8)
    small = min_gpus(w, space, memory_gb * GB)
    big = min_gpus(w, space, 2 * memory_gb * GB)
    assert small is not None and big is not None
    assert big[0] <= small[0]


def test_given_tp_beyond_the_nvlink_domain_is_flagged() -> None:
    est = run(dgx_tree(8), model="llama3-70b", tp=16, pp=1, dp=4)
    assert est.parallelism.tp_within_nvlink is False
    assert any(f.code == "TP_SPANS_NVLINK_DOMAINS" for f in est.findings)
    searched = run(dgx_tree(8), model="llama3-70b")
    assert searched.parallelism.tp <= 8 and searched.parallelism.tp_within_nvlink


def test_a_job_that_does_not_fit_says_so_and_times_nothing() -> None:
    est = run(dgx_tree(1), model="llama3-70b", job=Job.FINETUNE)
    assert est.gpus == 8 and est.fits is False
    finding = next(f for f in est.findings if f.code == "WORKLOAD_DOES_NOT_FIT")
    assert "1,130 GB of training state on 8 x 80 GB" in finding.message
    assert est.days is None and "does not fit" in est.unknown["days"]
    assert est.min_gpus is not None and est.min_gpus > 8


def test_inference_plan_is_the_serving_replica() -> None:
    """The fewest GPUs that hold the model stay ``min_gpus``; the plan is the
    serving model's best replica (issue 19: one sequence per replica was no
    answer), replicas as DP."""
    est = run(
        dgx_tree(2), model="llama3-70b", job=Job.INFERENCE, precision=Precision.FP8
    )
    assert est.min_gpus == 1  # 70.6 GB of FP8 weights + 2.7 GB of KV on 80 GB
    inf = est.inference
    assert inf is not None
    assert est.parallelism.tp == inf.replica.tp and est.parallelism.dp == inf.replicas
    assert est.parallelism.gpus_used == inf.replicas * inf.replica.gpus
    bf16 = run(dgx_tree(2), model="llama3-70b", job=Job.INFERENCE)
    assert bf16.min_gpus == 2
    assert bf16.inference is not None and bf16.inference.replica.gpus >= 2


def test_moe_memory_holds_every_expert_but_flops_use_the_active() -> None:
    est = run(dgx_tree(64), model="deepseek-v3", tokens=1e12)
    assert est.memory_gb_total.weights == pytest.approx(671e9 * 2 / GB)
    assert est.flops_6nd == pytest.approx(6 * 37e9 * 1e12)
    assert est.kv_cache_bytes_per_token == 61 * 576 * 2  # MLA latent, BF16


def test_a_model_on_top_replaces_the_blocks_model() -> None:
    design = dgx_tree(8)
    design.workload = Workload(params=7e9, layers=32, tokens=2e12)
    est = estimate(design, overrides=Workload(model="llama3-70b"))
    assert est.model.params == PRESETS["llama3-70b"].params
    assert est.model.layers == 80
    origin = {a.name: a.origin for a in est.assumptions}
    assert origin["tokens"] == "design file"  # the rest still merges field by field


def test_chart_series_agree_with_the_figures() -> None:
    est = run(dgx_tree(8), model="llama3-8b", tokens=1e12, cloud_usd_per_gpu_hour=2.25)
    series = dict(days_vs_gpus(est, [32, 64, 128]))
    assert series[64] == pytest.approx(est.days)
    assert series[128] == pytest.approx(est.days / 2)
    cost = cost_vs_utilization(est, [0.25, 0.5, 1.0])
    owned = est.tco.owned_usd_per_gpu_hour
    assert cost[-1] == pytest.approx((1.0, owned, 2.25))
    assert cost[0][1] == pytest.approx(4 * owned)
    be = est.tco.breakeven_utilization
    assert be is not None and owned / be == pytest.approx(2.25)
