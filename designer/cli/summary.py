"""The human-readable summary ``cluster-designer validate`` prints."""

from __future__ import annotations

from designer.analysis.report import Report, Severity
from designer.core.formatting import (
    CABLE_LANES_NOTE,
    OFF_PATH_NOTE,
    plural,
    switch_counts,
)
from designer.core.formatting import ratio as _ratio
from designer.core.formatting import usd as _usd
from designer.core.model import Design
from designer.io.export.summary import racks_text


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
        f"{report.gpus:,} in {plural(report.compute_nodes, 'compute node')} "
        f"({plural(report.nvlink_domains, 'NVLink domain')} of "
        f"{report.nvlink_domain_size})",
    )
    row("Switches", switch_counts(report.switches) or "none")
    if report.switches.get("compute"):
        row("", f"({OFF_PATH_NOTE})")
    row(
        "Cables",
        _counts(report.cables)
        + f" ({CABLE_LANES_NOTE}); {plural(report.transceivers, 'transceiver')}",
    )
    b = report.bisection
    of_full = (
        f"ratio {b.ratio:.2f} of full"
        if b.ratio is not None
        else "no ratio (fewer than two compute nodes)"
    )
    if b.exact:
        bis = f"{b.gbps:,.0f} Gb/s (exact), {of_full}"
    else:
        bis = (
            f"{b.lower_gbps:,.0f} to {b.upper_gbps:,.0f} Gb/s (bounds, not exact; "
            f"best cut found {b.gbps:,.0f}), {of_full}"
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
    ph = report.physical
    if ph.placed:
        cool = ph.racks_by_cooling
        row(
            "Floor",
            f"{plural(ph.rows, 'row')} in {ph.floor_m2 or 0:,.0f} m² of hall; racks by "
            f"cooling: air {cool.air}, containment {cool.containment}, liquid "
            f"{cool.liquid}; hottest {ph.max_rack_kw or 0:,.1f} kW; IT "
            f"{ph.it_kw:,.0f} kW, {ph.facility_kw or 0:,.0f} kW at PUE {ph.pue:g}",
        )
    media = ", ".join(
        f"{k} {v:,}" for k, v in ph.cables_by_media.model_dump().items() if v
    )
    longest = (
        f"; longest {ph.longest_cable_m:,.1f} m"
        if ph.longest_cable_m is not None
        else "; lengths unknown (not placed: default medium per speed)"
    )
    row("Cable media", (media or "none") + longest)
    if report.switch_floor is not None:
        row(
            "Clos floor",
            f"{plural(report.switch_floor, 'switch')} (non-blocking minimum)",
        )
    by = {sev: [f for f in report.findings if f.severity is sev] for sev in Severity}
    row(
        "Findings",
        ", ".join(plural(len(by[s]), s.value) for s in Severity),
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
