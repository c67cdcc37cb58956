"""What the compare dialog shows, without Qt: cells with their change against
the first design, and the bars of its chart.

The rows and their text are :func:`designer.workload.compare_rows.rows` (the CLI's
table); this adds, for every design after the first, the relative change of a
number and whether that change is for the better (a higher bisection, fewer
days) or the worse.
"""

from __future__ import annotations

from dataclasses import dataclass

from designer.workload.compare import Comparison, headers
from designer.workload.compare_rows import CompareRow, delta, rows

__all__ = ["Bars", "Cell", "Table", "bars", "table"]

SAME = 0.0005
"""Changes smaller than this share read as no change (rounding of the inputs)."""


SHARES = frozenset({"bisection_ratio", "oversubscription", "bisection_ratio_after_n1"})
"""Rows that are ratios themselves: their change is coloured, not given in %."""


@dataclass(frozen=True)
class Cell:
    """One figure of one design."""

    text: str
    change: str = ""
    """``+12.3%`` against the first design ("" for it, or when unchanged)."""
    verdict: str = ""
    """``better``, ``worse`` or "" (no change, or neither way is better)."""
    tip: str = ""
    """Why the figure is unknown, when it is."""


@dataclass(frozen=True)
class Table:
    """Rows of cells under one title per design."""

    headers: list[str]
    labels: list[str]
    keys: list[str]
    cells: list[list[Cell]]
    sized: list[bool]
    """Per row: scales with the cluster's size while the GPU counts differ."""


def _cells(row: CompareRow, comp: Comparison) -> list[Cell]:
    out: list[Cell] = []
    base = row.values[0] if row.values else None
    for i, (text, value) in enumerate(zip(row.texts, row.values, strict=True)):
        tip = comp.designs[i].unknown.get(row.key, "")
        change = verdict = ""
        d = delta(value, base) if i else None
        if d is not None and abs(d) >= SAME:
            change = f"{d:+.1%}" if row.key not in SHARES else ""
            if row.better is not None:
                up = d > 0
                verdict = "better" if up == (row.better == "higher") else "worse"
        out.append(Cell(text, change, verdict, tip))
    return out


def table(comp: Comparison) -> Table:
    """The dialog's table: the CLI's rows with changes against the first design."""
    table_rows = rows(comp)
    differ = len({c.gpus for c in comp.designs}) > 1
    return Table(
        headers=headers(comp.designs),
        labels=[r.label.strip() for r in table_rows],
        keys=[r.key for r in table_rows],
        cells=[_cells(r, comp) for r in table_rows],
        sized=[differ and r.sized for r in table_rows],
    )


@dataclass(frozen=True)
class Bars:
    """The chart: training days and dollars per run (owned, cloud) per design."""

    names: list[str]
    days: list[float | None]
    owned: list[float | None]
    cloud: list[float | None]

    @property
    def empty(self) -> bool:
        """Nothing to draw (no design has a training time)."""
        return all(d is None for d in self.days)


def bars(comp: Comparison) -> Bars:
    """The chart's values, in the order of the designs."""
    cols = comp.designs
    return Bars(
        names=headers(cols),
        days=[c.days for c in cols],
        owned=[c.usd_per_run_owned for c in cols],
        cloud=[c.usd_per_run_cloud for c in cols],
    )
