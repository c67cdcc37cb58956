"""Figures as text: one formatting for the CLI, the panel and the report page."""

from __future__ import annotations

from designer.workload.result import Estimate, Row

SECTIONS: tuple[tuple[str, str], ...] = (
    ("", "Design"),
    ("memory_gb_total", "Memory, one copy of the job"),
    ("memory_gb_per_gpu", "Memory per GPU"),
    ("parallelism", "Parallelism"),
    ("time", "Time"),
    ("step", "One training step"),
    ("reliability", "Failures and checkpoints"),
    ("n_minus_1", "N-1: worst single switch failure"),
    ("tco", "Owned vs cloud"),
)
_TIME = {"flops_total", "flops_6nd", "days", "gpu_hours"}
_SHARES = ("fraction", "ratio", "utilization", "goodput", "factor")


def section_of(path: str) -> str:
    """The section key a figure path belongs to."""
    head = path.split(".", 1)[0]
    if head in _TIME:
        return "time"
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
    x = float(value)
    name = row.path.rsplit(".", 1)[-1]
    if (not row.unit and any(s in name for s in _SHARES)) or "by_tier." in row.path:
        return f"{x:.1%}"
    if row.unit == "FLOP":
        return f"{x:.3g} FLOP"
    if row.unit == "USD":
        return f"${x:,.2f}" if abs(x) < 100 else f"${x:,.0f}"
    if row.unit in ("B",):
        return f"{x:,.0f} B"
    return f"{_number(x)} {row.unit}".rstrip()


def _number(x: float) -> str:
    if x == 0:
        return "0"
    if abs(x) >= 1e9:
        return f"{x:.3g}"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    if abs(x) >= 10:
        return f"{x:,.1f}"
    if abs(x) >= 1:
        return f"{x:,.2f}"
    return f"{x:.3g}"


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
            f"  plan: TP {p.tp} x PP {p.pp} x DP {p.dp} = {p.gpus_used:,} GPUs, "
            f"ZeRO {p.zero_stage}, {p.recompute} recompute ({p.chosen})"
        )
    lines.append(plan + ("" if p.tp_within_nvlink else "; TP spans NVLink domains"))
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
        value = a.value if not isinstance(a.value, float) else _number(a.value)
        mark = ", estimate" if a.estimate else ""
        lines.append(
            f"  {a.name} = {value} {a.unit}".rstrip()
            + f"; {a.source}; {a.origin}{mark}"
        )
    lines.append("")
    lines.append("Sources of the figures")
    lines.extend(f"  [{i}] {s}" for i, s in enumerate(sources, 1))
    return "\n".join(lines)
