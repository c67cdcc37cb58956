"""Text of the report's headline and tables, shared by the PDF and the CLI.

Every number comes from the analysis :class:`Report` (and the design for names);
estimates and bounds are said so in the text.
"""

from __future__ import annotations

from designer.analysis.report import Report, Severity
from designer.core.model import Design
from designer.io.export._common import Catalog
from designer.io.export.bom import bom_rows
from designer.io.export.cabling import cabling_summary

TIER_ORDER = ("leaf", "spine", "core", "other")


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def money(x: float) -> str:
    """``$1,234,567``."""
    return f"${x:,.0f}"


def bandwidth(gbps: float) -> str:
    """Gb/s below 10 Tb/s, else Tb/s."""
    if gbps >= 10_000:
        return f"{gbps / 1000:,.1f} Tb/s"
    return f"{gbps:,.0f} Gb/s"


def ratio(x: float | None) -> str:
    """``2.00:1``, or a dash for the top tier."""
    return "–" if x is None else f"{x:.2f}:1"


def cost_is_estimate(report: Report) -> bool:
    """Whether any price behind the cost is an estimate."""
    return any(line.estimate for line in report.cost_usd.lines)


def bisection_text(report: Report) -> str:
    """Value, ratio and whether it is exact or a bound."""
    b = report.bisection
    text = (
        f"{bandwidth(b.gbps)}, ratio {b.ratio:.2f} of full bisection "
        f"({bandwidth(b.full_gbps)})"
    )
    if b.exact:
        return text + "; exact"
    return (
        text + f"; upper bound: the true value lies between "
        f"{bandwidth(b.lower_gbps)} and {bandwidth(b.upper_gbps)}"
    )


def headline(design: Design, report: Report) -> list[tuple[str, str]]:
    """``(label, value)`` pairs of the report's first page."""
    cost = money(report.cost_usd.total)
    if cost_is_estimate(report):
        cost += " (estimate)"
    if report.cost_usd.per_gpu:
        cost += f"; {money(report.cost_usd.per_gpu)} per GPU"
    switches = ", ".join(
        f"{report.switches[t]:,} {t}" for t in TIER_ORDER if report.switches.get(t)
    )
    cables = ", ".join(f"{n:,} {f}" for f, n in report.cables.items() if n)
    sev = {s: 0 for s in Severity}
    for f in report.findings:
        sev[f.severity] += 1
    findings = ", ".join(
        f"{sev[s]} {s.value}{'s' if sev[s] != 1 and s is not Severity.INFO else ''}"
        for s in Severity
    )
    typical_lo, typical_hi = report.tier.typical_cost_usd
    typical = money(typical_lo) + (
        f" – {money(typical_hi)}" if typical_hi is not None else " and up"
    )
    return [
        ("Purpose", design.settings.purpose.value),
        ("Tier class", f"{report.tier.name}: {report.tier.reason}"),
        ("Typical cost of the class", f"{typical} ({report.tier.typical_cost_note})"),
        (
            "GPUs",
            f"{report.gpus:,} in {report.compute_nodes:,} compute nodes; "
            f"{report.nvlink_domains:,} NVLink domains of {report.nvlink_domain_size}",
        ),
        ("Bisection bandwidth", bisection_text(report)),
        ("Cost", cost),
        ("Power", f"{report.power_kw:,.1f} kW (maximum)"),
        (
            "Racks",
            f"{_count(report.racks, 'rack')}, "
            f"{_count(round(report.rack_units), 'rack unit')}",
        ),
        ("Switches", switches or "none"),
        (
            "Cables",
            (cables or "none") + f"; {report.transceivers:,} transceivers",
        ),
        ("Findings", findings),
    ]


def tier_rows(report: Report) -> list[list[str]]:
    """Per-tier table rows: tier, switches, ports used, down, up, ratio, worst."""
    rows: list[list[str]] = []
    names = sorted(
        report.tiers,
        key=lambda t: TIER_ORDER.index(t) if t in TIER_ORDER else len(TIER_ORDER),
    )
    for name in names:
        t = report.tiers[name]
        rows.append(
            [
                name,
                f"{t.switches:,}",
                f"{t.ports_used:,} / {t.ports_total:,}",
                bandwidth(t.down_gbps),
                bandwidth(t.up_gbps),
                ratio(t.ratio),
                ratio(t.worst_ratio),
            ]
        )
    return rows


def finding_rows(report: Report, max_items: int = 6) -> list[list[str]]:
    """Findings table rows: severity, code, message, items (first few)."""
    rows: list[list[str]] = []
    for f in report.findings:
        items = ", ".join(f.items[:max_items])
        if len(f.items) > max_items:
            items += f" … and {len(f.items) - max_items:,} more"
        rows.append([f.severity.value, f.code, f.message, items])
    return rows


def bom_table(report: Report, catalog: Catalog | None = None) -> list[list[str]]:
    """BOM table rows with the total row last (prices from the report lines)."""
    rows: list[list[str]] = []
    for cat, cid, manufacturer, model, qty, unit, ext, est, src in bom_rows(
        report, catalog
    ):
        item = f"{manufacturer} {model}".strip() + f" ({cid})"
        rows.append(
            [
                cat.replace("_", " & ") if cat == "cables_optics" else cat,
                item,
                f"{qty:,}",
                f"${unit:,.2f}",
                f"${ext:,.2f}",
                "estimate" if est else "",
                src,
            ]
        )
    total = f"${report.cost_usd.total:,.2f}"
    rows.append(
        [
            "TOTAL",
            "",
            "",
            "",
            total,
            "estimate" if cost_is_estimate(report) else "",
            "analysis cost total",
        ]
    )
    return rows


def cabling_table(
    design: Design, report: Report, catalog: Catalog | None = None
) -> list[list[str]]:
    """Cabling summary rows (fabric, cable type, speed, cables) with a total."""
    rows = [
        [fabric, ctype, f"{speed:,}G", f"{n:,}"]
        for fabric, ctype, speed, n in cabling_summary(design, catalog)
    ]
    rows.append(["TOTAL", "", "", f"{sum(design.links.cables):,}"])
    return rows
