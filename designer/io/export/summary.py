"""Text of the report's headline and tables, shared by the PDF and the CLI.

Every number comes from the analysis :class:`Report` (and the design for names);
estimates and bounds are said so in the text.
"""

from __future__ import annotations

import math

from designer.analysis.report import Report, Severity
from designer.core.formatting import (
    CABLE_LANES_NOTE,
    gbps,
    plural,
    switch_counts,
    usd,
    usd_exact,
)
from designer.core.formatting import ratio as fmt_ratio
from designer.core.model import Design, Tier
from designer.io.export._common import Catalog, resolve_catalog
from designer.io.export.bom import bom_rows
from designer.io.export.cabling import cabling_summary


def _switch_order(name: str) -> tuple[int, bool]:
    """Compute tiers first (:meth:`Tier.order_key`), then ``other``, then the
    rest (other fabrics, unwired) in report order (the sort is stable)."""
    return Tier.order_key(name), name != "other"


#: Height of the rack the estimate packs devices into.
RACK_U = 42


_count = plural
money = usd_exact
bandwidth = gbps


def ratio(x: float | None) -> str:
    """``2:1``, or a dash for the top tier."""
    return fmt_ratio(x, top="–")


def cost_is_estimate(report: Report) -> bool:
    """Whether any price behind the cost is an estimate."""
    return any(line.estimate for line in report.cost_usd.lines)


def bisection_text(report: Report) -> str:
    """Value, ratio and whether it is exact or a bound."""
    b = report.bisection
    if b.ratio is None:
        return f"{bandwidth(b.gbps)}; no ratio (fewer than two compute nodes)"
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


def _with_note(value: str, note: str) -> str:
    """``value (note)``, or ``value. Note.`` when the note is whole sentences."""
    note = note.strip()
    if not note:
        return value
    if note[0].isupper() and note.endswith("."):
        return f"{value}. {note}"
    return f"{value} ({note})"


def rack_estimate(
    design: Design, catalog: Catalog | None = None, rack_u: int = RACK_U
) -> tuple[int, int]:
    """Racks if packed: ``(rack-scale devices, racks of rack_u U for the rest)``.

    A device at least ``rack_u`` high (an NVL72) is a rack of its own; the other
    units are packed tightly, so the count is a lower bound (no power, cooling
    or cabling limits per rack).
    """
    cat = resolve_catalog(catalog)
    whole, rest = 0, 0.0
    for d in design.devices:
        entry = cat.get(d.catalog_id)
        u = float(entry.u_height) if entry is not None else 0.0
        if u >= rack_u:
            whole += 1
        else:
            rest += u
    return whole, math.ceil(rest / rack_u - 1e-9)


def racks_text(
    report: Report, design: Design | None = None, catalog: Catalog | None = None
) -> str:
    """Racks as placed in the design, else rack units and an estimate if packed."""
    units = f"{round(report.rack_units):,} U"
    if report.racks:
        text = f"{_count(report.racks, 'rack')}, {units} in all"
        if design is not None:
            unplaced = sum(
                1 for d in design.devices if d.placement is None or not d.placement.rack
            )
            if unplaced:
                have = "has" if unplaced == 1 else "have"
                text += (
                    f"; {unplaced:,} of {_count(len(design.devices), 'device')} "
                    f"{have} no rack placement"
                )
        return text
    note = "(estimate; no rack placement in the design)"
    if design is None:
        return f"{units}; no rack placement in the design"
    whole, packed = rack_estimate(design, catalog)
    if whole:
        return (
            f"{units}, about {_count(whole + packed, 'rack')} if packed: "
            f"{_count(whole, 'rack-scale system')} + {packed:,} of {RACK_U} U {note}"
        )
    return f"{units}, about {_count(packed, 'rack')} of {RACK_U} U if packed {note}"


def headline(
    design: Design, report: Report, catalog: Catalog | None = None
) -> list[tuple[str, str]]:
    """``(label, value)`` pairs of the report's first page."""
    # headline money in three figures ("$40.5M"), as the window says it; the
    # bill of materials keeps the dollars
    cost = usd(report.cost_usd.total)
    if cost_is_estimate(report):
        cost += " (estimate)"
    if report.cost_usd.per_gpu:
        cost += f"; {usd(report.cost_usd.per_gpu)} per GPU"
    # compute tiers first, then the other fabrics and unwired ones (report order)
    keys = sorted(report.switches, key=_switch_order)
    switches = switch_counts({t: report.switches[t] for t in keys})
    cables = ", ".join(f"{n:,} {f}" for f, n in report.cables.items() if n)
    sev = {s: 0 for s in Severity}
    for f in report.findings:
        sev[f.severity] += 1
    findings = ", ".join(_count(sev[s], s.value) for s in Severity)
    typical_lo, typical_hi = report.tier.typical_cost_usd
    typical = usd(typical_lo) + (
        f" – {usd(typical_hi)}" if typical_hi is not None else " and up"
    )
    return [
        ("Purpose", design.settings.purpose.value),
        ("Tier class", f"{report.tier.name}: {report.tier.reason}"),
        (
            "Typical cost of the class",
            _with_note(typical, report.tier.typical_cost_note),
        ),
        (
            "GPUs",
            f"{report.gpus:,} in {_count(report.compute_nodes, 'compute node')}; "
            f"{_count(report.nvlink_domains, 'NVLink domain')} of "
            f"{report.nvlink_domain_size}",
        ),
        ("Bisection bandwidth", bisection_text(report)),
        ("Cost", cost),
        ("Power", f"{report.power_kw:,.1f} kW (maximum)"),
        ("Racks", racks_text(report, design, catalog)),
        ("Switches", switches or "none"),
        (
            "Cables",
            (cables or "none")
            + (f" ({CABLE_LANES_NOTE})" if cables else "")
            + f"; {_count(report.transceivers, 'transceiver')}",
        ),
        ("Findings", findings),
    ]


def tier_rows(report: Report) -> list[list[str]]:
    """Per-tier table rows: tier, switches, ports used, down, up, ratio, worst."""
    rows: list[list[str]] = []
    names = sorted(report.tiers, key=_switch_order)
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
