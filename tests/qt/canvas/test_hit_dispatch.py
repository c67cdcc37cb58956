"""Every place that dispatches on what is under the mouse handles every Hit type.

The tools, the context menu and the hover text dispatch on the type of a
:data:`~designer.qt.canvas.hits.Hit` with ``match`` and end in
``typing.assert_never``: mypy then fails on a Hit type one of them leaves out,
and at run time an unhandled type raises. Calling each dispatcher with each
member of the union shows none falls through; calling it with a type outside
the union shows the fallback is there (no dispatcher ignores what it does not
know).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, get_args

import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent

from designer.core.links import LinkTable
from designer.core.model import Design, Group, GroupKind, Link, Tier
from designer.qt.canvas import CanvasView
from designer.qt.canvas.context_menu import select_for_menu
from designer.qt.canvas.hits import (
    BlockHit,
    DeviceHit,
    FrameHit,
    Hit,
    LinkHit,
    TrunkHit,
)
from designer.qt.canvas.hover import tooltip_text
from designer.qt.canvas.tools import ConnectGesture, ConnectTool, SelectTool
from tests.qt.canvas.helpers import dev

AT = QPointF(0.0, 0.0)


def _link(a: str, a_port: str, b: str, b_port: str) -> Link:
    return Link(
        id=f"{a}--{b}", a=a, a_port=a_port, b=b, b_port=b_port, cables=1,
        speed_gbps=400,
    )  # fmt: skip


def _design() -> Design:
    """A collapsed SU (a block, with a trunk to the spine), an expanded SU (a
    frame) and a single link: something to hit of every kind."""
    return Design(
        groups=[
            Group(id="su01", label="SU 1", kind=GroupKind.SU, collapsed=True),
            Group(id="su02", label="SU 2", kind=GroupKind.SU),
        ],
        devices=[
            dev("dgx-0", "dgx-h100", 0, 300, group="su01"),
            dev("rail-0", "qm9700", 0, 0, Tier.LEAF, group="su01"),
            dev("dgx-1", "dgx-h100", 1000, 300, group="su02"),
            dev("spine", "qm9700", 500, -600, Tier.SPINE),
        ],
        links=LinkTable.from_links(
            [
                _link("dgx-0", "compute", "rail-0", "ports"),
                _link("rail-0", "ports", "spine", "ports"),
                _link("dgx-1", "compute", "spine", "ports"),
            ]
        ),
    )


#: one hit of each type in the union, on the design above
SAMPLES: dict[type, Hit] = {
    DeviceHit: DeviceHit("spine"),
    BlockHit: BlockHit("su01"),
    LinkHit: LinkHit("dgx-1--spine"),
    TrunkHit: TrunkHit(0),
    FrameHit: FrameHit("su02"),
}


@dataclass(frozen=True)
class StrayHit:
    """A hit type the union does not have (what a new one looks like)."""

    id: str = "spine"
    index: int = 0
    kind: ClassVar[str] = "device"


def _press() -> QMouseEvent:
    return QMouseEvent(
        QEvent.Type.MouseButtonPress,
        AT,
        AT,
        Qt.MouseButton.LeftButton,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )


def _double_click(view: CanvasView, hit: Any) -> None:
    SelectTool(view).double_click(_press(), AT)


def _select_press(view: CanvasView, hit: Any) -> None:
    SelectTool(view).press(_press(), AT)


def _connect_press(view: CanvasView, hit: Any) -> None:
    ConnectTool(view).press(_press(), AT)


def _connect_finish(view: CanvasView, hit: Any) -> None:
    gesture = ConnectGesture(view)
    gesture.start("dgx-1", AT)
    gesture.finish(AT, Qt.KeyboardModifier.NoModifier)


def _context_menu(view: CanvasView, hit: Any) -> None:
    select_for_menu(view, hit)


def _tooltip(view: CanvasView, hit: Any) -> None:
    tooltip_text(view.design_scene, view.document.design, view.catalog, hit)


#: every dispatcher on the type of a hit (the tools read it from the scene)
DISPATCHERS: dict[str, Callable[[CanvasView, Any], None]] = {
    "double click": _double_click,
    "select press": _select_press,
    "connect press": _connect_press,
    "connect release": _connect_finish,
    "context menu": _context_menu,
    "tooltip": _tooltip,
}


def _view_hitting(make_view: Any, monkeypatch: Any, hit: object) -> CanvasView:
    view: CanvasView = make_view(_design())
    monkeypatch.setattr(view.design_scene, "hit", lambda pos, tol: hit)
    return view


def test_every_hit_type_has_a_sample() -> None:
    assert set(SAMPLES) == set(get_args(Hit))


@pytest.mark.parametrize("kind", get_args(Hit), ids=lambda t: t.__name__)
@pytest.mark.parametrize("name", DISPATCHERS)
def test_each_dispatcher_handles_each_hit_type(
    make_view: Any, monkeypatch: Any, name: str, kind: type
) -> None:
    hit = SAMPLES[kind]
    view = _view_hitting(make_view, monkeypatch, hit)
    DISPATCHERS[name](view, hit)  # assert_never would raise AssertionError


@pytest.mark.parametrize("name", DISPATCHERS)
def test_a_hit_type_outside_the_union_is_refused(
    make_view: Any, monkeypatch: Any, name: str
) -> None:
    view = _view_hitting(make_view, monkeypatch, StrayHit())
    with pytest.raises(AssertionError, match="unreachable"):
        DISPATCHERS[name](view, StrayHit())
