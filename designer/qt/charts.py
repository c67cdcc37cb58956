"""Live charts (pyqtgraph): cost breakdown and per-tier down vs up capacity."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QHBoxLayout, QWidget

from designer.analysis.report import Report
from designer.core import formatting as fmt
from designer.core.model import Tier

COST_CATEGORIES: tuple[tuple[str, str], ...] = (
    ("compute", "Compute"),
    ("fabric", "Switches"),
    ("cables_optics", "Cables, optics"),
    ("storage", "Storage"),
    ("management", "Management"),
)
DOWN_COLOUR = "#4a7fb5"
UP_COLOUR = "#4c9f70"


#: Room under a chart for two-line category labels (tier, then ratio).
TICK_AXIS_HEIGHT = 38
#: Category labels a little smaller than the axis title: three tiers side by side.
TICK_PT = 8.0


def _plot(title: str, left: str) -> pg.PlotWidget:
    plot = pg.PlotWidget(background="w")
    plot.setTitle(title, color="#33414f", size="10pt")
    plot.setLabel("left", left, color="#33414f")
    plot.setMouseEnabled(x=False, y=False)
    plot.hideButtons()
    plot.setMenuEnabled(False)
    plot.showGrid(x=True, y=True, alpha=0.2)
    for axis in ("left", "bottom"):
        plot.getAxis(axis).setTextPen("#33414f")
        plot.getAxis(axis).setPen("#9aa5b1")
    plot.setMinimumHeight(150)
    plot.getAxis("bottom").setHeight(TICK_AXIS_HEIGHT)
    tick_font = QFont()
    tick_font.setPointSizeF(TICK_PT)
    plot.getAxis("bottom").setStyle(tickFont=tick_font)
    for axis in ("left", "bottom"):
        plot.getAxis(axis).enableAutoSIPrefix(False)
    return plot


class ChartsPanel(QWidget):
    """Two bar charts that follow the latest analysis report.

    The bars are made once and then given the next report's values
    (``setOpts``); a report whose values and labels are those already drawn
    changes nothing (most edits move one chart at most). Making the three bar
    items and the axis ticks afresh took ~2 ms of the GUI thread per report.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.cost_plot = _plot("Cost (USD millions)", "")
        self.cost_plot.getAxis("left").setWidth(90)
        self.cost_plot.getViewBox().invertY(True)  # first category on top
        self.cost_plot.getAxis("left").setTicks(
            [[(i, label) for i, (_, label) in enumerate(COST_CATEGORIES)]]
        )
        self.tier_plot = _plot(
            f"Per tier: <span style='color:{DOWN_COLOUR}'>&#9632; down</span> vs "
            f"<span style='color:{UP_COLOUR}'>&#9632; up</span>",
            "capacity, Tb/s",
        )
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.cost_plot, 1)
        layout.addWidget(self.tier_plot, 1)
        self.cost_values: list[float] = []
        self.cost_unit = "millions"
        self.tier_values: dict[str, tuple[float, float]] = {}
        self._cost_bars: pg.BarGraphItem | None = None
        self._tier_bars: tuple[pg.BarGraphItem, pg.BarGraphItem] | None = None
        self._tier_ticks: list[tuple[int, str]] | None = None

    def show_report(self, report: Report | None) -> None:
        """Redraw both charts from ``report`` (clear them when None)."""
        self._draw_cost(report)
        self._draw_tiers(report)

    def _draw_cost(self, report: Report | None) -> None:
        plot = self.cost_plot
        if report is None:
            if self._cost_bars is not None:
                plot.removeItem(self._cost_bars)
                self._cost_bars = None
            self.cost_values = []
            return
        cost = report.cost_usd
        unit, scale = ("billions", 1e9) if cost.total >= 2e9 else ("millions", 1e6)
        if cost.total < 1e6:
            unit, scale = "thousands", 1e3
        values = [getattr(cost, k) / scale for k, _ in COST_CATEGORIES]
        if self._cost_bars is not None and (values, unit) == (
            self.cost_values,
            self.cost_unit,
        ):
            return
        if unit != self.cost_unit or self._cost_bars is None:
            plot.setTitle(f"Cost (USD {unit})", color="#33414f", size="10pt")
        self.cost_unit = unit
        self.cost_values = values
        if self._cost_bars is None:
            self._cost_bars = pg.BarGraphItem(
                x0=0,
                y=list(range(len(COST_CATEGORIES))),
                width=values,
                height=0.6,
                brushes=["#4c9f70", "#4a7fb5", "#8e7cc3", "#c88a3a", "#7b8794"],
                pen=None,
            )
            plot.addItem(self._cost_bars)
        else:
            self._cost_bars.setOpts(width=values)
        top = max(values) or 1.0
        plot.setXRange(0, top * 1.08, padding=0)
        plot.setYRange(-0.6, len(COST_CATEGORIES) - 0.4, padding=0)

    def _draw_tiers(self, report: Report | None) -> None:
        plot = self.tier_plot
        if report is None:
            self._drop_tier_bars()
            self.tier_values = {}
            return
        names = sorted(report.tiers, key=lambda t: (Tier.order_key(t), t))
        values = {
            n: (report.tiers[n].down_gbps / 1e3, report.tiers[n].up_gbps / 1e3)
            for n in names
        }
        ticks = []
        for i, n in enumerate(names):
            r = report.tiers[n].ratio
            # two lines: the tier, then its ratio, so three tiers' labels fit a
            # narrow chart side by side (one line ran "spine non-blockingcore
            # (top)" together, and the axis dropped the leaf's)
            ticks.append(
                (i, f"{n}\n{fmt.ratio(r)}" if r is not None else f"{n}\n(top)")
            )
        drawn = self._tier_bars is not None or not names
        if drawn and values == self.tier_values and ticks == self._tier_ticks:
            return
        self.tier_values = values
        xs = list(range(len(names)))
        downs = [values[n][0] for n in names]
        ups = [values[n][1] for n in names]
        if not names:
            self._drop_tier_bars()
        elif self._tier_bars is None:
            self._tier_bars = (
                pg.BarGraphItem(
                    x=[x - 0.18 for x in xs],
                    height=downs,
                    width=0.34,
                    brush=DOWN_COLOUR,
                    pen=None,
                ),
                pg.BarGraphItem(
                    x=[x + 0.18 for x in xs],
                    height=ups,
                    width=0.34,
                    brush=UP_COLOUR,
                    pen=None,
                ),
            )
            for bars in self._tier_bars:
                plot.addItem(bars)
        else:
            down_bars, up_bars = self._tier_bars
            down_bars.setOpts(x=[x - 0.18 for x in xs], height=downs)
            up_bars.setOpts(x=[x + 0.18 for x in xs], height=ups)
        if ticks != self._tier_ticks:
            plot.getAxis("bottom").setTicks([ticks])
            self._tier_ticks = ticks
        top = max([max(v) for v in values.values()], default=0.0) or 1.0
        plot.setYRange(0, top * 1.1, padding=0)
        plot.setXRange(-0.6, max(len(xs), 1) - 0.4, padding=0)

    def _drop_tier_bars(self) -> None:
        if self._tier_bars is not None:
            for bars in self._tier_bars:
                self.tier_plot.removeItem(bars)
            self._tier_bars = None
