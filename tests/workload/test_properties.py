"""Properties: scaling of compute, fabric and failures, on formulas and designs."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.core.workload import Workload
from designer.io import load_design
from designer.workload import estimate, read_design
from designer.workload import formulas as f
from tests.hypo import examples
from tests.workload.conftest import SAMPLES, dgx_tree, run


@given(
    flops=st.floats(1e18, 1e27),
    gpus=st.integers(1, 100_000),
    mfu=st.floats(0.05, 1.0),
)
def test_doubling_gpus_halves_the_days(flops: float, gpus: int, mfu: float) -> None:
    one = f.training_days(flops, gpus, 989e12, mfu)
    assert f.training_days(flops, 2 * gpus, 989e12, mfu) == pytest.approx(one / 2)


_FIXED = dict(tp=8, pp=1, cp=1, vpp=1, micro_batch=1, zero_stage=1)


@pytest.mark.parametrize("nodes", [16, 32])
def test_doubling_gpus_halves_compute_per_step(nodes: int) -> None:
    """Same model, plan shape and batch on twice the DGX: half the compute time;
    the days halve too, less what the (unchanged) DP traffic per step costs."""
    small = run(
        dgx_tree(nodes), model="llama3-8b", global_batch_tokens=2048 * 8192, **_FIXED
    )
    big = run(
        dgx_tree(2 * nodes),
        model="llama3-8b",
        global_batch_tokens=2048 * 8192,
        **_FIXED,
    )
    assert big.parallelism.gpus_used == 2 * small.parallelism.gpus_used
    assert small.step.compute_s is not None and big.step.compute_s is not None
    assert big.step.compute_s == pytest.approx(small.step.compute_s / 2)
    assert big.days is not None and small.days is not None
    assert small.days / 2 <= big.days <= small.days / 2 * 1.05


def test_rail_local_dp_ring_barely_notices_leaf_oversubscription() -> None:
    """64 DGX (two rail-leaf groups), TP 8: each DP ring runs on one rail and
    leaves its leaf group once, so 2:1 and 4:1 leaves cost it almost nothing
    (issue 17); the legacy fabric factor still reports the tier ratio."""
    times = []
    for ratio in (1.0, 2.0, 4.0):
        est = run(dgx_tree(64, ratio), model="llama3-8b", dp=64, **_FIXED)
        assert est.step.dp_crosses_leaves is True
        assert est.step.fabric_factor == pytest.approx(1 / ratio)
        times.append(est.step.dp_comm_s)
    assert times == sorted(times)
    assert times[2] == pytest.approx(times[0], rel=0.05)


def test_a_job_inside_one_leaf_group_does_not_see_the_oversubscription() -> None:
    full = run(dgx_tree(64, 1.0), model="llama3-8b", dp=32, **_FIXED)
    over = run(dgx_tree(64, 4.0), model="llama3-8b", dp=32, **_FIXED)
    assert over.step.dp_crosses_leaves is False
    assert over.step.dp_comm_s == pytest.approx(full.step.dp_comm_s)
    assert over.step.step_s == pytest.approx(full.step.step_s)


@given(
    write=st.floats(1.0, 3600.0),
    mtbf=st.floats(600.0, 1e7),
    worse=st.floats(1.0, 100.0),
    restart=st.floats(0.0, 3600.0),
)
def test_more_failures_never_raise_goodput(
    write: float, mtbf: float, worse: float, restart: float
) -> None:
    """Young's optimum: lost = sqrt(2 delta / M) + R / M grows as M shrinks."""

    def lost(m: float) -> float:
        return f.lost_fraction(write, f.young_interval(write, m), m, restart)

    assert lost(mtbf / worse) >= lost(mtbf) - 1e-12


_SAMPLE = load_design(SAMPLES / "dgx-h100-superpod-4su.json")  # has storage
_FACTS = read_design(_SAMPLE)


@pytest.mark.slow
@settings(max_examples=examples(15), deadline=None)
@given(rates=st.lists(st.floats(0.0, 0.05), min_size=2, max_size=4))
def test_more_failures_never_raise_goodput_on_a_design(rates: list[float]) -> None:
    goodputs = []
    for rate in sorted(rates):
        est = estimate(
            _SAMPLE,
            overrides=Workload(model="llama3-70b", failure_rate_per_gpu_day=rate),
            design_facts=_FACTS,
        )
        assert est.reliability.goodput is not None
        goodputs.append(est.reliability.goodput)
    assert all(b <= a + 1e-12 for a, b in pairwise(goodputs))
    assert all(0.0 <= g <= 1.0 for g in goodputs)


def test_n_minus_1_never_above_live_on_oversubscribed_trees() -> None:
    for ratio in (1.0, 2.0, 4.0):
        n1 = run(dgx_tree(64, ratio), model="llama3-8b").n_minus_1
        assert n1.bisection_ratio_after is not None
        assert n1.bisection_ratio_after_lower is not None
        assert n1.bisection_ratio_after_lower <= n1.bisection_ratio_after
        assert n1.bisection_ratio_after <= n1.bisection_ratio_live + 1e-12
        for tier, ratio_after in n1.by_tier.items():
            assert ratio_after <= n1.bisection_ratio_live + 1e-12, tier
