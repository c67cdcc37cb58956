"""Mouse and design helpers for the canvas tests."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from pytestqt.qtbot import QtBot

from designer.core.model import Device, Tier
from designer.qt.canvas import CanvasView


def dev(
    id: str,
    cat: str,
    x: float,
    y: float,
    tier: Tier | None = None,
    group: str | None = None,
) -> Device:
    """A device for a test design."""
    return Device(id=id, catalog_id=cat, label=id, x=x, y=y, tier=tier, group=group)


def vp(view: CanvasView, x: float, y: float) -> QPoint:
    """Viewport pixel of scene point (x, y)."""
    return view.mapFromScene(QPointF(x, y))


def drag(
    qtbot: QtBot,
    view: CanvasView,
    start: tuple[float, float],
    end: tuple[float, float],
    modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier,
    steps: int = 5,
) -> None:
    """Press at ``start``, move in steps, release at ``end`` (scene coordinates)."""
    w = view.viewport()
    a, b = vp(view, *start), vp(view, *end)
    qtbot.mousePress(w, Qt.MouseButton.LeftButton, modifier, a)
    for k in range(1, steps + 1):
        p = a + (b - a) * (k / steps)
        qtbot.mouseMove(w, p)
    qtbot.mouseRelease(w, Qt.MouseButton.LeftButton, modifier, b)


def click(
    qtbot: QtBot,
    view: CanvasView,
    at: tuple[float, float],
    modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier,
) -> None:
    """Left click at a scene point."""
    qtbot.mouseClick(
        view.viewport(), Qt.MouseButton.LeftButton, modifier, vp(view, *at)
    )
