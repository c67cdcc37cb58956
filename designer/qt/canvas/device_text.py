"""Device labels drawn whole at a readable size: Qt fonts for
:mod:`designer.view.canvas.device_labels` and the drawing of what it chose.

Sizes are whole device pixels, so the few fonts in use (7 to 13 px on screen)
and every text width measured in them are remembered: a zoom step re-fits the
labels in view from remembered widths instead of asking the font again.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter

from designer.view.canvas.device_labels import LabelFit, LabelForms, fit_label

_FONTS: dict[tuple[int, bool], tuple[QFont, QFontMetricsF]] = {}
_WIDTHS: dict[tuple[int, bool, str], float] = {}
_FITS: dict[tuple[object, ...], LabelFit] = {}
#: Most remembered widths and fits before the memo starts afresh.
_MAX_MEMO = 50_000


def device_font(px: int, bold: bool) -> tuple[QFont, QFontMetricsF]:
    """A pixel-sized font (bold: titles) and its metrics, made once."""
    key = (px, bold)
    hit = _FONTS.get(key)
    if hit is None:
        f = QFont()
        f.setPixelSize(max(1, px))
        f.setBold(bold)
        hit = _FONTS[key] = (f, QFontMetricsF(f))
    return hit


class FontMetrics:
    """:class:`~designer.view.canvas.device_labels.Metrics` for a title and a
    detail font."""

    def __init__(self, title_px: int, detail_px: int) -> None:
        self.title_px = title_px
        self.detail_px = detail_px

    def _px(self, detail: bool) -> tuple[int, bool]:
        return (self.detail_px, False) if detail else (self.title_px, True)

    def width(self, text: str, detail: bool = False) -> float:
        """Advance of ``text`` (remembered per font and text)."""
        px, bold = self._px(detail)
        key = (px, bold, text)
        w = _WIDTHS.get(key)
        if w is None:
            if len(_WIDTHS) >= _MAX_MEMO:
                _WIDTHS.clear()
            w = _WIDTHS[key] = device_font(px, bold)[1].horizontalAdvance(text)
        return w

    def line_height(self, detail: bool = False) -> float:
        """Ascent plus descent of the font."""
        return device_font(*self._px(detail))[1].height()


def fit(
    forms: LabelForms, title_px: int, detail_px: int, width: float, height: float
) -> LabelFit:
    """:func:`fit_label` in these fonts, remembered per size of the area."""
    key = (forms, title_px, detail_px, int(width), int(height))
    hit = _FITS.get(key)
    if hit is None:
        if len(_FITS) >= _MAX_MEMO:
            _FITS.clear()
        metrics = FontMetrics(title_px, detail_px)
        hit = _FITS[key] = fit_label(forms, int(width), int(height), metrics)
    return hit


def draw_fit(
    painter: QPainter,
    area: QRectF,
    label: LabelFit,
    title_px: int,
    detail_px: int,
    ink: QColor,
) -> None:
    """Draw the lines of ``label`` left-aligned from the top of ``area`` (device px,
    the painter's current units)."""
    y = area.top()
    painter.setPen(ink)
    title_font, tm = device_font(title_px, True)
    painter.setFont(title_font)
    for text in label.lines:
        painter.drawText(QPointF(area.left(), y + tm.ascent()), text)
        y += tm.height()
    if label.detail:
        detail_font, dm = device_font(detail_px, False)
        painter.setFont(detail_font)
        painter.drawText(QPointF(area.left(), y + dm.ascent()), label.detail)
