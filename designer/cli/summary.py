"""The human-readable summary ``cluster-designer validate`` prints."""

from __future__ import annotations

import math

from designer.analysis.report import Report, Severity
from designer.core.model import Design
from designer.io.export.summary import racks_text


def _usd(value: float) -> str:
    if not math.isfinite(value):
        return "n/a (not a finite number)"
    if value >= 1e9:
        return f"${value / 1e9:,.2f}B"
    if value >= 1e6:
        return f"${value / 1e6:,.2f}M"
    if value >= 1e3:
        return f"${value / 1e3:,.0f}K"
    return f"${value:,.0f}"


def _ratio(value: float | None) -> str:
    return "top tier" if value is None else f"{value:.2f}:1"


def _counts(values: dict[str, int]) -> str:
    shown = [f"{k} {v:,}" for k, v in values.items() if v]
    return ", ".join(shown) if shown else "none"


def format_summary(report: Report, design: Design, source: str) -> str:
    """Headline numbers, bisection, cost, tier and findings as plain text."""
    s = design.settings
    lines = [f"{source}: {s.name!r} (purpose {s.purpose.value})"]

    def row(label: str, text: str) -> None:
        lines.append(f"  {label:<17}{text}")

    row(
        "GPUs",
        f"{report.gpus:,} in {report.compute_nodes:,} compute nodes "
        f"({report.nvlink_domains:,} NVLink domains of {report.nvlink_domain_size})",
    )
    row("Switches", _counts(report.switches))
    row("Cables", _counts(report.cables) + f"; {report.transceivers:,} transceivers")
    b = report.bisection
    if b.exact:
        bis = f"{b.gbps:,.0f} Gb/s (exact), ratio {b.ratio:.2f} of full"
    else:
        bis = (
            f"{b.lower_gbps:,.0f} to {b.upper_gbps:,.0f} Gb/s (bounds, not exact; "
            f"best cut found {b.gbps:,.0f}), ratio {b.ratio:.2f} of full"
        )
    row("Bisection", bis + f" ({b.full_gbps:,.0f} Gb/s non-blocking)")
    if b.method:
        row("", f"method: {b.method}")
    row(
        "Oversubscription",
        ", ".join(f"{t} {_ratio(r)}" for t, r in report.oversubscription.items())
        or "no switch tiers",
    )
    c = report.cost_usd
    estimate = any(line.estimate for line in c.lines)
    parts = [
        f"compute {_usd(c.compute)}",
        f"fabric {_usd(c.fabric)}",
        f"cables/optics {_usd(c.cables_optics)}",
        f"storage {_usd(c.storage)}",
        f"management {_usd(c.management)}",
    ]
    row(
        "Cost (capex)",
        f"{_usd(c.total)}"
        + (" (estimate)" if estimate else "")
        + ": "
        + ", ".join(parts),
    )
    if c.per_gpu:
        row("", f"{_usd(c.per_gpu)} per GPU, component build-up")
    t = report.tier
    low, high = t.typical_cost_usd
    typical = f"{_usd(low)}-{_usd(high)}" if high is not None else f"{_usd(low)}+"
    row("Tier", f"{t.name}: {t.reason}")
    row("", f"typical cost {typical} ({t.typical_cost_note})")
    row("Power", f"{report.power_kw:,.1f} kW max")
    row("Racks", racks_text(report, design))
    if report.switch_floor is not None:
        row("Clos floor", f"{report.switch_floor:,} switches (non-blocking minimum)")
    by = {sev: [f for f in report.findings if f.severity is sev] for sev in Severity}
    row(
        "Findings",
        f"{len(by[Severity.ERROR])} errors, {len(by[Severity.WARNING])} warnings, "
        f"{len(by[Severity.INFO])} info",
    )
    for sev in Severity:
        for f in by[sev]:
            items = ""
            if f.items:
                shown = ", ".join(f.items[:5])
                more = f" +{len(f.items) - 5} more" if len(f.items) > 5 else ""
                items = f" [{shown}{more}]"
            lines.append(f"    {sev.value.upper():<8}{f.code}: {f.message}{items}")
    return "\n".join(lines)
