"""Trunk items: one line and one label per trunk of the quotient, kept in step.

Item k is re-pointed at trunk k after an edit (its line moved, re-widened or
relabelled in place), so the stacking (creation) order stays the quotient's,
as in a fresh scene; only trunks beyond the old count are created.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import QGraphicsLineItem, QGraphicsScene

from designer.qt.canvas import style as st
from designer.qt.canvas.items import LabelItem
from designer.qt.canvas.labels import trunk_fraction
from designer.view.canvas.quotient import Trunk

TrunkItems = list[tuple[QGraphicsLineItem, LabelItem]]


def sync_trunks(
    scene: QGraphicsScene,
    items: TrunkItems,
    trunks: Sequence[Trunk],
    shown: Sequence[Trunk] = (),
) -> list[tuple[QRectF, float]]:
    """Bring ``items`` (edited in place) in line with ``trunks``.

    ``shown``: the trunks the items show now; an item whose trunk is the very
    same object (an edit elsewhere) is left as it is, unless the widest trunk
    changed (every line's width is relative to it).

    Returns where lines were drawn or taken away: (the line's box in the
    scene, its pen's width in screen pixels), the old and the new place of
    each. Qt repaints an item's bounding rect, which holds a cosmetic pen's
    width in scene units: zoomed out, a wide trunk's old line would be left
    half painted over, so the caller repaints these areas, widened.
    """
    top = max((t.capacity_gbps for t in trunks), default=1.0)
    same_top = top == max((t.capacity_gbps for t in shown), default=1.0)
    drawn: list[tuple[QRectF, float]] = []

    def note(line: QGraphicsLineItem) -> None:
        seg = line.line()
        box = QRectF(seg.p1(), seg.p2()).normalized()
        drawn.append((line.mapRectToScene(box), line.pen().widthF()))

    for line, label in items[len(trunks) :]:
        note(line)
        scene.removeItem(line)
        scene.removeItem(label)
    del items[len(trunks) :]
    for k, t in enumerate(trunks):
        f = trunk_fraction(k)
        at = QPointF(
            t.p0[0] + f * (t.p1[0] - t.p0[0]), t.p0[1] + f * (t.p1[1] - t.p0[1])
        )
        width = 1.5 + 8.0 * (t.capacity_gbps / top) ** 0.5
        if k < len(items):
            line, label = items[k]
            if same_top and k < len(shown) and shown[k] is t:
                if not line.isVisible():
                    line.setVisible(True)
                continue
            seg = line.line()
            moved = (seg.x1(), seg.y1(), seg.x2(), seg.y2()) != (*t.p0, *t.p1)
            pen = line.pen()
            widened = pen.widthF() != width
            if moved or widened:
                note(line)  # where it was
            if moved:
                line.setLine(t.p0[0], t.p0[1], t.p1[0], t.p1[1])
            if widened:
                pen.setWidthF(width)
                line.setPen(pen)
            if moved or widened:
                note(line)  # where it is
            relabel = label.text != t.label
            if relabel:
                label.set_text(t.label)
            if moved or relabel:  # the placement (re-run: its key changed)
                label.setPos(at)  # slides it along the trunk from here
            if not line.isVisible():
                line.setVisible(True)
            continue
        line = QGraphicsLineItem(t.p0[0], t.p0[1], t.p1[0], t.p1[1])
        pen = QPen(QColor(74, 90, 117, 200), width)
        pen.setCosmetic(True)
        pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        line.setPen(pen)
        line.setZValue(st.Z_TRUNK)
        label = LabelItem(t.label, at)
        scene.addItem(line)
        scene.addItem(label)
        items.append((line, label))
        note(line)
    return drawn
