"""Trunk labels of pods stacked in a column: each beside its own pod, never a
pile of identical labels above the first row (what a 100K-GPU page showed; a
fat tree of 1,024 nodes has the same columns of pods under a core bar)."""

from __future__ import annotations

from functools import cache

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QImage, QPainter

from designer.catalog import Catalog
from designer.core.model import Design
from designer.generate import fat_tree
from designer.qt.canvas.offscreen import OffscreenRenderer
from designer.view.canvas.trunk_overlap import own_ends


@cache
def _fat_tree_json() -> str:
    return fat_tree("dgx-h100", 1024, "qm9700").model_dump_json()


def _rendered(catalog: Catalog, w: int, h: int) -> OffscreenRenderer:
    renderer = OffscreenRenderer(Design.model_validate_json(_fat_tree_json()), catalog)
    image = QImage(w, h, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    renderer.render(painter, QRectF(0, 0, w, h))
    painter.end()
    return renderer


def test_each_shared_trunk_is_labelled_beside_its_own_pod(catalog: Catalog) -> None:
    for size in ((1027, 500), (800, 400), (1400, 560)):
        renderer = _rendered(catalog, *size)
        scene = renderer.scene
        assert scene.overview
        q = scene.current_quotient()
        ends = own_ends(q.trunks)
        items = scene.trunk_items()
        shared = [k for k, e in enumerate(ends) if e is not None]
        assert len(shared) >= 4, size  # a column of pods shares its line
        blocks = [b.rect.adjusted(1, 1, -1, -1) for b in scene.block_items()]
        labelled = 0
        for k in shared:
            _, label = items[k]
            if not label.isVisible():
                continue
            labelled += 1
            t = q.trunks[k]
            end = QPointF(*(t.p0 if ends[k] == 0 else t.p1))
            at = label.pos()
            # between its own end and the label the trunk passes no other block
            for i in range(1, 40):
                f = i / 40
                p = end + (at - end) * f
                inside = [r for r in blocks if r.contains(p)]
                assert not inside, (size, k, t.label, f)
        assert labelled >= 2, size
        renderer.close()


def test_no_two_identical_trunk_labels_sit_on_top_of_each_other(
    catalog: Catalog,
) -> None:
    renderer = _rendered(catalog, 1027, 500)
    scene = renderer.scene
    transform = scene.label_transform()
    shown = [
        (label.text, label.boundingRect().translated(transform.map(label.pos())))
        for _, label in scene.trunk_items()
        if label.isVisible()
    ]
    for i, (text, rect) in enumerate(shown):
        for other, rect2 in shown[i + 1 :]:
            if other != text:
                continue
            same_column = abs(rect.center().x() - rect2.center().x()) < 2
            stacked = abs(rect.center().y() - rect2.center().y()) < 3 * rect.height()
            assert not (same_column and stacked), (text, rect, rect2)
    renderer.close()
