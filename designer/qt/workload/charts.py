"""The Workload panel's two charts (pyqtgraph): training days against GPU count
with this design marked, and owned vs cloud cost per busy GPU-hour against
utilisation with the break-even marked. The points come from
:mod:`designer.view.workload.summary`, the same the report page draws."""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from designer.core import formatting as fmt
from designer.qt.charts import _plot
from designer.view.workload.summary import cost_points, days_points
from designer.workload import Estimate

DAYS_COLOUR = "#4a7fb5"
MARK_COLOUR = "#c0392b"
OWNED_COLOUR = "#4c9f70"
CLOUD_COLOUR = "#c88a3a"
FIT_COLOUR = "#7b8794"


class WorkloadCharts(QWidget):
    """Days vs GPUs and cost vs utilisation for the latest estimate."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.days_plot = _plot("Training days vs GPUs", "days (log)")
        self.days_plot.setLabel("bottom", "GPUs (log)", color="#33414f")
        self.days_plot.setLogMode(x=True, y=True)
        self.cost_plot = _plot(
            f"<span style='color:{OWNED_COLOUR}'>&#9632; owned</span> vs "
            f"<span style='color:{CLOUD_COLOUR}'>&#9632; cloud</span>",
            "USD per busy GPU-hour",
        )
        self.cost_plot.setLabel("bottom", "utilisation, %", color="#33414f")
        self.days_note = QLabel("")
        self.days_note.setObjectName("hint")
        self.days_note.setWordWrap(True)
        self.cost_note = QLabel("")
        self.cost_note.setObjectName("hint")
        self.cost_note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.days_plot, 1)
        layout.addWidget(self.days_note)
        layout.addWidget(self.cost_plot, 1)
        layout.addWidget(self.cost_note)
        self.days: list[tuple[int, float]] = []
        self.design_point: tuple[int, float] | None = None
        self.cost: list[tuple[float, float, float | None]] = []
        self.breakeven: float | None = None

    def show_estimate(self, est: Estimate | None) -> None:
        """Redraw both charts (empty when ``est`` is None)."""
        self._draw_days(est)
        self._draw_cost(est)

    def _draw_days(self, est: Estimate | None) -> None:
        plot = self.days_plot
        plot.clear()
        self.days = days_points(est) if est is not None else []
        self.design_point = None
        if est is None or not self.days:
            why = est.unknown.get("days") if est is not None else None
            self.days_note.setText(f"No training time: {why}" if why else "")
            return
        xs = [float(n) for n, _ in self.days]
        ys = [d for _, d in self.days]
        plot.plot(xs, ys, pen=pg.mkPen(DAYS_COLOUR, width=2))
        used = est.parallelism.gpus_used
        assert est.days is not None
        self.design_point = (used, est.days)
        plot.plot(
            [float(used)],
            [est.days],
            pen=None,
            symbol="o",
            symbolSize=9,
            symbolBrush=MARK_COLOUR,
            symbolPen=None,
        )
        if est.min_gpus:
            plot.addItem(
                pg.InfiniteLine(
                    math.log10(est.min_gpus),
                    angle=90,
                    pen=pg.mkPen(FIT_COLOUR, style=pg.QtCore.Qt.PenStyle.DashLine),
                )
            )
        plot.autoRange()
        fewest = (
            f"; dashed: the fewest GPUs that hold it ({est.min_gpus:,})"
            if est.min_gpus
            else ""
        )
        self.days_note.setText(
            f"Red: this design, {used:,} GPUs, {fmt.duration(est.days)}{fewest}. "
            "Estimate: days scale as 1 / GPUs at the same MFU."
        )

    def _draw_cost(self, est: Estimate | None) -> None:
        plot = self.cost_plot
        plot.clear()
        self.cost = cost_points(est) if est is not None else []
        self.breakeven = None
        if est is None or not self.cost:
            why = est.unknown.get("tco.owned_usd_per_gpu_hour") if est else None
            self.cost_note.setText(f"No owned cost: {why}" if why else "")
            return
        xs = [u * 100 for u, _, _ in self.cost]
        owned = [o for _, o, _ in self.cost]
        plot.plot(xs, owned, pen=pg.mkPen(OWNED_COLOUR, width=2))
        cloud = est.tco.cloud_usd_per_gpu_hour
        base = est.tco.owned_usd_per_gpu_hour or 0.0
        top = max(base * 3.0, (cloud or 0.0) * 2.0)
        if cloud is not None:
            plot.plot(
                [xs[0], xs[-1]], [cloud, cloud], pen=pg.mkPen(CLOUD_COLOUR, width=2)
            )
        b = est.tco.breakeven_utilization
        if b is not None and b <= 1:
            self.breakeven = b
            plot.addItem(
                pg.InfiniteLine(
                    b * 100,
                    angle=90,
                    pen=pg.mkPen(MARK_COLOUR, style=pg.QtCore.Qt.PenStyle.DashLine),
                )
            )
        u = est.tco.utilization
        plot.plot(
            [u * 100],
            [base / u],
            pen=None,
            symbol="o",
            symbolSize=9,
            symbolBrush=MARK_COLOUR,
            symbolPen=None,
        )
        plot.setXRange(0, 100, padding=0.02)
        plot.setYRange(0, top, padding=0.02)
        if b is None:
            text = "No cloud rate to compare with."
        elif b > 1:
            text = (
                f"Owning costs more than the cloud rate even at full use "
                f"(break-even {b:.0%})."
            )
        else:
            text = (
                f"Dashed: break-even at {b:.1%} utilisation; dot: the design at "
                f"{u:.0%}. Owned cost per busy hour = owned at full use / "
                "utilisation (estimate)."
            )
        self.cost_note.setText(text)
