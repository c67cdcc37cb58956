"""``estimate(design)``: workload fit, time, goodput, N-1 and TCO for one design."""

from __future__ import annotations

import math
from dataclasses import replace

from designer.catalog.loader import Catalog
from designer.core.model import Design
from designer.core.workload import Job, Precision, Recompute, Workload
from designer.workload import blocks, facts, modelled, serving_estimate
from designer.workload import findings as finding_rules
from designer.workload.describe import describe
from designer.workload.fabric import (
    DesignFacts,
    Finding,
    read_design,
)
from designer.workload.inputs import (
    SHAPE_FIELDS,
    EstimateInputError,
    Ledger,
    lora_params,
    resolve_model,
)
from designer.workload.job_inputs import (
    note_design,
    read_batch,
    read_choice,
    read_rates,
    read_space,
    read_tokens,
    read_work,
)
from designer.workload.plan import (
    Plan,
    Work,
    choose,
    kv_per_token,
    memory,
    min_gpus,
)
from designer.workload.presets import ModelSpec, missing_shape
from designer.workload.result import (
    Estimate,
    JobOnPlan,
    MemoryPerGpu,
    MemoryTotal,
    Parallelism,
    Reliability,
    Step,
)
from designer.workload.search import SearchResult
from designer.workload.step import Hardware
from designer.workload.tco import tco_figures
from designer.workload.training import (
    fabric_factor,
    reliability_figures,
    step_figures,
    time_figures,
)

__all__ = ["EstimateInputError", "estimate"]

_GB = 1e9
ZERO3_TRAFFIC = 1.5
"""ZeRO-3 moves about 1.5x the DDP volume (workload.md §4) [P]."""


def estimate(
    design: Design,
    catalog: Catalog | None = None,
    *,
    overrides: Workload | None = None,
    origin: str = "command line",
    design_facts: DesignFacts | None = None,
    n1_budget: int | None = None,
) -> Estimate:
    """Estimate the design's workload (its block, with ``overrides`` on top).

    ``design_facts`` reuses an earlier :func:`read_design` of the same design;
    ``n1_budget`` caps the full analyses of the N-1 search. Raises
    :class:`EstimateInputError` for inputs that cannot be used.
    """
    d = design_facts or read_design(design, catalog)
    over = overrides or Workload()
    block = design.workload or Workload()
    if any(getattr(over, k) is not None for k in ("model", *SHAPE_FIELDS)):
        # a model given on top replaces the block's model as a whole: the
        # block's shape fields described another model
        block = block.model_copy(update=dict.fromkeys(("model", *SHAPE_FIELDS)))
    led = Ledger(block, over, origin)
    spec = resolve_model(led)
    job = read_choice(led, "job", Job.PRETRAIN, "pre-training [E: default]")
    precision = read_choice(led, "precision", Precision.BF16, "BF16 [E: default]")
    note_design(d, led)
    work = read_work(led, spec, job, precision)
    space = read_space(led, job, d)
    capacity = (d.gpu_memory_gb or 0.0) * _GB
    gpus = d.gpus
    pk = modelled.peaks(d, precision, led.given("peak_tflops"))
    eff = (
        modelled.efficiency(d, precision, led)
        if job is not Job.INFERENCE and spec is not None and spec.has_shape
        else None
    )
    model_step = bool(
        gpus
        and spec is not None
        and capacity > 0
        and eff is not None
        and pk.flops is not None
        and job is not Job.INFERENCE
    )
    rates = read_rates(d, precision, led, pk, default_mfu=not model_step)
    tokens = read_tokens(led, spec, job)
    batch = read_batch(led)
    search_res: SearchResult | None = None
    nonblocking_days: float | None = None
    micro: int | None = None
    if model_step:
        assert spec is not None and eff is not None and pk.flops and pk.bf16
        hw = Hardware(pk.flops, pk.bf16, eff, precision)
        view = d.fabric()
        fix = modelled.fixed(led)
        search_res = modelled.run_search(work, fix, view, hw, gpus, capacity, batch)
        plan, fits, why_not = search_res.plan, search_res.fits, search_res.why_not
        if search_res.result is not None:
            micro = search_res.result.micro_batches
            ideal = view.non_blocking()
            free = (
                search_res
                if ideal == view
                else modelled.run_search(work, fix, ideal, hw, gpus, capacity, batch)
            )
            if free.result is not None:
                nonblocking_days = modelled.days_of(free.result, tokens)
    elif gpus and spec is not None and capacity > 0:
        # inference: no step to time; the fewest GPUs per replica (most replicas)
        plan, fits, why_not = choose(work, space, gpus, capacity, None)
    else:
        plan = Plan(
            space.tp or 1,
            space.pp or 1,
            space.dp or max(gpus, 1),
            0,
            space.recompute or Recompute.SELECTIVE,
        )
        fits, why_not = None, None
    fewest = min_gpus(work, space, capacity) if spec and capacity > 0 else None
    mem = memory(work, plan, micro) if spec is not None and gpus else None
    flops, flops6, days, hours = time_figures(work, plan, tokens, rates, led)
    given_mfu = led.origin("mfu") is not None
    if search_res is not None and search_res.result is not None:
        step = Step()
        modelled.fill_step(step, search_res.result, d, given_mfu)
        if not given_mfu and flops is not None:
            days = modelled.days_of(search_res.result, tokens)
            hours = None if days is None else days * 24.0 * plan.gpus
        legacy = step_figures(work, plan, d, rates, batch, ZERO3_TRAFFIC, led)
        step.nic_gbytes_s_per_gpu = legacy.nic_gbytes_s_per_gpu
        step.scale_out_gbytes_s_per_gpu = legacy.scale_out_gbytes_s_per_gpu
        step.fabric_factor = legacy.fabric_factor
        step.dp_crosses_leaves = legacy.dp_crosses_leaves
        if given_mfu:
            nonblocking_days = days
    elif spec is not None and gpus:
        step = step_figures(work, plan, d, rates, batch, ZERO3_TRAFFIC, led)
        step.mfu = rates.mfu
        step.mfu_source = "given" if given_mfu else "default"
        nonblocking_days = days
    else:
        step = Step()
        for name in Step.model_fields:
            led.why(f"step.{name}", "no model given" if spec is None else "no GPUs")
    if not model_step:
        reason = _why_not_modelled(job, spec, pk.flops, eff, gpus, capacity)
        for name in _MODELLED:
            led.why(f"step.{name}", reason)
    if nonblocking_days is None:
        led.why(
            "nonblocking_days",
            "the training time is not known"
            if days is None
            else "no plan fits on a non-blocking fabric",
        )
    rate = float(led.pick("failure_rate_per_gpu_day", facts.FAILURE_RATE))
    restart = float(led.pick("restart_minutes", facts.RESTART_MINUTES)) * 60.0
    rel = reliability_figures(work, plan, days, rate, restart, d, led)
    if fits is False:
        # nothing runs: time, step and goodput of the closest plan would mislead
        reason = f"the job does not fit on this design: {why_not}"
        days = hours = None
        step, rel = Step(), Reliability()
        nonblocking_days = None
        paths = ["days", "gpu_hours", "nonblocking_days"]
        paths += [f"step.{k}" for k in Step.model_fields]
        paths += [f"reliability.{k}" for k in Reliability.model_fields]
        for path in paths:
            led.why(path, reason, replace=True)
    _fabric_notes(d, plan, step, led)
    n1 = d.n_minus_1(budget=n1_budget)
    tco = tco_figures(d, led)
    est = Estimate(
        gpus=gpus,
        gpu_model=d.gpu_model,
        gpu_memory_gb=d.gpu_memory_gb,
        model=blocks.model_info(spec),
        job=job.value,
        memory_gb_total=blocks.totals(work, spec),
        memory_gb_per_gpu=blocks.per_gpu(mem, d),
        kv_cache_bytes_per_token=kv_per_token(spec) if spec is not None else None,
        fits=fits,
        min_gpus=fewest[0] if fewest else None,
        parallelism=Parallelism(
            tp=plan.tp,
            pp=plan.pp,
            dp=plan.dp,
            zero_stage=plan.zero,
            recompute=plan.recompute.value,
            gpus_used=plan.gpus,
            nvlink_domain=d.nvlink_domain,
            tp_within_nvlink=plan.tp <= d.nvlink_domain,
            chosen="given"
            if None not in (space.tp, space.pp, space.dp)
            else "searched",
            vpp=plan.vpp,
            cp=plan.cp,
            ep=plan.ep,
            micro_batch=plan.micro_batch,
            idle_gpus=max(0, gpus - plan.gpus) if fits is not False else 0,
            alternatives=modelled.alternatives(search_res, gpus)
            if search_res is not None and fits
            else [],
        ),
        flops_total=flops,
        flops_6nd=flops6,
        days=days,
        gpu_hours=hours,
        step=step,
        reliability=rel,
        n_minus_1=blocks.n_minus_1(n1),
        tco=tco,
        rule_of_thumb=blocks.rule_of_thumb(spec, job),
        assumptions=[],
        figures={},
        unknown={},
        findings=[],
        nonblocking_days=nonblocking_days,
        other_job_on_plan=_other_job_on_plan(work, plan, micro, capacity, led)
        if spec is not None and gpus
        else None,
    )
    serving_findings: list[Finding] = []
    if job is Job.INFERENCE:
        est.inference, serving_findings = serving_estimate.inference(
            spec, d, led, precision
        )
        serving_estimate.set_plan(est)
    _explain(est, spec, d, led)
    findings = finding_rules.findings(est, work, plan, d, why_not, spec)
    findings += serving_findings
    describe(est, led)
    est.assumptions = led.assumptions
    est.figures = led.figures
    est.unknown = {k: v for k, v in led.unknown.items() if _is_null(est, k)}
    est.findings = findings
    return est


_MODELLED = (
    "hfu",
    "tflops_per_gpu",
    "tokens_per_s",
    "step_s",
    "bubble_s",
    "tp_comm_s",
    "cp_comm_s",
    "ep_comm_s",
    "exposed_comm_s",
)


def _why_not_modelled(
    job: Job,
    spec: ModelSpec | None,
    peak: float | None,
    eff: object,
    gpus: int,
    capacity: float,
) -> str:
    """Why the estimate could not time a step with the step model."""
    if job is Job.INFERENCE:
        return "inference job: no training step"
    if spec is None:
        return "no model given"
    if not gpus or capacity <= 0:
        return "the design has no GPUs with known memory"
    if not spec.has_shape:
        return (
            f"the model's shape is not known ({', '.join(missing_shape(spec))} "
            "missing): the step is not modelled, the MFU is the default"
        )
    if peak is None:
        return "the GPU's dense peak is not known (give the peak per GPU)"
    if eff is None:
        return "no efficiency default for these GPUs at this precision (give the MFU)"
    return "the step is not modelled"


def _other_job_on_plan(
    work: Work, plan: Plan, micro: int | None, capacity: float, led: Ledger
) -> JobOnPlan | None:
    """Full fine-tuning beside LoRA (and LoRA beside full) on this job's plan.

    The plan search picks each job's own plan (LoRA's smaller state fits on
    less TP, so its memory per GPU can read higher than the full job's on
    more): the other job on the same plan is what compares."""
    if work.job not in (Job.FINETUNE, Job.LORA):
        return None
    if work.job is Job.FINETUNE:
        rank = led.given("lora_rank") or facts.LORA_RANK.value
        other = replace(
            work, job=Job.LORA, lora_params=lora_params(work.spec, int(rank))[0]
        )
    else:
        other = replace(work, job=Job.FINETUNE, lora_params=0.0)
    total = memory(other, plan, micro).total
    return JobOnPlan(
        job=other.job.value,
        memory_gb_per_gpu=total / _GB,
        fits=total <= capacity if capacity > 0 else None,
    )


def _fabric_notes(d: DesignFacts, plan: Plan, step: Step, led: Ledger) -> None:
    if d.storage.write_gbytes_s is not None:
        led.note(
            "storage_write_gbytes_s",
            d.storage.write_gbytes_s,
            "GB/s",
            d.storage.source,
            d.storage.estimate,
            "design",
        )
    if d.nic_gbps_per_gpu is None:
        return
    led.note(
        "nic_gbps_per_gpu",
        d.nic_gbps_per_gpu,
        "Gb/s",
        "the design: compute-fabric link capacity of the slowest compute node "
        "/ its GPUs",
        False,
        "design",
    )
    led.note(
        "network_efficiency",
        facts.NET_EFFICIENCY.value,
        "",
        facts.NET_EFFICIENCY.source,
        True,
        "default",
    )
    per_node = max(1, round(d.gpus / max(d.compute_nodes, 1)))
    factor, _, how = fabric_factor(d, math.ceil(plan.gpus / per_node))
    led.note("fabric_factor", factor, "", how, not d.bisection_exact, "design")


def _explain(
    est: Estimate, spec: ModelSpec | None, d: DesignFacts, led: Ledger
) -> None:
    """Reasons for the nulls the sections did not explain themselves."""
    if spec is None:
        paths = [f"memory_gb_total.{k}" for k in MemoryTotal.model_fields]
        paths += [f"memory_gb_per_gpu.{k}" for k in MemoryPerGpu.model_fields]
        paths += ["kv_cache_bytes_per_token", "fits", "min_gpus"]
        for path in paths:
            led.why(
                path,
                "no model given: choose a model preset or give the parameter count",
            )
    if not d.gpus:
        led.why("fits", "the design has no GPUs")
        led.why("gpu_memory_gb", "the design has no compute nodes")
    elif d.gpu_memory_gb is None:
        led.why("fits", "the GPUs' memory is not in the catalog")
    if spec is not None and not spec.has_shape and est.job != Job.INFERENCE.value:
        led.why(
            "memory_gb_per_gpu.activations",
            f"the model's shape is not known ({', '.join(missing_shape(spec))} "
            "missing); fits counts the training state only",
        )
    if spec is not None and est.kv_cache_bytes_per_token is None:
        led.why("kv_cache_bytes_per_token", "needs layers, hidden size and heads")
    if d.gpu_model is None:
        led.why("gpu_model", "the design has no compute nodes with GPUs")
    n1 = est.n_minus_1
    if n1.worst_device is None:
        led.why(
            "n_minus_1.worst_device",
            n1.method if n1.switches else "no compute-fabric switch",
        )
    if n1.worst_leaf is None:
        led.why("n_minus_1.worst_leaf", "no leaf tier in the compute fabric")
    if n1.bisection_ratio_after is None:
        for name in (
            "bisection_ratio_after",
            "bisection_ratio_after_lower",
            "bisection_gbps_after",
        ):
            led.why(f"n_minus_1.{name}", n1.method)
    if est.tco.cheaper is None:
        led.why("tco.cheaper", "needs the owned and the cloud rate")
    if est.min_gpus is None and spec is not None and d.gpus:
        led.why("min_gpus", "no plan tried holds the job on these GPUs")


def _is_null(est: Estimate, path: str) -> bool:
    """Whether ``path`` names a null figure (or a block that holds nulls)."""
    try:
        value = est.value(path)
    except (AttributeError, KeyError):
        return True
    if hasattr(value, "model_dump"):
        return any(v is None for v in value.model_dump().values())
    return value is None
