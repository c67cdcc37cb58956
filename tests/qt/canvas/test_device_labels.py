"""Device labels on screen: whole or a shorter form, never cut, at any zoom; and
hover tooltips with the full name and key specs."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QPointF, QRectF
from PySide6.QtGui import QHelpEvent, QTransform
from PySide6.QtWidgets import QApplication, QToolTip
from pytestqt.qtbot import QtBot

from designer.io import load_design
from designer.qt.canvas import CanvasView, items
from designer.qt.canvas.device_text import device_font
from designer.qt.canvas.items import DeviceItem
from designer.view.canvas import sizes as sz
from designer.view.canvas.device_labels import MIN_LABEL_PX, PAD_PX, label_px
from designer.view.catalog.specs import entry_specs
from tests.qt.canvas.helpers import vp

SAMPLE = Path(__file__).resolve().parents[3] / "samples" / "dgx-h100-superpod-4su.json"


def _at_zoom(make_view, zoom: float, centre: tuple[float, float]) -> CanvasView:
    view = make_view(load_design(SAMPLE))
    QApplication.processEvents()  # the first fit, before the zoom asked for
    view.setTransform(QTransform.fromScale(zoom, zoom))
    view.centerOn(*centre)
    QApplication.processEvents()
    return view


def _shown_items(view: CanvasView) -> list[DeviceItem]:
    shown = view.mapToScene(view.viewport().rect()).boundingRect()
    out = []
    for did in view.design_scene.device_ids_in_rect(shown.adjusted(40, 20, -40, -20)):
        item = view.design_scene.item_for(did)
        assert item is not None
        if item.isVisible():
            out.append(item)
    return out


def _fits_whole(text: str, px: int, width: float) -> bool:
    return device_font(px, True)[1].horizontalAdvance(text) <= width


def _had_room(item: DeviceItem, zoom: float) -> tuple[bool, bool]:
    """(whole label fits, some form fits): tried in the real font, every break."""
    px = round(label_px(zoom))
    _, fm = device_font(px, True)
    w = sz.DEVICE_W * zoom - 2 * PAD_PX
    h = sz.DEVICE_H * zoom - 2 * PAD_PX
    if fm.height() > h:
        return False, False
    forms = item.forms()
    full = forms.full
    breaks = [(full[:i], full[i + 1 :]) for i, c in enumerate(full) if c == " "]
    breaks += [(full[: i + 1], full[i + 1 :]) for i, c in enumerate(full) if c == "-"]
    whole = _fits_whole(full, px, w) or (
        2 * fm.height() <= h
        and any(
            a and b and _fits_whole(a, px, w) and _fits_whole(b, px, w)
            for a, b in breaks
        )
    )
    some = whole or any(_fits_whole(s, px, w) for s in forms.shorter)
    return whole, some


@pytest.mark.parametrize("zoom", [1.0, 0.45, 0.25])
def test_no_label_is_cut_and_none_that_had_room_is_shortened(
    make_view, monkeypatch: pytest.MonkeyPatch, zoom: float
) -> None:
    drawn: list[tuple[QRectF, tuple[str, ...], str, int]] = []
    original = items.draw_fit

    def record(painter, area, fit, title_px, detail_px, ink) -> None:  # type: ignore[no-untyped-def]
        drawn.append((QRectF(area), fit.lines, fit.detail, title_px))
        original(painter, area, fit, title_px, detail_px, ink)

    monkeypatch.setattr(items, "draw_fit", record)
    # the compute row of SU 1 and its rail leaves above it
    view = _at_zoom(make_view, zoom, (700, 700))
    view.viewport().grab()
    shown = _shown_items(view)
    assert len(shown) >= 6
    for area, lines, detail, px in drawn:
        _, fm = device_font(px, True)
        for line in lines:
            assert "…" not in line and "..." not in line
            assert fm.horizontalAdvance(line) <= area.width() + 1e-6, (line, area)
        used = len(lines) * fm.height()
        if detail:
            _, dm = device_font(max(1, round(max(MIN_LABEL_PX, px - 1))), False)
            used += dm.height()
            assert dm.horizontalAdvance(detail) <= area.width() + 1e-6
        assert used <= area.height() + 1e-6, (lines, area)
    labelled = 0
    for item in shown:
        fit, _, _ = item.label_fit(zoom)
        whole, some = _had_room(item, zoom)
        if whole:
            assert fit.form in ("full", "wrapped"), (item.title, fit)
        elif some:
            assert fit.form == "shorter", (item.title, fit)
        else:
            assert not fit.shown
        labelled += fit.shown
    assert len(drawn) >= labelled
    if zoom == 1.0:
        # at 100 % every DGX and leaf in view reads its whole name
        assert labelled == len(shown)
        assert all(item.label_fit(zoom)[0].form != "shorter" for item in shown)
    if zoom == 0.45:
        assert labelled and all(
            item.label_fit(zoom)[0].form == "shorter" for item in shown
        )


def test_collapsed_unit_blocks_never_cut_their_counts(make_view) -> None:
    from designer.core.edits import set_group_collapsed

    view = _at_zoom(make_view, 0.25, (1300, 700))
    doc = view.document
    doc.execute(set_group_collapsed(doc.design, "su01", True))
    QApplication.processEvents()
    block = next(b for b in view.design_scene.block_items() if b.group_id == "su01")
    for zoom in (0.25, 0.1, 0.05, 0.03):
        rect = QTransform.fromScale(zoom, zoom).mapRect(block.rect)
        lines = block.shown_lines(rect)
        if zoom >= 0.05:
            assert lines and lines[0][0].split(" · ")[0] == "SU 1"
        assert not any("…" in text for text, _, _ in lines)
        assert not lines or items.fits_inside(rect, lines)
        # the fullest text that fits: one more part of the counts would not
        if len(lines) == 2 and lines[1][0] != block.summary:
            parts = block.summary.split(" · ")
            shown_parts = lines[1][0].split(" · ")
            longer = " · ".join(parts[: len(shown_parts) + 1])
            if block.summary.startswith(lines[1][0]):
                more = [lines[0], (longer, lines[1][1], lines[1][2])]
                assert not items.fits_inside(rect, more)


def _tooltip_at(view: CanvasView, qtbot: QtBot, at: tuple[float, float]) -> str:
    pos = vp(view, *at)
    event = QHelpEvent(QEvent.Type.ToolTip, pos, view.viewport().mapToGlobal(pos))
    QApplication.sendEvent(view.viewport(), event)
    return QToolTip.text() if QToolTip.isVisible() else ""


# a tooltip on the offscreen platform warns that it cannot raise its window
@pytest.mark.qt_log_ignore("This plugin does not support")
def test_hover_shows_the_full_name_and_key_specs(
    make_view, qtbot: QtBot, catalog
) -> None:
    view = _at_zoom(make_view, 0.5, (700, 700))
    design = view.document.design
    node = design.device_map()["dgx-0009"]
    text = _tooltip_at(view, qtbot, (node.x, node.y))
    lines = text.splitlines()
    assert lines[0] == node.label == "DGX H100 #9"
    assert lines[1].startswith("dgx-0009 · ") and "DGX H100" in lines[1]
    assert entry_specs(catalog["dgx-h100"]) in text
    assert "in SU 1" in text
    n_links = sum(1 for x in design.links if "dgx-0009" in (x.a, x.b))
    assert f"{n_links} links" in text
    leaf = design.device_map()["leaf-su01-r2"]
    assert _tooltip_at(view, qtbot, (leaf.x, leaf.y)).startswith("Leaf SU1 rail 2\n")
    # a link: its two ends by name, cables and speed
    link = _tooltip_at(view, qtbot, (700, 600))
    assert link.startswith("DGX H100 #17 compute — Leaf SU1 rail 0 ports\n")
    # nothing under the mouse: the tooltip goes (Qt hides it after a moment)
    _tooltip_at(view, qtbot, (-200, 700))
    qtbot.waitUntil(lambda: not QToolTip.isVisible(), timeout=3000)


@pytest.mark.qt_log_ignore("This plugin does not support")
def test_hover_over_a_frame_header_and_a_block(make_view, qtbot: QtBot) -> None:
    from designer.core.edits import set_group_collapsed

    view = _at_zoom(make_view, 0.3, (1300, 700))
    frame = next(f for f in view.design_scene.frame_items() if f.group_id == "su02")
    header = frame.header_rect()  # its left end, clear of the links
    text = _tooltip_at(view, qtbot, (header.left() + 6, header.center().y()))
    assert text.startswith("SU 2 (SU)\n")
    assert "double-click the name bar to collapse" in text
    doc = view.document
    doc.execute(set_group_collapsed(doc.design, "su01", True))
    QApplication.processEvents()
    block = next(b for b in view.design_scene.block_items() if b.group_id == "su01")
    mid: QPointF = block.rect.center()
    text = _tooltip_at(view, qtbot, (mid.x(), mid.y()))
    assert text.startswith("SU 1 (SU)\n") and "double-click to expand" in text
