"""Thin graphics items of the canvas: an id, painting and a bounding rect.

Interaction and hit tests live in the scene (numpy queries), so items carry no
behaviour and no state the model lacks beyond what they paint. The layer that
draws every single link is :mod:`designer.qt.canvas.links`.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPen,
)
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from designer.qt.canvas import style as st
from designer.qt.canvas.device_text import draw_fit
from designer.qt.canvas.device_text import fit as fit_text
from designer.view.canvas import sizes as sz
from designer.view.canvas.device_labels import (
    MIN_LABEL_PX,
    NOTHING,
    PAD_PX,
    LabelFit,
    LabelForms,
    label_forms,
    label_px,
)

_BODY = QRectF(-sz.DEVICE_W / 2, -sz.DEVICE_H / 2, sz.DEVICE_W, sz.DEVICE_H)
_BOUNDS = _BODY.adjusted(-3, -3, 3, 3)
_FONTS: dict[tuple[str, float], QFont] = {}
#: Font sizes in pixels at the reference 96 dpi: scene units for device labels,
#: reference pixels (times the render's text scale) for screen-sized text.
FONT_PX: dict[str, tuple[float, bool]] = {
    "title": (10.0, True),
    "small": (9.0, False),
    "block": (13.0, True),
    "normal": (11.0, False),
}
REFERENCE_DPI = 96.0


def font(kind: str, scale: float = 1.0) -> QFont:
    """Shared fonts sized in pixels, so no paint device's dpi changes them."""
    key = (kind, round(scale, 3))
    f = _FONTS.get(key)
    if f is None:
        px, bold = FONT_PX.get(kind, FONT_PX["normal"])
        f = QFont()
        f.setPixelSize(max(1, round(px * scale)))
        f.setBold(bold)
        _FONTS[key] = f
    return f


class RenderContext(Protocol):
    """What items read from the scene they are drawn in (and nothing else).

    On screen: text scale 1.0, device labels by the zoom rule (None), not an
    export, device labels from 7 px. An offscreen export scene sets the text
    scale to the device's dpi over 96 (screen-sized text keeps its physical size
    at any resolution), may force device labels on or off, and raises the
    smallest device label to 8 px (6 pt) in print.
    """

    text_scale: float
    device_labels: bool | None
    exporting: bool
    min_label_px: float


def render_options(item: QGraphicsItem) -> tuple[float, bool | None]:
    """(text scale, device labels) of the item's :class:`RenderContext`: 1.0 and
    None on screen (an item outside such a scene gets those too). Read with
    ``getattr``: it runs for every item painted, an ``isinstance`` check of the
    protocol would cost more than the paint."""
    sc = item.scene()
    return float(getattr(sc, "text_scale", 1.0)), getattr(sc, "device_labels", None)


def exporting(item: QGraphicsItem) -> bool:
    """True when the item is drawn for an export (no screen-only hints)."""
    return bool(getattr(item.scene(), "exporting", False))


def cosmetic(colour: QColor, width: float = 0.0, scale: float = 1.0) -> QPen:
    """A pen of ``width`` screen pixels (times ``scale`` device px per px)."""
    pen = QPen(colour, max(width, 1.0) * scale if scale != 1.0 else width)
    pen.setCosmetic(True)
    return pen


class DeviceItem(QGraphicsItem):
    """One device: a coloured box, its label when zoomed in, a selected outline.

    The label is drawn at a readable size that follows the zoom, whole or in a
    shorter form (:mod:`designer.view.canvas.device_labels`), never cut off.
    """

    def __init__(self, device_id: str, fill: QColor, title: str, subtitle: str) -> None:
        super().__init__()
        self.device_id = device_id
        self.fill = fill
        self.title = title
        self.subtitle = subtitle
        self.model = subtitle
        self.grouped = False
        self.selected = False
        self.cut_fill: QColor | None = None
        self._forms: LabelForms | None = None
        self._fit_key: tuple[float, float, float] = (0.0, 0.0, 0.0)
        self._fit: tuple[LabelFit, int, int] = (NOTHING, 0, 0)
        self.setZValue(st.Z_DEVICE)

    def set_text(self, title: str, subtitle: str, model: str, grouped: bool) -> None:
        """The label, the line under it (model · tier), the model alone, and
        whether the device's group frame is drawn around it."""
        if (title, subtitle, model, grouped) != (
            self.title,
            self.subtitle,
            self.model,
            self.grouped,
        ):
            self.title, self.subtitle, self.model = title, subtitle, model
            self.grouped = grouped
            self._forms = None
            self._fit_key = (0.0, 0.0, 0.0)

    def forms(self) -> LabelForms:
        """The label and its shorter forms (made on first use)."""
        if self._forms is None:
            self._forms = label_forms(
                self.title,
                self.device_id,
                grouped=self.grouped,
                detail=(self.subtitle, self.model),
            )
        return self._forms

    def label_fit(
        self, zoom: float, text_scale: float = 1.0, floor: float = MIN_LABEL_PX
    ) -> tuple[LabelFit, int, int]:
        """What the box shows at ``zoom`` reference px per scene unit: the fit,
        and the title and detail font sizes in device px."""
        key = (zoom, text_scale, floor)
        if key != self._fit_key:
            px = label_px(zoom, floor)
            title_px = max(1, round(px * text_scale))
            detail_px = max(1, round(max(floor, px - 1.0) * text_scale))
            pad = 2 * PAD_PX * text_scale
            per_unit = zoom * text_scale
            self._fit = (
                fit_text(
                    self.forms(),
                    title_px,
                    detail_px,
                    sz.DEVICE_W * per_unit - pad,
                    sz.DEVICE_H * per_unit - pad,
                ),
                title_px,
                detail_px,
            )
            self._fit_key = key
        return self._fit

    def boundingRect(self) -> QRectF:
        """Box plus room for the selection outline."""
        return _BOUNDS

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionGraphicsItem,
        widget: QWidget | None = None,
    ) -> None:
        """Level of detail as in Qt's chips example: fill, box, then text."""
        text_scale, labels = render_options(self)
        per_unit = option.levelOfDetailFromTransform(painter.worldTransform())
        lod = per_unit / text_scale
        fill = self.cut_fill or self.fill
        if lod < sz.LOD_FILL_ONLY and not labels:
            painter.fillRect(_BODY, st.SELECTED if self.selected else fill)
            return
        if self.selected:
            painter.setPen(cosmetic(st.SELECTED, 3.0, text_scale))
        else:
            painter.setPen(cosmetic(fill.darker(140), 1.0, text_scale))
        painter.setBrush(QBrush(fill))
        painter.drawRect(_BODY)
        if labels is False or (lod < sz.LOD_TEXT and not labels):
            return
        floor = float(getattr(self.scene(), "min_label_px", MIN_LABEL_PX))
        fitted, title_px, detail_px = self.label_fit(lod, text_scale, floor)
        if not fitted.shown:
            return
        painter.save()
        # device pixels from the box's top-left corner: text at its exact size
        painter.translate(_BODY.topLeft())
        painter.scale(1.0 / per_unit, 1.0 / per_unit)
        pad = PAD_PX * text_scale
        area = QRectF(
            pad, pad, sz.DEVICE_W * per_unit - 2 * pad, sz.DEVICE_H * per_unit - 2 * pad
        )
        draw_fit(painter, area, fitted, title_px, detail_px, st.text_on(fill))
        painter.restore()


def _fitted_frame(rect: QRectF) -> tuple[QRectF, bool] | None:
    """The text area of a reference-pixel ``rect`` and whether it reads rotated."""
    if rect.width() < 12 or rect.height() < 12:
        return None
    if rect.width() < 110 and rect.height() > 1.5 * rect.width():
        # a tall narrow block (one of many pods side by side): read bottom-up
        return QRectF(0, 0, rect.height(), rect.width()), True
    if rect.width() < 24:
        return None
    return rect, False


_BoxKey = tuple[float, float, float, float, tuple[tuple[str, str, int], ...]]
_LINE_BOXES: dict[_BoxKey, list[tuple[str, QFont, QColor, QRectF, bool]]] = {}
_MAX_LINE_BOXES = 4096


def _line_boxes(
    area: QRectF, lines: list[tuple[str, QFont, QColor]]
) -> list[tuple[str, QFont, QColor, QRectF, bool]]:
    """Where each line goes in ``area`` (text, font, colour, box, elided).

    Remembered per area and text: a repaint or a label placement after an edit
    asks again for nearly every block, and font metrics are slow to ask.
    Callers must not change what they get back.
    """
    key = (
        area.left(),
        area.top(),
        area.width(),
        area.height(),
        tuple((text, f.key(), c.rgba()) for text, f, c in lines),
    )
    hit = _LINE_BOXES.get(key)
    if hit is None:
        if len(_LINE_BOXES) >= _MAX_LINE_BOXES:
            _LINE_BOXES.clear()
        hit = _LINE_BOXES[key] = _measure_lines(area, lines)
    return hit


def _measure_lines(
    area: QRectF, lines: list[tuple[str, QFont, QColor]]
) -> list[tuple[str, QFont, QColor, QRectF, bool]]:
    y = area.top() + 4
    width = area.width() - 10
    flags = int(Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap)
    out: list[tuple[str, QFont, QColor, QRectF, bool]] = []
    for text, f, colour in lines:
        if not text:
            continue
        fm = QFontMetricsF(f)
        box = fm.boundingRect(QRectF(0, 0, width, 10_000), flags, text)
        elided = False
        if y + box.height() > area.bottom():
            if y + fm.height() > area.bottom():
                break
            short = fm.elidedText(text, Qt.TextElideMode.ElideRight, width)
            elided = short != text
            text = short
            box = QRectF(0, 0, width, fm.height())
        if any(fm.horizontalAdvance(w) > width for w in text.split()):
            elided = True  # a word wider than the block is cut by the clip
        out.append(
            (text, f, colour, QRectF(area.left() + 5, y, width, box.height()), elided)
        )
        y += box.height() + 1
    return out


def fits_inside(rect: QRectF, lines: list[tuple[str, QFont, QColor]]) -> bool:
    """True when every line shows whole in the reference-pixel ``rect``."""
    frame = _fitted_frame(rect)
    if frame is None:
        return False
    boxes = _line_boxes(frame[0], lines)
    wanted = sum(1 for text, _, _ in lines if text)
    return len(boxes) == wanted and not any(b[4] for b in boxes)


def _draw_fitted_text(
    painter: QPainter,
    rect: QRectF,
    lines: list[tuple[str, QFont, QColor]],
    scale: float = 1.0,
) -> None:
    """Draw lines of text at screen size inside the device-space ``rect``.

    ``scale`` is device pixels per reference (96 dpi) pixel. Lines wrap at word
    boundaries; whatever does not fit is left out.
    """
    rect = QRectF(
        rect.x() / scale, rect.y() / scale, rect.width() / scale, rect.height() / scale
    )
    frame = _fitted_frame(rect)
    if frame is None:
        return
    area, rotated = frame
    painter.save()
    painter.resetTransform()
    painter.scale(scale, scale)
    if rotated:
        painter.translate(rect.left(), rect.bottom())
        painter.rotate(-90)
    flags = int(Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap)
    for text, f, colour, box, _ in _line_boxes(area, lines):
        painter.setFont(f)
        painter.setPen(colour)
        painter.drawText(box, flags, text)
    painter.restore()


class BlockItem(QGraphicsItem):
    """A collapsed group (or, in overview, a whole group or tier) as one block."""

    def __init__(
        self, key: str, group_id: str | None, rect: QRectF, title: str, summary: str
    ) -> None:
        super().__init__()
        self.key = key
        self.group_id = group_id
        self.rect = rect
        self.title = title
        self.summary = summary
        self.hint = ""
        #: set by the label placement: the text is drawn above or beside the block
        self.title_outside = False
        self.selected = False
        self.cut_fill: QColor | None = None
        self.setZValue(st.Z_BLOCK)

    def set_block(
        self, group_id: str | None, rect: QRectF, title: str, summary: str
    ) -> None:
        """Re-point the item at a block (the same key after an edit)."""
        changed = (group_id, title, summary) != (
            self.group_id,
            self.title,
            self.summary,
        )
        if rect != self.rect:
            self.prepareGeometryChange()
            self.rect = rect
            changed = True
        self.group_id, self.title, self.summary = group_id, title, summary
        if changed:
            self.update()

    def boundingRect(self) -> QRectF:
        """The block's rectangle."""
        return self.rect.adjusted(-2, -2, 2, 2)

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionGraphicsItem,
        widget: QWidget | None = None,
    ) -> None:
        """Filled box with title and counts fitted to its size on screen."""
        fill = self.cut_fill or st.BLOCK_FILL
        scale = render_options(self)[0]
        painter.setPen(
            cosmetic(
                st.SELECTED if self.selected else st.FRAME,
                3.0 if self.selected else 1.0,
                scale,
            )
        )
        painter.setBrush(QBrush(fill))
        painter.drawRect(self.rect)
        if self.title_outside:
            return  # a TitleItem beside the block carries the text
        device_rect = painter.worldTransform().mapRect(self.rect)
        ref = QRectF(
            device_rect.x() / scale,
            device_rect.y() / scale,
            device_rect.width() / scale,
            device_rect.height() / scale,
        )
        # the hint is for the screen only: a printed page cannot be clicked
        hint = self.hint if not exporting(self) else ""
        lines = self.shown_lines(ref, st.text_on(fill), hint)
        _draw_fitted_text(painter, device_rect, lines, scale)

    def shown_lines(
        self, rect: QRectF, ink: QColor = st.TEXT, hint: str = ""
    ) -> list[tuple[str, QFont, QColor]]:
        """The most of title, counts and ``hint`` that shows whole in ``rect``
        (reference px): the hint goes first, then the counts' last parts
        ("32x DGX H100 · 256 GPUs" before "32x DGX H100", else a single later
        part such as "256 GPUs"); nothing when not even the title fits."""
        full = self.text_lines(rect.width(), ink)
        shown = full if fits_inside(rect, full) else None
        if shown is None:
            title = [(self.title, font("block"), ink)]
            parts = self.summary.split(" · ")
            # the longest leading parts, else one later part ("2,048 GPUs")
            counts = [" · ".join(parts[:n]) for n in range(len(parts) - 1, 0, -1)]
            for text in [*counts, *parts[1:], ""]:
                lines = title + ([(text, font("normal"), ink)] if text else [])
                if fits_inside(rect, lines):
                    shown = lines
                    break
        if shown is None:
            return []  # not even the title fits: the label placement shows it
        with_hint = [*shown, (hint, font("small"), st.TEXT_MUTED)]
        return with_hint if hint and fits_inside(rect, with_hint) else shown

    def text_lines(
        self, width_px: float, ink: QColor = st.TEXT
    ) -> list[tuple[str, QFont, QColor]]:
        """Title and counts: one line when ``width_px`` (reference px) allows."""
        one_line = f"{self.title} · {self.summary}"
        fm = QFontMetricsF(font("block"))
        if fm.horizontalAdvance(one_line) + 12 <= width_px:
            return [(one_line, font("block"), ink)]
        return [
            (self.title, font("block"), ink),
            (self.summary, font("normal"), ink),
        ]


class FrameItem(QGraphicsItem):
    """An expanded group: a dashed frame with its name in a header band."""

    HEADER = 22.0

    def __init__(self, group_id: str, rect: QRectF, title: str, depth: int) -> None:
        super().__init__()
        self.group_id = group_id
        self.rect = rect
        self.title = title
        self.depth = depth
        self.setZValue(st.Z_FRAME - depth)

    def restyle(self, rect: QRectF, title: str, depth: int) -> None:
        """Re-fit and rename the frame in place."""
        if title != self.title or depth != self.depth:
            self.title = title
            self.depth = depth
            self.setZValue(st.Z_FRAME - depth)
            self.update()
        self.set_rect(rect)

    def set_rect(self, rect: QRectF) -> None:
        """Re-fit the frame (its members moved)."""
        if rect != self.rect:
            self.prepareGeometryChange()
            self.rect = rect
            self.update()

    def boundingRect(self) -> QRectF:
        """Frame rectangle including the header."""
        return self.rect.adjusted(-2, -2, 2, 2)

    def header_rect(self) -> QRectF:
        """Scene rect of the header band (double-click there to collapse)."""
        return QRectF(self.rect.left(), self.rect.top(), self.rect.width(), self.HEADER)

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionGraphicsItem,
        widget: QWidget | None = None,
    ) -> None:
        """Dashed outline, tinted header band and the group's name."""
        scale = render_options(self)[0]
        pen = cosmetic(st.FRAME, 1.0, scale)
        pen.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(self.rect)
        header = self.header_rect()
        painter.fillRect(header, QColor(138, 148, 166, 40))
        device_rect = painter.worldTransform().mapRect(header)
        if device_rect.height() >= 10 * scale:
            _draw_fitted_text(
                painter,
                device_rect.adjusted(0, -3 * scale, 0, 0),
                [(self.title + "  \u25be", font("small"), st.TEXT_MUTED)],
                scale,
            )


class LabelItem(QGraphicsItem):
    """A small text badge of constant screen size (trunk labels)."""

    def __init__(self, text: str, pos: QPointF) -> None:
        super().__init__()
        self.text = text
        self.highlight = False
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.setPos(pos)
        self.setZValue(st.Z_TRUNK + 1)
        self._rect = self._badge(text)

    @staticmethod
    def _badge(text: str) -> QRectF:
        fm = QFontMetricsF(font("small"))
        w = fm.horizontalAdvance(text) + 8
        return QRectF(-w / 2, -fm.height() / 2 - 1, w, fm.height() + 2)

    def set_text(self, text: str) -> None:
        """Show another text (the trunk's count changed)."""
        rect = self._badge(text)
        if rect != self._rect:
            self.prepareGeometryChange()
            self._rect = rect
        self.text = text
        self.update()

    def boundingRect(self) -> QRectF:
        """Badge rect in device pixels."""
        return self._rect

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionGraphicsItem,
        widget: QWidget | None = None,
    ) -> None:
        """White badge with dark text (red when on the cut)."""
        scale = render_options(self)[0]
        if scale != 1.0:
            painter.scale(scale, scale)  # device pixels: keep the physical size
        painter.setPen(
            cosmetic(st.CUT_LINK if self.highlight else st.FRAME, 0.0, scale)
        )
        painter.setBrush(QColor(255, 255, 255, 230))
        painter.drawRoundedRect(self._rect, 3, 3)
        painter.setFont(font("small"))
        painter.setPen(st.CUT_LINK if self.highlight else st.TEXT)
        painter.drawText(self._rect, Qt.AlignmentFlag.AlignCenter, self.text)
