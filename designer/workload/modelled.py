"""The estimate's use of the step model: hardware rates, the plan search on
this design's fabric and on a non-blocking one, and the step figures."""

from __future__ import annotations

from dataclasses import dataclass

from designer.core.workload import Precision
from designer.workload import facts
from designer.workload.collectives import FabricView, Group, Op, collective
from designer.workload.fabric import DesignFacts
from designer.workload.inputs import Ledger
from designer.workload.plan import Plan, Work
from designer.workload.result import Alternative, CollectiveOut, Step
from designer.workload.search import Fixed, SearchResult, search
from designer.workload.step import Efficiency, Hardware, StepResult

SECONDS_PER_DAY = 86_400.0


@dataclass(frozen=True)
class Peaks:
    """Dense peak of the precision used and of BF16, FLOP/s, with a source."""

    flops: float | None
    bf16: float | None
    source: str
    estimate: bool


def peaks(d: DesignFacts, precision: Precision, given: float | None) -> Peaks:
    """The GPU's dense peaks: ``given`` (TFLOP/s), else the catalog's."""
    p = d.gpu_peak
    bf16 = p.bf16 * 1e12 if p is not None and p.bf16 else None
    if given is not None:
        return Peaks(given * 1e12, bf16 or given * 1e12, "as given", False)
    if p is None:
        return Peaks(None, None, "", True)
    value = {Precision.BF16: p.bf16, Precision.FP8: p.fp8, Precision.FP4: p.fp4}[
        precision
    ]
    flops = value * 1e12 if value else None
    return Peaks(flops, bf16 or flops, p.source, p.estimate)


def efficiency(d: DesignFacts, precision: Precision, led: Ledger) -> Efficiency | None:
    """The achievable share for the design's GPU generation and precision."""
    gen = facts.GENERATION.get(d.gpu_model or "")
    fact = facts.EFFICIENCY.get((gen or "", precision.value))
    if fact is None:
        led.why(
            "step.mfu",
            f"no efficiency default for {d.gpu_model or 'these GPUs'} at "
            f"{precision.value.upper()}: give the MFU",
        )
        return None
    led.note(
        "matrix_efficiency",
        fact.value,
        "",
        f"{d.gpu_model} {precision.value.upper()}: {fact.source}",
        fact.estimate,
        "default",
    )
    att = facts.ATTENTION_EFFICIENCY
    led.note("attention_efficiency", att.value, "", att.source, att.estimate, "default")
    return Efficiency(fact.value, att.value, fact.source)


def fixed(led: Ledger) -> Fixed:
    """The plan fields the user gave."""
    return Fixed(
        tp=led.given("tp"),
        pp=led.given("pp"),
        dp=led.given("dp"),
        vpp=led.given("vpp"),
        cp=led.given("cp"),
        ep=led.given("ep"),
        zero=led.given("zero_stage"),
        recompute=led.given("recompute"),
        micro_batch=led.given("micro_batch"),
    )


def run_search(
    work: Work,
    fix: Fixed,
    view: FabricView,
    hw: Hardware,
    gpus: int,
    capacity: float,
    batch_tokens: float,
) -> SearchResult:
    """The plan search on ``view``."""
    return search(
        work,
        fix,
        view,
        hw,
        gpus=gpus,
        capacity=capacity,
        batch_tokens=batch_tokens,
    )


def days_of(r: StepResult, tokens: float | None) -> float | None:
    """Training days at the modelled tokens per second."""
    if tokens is None or r.tokens_per_s <= 0:
        return None
    return tokens / r.tokens_per_s / SECONDS_PER_DAY


def fill_step(step: Step, r: StepResult, d: DesignFacts, given_mfu: bool) -> None:
    """The modelled figures of one step."""
    step.tokens = r.tokens
    step.compute_s = r.compute_s
    step.dp_comm_s = r.dp_comm_s
    step.pp_comm_s = r.pp_comm_s
    step.bubble_fraction = r.bubble_fraction
    step.step_s = r.step_s
    step.bubble_s = r.bubble_s
    step.tp_comm_s = r.tp_comm_s
    step.cp_comm_s = r.cp_comm_s
    step.ep_comm_s = r.ep_comm_s
    step.exposed_comm_s = r.exposed_comm_s
    step.exposed_comm_fraction = r.exposed_comm_s / r.step_s if r.step_s else None
    step.mfu = r.mfu
    step.hfu = r.hfu
    step.tflops_per_gpu = r.tflops_per_gpu
    step.tokens_per_s = r.tokens_per_s
    step.mfu_source = "given" if given_mfu else "model"
    if d.nic_gbps_per_gpu is not None:
        step.nic_gbytes_s_per_gpu = d.nic_gbps_per_gpu / 8.0


def alternatives(res: SearchResult, gpus: int) -> list[Alternative]:
    """The runners-up, each with its step time and why it loses."""
    return [
        Alternative(
            tp=x.plan.tp,
            pp=x.plan.pp,
            dp=x.plan.dp,
            zero_stage=x.plan.zero,
            recompute=x.plan.recompute.value,
            gpus_used=x.plan.gpus,
            vpp=x.plan.vpp,
            cp=x.plan.cp,
            ep=x.plan.ep,
            micro_batch=x.plan.micro_batch,
            idle_gpus=gpus - x.plan.gpus,
            step_s=x.result.step_s,
            tokens_per_s=x.result.tokens_per_s,
            why=x.why,
        )
        for x in res.alternatives
    ]


def collective_out(
    view: FabricView, op: str, size: float, gpus: int | None
) -> CollectiveOut:
    """``estimate --collective``: one collective over ``gpus`` GPUs (default:
    all of the design's), laid out from the first GPU on."""
    n = gpus or view.gpus
    t = collective(view, Op(op), size, Group(n, 1), concurrent=False)
    return CollectiveOut(
        op=t.op.value,
        bytes=size,
        gpus=n,
        algorithm=t.algorithm,
        time_s=t.time_s,
        algbw_gbytes_s=t.algbw_bytes_s / 1e9,
        busbw_gbytes_s=t.busbw_bytes_s / 1e9,
        bottleneck=t.bottleneck,
        terms_s={k: v for k, v in t.terms.items()},
        spans_nvlink_domains=t.spans_domains,
    )


def plan_words(plan: Plan) -> str:
    """``TP 8 x CP 1 x PP 16 (VPP 4) x DP 128, EP 1``."""
    text = f"TP {plan.tp} x CP {plan.cp} x PP {plan.pp}"
    if plan.vpp > 1:
        text += f" (VPP {plan.vpp})"
    text += f" x DP {plan.dp}"
    if plan.ep > 1:
        text += f", EP {plan.ep}"
    return text
