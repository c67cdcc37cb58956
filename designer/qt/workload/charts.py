"""The Workload panel's two charts (pyqtgraph): training days against GPU count
with this design marked, and owned vs cloud cost per busy GPU-hour against
utilisation with the break-even marked. The points come from
:mod:`designer.view.workload.summary`, the same the report page draws."""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtGui import QShowEvent
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
        self.days_plot: pg.PlotWidget | None = None
        self.cost_plot: pg.PlotWidget | None = None
        """The plots, made when the charts are first shown (a tab most windows
        never open: five pyqtgraph plots were a third of building a window)."""
        self.days_note = QLabel("")
        self.days_note.setObjectName("hint")
        self.days_note.setWordWrap(True)
        self.cost_note = QLabel("")
        self.cost_note.setObjectName("hint")
        self.cost_note.setWordWrap(True)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(2, 2, 2, 2)
        self._layout.addWidget(self.days_note)
        self._layout.addWidget(self.cost_note)
        self.days: list[tuple[int, float]] = []
        self.design_point: tuple[int, float] | None = None
        self.cost: list[tuple[float, float, float | None]] = []
        self.breakeven: float | None = None
        self._estimate: Estimate | None = None

    def showEvent(self, event: QShowEvent) -> None:
        """Make the plots the first time the charts are shown, and draw them."""
        if self.days_plot is None:
            self._make_plots()
            self.show_estimate(self._estimate)
        super().showEvent(event)

    def _make_plots(self) -> None:
        days = _plot("Training days vs GPUs", "days (log)")
        days.setLabel("bottom", "GPUs (log)", color="#33414f")
        days.setLogMode(x=True, y=True)
        cost = _plot(
            f"<span style='color:{OWNED_COLOUR}'>&#9632; owned</span> vs "
            f"<span style='color:{CLOUD_COLOUR}'>&#9632; cloud</span>",
            "USD per busy GPU-hour",
        )
        cost.setLabel("bottom", "utilisation, %", color="#33414f")
        self._layout.insertWidget(0, days, 1)  # above its note
        self._layout.insertWidget(2, cost, 1)
        self.days_plot, self.cost_plot = days, cost

    def show_estimate(self, est: Estimate | None) -> None:
        """Redraw both charts (empty when ``est`` is None); before the charts
        are first shown, only their figures and notes."""
        self._estimate = est
        self._draw_days(est)
        self._draw_cost(est)

    def _draw_days(self, est: Estimate | None) -> None:
        plot = self.days_plot
        if plot is not None:
            plot.clear()
        self.days = days_points(est) if est is not None else []
        self.design_point = None
        if est is None or not self.days:
            why = est.unknown.get("days") if est is not None else None
            self.days_note.setText(f"No training time: {why}" if why else "")
            return
        used = est.parallelism.gpus_used
        assert est.days is not None
        self.design_point = (used, est.days)
        fewest = (
            f"; dashed: the fewest GPUs that hold it ({est.min_gpus:,})"
            if est.min_gpus
            else ""
        )
        self.days_note.setText(
            f"Red: this design, {used:,} GPUs, {fmt.duration(est.days)}{fewest}. "
            "Estimate: days scale as 1 / GPUs at the same MFU."
        )
        if plot is None:
            return
        xs = [float(n) for n, _ in self.days]
        ys = [d for _, d in self.days]
        plot.plot(xs, ys, pen=pg.mkPen(DAYS_COLOUR, width=2))
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

    def _draw_cost(self, est: Estimate | None) -> None:
        plot = self.cost_plot
        if plot is not None:
            plot.clear()
        self.cost = cost_points(est) if est is not None else []
        self.breakeven = None
        if est is None or not self.cost:
            why = est.unknown.get("tco.owned_usd_per_gpu_hour") if est else None
            self.cost_note.setText(f"No owned cost: {why}" if why else "")
            return
        cloud = est.tco.cloud_usd_per_gpu_hour
        base = est.tco.owned_usd_per_gpu_hour or 0.0
        b = est.tco.breakeven_utilization
        if b is not None and b <= 1:
            self.breakeven = b
        u = est.tco.utilization
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
        if plot is None:
            return
        xs = [x * 100 for x, _, _ in self.cost]
        owned = [o for _, o, _ in self.cost]
        plot.plot(xs, owned, pen=pg.mkPen(OWNED_COLOUR, width=2))
        top = max(base * 3.0, (cloud or 0.0) * 2.0)
        if cloud is not None:
            plot.plot(
                [xs[0], xs[-1]], [cloud, cloud], pen=pg.mkPen(CLOUD_COLOUR, width=2)
            )
        if self.breakeven is not None:
            plot.addItem(
                pg.InfiniteLine(
                    self.breakeven * 100,
                    angle=90,
                    pen=pg.mkPen(MARK_COLOUR, style=pg.QtCore.Qt.PenStyle.DashLine),
                )
            )
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
