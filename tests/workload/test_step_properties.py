"""Property tests of the step model and the plan search (issue 17)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.core.workload import Job, Precision, Recompute
from designer.workload import facts
from designer.workload.collectives import FabricView, Level
from designer.workload.plan import Work, memory
from designer.workload.presets import preset
from designer.workload.search import Fixed, search
from designer.workload.step import Efficiency, Hardware, StepPlan, step
from tests.hypo import examples
from tests.workload.conftest import dgx_tree, run

EFF = facts.EFFICIENCY[("hopper", "bf16")].value
HW = Hardware(989e12, 989e12, Efficiency(EFF, facts.ATTENTION_EFFICIENCY.value, ""))


def view(ratio: float, gpus: int = 4096) -> FabricView:
    """A rail-optimized SuperPOD-like fabric, leaf uplinks at ``ratio``:1."""
    nic = 50e9
    return FabricView(
        gpus,
        8,
        450e9,
        nic,
        (Level("leaf", 32, 256, 256 * nic / ratio, ratio),),
        gpus / 2 * nic / ratio,
    )


MODELS = ["llama3-8b", "llama3-70b", "gpt3-175b", "mixtral-8x7b", "deepseek-v3"]


@settings(max_examples=examples(60), deadline=None)
@given(
    name=st.sampled_from(MODELS),
    tp=st.sampled_from([1, 2, 4, 8, 16]),
    pp=st.sampled_from([1, 2, 4, 8]),
    vpp=st.sampled_from([1, 2]),
    cp=st.sampled_from([1, 2]),
    zero=st.sampled_from([0, 1, 3]),
    rec=st.sampled_from(list(Recompute)),
    b=st.sampled_from([1, 2]),
    ratio=st.sampled_from([1.0, 2.0, 4.0]),
)
def test_mfu_never_exceeds_the_efficiency_default(
    name: str,
    tp: int,
    pp: int,
    vpp: int,
    cp: int,
    zero: int,
    rec: Recompute,
    b: int,
    ratio: float,
) -> None:
    spec = preset(name)
    ep = 8 if spec.is_moe else 1
    dp = max(ep, 4096 // (tp * pp * cp))
    if tp * pp * cp * dp > 4096:
        return
    plan = StepPlan(tp, pp, dp, vpp, cp, ep, zero, rec, b)
    r = step(spec, plan, view(ratio), HW, seq=spec.seq_len or 4096, batch_tokens=16e6)
    assert 0 < r.mfu <= EFF + 1e-12
    assert r.hfu >= r.mfu
    assert r.step_s >= r.compute_s


@pytest.mark.slow
@pytest.mark.parametrize("name", ["llama3-70b", "mixtral-8x7b"])
def test_more_oversubscription_never_shortens_a_step(name: str) -> None:
    spec = preset(name)
    work = Work(spec, Job.PRETRAIN, Precision.BF16, spec.seq_len, 1, 0.0, None, 1)
    steps = []
    for ratio in (1.0, 1.5, 2.0, 4.0, 8.0):
        res = search(
            work,
            Fixed(),
            view(ratio, 1024),
            HW,
            gpus=1024,
            capacity=80e9,
            batch_tokens=4e6,
        )
        assert res.result is not None
        steps.append(res.result.step_s / res.result.tokens)
    assert steps == sorted(steps)
    if spec.is_moe:  # its all-to-all climbs the uplinks: 8:1 must cost time
        assert steps[-1] > steps[0]


@pytest.mark.slow
def test_a_plan_that_does_not_fit_is_never_chosen() -> None:
    for name in MODELS:
        spec = preset(name)
        work = Work(spec, Job.PRETRAIN, Precision.BF16, spec.seq_len, 1, 0.0, None, 1)
        for capacity in (40e9, 80e9, 141e9):
            res = search(
                work,
                Fixed(),
                view(1.0, 512),
                HW,
                gpus=512,
                capacity=capacity,
                batch_tokens=4e6,
            )
            if res.fits:
                assert res.result is not None
                m = res.result.micro_batches
                assert memory(work, res.plan, m).total <= capacity
                for alt in res.alternatives:
                    assert (
                        memory(work, alt.plan, alt.result.micro_batches).total
                        <= capacity
                    )
            else:
                assert res.why_not


@pytest.mark.slow
def test_search_agrees_with_the_naive_search() -> None:
    """The pruned search (memory first, memoised collectives, compute floor)
    finds a plan as fast as timing every candidate does."""
    spec = preset("llama3-8b")
    work = Work(spec, Job.PRETRAIN, Precision.BF16, spec.seq_len, 1, 0.0, None, 1)
    fast = search(
        work, Fixed(), view(2.0, 256), HW, gpus=256, capacity=80e9, batch_tokens=2e6
    )
    slow = search(
        work,
        Fixed(),
        view(2.0, 256),
        HW,
        gpus=256,
        capacity=80e9,
        batch_tokens=2e6,
        naive=True,
    )
    assert fast.result is not None and slow.result is not None
    per = fast.result.step_s / fast.result.tokens
    best = slow.result.step_s / slow.result.tokens
    assert per <= best * 1.02
    assert fast.timed < slow.timed


@pytest.mark.slow
def test_estimate_days_grow_with_oversubscription_and_say_the_non_blocking_days() -> (
    None
):
    """On a drawn 64-node rail-optimized fabric. Dense: TP inside the node puts
    each DP ring on one rail, and a ring crosses the leaf boundary on two links,
    which a 4:1 leaf still carries at full rate: no price, the days stay put.
    MoE with EP 8: the all-to-all sends most of its bytes up the leaves, so a
    4:1 leaf costs days (more than 5 %). The non-blocking figure never moves."""
    for model, extra in (("llama3-70b", {}), ("mixtral-8x7b", {"ep": 8})):
        ests = [
            run(dgx_tree(64, r), model=model, tokens=1e12, **extra)
            for r in (1.0, 2.0, 4.0)
        ]
        days = [e.days for e in ests]
        assert all(d is not None for d in days)
        assert days == sorted(days)  # type: ignore[type-var]
        for e in ests:
            assert e.nonblocking_days is not None and e.days is not None
            assert e.nonblocking_days <= e.days * (1 + 1e-9)
            assert e.step.mfu_source == "model"
            assert e.step.dp_crosses_leaves is True
        nb = [e.nonblocking_days for e in ests]
        assert max(nb) == pytest.approx(min(nb), rel=1e-6)  # type: ignore[type-var]
        one, _, four = days
        if model == "llama3-70b":
            assert four == pytest.approx(one, rel=1e-9)
        else:
            assert four > one * 1.05  # type: ignore[operator]
            assert ests[2].step.ep_comm_s > ests[0].step.ep_comm_s  # type: ignore[operator]


def test_given_mfu_overrides_and_says_so() -> None:
    est = run(dgx_tree(8), model="llama3-8b", tokens=1e12, mfu=0.3)
    assert est.step.mfu_source == "given"
    assert est.days == pytest.approx(
        est.flops_total / (est.parallelism.gpus_used * 989e12 * 0.3 * 86400)  # type: ignore[operator]
    )
    modelled = run(dgx_tree(8), model="llama3-8b", tokens=1e12)
    assert modelled.step.mfu_source == "model"
    assert modelled.step.mfu is not None and modelled.step.mfu < EFF


def test_idle_gpus_are_said_plainly() -> None:
    """A batch of 8 sequences cannot keep 64 DP ranks busy."""
    est = run(
        dgx_tree(8),
        model="llama3-8b",
        tokens=1e12,
        tp=1,
        pp=1,
        cp=1,
        global_batch_tokens=8 * 8192,
        micro_batch=1,
    )
    assert est.parallelism.idle_gpus == 64 - 8
    assert any(f.code == "WORKLOAD_IDLE_GPUS" for f in est.findings)
    assert not math.isnan(est.days or 0.0)
