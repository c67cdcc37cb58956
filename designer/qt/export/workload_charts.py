"""The workload charts drawn with QPainter (vector in the PDF): training days
against GPU count and owned vs cloud cost per busy GPU-hour against
utilisation. The points are the Workload panel's
(:mod:`designer.view.workload.summary`), so the page and the panel show the
same curves."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPainterPath, QPen

from designer.qt.export.layout import MUTED, RULE, TEXT, font
from designer.view.workload.summary import cost_points, days_points
from designer.workload import Estimate

DAYS = QColor("#4a7fb5")
MARK = QColor("#c0392b")
OWNED = QColor("#4c9f70")
CLOUD = QColor("#c88a3a")
FIT = QColor("#7b8794")


@dataclass
class Chart:
    """What one chart shows (data coordinates)."""

    title: str
    x_label: str
    y_label: str
    x_range: tuple[float, float]
    y_range: tuple[float, float]
    x_log: bool = False
    y_log: bool = False
    lines: list[tuple[list[tuple[float, float]], QColor, str]] = field(
        default_factory=list
    )
    verticals: list[tuple[float, QColor, str]] = field(default_factory=list)
    dots: list[tuple[float, float, QColor, str]] = field(default_factory=list)


def _ticks(lo: float, hi: float, log: bool) -> list[float]:
    if log:
        a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
        return [10.0**k for k in range(a, b + 1) if lo <= 10.0**k <= hi * 1.0001]
    span = hi - lo
    if span <= 0:
        return [lo]
    raw = span / 5
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step) * step
    return [first + i * step for i in range(int((hi - first) / step + 1e-9) + 1)]


def _tick_text(v: float) -> str:
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "K")):
        if abs(v) >= scale:
            return f"{v / scale:g}{suffix}"
    return f"{v:g}"


def paint_chart(p: QPainter, rect: QRectF, chart: Chart) -> None:
    """Draw ``chart`` into ``rect`` (points): frame, ticks, lines and marks."""
    p.save()
    p.setFont(font(8, bold=True))
    p.setPen(TEXT)
    p.drawText(
        QRectF(rect.left(), rect.top(), rect.width(), 12),
        int(Qt.AlignmentFlag.AlignLeft),
        chart.title,
    )
    plot = QRectF(
        rect.left() + 34, rect.top() + 18, rect.width() - 42, rect.height() - 44
    )
    x0, x1 = chart.x_range
    y0, y1 = chart.y_range

    def fx(x: float) -> float:
        if chart.x_log:
            t = (math.log10(x) - math.log10(x0)) / (math.log10(x1) - math.log10(x0))
        else:
            t = (x - x0) / (x1 - x0)
        return plot.left() + t * plot.width()

    def fy(y: float) -> float:
        y = min(max(y, y0), y1)
        if chart.y_log:
            t = (math.log10(y) - math.log10(y0)) / (math.log10(y1) - math.log10(y0))
        else:
            t = (y - y0) / (y1 - y0)
        return plot.bottom() - t * plot.height()

    p.setFont(font(6.5))
    for x in _ticks(x0, x1, chart.x_log):
        p.setPen(QPen(RULE, 0.4))
        p.drawLine(QPointF(fx(x), plot.top()), QPointF(fx(x), plot.bottom()))
        p.setPen(MUTED)
        p.drawText(
            QRectF(fx(x) - 20, plot.bottom() + 2, 40, 9),
            int(Qt.AlignmentFlag.AlignHCenter),
            _tick_text(x),
        )
    for y in _ticks(y0, y1, chart.y_log):
        p.setPen(QPen(RULE, 0.4))
        p.drawLine(QPointF(plot.left(), fy(y)), QPointF(plot.right(), fy(y)))
        p.setPen(MUTED)
        p.drawText(
            QRectF(plot.left() - 33, fy(y) - 4.5, 30, 9),
            int(Qt.AlignmentFlag.AlignRight),
            _tick_text(y),
        )
    p.setPen(QPen(MUTED, 0.6))
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawRect(plot)
    p.setPen(MUTED)
    p.drawText(
        QRectF(plot.left(), plot.bottom() + 11, plot.width(), 9),
        int(Qt.AlignmentFlag.AlignHCenter),
        chart.x_label,
    )
    p.save()
    p.translate(rect.left() + 3, plot.center().y())
    p.rotate(-90)
    p.drawText(
        QRectF(-60, -2, 120, 9), int(Qt.AlignmentFlag.AlignHCenter), chart.y_label
    )
    p.restore()
    p.setClipRect(plot)
    for points, colour, _ in chart.lines:
        path = QPainterPath()
        for i, (x, y) in enumerate(points):
            (path.moveTo if i == 0 else path.lineTo)(QPointF(fx(x), fy(y)))
        p.setPen(QPen(colour, 1.3))
        p.drawPath(path)
    for x, colour, _ in chart.verticals:
        p.setPen(QPen(colour, 0.9, Qt.PenStyle.DashLine))
        p.drawLine(QPointF(fx(x), plot.top()), QPointF(fx(x), plot.bottom()))
    p.setClipping(False)
    for x, y, colour, _ in chart.dots:
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(colour)
        p.drawEllipse(QPointF(fx(x), fy(y)), 2.6, 2.6)
    # legend under the axis label
    small = font(6.5)
    p.setFont(small)
    metrics = QFontMetricsF(small, p.device())
    lx = plot.left()
    ly = plot.bottom() + 22
    entries: Sequence[tuple[QColor, str, bool]] = (
        [(c, n, False) for _, c, n in chart.lines if n]
        + [(c, n, True) for _, c, n in chart.verticals if n]
        + [(c, n, True) for _, _, c, n in chart.dots if n]
    )
    for colour, name, dashed in entries:
        p.setPen(
            QPen(colour, 1.3, Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine)
        )
        p.drawLine(QPointF(lx, ly + 3.5), QPointF(lx + 10, ly + 3.5))
        p.setPen(TEXT)
        width = metrics.horizontalAdvance(name)
        p.drawText(
            QRectF(lx + 13, ly, width + 4, 9), int(Qt.AlignmentFlag.AlignLeft), name
        )
        lx += 13 + width + 10
    p.restore()


def days_chart(est: Estimate) -> Chart | None:
    """Days vs GPUs (log-log), this design and the fewest GPUs marked."""
    points = days_points(est)
    if not points or est.days is None:
        return None
    xs = [float(n) for n, _ in points]
    ys = [d for _, d in points]
    chart = Chart(
        "Training days vs GPUs (estimate)",
        "GPUs (log)",
        "days (log)",
        (min(xs) / 1.6, max(xs) * 1.6),
        (10 ** math.floor(math.log10(min(ys))), 10 ** math.ceil(math.log10(max(ys)))),
        x_log=True,
        y_log=True,
    )
    chart.lines.append(([(float(n), d) for n, d in points], DAYS, "days"))
    if est.min_gpus:
        chart.verticals.append(
            (float(est.min_gpus), FIT, f"fewest GPUs ({est.min_gpus:,})")
        )
    used = est.parallelism.gpus_used
    chart.dots.append((float(used), est.days, MARK, f"this design ({used:,} GPUs)"))
    return chart


def cost_chart(est: Estimate) -> Chart | None:
    """USD per busy GPU-hour vs utilisation: owned, cloud, break-even."""
    points = cost_points(est)
    owned = est.tco.owned_usd_per_gpu_hour
    if not points or owned is None:
        return None
    cloud = est.tco.cloud_usd_per_gpu_hour
    top = max(owned * 3.0, (cloud or 0.0) * 2.0)
    chart = Chart(
        "Owned vs cloud per busy GPU-hour (estimate)",
        "utilisation, %",
        "USD",
        (0.0, 100.0),
        (0.0, top),
    )
    chart.lines.append(([(u * 100, o) for u, o, _ in points], OWNED, "owned"))
    if cloud is not None:
        chart.lines.append(([(0.0, cloud), (100.0, cloud)], CLOUD, "cloud"))
    b = est.tco.breakeven_utilization
    if b is not None and b <= 1:
        chart.verticals.append((b * 100, MARK, f"break-even {b:.1%}"))
    u = est.tco.utilization
    chart.dots.append((u * 100, owned / u, MARK, ""))
    return chart
