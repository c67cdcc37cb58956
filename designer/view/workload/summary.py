"""What the Workload panel and the report page say first, and the chart points.

No Qt here. The numbers are the estimate's own, written by
:func:`designer.workload.text.format_value` (the CLI's formatting), so the
panel, the PDF page and ``cluster-designer estimate`` read the same.
"""

from __future__ import annotations

from designer.core import formatting as fmt
from designer.view.workload.fields import BY_NAME
from designer.view.workload.lines import ESTIMATE_MARK, Line
from designer.view.workload.serving import serving_lines
from designer.workload import Estimate, Row
from designer.workload.curves import cost_vs_utilization, days_vs_gpus
from designer.workload.result import Assumption
from designer.workload.text import format_value

JOB_WORDS = {
    "pretrain": "pre-training",
    "finetune": "full fine-tune",
    "lora": "LoRA fine-tune",
    "inference": "inference serving",
}


def rows_by_path(est: Estimate) -> dict[str, Row]:
    """Every figure row of ``est`` by its path."""
    return {r.path: r for r in est.rows()}


def value_text(row: Row, *, mark: bool = True) -> str:
    """A figure as shown: formatted, ``≈`` before estimates, why when unknown."""
    if row.value is None:
        return f"unknown: {row.why_unknown}" if row.why_unknown else "unknown"
    text = format_value(row)
    return f"{ESTIMATE_MARK} {text}" if mark and row.estimate else text


def summary(est: Estimate) -> list[Line]:
    """The answers first: fit, plan, time, N-1 and cost, in a few lines."""
    rows = rows_by_path(est)

    def v(path: str, mark: bool = True) -> str:
        return value_text(rows[path], mark=mark)

    p = est.parallelism
    gpu = est.gpu_model or "no GPUs"
    memory = f" ({est.gpu_memory_gb:,.0f} GB)" if est.gpu_memory_gb else ""
    lines = [
        Line(
            "Job",
            f"{est.model.name}, {JOB_WORDS.get(est.job, est.job)} on "
            f"{est.gpus:,} x {gpu}{memory}",
            ("gpus", "gpu_model"),
        )
    ]
    if est.fits is None:
        fit = v("fits")
    else:
        need = rows["memory_gb_per_gpu.total"]
        fit = (
            f"{'yes' if est.fits else 'no'}: {value_text(need)} needed per GPU of "
            f"{v('memory_gb_per_gpu.capacity')}"
        )
    fit += f"; fewest GPUs that hold it {v('min_gpus')}"
    lines.append(Line("Fits", fit, ("fits", "memory_gb_per_gpu.total", "min_gpus")))
    other = est.other_job_on_plan
    if other is not None:
        verdict = {True: "fits", False: "does not fit", None: "fit unknown"}
        lines.append(
            Line(
                "Same plan",
                f"{JOB_WORDS.get(other.job, other.job)} on this plan (TP {p.tp} x "
                f"PP {p.pp}): {ESTIMATE_MARK} {other.memory_gb_per_gpu:,.3g} GB per "
                f"GPU, {verdict[other.fits]} (each job searches its own plan: "
                "compare on one plan)",
                ("memory_gb_per_gpu.total", "parallelism.tp"),
            )
        )
    if est.job == "inference":
        plan = (
            f"TP {p.tp} x PP {p.pp} GPUs per replica, {p.dp:,} replicas = "
            f"{p.gpus_used:,} GPUs ({p.chosen})"
        )
    else:
        from designer.workload.text import plan_text, recompute_words

        plan = (
            f"{plan_text(p.tp, p.cp, p.pp, p.vpp, p.dp, p.ep)} = {p.gpus_used:,} "
            f"GPUs, ZeRO {p.zero_stage}, {recompute_words(p.recompute)} ({p.chosen})"
        )
        if p.idle_gpus:
            plan += f"; {p.idle_gpus:,} GPUs idle"
    plan += (
        f"; TP inside the NVLink domain of {p.nvlink_domain}"
        if p.tp_within_nvlink
        else f"; TP {p.tp} SPANS NVLink domains of {p.nvlink_domain}"
    )
    if est.inference is not None:
        # the serving model's replica is the plan of an inference job
        lines += serving_lines(est)
    else:
        lines.append(
            Line("Plan", plan, ("parallelism.tp", "parallelism.tp_within_nvlink"))
        )
    st = est.step
    if st.step_s is not None and st.mfu is not None:
        step = (
            f"{v('step.step_s', False)}, {v('step.tokens_per_s', False)}, MFU "
            f"{v('step.mfu', False)}"
            + (" (given)" if st.mfu_source == "given" else " (modelled)")
        )
        lines.append(Line("Step", step, ("step.step_s", "step.mfu")))
    if est.days is not None:
        time = f"{v('days')} ({v('gpu_hours')})"
        if est.reliability.effective_days is not None:
            time += (
                f"; {v('reliability.effective_days', False)} with failures "
                f"(goodput {v('reliability.goodput', False)})"
            )
        lines.append(
            Line("Time", time, ("days", "gpu_hours", "reliability.effective_days"))
        )
    elif est.inference is None:  # a serving estimate has no training time
        lines.append(Line("Time", v("days"), ("days",)))
    price = fabric_price(est)
    if price is not None:
        lines.append(price)
    n1 = est.n_minus_1
    if n1.worst_device is not None:
        text = (
            f"{v('n_minus_1.bisection_ratio_after')} of the non-blocking bisection "
            f"after losing {n1.worst_device}"
        )
        if n1.worst_leaf is not None:
            text += (
                f"; losing {n1.worst_leaf} cuts off "
                f"{n1.gpus_losing_fabric_path:,} GPUs ({n1.gpus_losing_rail:,} lose "
                "a rail)"
            )
    else:
        text = v("n_minus_1.worst_device")
    lines.append(
        Line(
            "N-1",
            text,
            ("n_minus_1.bisection_ratio_after", "n_minus_1.gpus_losing_fabric_path"),
        )
    )
    t = est.tco
    if t.owned_usd_per_gpu_hour is not None and t.cloud_usd_per_gpu_hour is not None:
        cost = (
            f"owned {v('tco.owned_usd_per_gpu_hour')} vs cloud "
            f"{v('tco.cloud_usd_per_gpu_hour', False)} per GPU-hour; break-even "
            f"at {v('tco.breakeven_utilization', False)} utilisation"
        )
    else:
        cost = (
            f"owned {v('tco.owned_usd_per_gpu_hour')}; cloud "
            f"{v('tco.cloud_usd_per_gpu_hour')}"
        )
    lines.append(
        Line(
            "Cost",
            cost,
            (
                "tco.owned_usd_per_gpu_hour",
                "tco.cloud_usd_per_gpu_hour",
                "tco.breakeven_utilization",
            ),
        )
    )
    o3, o5 = rows["tco.total_usd.owned_3y"], rows["tco.total_usd.owned_5y"]
    c3, c5 = rows["tco.total_usd.cloud_3y"], rows["tco.total_usd.cloud_5y"]
    lines.append(
        Line(
            "3 / 5 years",
            f"owned {value_text(o3)} / {value_text(o5, mark=False)}; cloud at "
            f"{v('tco.utilization', False)} use {value_text(c3)} / "
            f"{value_text(c5, mark=False)}",
            (o3.path, o5.path, c3.path, c5.path),
        )
    )
    thumb = est.rule_of_thumb
    if thumb is not None:
        lines.append(
            Line(
                "Rule of thumb",
                f"{thumb.workload}: {thumb.gpus} (the product brief's rule of thumb, "
                "not checked)",
            )
        )
    return lines


def fabric_price(est: Estimate) -> Line | None:
    """What the fabric costs in days: the estimate's days against its
    ``nonblocking_days`` (the same GPUs on a non-blocking fabric), when the
    estimate gives them (issue 17's step model); None otherwise."""
    ideal = getattr(est, "nonblocking_days", None)
    if ideal is None or est.days is None:
        return None
    extra = est.days - ideal
    text = (
        f"{ESTIMATE_MARK} {fmt.duration(ideal)} on a non-blocking fabric of the "
        "same GPUs"
    )
    if ideal > 0 and extra / ideal >= 0.0005:
        text += f"; this fabric adds {fmt.duration(extra)} ({extra / ideal:+.1%})"
    else:
        text += "; this fabric costs no time"
    return Line("Fabric's price", text, ("nonblocking_days", "days"))


def sources_of(est: Estimate, paths: tuple[str, ...]) -> str:
    """The sources of some figures, one per line, estimates marked."""
    lines = []
    for path in paths:
        fig = est.figures.get(path)
        if fig is None:
            continue
        mark = " (estimate)" if fig.estimate else ""
        lines.append(f"{fig.label}{mark}: {fig.source}")
    return "\n".join(lines)


# --- chart points -------------------------------------------------------------


def gpu_counts(est: Estimate) -> list[int]:
    """GPU counts for the days chart: powers of two around the design, with the
    design's own count and the fewest GPUs that hold the job."""
    used = est.parallelism.gpus_used
    if used <= 0:
        return []
    low = max(1, min(used // 16, est.min_gpus or used))
    high = max(used * 8, 8)
    counts = {used}
    if est.min_gpus:
        counts.add(est.min_gpus)
    n = 1
    while n <= high:
        if n >= low:
            counts.add(n)
        n *= 2
    return sorted(counts)


def days_points(est: Estimate) -> list[tuple[int, float]]:
    """(GPUs, days) for the days chart (empty without a training time)."""
    return days_vs_gpus(est, gpu_counts(est))


UTILIZATION_POINTS = [round(0.05 + 0.01 * i, 2) for i in range(96)]
"""5 % to 100 % in steps of 1 %: owning below 5 % reads off any chart."""


def cost_points(est: Estimate) -> list[tuple[float, float, float | None]]:
    """(utilisation, owned USD per busy GPU-hour, cloud USD per GPU-hour)."""
    return cost_vs_utilization(est, UTILIZATION_POINTS)


# --- assumptions --------------------------------------------------------------

_INPUT_LABELS = {
    "gpus": "GPUs",
    "gpu_model": "GPU model",
    "gpu_memory_gb": "GPU memory",
    "nvlink_domain": "NVLink domain",
    "model": "Model",
    "job": "Job",
    "precision": "Precision",
    "zero_stage": "ZeRO stage",
    "recompute": "Recompute",
    "lora_params": "LoRA parameters",
    "storage_write_gbytes_s": "Storage write bandwidth",
    "nic_gbps_per_gpu": "NIC rate per GPU",
    "network_efficiency": "Network efficiency",
    "fabric_factor": "Fabric factor",
    "kw_per_gpu": "Power per GPU",
}


def assumption_texts(a: Assumption) -> tuple[str, str]:
    """An input's label and value as shown (the CLI's number formatting)."""
    spec = BY_NAME.get(a.name)
    label = (
        spec.label
        if spec is not None
        else _INPUT_LABELS.get(a.name, a.name.replace("_", " "))
    )
    value = a.value
    if isinstance(value, float | int) and not isinstance(value, bool):
        text = format_value(Row(a.name, label, value, a.unit, a.source, False, None))
    else:
        text = f"{value} {a.unit}".rstrip()
    return label, text
