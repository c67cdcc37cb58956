"""Canvas habits: zoom anchored under the mouse, fitting at 100 % or less, F to
fit, click-click connect, Escape cancels whatever is in progress."""

from __future__ import annotations

import math
from functools import cache

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QGraphicsLineItem, QGraphicsRectItem
from pytestqt.qtbot import QtBot

from designer.core.model import Design, Device, Group, Tier
from designer.generate import superpod
from designer.qt.canvas import CanvasView
from designer.qt.canvas import style as st
from tests.qt.canvas.helpers import click, dev, vp

Mod = Qt.KeyboardModifier
Left = Qt.MouseButton.LeftButton


def _rack() -> Design:
    return Design(
        devices=[
            dev("dgx-01", "dgx-h100", 0, 200),
            dev("dgx-02", "dgx-h100", 200, 200),
            dev("leaf-1", "qm9700", 0, 0, Tier.LEAF),
            dev("filer", "nfs-filer", 400, 200),
        ]
    )


@cache
def _superpod_json() -> str:
    return superpod("dgx-b200", 16).model_dump_json()


def _flat_rows() -> Design:
    """Ten groups of 300 nodes side by side in one long row (a flat fabric)."""
    groups = [Group(id=f"g{k}", label=f"Row {k}") for k in range(10)]
    devices = [
        Device(
            id=f"n-{k}-{j}",
            catalog_id="dgx-h100",
            x=80.0 * (300 * k + j),
            y=0.0,
            group=f"g{k}",
        )
        for k in range(10)
        for j in range(300)
    ]
    return Design(groups=groups, devices=devices)


def _wheel(view: CanvasView, at: QPointF, notches: int) -> None:
    event = QWheelEvent(
        at,
        QPointF(view.viewport().mapToGlobal(at.toPoint())),
        QPoint(0, 0),
        QPoint(0, 120 * notches),
        Qt.MouseButton.NoButton,
        Mod.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(view.viewport(), event)


def _drift(view: CanvasView, fixed: QPointF, at: QPointF) -> float:
    """How far (viewport px) the scene point ``fixed`` is from ``at``."""
    now = view.viewportTransform().map(fixed)
    return math.hypot(now.x() - at.x(), now.y() - at.y())


def _under(view: CanvasView, at: QPointF) -> QPointF:
    inverse, _ = view.viewportTransform().inverted()
    return inverse.map(at)


@pytest.mark.parametrize("corner", [(0.5, 0.5), (0.05, 0.08), (0.93, 0.9)])
def test_wheel_zoom_keeps_the_point_under_the_mouse(make_view, corner) -> None:
    view = make_view(_rack())
    vp_rect = view.viewport().rect()
    at = QPointF(corner[0] * vp_rect.width(), corner[1] * vp_rect.height())
    fixed = _under(view, at)
    # far out (the design much smaller than the window) and back in past 100 %
    for notches in [-1] * 12 + [1] * 20 + [-3, 2]:
        _wheel(view, at, notches)
        assert _drift(view, fixed, at) <= 1.0, (notches, view.scale_factor())
    assert view.scale_factor() > 1.5


def test_wheel_zoom_stays_anchored_from_the_overview_into_devices(make_view) -> None:
    """The overview's vertical stretch is dropped on the way in: the point under
    the mouse still stays there."""
    view = make_view(_flat_rows())
    view.resize(900, 650)
    QApplication.processEvents()
    view.fit_all()
    QApplication.processEvents()
    assert view.design_scene.overview
    t = view.transform()
    assert t.m22() > 1.5 * t.m11()  # stretched
    at = QPointF(300, 330)
    fixed = _under(view, at)
    for _ in range(40):
        _wheel(view, at, 1)
        QApplication.processEvents()
        assert _drift(view, fixed, at) <= 1.0
        if not view.design_scene.overview:
            break
    assert not view.design_scene.overview
    t = view.transform()
    assert t.m22() == pytest.approx(t.m11())


def test_fit_never_zooms_past_100_percent(make_view, qtbot: QtBot) -> None:
    view = make_view(Design(devices=[dev("dgx-01", "dgx-h100", 0, 0)]))
    view.fit_all()
    assert view.scale_factor() == pytest.approx(1.0)
    empty = make_view(Design())
    empty.fit_all()
    assert empty.scale_factor() == pytest.approx(1.0)
    # F and Ctrl+0 fit: a big design ends far below 100 %
    big = make_view(Design.model_validate_json(_superpod_json()))
    big.setFocus()
    big.fit_all()
    fitted = big.scale_factor()
    assert fitted < 0.2
    for key, mods in (
        (Qt.Key.Key_F, Mod.NoModifier),
        (Qt.Key.Key_0, Mod.ControlModifier),
    ):
        big.zoom_in()
        big.zoom_in()
        before = big.scale_factor()
        qtbot.keyClick(big, key, mods)
        assert before > 1.5 * fitted
        assert big.scale_factor() == pytest.approx(fitted)


def test_zoom_to_selection_fits_it_or_says_nothing_is_selected(
    make_view, qtbot: QtBot
) -> None:
    view = make_view(_rack())
    view.fit_all()
    before = view.scale_factor()
    with qtbot.waitSignal(view.status_message) as sig:
        view.zoom_to_selection()
    assert sig.args[0] == "Nothing selected to zoom to."
    assert view.scale_factor() == before
    view.select_ids(["dgx-01"], center=False)
    view.zoom_to_selection()
    assert view.scale_factor() > before
    shown = view.mapToScene(view.viewport().rect()).boundingRect()
    item = view.design_scene.item_for("dgx-01")
    assert item is not None and shown.contains(item.sceneBoundingRect())


@pytest.mark.slow
def test_new_and_opened_designs_fit_at_100_percent_or_less(
    main_window, qtbot: QtBot
) -> None:
    from pathlib import Path

    window = main_window()
    qtbot.waitExposed(window)
    QApplication.processEvents()
    assert window.canvas.scale_factor() <= 1.0
    samples = Path(__file__).resolve().parents[3] / "samples"
    assert window.open_path(samples / "development.json")
    QApplication.processEvents()
    QApplication.processEvents()
    assert 0 < window.canvas.scale_factor() <= 1.0
    window.new_design()
    QApplication.processEvents()
    QApplication.processEvents()
    assert window.canvas.scale_factor() <= 1.0


def test_click_then_click_connects(make_view, qtbot: QtBot) -> None:
    view = make_view(_rack())
    view.set_tool("connect")
    with qtbot.waitSignal(view.status_message) as sig:
        click(qtbot, view, (0, 200))
    assert sig.args[0] == "Click the device to connect dgx-01 to (Esc cancels)"
    assert not view.document.design.links.id  # nothing yet: it waits
    qtbot.mouseMove(view.viewport(), vp(view, 10, 60))
    assert _overlay_lines(view) == 1  # the line follows the mouse
    with qtbot.waitSignal(view.status_message) as sig:
        click(qtbot, view, (0, 0), Mod.ShiftModifier)
    (link,) = list(view.document.design.links)
    assert (link.a, link.b, link.cables) == ("dgx-01", "leaf-1", 1)
    assert sig.args[0].startswith("Connected 1 cable, compute, 400G")
    assert len(view.document.history.done) == 1
    assert _overlay_lines(view) == 0


def test_alt_click_then_click_connects_with_the_select_tool(
    make_view, qtbot: QtBot
) -> None:
    view = make_view(_rack())
    click(qtbot, view, (200, 200), Mod.AltModifier)
    click(qtbot, view, (0, 0))
    (link,) = list(view.document.design.links)
    assert (link.a, link.b, link.cables) == ("dgx-02", "leaf-1", 8)
    # the second click selected nothing and moved nothing
    assert view.design_scene.selected_ids() == [link.id]
    assert view.document.design.device_map()["dgx-02"].x == 200


def test_a_click_on_empty_canvas_cancels_a_click_click_connection(
    make_view, qtbot: QtBot
) -> None:
    view = make_view(_rack())
    view.set_tool("connect")
    click(qtbot, view, (0, 200))
    with qtbot.waitSignal(view.status_message) as sig:
        click(qtbot, view, (-300, -200))
    assert sig.args[0] == "Connect cancelled"
    click(qtbot, view, (0, 0))  # a fresh start, not the end of the first
    assert len(view.document.design.links) == 0


def _overlay_lines(view: CanvasView) -> int:
    return sum(
        1
        for i in view.design_scene.items()
        if isinstance(i, QGraphicsLineItem) and i.zValue() == st.Z_OVERLAY
    )


def _bands(view: CanvasView) -> int:
    return sum(
        1
        for i in view.design_scene.items()
        if isinstance(i, QGraphicsRectItem) and i.zValue() == st.Z_OVERLAY
    )


def test_escape_cancels_a_connection_in_progress(make_view, qtbot: QtBot) -> None:
    view = make_view(_rack())
    view.set_tool("connect")
    w = view.viewport()
    qtbot.mousePress(w, Left, pos=vp(view, 0, 200))
    qtbot.mouseMove(w, vp(view, 0, 100))
    assert _overlay_lines(view) == 1
    qtbot.keyClick(view, Qt.Key.Key_Escape)
    assert _overlay_lines(view) == 0
    qtbot.mouseRelease(w, Left, pos=vp(view, 0, 0))
    assert len(view.document.design.links) == 0
    # and the waiting half of a click-click connection
    click(qtbot, view, (0, 200))
    assert _overlay_lines(view) == 1
    qtbot.keyClick(view, Qt.Key.Key_Escape)
    assert _overlay_lines(view) == 0
    click(qtbot, view, (0, 0))
    assert len(view.document.design.links) == 0


def test_escape_cancels_a_drag_and_puts_the_devices_back(
    make_view, qtbot: QtBot
) -> None:
    view = make_view(_rack())
    before = view.document.design.model_dump()
    w = view.viewport()
    qtbot.mousePress(w, Left, pos=vp(view, 200, 200))
    for x in (230, 260, 300):
        qtbot.mouseMove(w, vp(view, x, 200))
    item = view.design_scene.item_for("dgx-02")
    assert item is not None and item.pos().x() > 250  # dragged on screen
    with qtbot.waitSignal(view.status_message) as sig:
        qtbot.keyClick(view, Qt.Key.Key_Escape)
    assert sig.args[0] == "Cancelled"
    assert item.pos().x() == 200
    qtbot.mouseMove(w, vp(view, 340, 200))
    qtbot.mouseRelease(w, Left, pos=vp(view, 340, 200))
    assert item.pos().x() == 200
    assert view.document.history.done == []
    assert view.document.design.model_dump() == before
    # the drag's selection stays (a second Escape clears it)
    assert view.design_scene.selected_ids() == ["dgx-02"]
    qtbot.keyClick(view, Qt.Key.Key_Escape)
    assert view.design_scene.selected_ids() == []


def test_escape_cancels_a_rubber_band(make_view, qtbot: QtBot) -> None:
    view = make_view(_rack())
    view.select_ids(["filer"], center=False)
    w = view.viewport()
    qtbot.mousePress(w, Left, pos=vp(view, -100, -100))
    qtbot.mouseMove(w, vp(view, 300, 300))
    assert _bands(view) == 1
    qtbot.keyClick(view, Qt.Key.Key_Escape)
    assert _bands(view) == 0
    qtbot.mouseRelease(w, Left, pos=vp(view, 300, 300))
    assert view.design_scene.selected_ids() == ["filer"]  # not replaced
