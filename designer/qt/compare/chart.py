"""The compare dialog's chart (pyqtgraph): training days and dollars per run,
one bar per design, the first design on top."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtWidgets import QHBoxLayout, QWidget

from designer.core import formatting as fmt
from designer.qt.charts import _plot
from designer.view.workload.compare_table import Bars
from designer.workload.compare_rows import days_text

DAYS_COLOUR = "#4a7fb5"
OWNED_COLOUR = "#4c9f70"
CLOUD_COLOUR = "#c88a3a"
TEXT_COLOUR = "#33414f"
NAME_CHARS = 60
"""Design names longer than this are cut on the chart's axis (the table has them)."""


def _name(text: str) -> str:
    return text if len(text) <= NAME_CHARS else text[: NAME_CHARS - 1] + "…"


class CompareChart(QWidget):
    """Days and $ per run (owned and cloud) per design, side by side."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.days_plot = _plot("Training days (estimate)", "")
        self.cost_plot = _plot(
            f"$ per run: <span style='color:{OWNED_COLOUR}'>&#9632; owned</span> "
            f"<span style='color:{CLOUD_COLOUR}'>&#9632; cloud</span>",
            "",
        )
        for plot in (self.days_plot, self.cost_plot):
            plot.getViewBox().invertY(True)  # the first design on top
            plot.getAxis("left").setStyle(showValues=False)
            plot.getAxis("left").setWidth(6)
            plot.getAxis("left").setTicks([[]])
            plot.showGrid(x=True, y=False, alpha=0.2)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.days_plot, 3)
        layout.addWidget(self.cost_plot, 2)
        self.bars: Bars | None = None
        self.labels: list[str] = []
        """The value labels drawn (tests read them)."""

    def show_bars(self, bars: Bars | None) -> None:
        """Redraw both plots (empty when ``bars`` is None)."""
        self.bars = bars
        self.labels = []
        for plot in (self.days_plot, self.cost_plot):
            plot.clear()
        if bars is None or not bars.names:
            return
        ys = list(range(len(bars.names)))
        days = [d or 0.0 for d in bars.days]
        # the design's name above its bar: names of any length stay readable
        self.days_plot.addItem(
            pg.BarGraphItem(
                x0=0,
                y=[y + 0.14 for y in ys],
                width=days,
                height=0.5,
                brush=DAYS_COLOUR,
                pen=None,
            )
        )
        for y, d, name in zip(ys, bars.days, bars.names, strict=True):
            self._label(self.days_plot, 0.0, y - 0.3, _name(name), bold=True)
            self._label(self.days_plot, d or 0.0, y + 0.14, _days(d))
        self._range(self.days_plot, max(days), len(ys))
        cost = [v for v in bars.owned + bars.cloud if v is not None]
        top = max(cost, default=0.0)
        scale, unit = (1e9, "B") if top >= 2e9 else (1e6, "M")
        if top < 1e6:
            scale, unit = 1e3, "K"
        self.cost_plot.setLabel("bottom", f"USD ({unit})", color=TEXT_COLOUR)
        self.days_plot.setLabel("bottom", "days", color=TEXT_COLOUR)
        for values, offset, colour in (
            (bars.owned, -0.1, OWNED_COLOUR),
            (bars.cloud, 0.26, CLOUD_COLOUR),
        ):
            widths = [(v or 0.0) / scale for v in values]
            self.cost_plot.addItem(
                pg.BarGraphItem(
                    x0=0,
                    y=[y + offset for y in ys],
                    width=widths,
                    height=0.32,
                    brush=colour,
                    pen=None,
                )
            )
            for y, v, w in zip(ys, values, widths, strict=True):
                text = fmt.usd(v) if v is not None else "unknown"
                self._label(self.cost_plot, w, y + offset, text, size=8)
        self._range(self.cost_plot, top / scale, len(ys))

    def _label(
        self,
        plot: pg.PlotWidget,
        x: float,
        y: float,
        text: str,
        size: int = 9,
        bold: bool = False,
    ) -> None:
        item = pg.TextItem(text, color=TEXT_COLOUR, anchor=(0, 0.5))
        font = item.textItem.font()
        font.setPointSize(size)
        font.setBold(bold)
        item.setFont(font)
        item.setPos(x, y)
        plot.addItem(item)
        self.labels.append(text)

    @staticmethod
    def _range(plot: pg.PlotWidget, top: float, n: int) -> None:
        # room on the right for the value labels
        plot.setXRange(0, (top or 1.0) * 1.35, padding=0)
        plot.setYRange(-0.55, n - 0.45, padding=0)


def _days(d: float | None) -> str:
    return "unknown" if d is None else days_text(d)
