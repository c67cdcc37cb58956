"""Bill of materials CSV, built from the analysis report's cost lines.

The prices are never recomputed here: every row is one ``report.cost_usd.lines``
entry, so the BOM total is the analysis total by construction. Cable lines
count lanes, as the report does (``CABLE_LANES_NOTE``, said in their model).
"""

from __future__ import annotations

import csv

from designer.analysis.report import Report
from designer.core.formatting import CABLE_LANES_NOTE
from designer.io.export._common import (
    Catalog,
    Target,
    csv_number,
    open_text,
    resolve_catalog,
)

BOM_COLUMNS: tuple[str, ...] = (
    "category",
    "catalog_id",
    "manufacturer",
    "model",
    "quantity",
    "unit_price_usd",
    "extended_price_usd",
    "estimate",
    "source",
)

BomRow = tuple[str, str, str, str, int, float, float, bool, str]


def bom_rows(report: Report, catalog: Catalog | None = None) -> list[BomRow]:
    """One row per cost line, with manufacturer and model from the catalog."""
    cat = resolve_catalog(catalog)
    optics = getattr(cat, "optics", None)
    modules = {t.id for t in optics.transceivers} if optics is not None else set()
    rows: list[BomRow] = []
    for line in report.cost_usd.lines:
        entry = cat.get(line.catalog_id)
        if entry is not None:
            manufacturer, model = entry.manufacturer, entry.model
        else:  # cables, optics and other lines that are not catalog devices
            manufacturer, model = "", line.description
            if line.category == "cables_optics" and line.catalog_id not in modules:
                model = f"{model} ({CABLE_LANES_NOTE})"
        rows.append(
            (
                line.category,
                line.catalog_id,
                manufacturer,
                model,
                line.quantity,
                line.unit_usd,
                line.extended_usd,
                line.estimate,
                line.source,
            )
        )
    return rows


def _money(x: float) -> str:
    return csv_number(x)


def write_bom_csv(
    report: Report, target: Target, catalog: Catalog | None = None
) -> float:
    """Write the BOM with a final TOTAL row; return the total (= analysis total)."""
    rows = bom_rows(report, catalog)
    with open_text(target) as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(BOM_COLUMNS)
        for r in rows:
            w.writerow(
                (
                    r[0],
                    r[1],
                    r[2],
                    r[3],
                    r[4],
                    _money(r[5]),
                    _money(r[6]),
                    "yes" if r[7] else "no",
                    r[8],
                )
            )
        any_estimate = any(r[7] for r in rows)
        w.writerow(
            (
                "TOTAL",
                "",
                "",
                "",
                "",
                "",
                _money(report.cost_usd.total),
                "yes" if any_estimate else "no",
                "sum of the lines above (analysis cost total)",
            )
        )
    return report.cost_usd.total
