"""Figures as text: one formatting for the CLI, the panel and the report page."""

from __future__ import annotations

from designer.core import formatting as fmt
from designer.workload.result import Assumption, CollectiveOut, Estimate, Row

SECTIONS: tuple[tuple[str, str], ...] = (
    ("", "Design"),
    ("memory_gb_total", "Memory, one copy of the job"),
    ("memory_gb_per_gpu", "Memory per GPU"),
    ("parallelism", "Parallelism"),
    ("inference", "Serving"),
    ("time", "Time"),
    ("step", "One training step"),
    ("reliability", "Failures and checkpoints"),
    ("n_minus_1", "N-1: worst single switch failure"),
    ("tco", "Owned vs cloud"),
)
_TIME = {"flops_total", "flops_6nd", "days", "gpu_hours", "nonblocking_days"}
_SHARES = ("fraction", "ratio", "utilization", "goodput", "factor", "mfu", "hfu")


def section_of(path: str) -> str:
    """The section key a figure path belongs to."""
    head = path.split(".", 1)[0]
    if head in _TIME:
        return "time"
    if head == "other_job_on_plan":  # beside this job's memory per GPU
        return "memory_gb_per_gpu"
    if "." not in path:
        return ""
    return head


def format_value(row: Row) -> str:
    """The value of a row as shown to a person (unit included)."""
    value = row.value
    if value is None:
        return "unknown"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not row.unit:
        return f"{value:,}"
    if isinstance(value, list):
        # the plan search's runners-up: one line each follows the plan line
        return f"{len(value)} (listed under the plan)" if value else "none"
    x = float(value)
    name = row.path.rsplit(".", 1)[-1]
    if (not row.unit and any(s in name for s in _SHARES)) or "by_tier." in row.path:
        return f"{x:.1%}"
    if row.unit == "FLOP":
        return f"{x:.3g} FLOP"
    if row.unit == "USD":
        return fmt.money(x)
    if row.unit == "days":
        return fmt.duration(x)
    if row.unit in COUNT_UNITS or name in COUNT_NAMES:
        return f"{fmt.count(x)} {row.unit}".rstrip()
    if row.unit in ("B",):
        return f"{x:,.0f} B"
    return f"{_number(x)} {row.unit}".rstrip()


#: Units whose figures are counts ("15T tokens", "1.2M GPU-h").
COUNT_UNITS = frozenset({"tokens", "GPU-h", "sequences"})
#: Figures and inputs that are counts whatever their unit ("70.6B" parameters).
COUNT_NAMES = frozenset(
    {"params", "active_params", "lora_params", "tokens", "global_batch_tokens"}
)


def assumption_value(a: Assumption) -> str:
    """An input's value as the estimate's text shows it (without its unit)."""
    value = a.value
    if not isinstance(value, float | int) or isinstance(value, bool):
        return str(value)
    if a.unit in COUNT_UNITS or a.name in COUNT_NAMES:
        return fmt.count(float(value))
    if a.unit == "USD":
        return fmt.money(float(value))
    return fmt.number(float(value))


def _number(x: float) -> str:
    return fmt.number(x)


def recompute_words(recompute: str) -> str:
    """``no recompute``, ``selective recompute``, ``full recompute``."""
    return "no recompute" if recompute == "none" else f"{recompute} recompute"


def plan_text(tp: int, cp: int, pp: int, vpp: int, dp: int, ep: int) -> str:
    """``TP 8 x CP 1 x PP 16 (VPP 4) x DP 128``, ``, EP 64`` for MoE."""
    text = f"TP {tp} x CP {cp} x PP {pp}"
    if vpp > 1:
        text += f" (VPP {vpp})"
    text += f" x DP {dp}"
    return text + (f", EP {ep}" if ep > 1 else "")


def step_lines(est: Estimate) -> list[str]:
    """The step model's headline: MFU, throughput, the non-blocking days and
    the runners-up of the plan search."""
    st, p = est.step, est.parallelism
    out: list[str] = []
    if st.step_s is not None and st.mfu is not None:
        how = {
            "model": "modelled from this design",
            "given": "MFU as given: the step is modelled, the days use the given MFU",
            "default": "default MFU: no model shape to time a step",
        }.get(st.mfu_source or "", "")
        out.append(
            f"  step {st.step_s:,.2f} s, {st.tokens_per_s or 0:,.0f} tokens/s, "
            f"MFU {st.mfu:.1%}, HFU {st.hfu or 0:.1%}, "
            f"{st.tflops_per_gpu or 0:,.0f} TFLOP/s per GPU ({how})"
        )
    elif st.mfu is not None:
        out.append(f"  MFU {st.mfu:.1%} ({st.mfu_source or 'default'})")
    if est.nonblocking_days is not None:
        out.append(
            f"  on a non-blocking fabric of the same GPUs: "
            f"{fmt.duration(est.nonblocking_days)}"
            + (
                f" (this design: {fmt.duration(est.days)})"
                if est.days is not None
                else ""
            )
        )
    for i, alt in enumerate(p.alternatives, 2):
        out.append(
            f"  plan #{i}: {plan_text(alt.tp, alt.cp, alt.pp, alt.vpp, alt.dp, alt.ep)}"
            f", ZeRO {alt.zero_stage}, {recompute_words(alt.recompute)}, micro-batch "
            f"{alt.micro_batch}: step {alt.step_s:,.2f} s; {alt.why}"
        )
    return out


def format_collective(
    c: CollectiveOut, gpu_model: str | None, domain: int, title: str
) -> str:
    """``estimate --collective``: the time, algorithm, bandwidths, bottleneck."""
    lines = [
        title,
        f"  {c.op} of {c.bytes:,.0f} B over {c.gpus:,} GPUs "
        f"({gpu_model or '?'}, NVLink domain {domain})",
        f"  time {c.time_s * 1e3:,.3f} ms, algorithm {c.algorithm}",
        f"  algbw {c.algbw_gbytes_s:,.1f} GB/s, busbw {c.busbw_gbytes_s:,.1f} GB/s "
        "(nccl-tests definitions)",
        f"  bottleneck: {c.bottleneck}",
        "  transfers: "
        + ", ".join(f"{k} {v * 1e3:,.3f} ms" for k, v in c.terms_s.items()),
    ]
    if c.spans_nvlink_domains:
        lines.append(
            "  the group spans NVLink domains: it crosses the scale-out fabric"
        )
    return "\n".join(lines)


def format_estimate(est: Estimate, title: str) -> str:
    """The human-readable report of ``cluster-designer estimate``."""
    rows = est.rows()
    sources: list[str] = []
    lines = [title]
    p = est.parallelism
    model = est.model
    lines.append(
        f"  {model.name}, {est.job} on {est.gpus:,} x {est.gpu_model or '?'}"
        + (f" ({est.gpu_memory_gb:,.0f} GB)" if est.gpu_memory_gb else "")
        + f"; NVLink domain {p.nvlink_domain}"
    )
    if est.job == "inference":
        plan = (
            f"  plan: TP {p.tp} x PP {p.pp} GPUs per replica, {p.dp:,} replicas = "
            f"{p.gpus_used:,} GPUs ({p.chosen})"
        )
    else:
        plan = (
            f"  plan: {plan_text(p.tp, p.cp, p.pp, p.vpp, p.dp, p.ep)} = "
            f"{p.gpus_used:,} GPUs, ZeRO {p.zero_stage}, "
            f"{recompute_words(p.recompute)}, micro-batch {p.micro_batch} ({p.chosen})"
        )
    lines.append(plan + ("" if p.tp_within_nvlink else "; TP spans NVLink domains"))
    if p.idle_gpus:
        lines.append(
            f"  {p.idle_gpus:,} GPUs stay idle: the plan uses {p.gpus_used:,} "
            f"of {est.gpus:,}"
        )
    lines.extend(step_lines(est))
    thumb = est.rule_of_thumb
    if thumb is not None:
        lines.append(
            f"  rule of thumb: {thumb.workload}: {thumb.gpus} ({thumb.source})"
        )
    width = max(len(r.label) for r in rows) + 2
    for key, title_ in SECTIONS:
        mine = [r for r in rows if section_of(r.path) == key]
        if not mine:
            continue
        lines.append("")
        lines.append(title_)
        for r in mine:
            if r.source not in sources:
                sources.append(r.source)
            mark = "  estimate" if r.estimate and r.value is not None else ""
            ref = f"  [{sources.index(r.source) + 1}]"
            text = format_value(r)
            if r.value is None and r.why_unknown:
                text = f"unknown: {r.why_unknown}"
            lines.append(f"  {r.label:<{width}}{text}{mark}{ref}")
        if key == "n_minus_1":
            n = est.n_minus_1
            lines.append(
                f"  worst switch: {n.worst_device or 'none'}; worst leaf: "
                f"{n.worst_leaf or 'none'}"
            )
            lines.append(f"  {n.method}")
    if est.findings:
        lines.append("")
        lines.append("Findings")
        lines.extend(
            f"  {f.severity.value.upper()} {f.code}: {f.message}" for f in est.findings
        )
    lines.append("")
    lines.append("Assumptions (value; source; origin)")
    for a in est.assumptions:
        value = a.value if not isinstance(a.value, float) else assumption_value(a)
        mark = ", estimate" if a.estimate else ""
        lines.append(
            f"  {a.name} = {value} {a.unit}".rstrip()
            + f"; {a.source}; {a.origin}{mark}"
        )
    lines.append("")
    lines.append("Sources of the figures")
    lines.extend(f"  [{i}] {s}" for i, s in enumerate(sources, 1))
    return "\n".join(lines)
