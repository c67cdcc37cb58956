"""Draw a design into any QPainter (PDF, SVG, PNG) fitted to a target rectangle.

:func:`render_design` uses the canvas scene's ``render_to`` when a scene is
given or can be built; otherwise :func:`draw_overview` draws a plain vector
diagram from the model: devices as boxes, links bundled per device pair, and for
big designs (or groups collapsed on screen) each group as one block.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPdfWriter, QPen

from designer.catalog.schema import CatalogEntry
from designer.core.model import Design

Catalog = Mapping[str, CatalogEntry]

DEVICE_W = 64.0
DEVICE_H = 32.0
#: Above this many devices the overview draws scalable units as blocks.
COLLAPSE_ABOVE = 1500

_FILL = {
    "compute": QColor("#76b900"),
    "switch": QColor("#5d6d7e"),
    "storage": QColor("#8e44ad"),
    "management": QColor("#b9770e"),
}
_TIER_FILL = {
    "leaf": QColor("#3b7dd8"),
    "spine": QColor("#2a5caa"),
    "core": QColor("#1b3a6b"),
}
FABRIC_COLOUR = {
    "compute": QColor("#4a5a75"),
    "storage": QColor("#8e44ad"),
    "inband": QColor("#16a085"),
    "oob": QColor("#a0a6b0"),
}
_BLOCK_FILL = QColor("#dfe5f0")
_TEXT = QColor("#1d2430")


def make_scene(design: Design, catalog: Catalog | None = None) -> Any | None:
    """A canvas ``DesignScene`` showing ``design``, or None without the canvas."""
    try:
        from designer.core.commands import Document
        from designer.qt.canvas import DesignScene
    except ImportError:
        return None
    if catalog is None:
        from designer.catalog.loader import default_catalog

        catalog = default_catalog()
    scene = DesignScene(Document(design), catalog)
    return scene if hasattr(scene, "render_to") else None


def drawing_aspect(
    design: Design, scene: Any | None = None, ids: set[str] | None = None
) -> float:
    """Width / height of what :func:`render_design` draws (at least 0.05)."""
    if ids is None and scene is not None and hasattr(scene, "design_rect"):
        rect: QRectF = scene.design_rect()
        return max(float(rect.width()) / max(float(rect.height()), 1.0), 0.05)
    xs = [d.x for d in design.devices if ids is None or d.id in ids] or [0.0]
    ys = [d.y for d in design.devices if ids is None or d.id in ids] or [0.0]
    w = max(xs) - min(xs) + DEVICE_W + 40
    h = max(ys) - min(ys) + DEVICE_H + 40
    return max(w / h, 0.05)


def fit_rect(target: QRectF, aspect: float) -> QRectF:
    """The largest rectangle of ``aspect`` (w/h) centred in ``target``."""
    if target.height() <= 0 or target.width() <= 0:
        return QRectF(target)
    if target.width() / target.height() > aspect:
        w = target.height() * aspect
        return QRectF(
            target.x() + (target.width() - w) / 2, target.y(), w, target.height()
        )
    h = target.width() / aspect
    return QRectF(target.x(), target.y() + (target.height() - h) / 2, target.width(), h)


def render_design(
    painter: QPainter,
    target: QRectF,
    design: Design,
    catalog: Catalog | None = None,
    *,
    scene: Any | None = None,
    selection_only: bool = False,
    ids: set[str] | None = None,
) -> None:
    """Draw ``design`` (or only ``ids``) fitted into ``target``."""
    if scene is not None and hasattr(scene, "render_to"):
        if selection_only and ids is None and hasattr(scene, "selected_ids"):
            ids = set(scene.selected_ids())
        fitted = fit_rect(target, drawing_aspect(design, scene, ids))
        # print: device labels whatever their size (the PDF is zoomed, not re-drawn)
        labels = True if isinstance(painter.device(), QPdfWriter) else None
        scene.render_to(
            painter, fitted, selection_only=selection_only, ids=ids, labels=labels
        )
        return
    draw_overview(painter, target, design, catalog, ids=ids)


def _fill(entry: CatalogEntry | None, tier: str | None) -> QColor:
    if entry is None:
        return QColor("#7f8c8d")
    cat = entry.category.value
    if cat == "switch" and tier in _TIER_FILL:
        return _TIER_FILL[tier]
    return _FILL.get(cat, QColor("#7f8c8d"))


def _text_on(fill: QColor) -> QColor:
    lum = 0.299 * fill.red() + 0.587 * fill.green() + 0.114 * fill.blue()
    return QColor("#10141a") if lum > 150 else QColor("#ffffff")


def _units(design: Design, visible: list[str], collapse_su: bool) -> dict[str, str]:
    """Map device id -> the unit drawn for it: itself or its collapsed group."""
    groups = design.group_map()
    devices = design.device_map()
    out: dict[str, str] = {}
    for did in visible:
        unit = did
        g = devices[did].group
        chain: list[str] = []
        while g is not None and g in groups:
            chain.append(g)
            g = groups[g].parent
        # the outermost collapsed group wins; big designs collapse their SUs
        for gid in reversed(chain):
            grp = groups[gid]
            if grp.collapsed or (collapse_su and grp.kind.value in ("su", "rack")):
                unit = "group:" + gid
                break
        out[did] = unit
    return out


def draw_overview(
    painter: QPainter,
    target: QRectF,
    design: Design,
    catalog: Catalog | None = None,
    *,
    ids: set[str] | None = None,
) -> None:
    """Plain vector diagram of the design from the model alone."""
    if catalog is None:
        from designer.catalog.loader import default_catalog

        catalog = default_catalog()
    devices = design.device_map()
    visible = [d.id for d in design.devices if ids is None or d.id in ids]
    if not visible:
        painter.save()
        painter.setPen(_TEXT)
        painter.drawText(target, Qt.AlignmentFlag.AlignCenter, "(nothing to draw)")
        painter.restore()
        return
    unit_of = _units(design, visible, collapse_su=len(visible) > COLLAPSE_ABOVE)

    # unit boxes in scene coordinates
    boxes: dict[str, QRectF] = {}
    members: dict[str, int] = defaultdict(int)
    for did in visible:
        d = devices[did]
        r = QRectF(d.x - DEVICE_W / 2, d.y - DEVICE_H / 2, DEVICE_W, DEVICE_H)
        u = unit_of[did]
        boxes[u] = boxes[u].united(r) if u in boxes else r
        members[u] += 1
    bounds = QRectF()
    for r in boxes.values():
        bounds = bounds.united(r)
    bounds.adjust(-DEVICE_W / 2, -DEVICE_H, DEVICE_W / 2, DEVICE_H)
    scale = min(target.width() / bounds.width(), target.height() / bounds.height())
    ox = target.x() + (target.width() - bounds.width() * scale) / 2
    oy = target.y() + (target.height() - bounds.height() * scale) / 2

    def to_page(r: QRectF) -> QRectF:
        x = ox + (r.x() - bounds.x()) * scale
        y = oy + (r.y() - bounds.y()) * scale
        w = max(r.width() * scale, 1.2)
        h = max(r.height() * scale, 0.8)
        return QRectF(x, y, w, h)

    page = {u: to_page(r) for u, r in boxes.items()}

    # links bundled per unit pair and fabric
    t = design.links
    bundles: dict[tuple[str, str, str], int] = defaultdict(int)
    for i in range(len(t.id)):
        ua, ub = unit_of.get(t.a[i]), unit_of.get(t.b[i])
        if ua is None or ub is None or ua == ub:
            continue
        if ub < ua:
            ua, ub = ub, ua
        fabric = str(getattr(t.fabric[i], "value", t.fabric[i]))
        bundles[(ua, ub, fabric)] += t.cables[i]
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    by_pen: dict[tuple[str, int], list[QLineF]] = defaultdict(list)
    for (ua, ub, fabric), n in bundles.items():
        width_step = min(int(math.log2(n)), 6) if n > 1 else 0
        by_pen[(fabric, width_step)].append(
            QLineF(page[ua].center(), page[ub].center())
        )
    base = max(min(scale * 1.2, 1.0), 0.15)
    for (fabric, step), lines in sorted(by_pen.items()):
        colour = QColor(FABRIC_COLOUR.get(fabric, QColor("#888888")))
        colour.setAlphaF(0.55)
        pen = QPen(colour, base * (1 + 0.5 * step))
        pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        painter.setPen(pen)
        painter.drawLines(lines)

    font = QFont("Sans Serif")
    font.setHintingPreference(QFont.HintingPreference.PreferNoHinting)
    # sizes below are in painter units: a point size of units * 72 / dpi
    dpi = painter.device().logicalDpiY() or 72
    for u, r in page.items():
        if u.startswith("group:"):
            gid = u[6:]
            grp = design.group_map().get(gid)
            painter.setPen(QPen(QColor("#8a94a6"), 0.6))
            painter.setBrush(_BLOCK_FILL)
            painter.drawRoundedRect(r, 2, 2)
            text = f"{grp.label or gid if grp else gid} ({members[u]})"
            colour = _TEXT
        else:
            d = devices[u]
            entry = catalog.get(d.catalog_id)
            fill = _fill(entry, d.tier.value if d.tier else None)
            painter.setPen(QPen(fill.darker(130), 0.4))
            painter.setBrush(fill)
            painter.drawRect(r)
            text = d.label or d.id
            colour = _text_on(fill)
        size = min(r.height() * 0.42, 9.0)
        if size < 2.5:
            continue
        font.setPointSizeF(size * 72.0 / dpi)
        painter.setFont(font)
        fm = QFontMetricsF(font, painter.device())
        shown = fm.elidedText(text, Qt.TextElideMode.ElideRight, r.width() - 2)
        if not shown or shown == "…":
            continue
        painter.setPen(colour)
        painter.drawText(r, Qt.AlignmentFlag.AlignCenter, shown)
    painter.restore()


def legend(painter: QPainter, origin: QPointF, size: float = 7.0) -> float:
    """Draw the fabric colour legend from ``origin``; return its width.

    ``size`` is the text height in painter units.
    """
    painter.save()
    font = QFont("Sans Serif")
    font.setPointSizeF(size * 72.0 / (painter.device().logicalDpiY() or 72))
    painter.setFont(font)
    fm = QFontMetricsF(font, painter.device())
    x = origin.x()
    for name, colour in FABRIC_COLOUR.items():
        painter.setPen(QPen(colour, 2.0))
        painter.drawLine(QPointF(x, origin.y()), QPointF(x + 14, origin.y()))
        painter.setPen(_TEXT)
        painter.drawText(QPointF(x + 17, origin.y() + fm.ascent() / 2 - 1), name)
        x += 22 + fm.horizontalAdvance(name) + 10
    painter.restore()
    return x - origin.x()


#: Most detail drawings a report adds after the overview (one per top group).
MAX_DETAIL_VIEWS = 16


def detail_views(
    design: Design, limit: int = MAX_DETAIL_VIEWS
) -> tuple[list[tuple[str, set[str]]], int]:
    """One view per scalable unit (else per top-level group) with its devices.

    Returns at most ``limit`` views and how many there are in all.
    """
    groups = design.group_map()
    use_su = any(g.kind.value == "su" for g in groups.values())
    unit_of: dict[str, str | None] = {}

    def unit(gid: str) -> str | None:
        if gid not in unit_of:
            g: str | None = gid
            found: str | None = None
            seen: set[str] = set()
            while g is not None and g in groups and g not in seen:
                seen.add(g)
                if use_su and groups[g].kind.value == "su":
                    found = g
                    break
                if not use_su:
                    found = g
                g = groups[g].parent
            unit_of[gid] = found
        return unit_of[gid]

    members: dict[str, set[str]] = defaultdict(set)
    for d in design.devices:
        if d.group is not None and d.group in groups:
            u = unit(d.group)
            if u is not None:
                members[u].add(d.id)
    order = [g.id for g in design.groups if g.id in members]
    views = [(groups[g].label or g, members[g]) for g in order[:limit]]
    return views, len(order)
