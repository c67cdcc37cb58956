"""A 20-node leaf/spine sketch drawn with the mouse, checked against an oracle.

The design is made the way a user makes it: devices dropped from the catalog one
at a time, then wired with the connect tool (plain drags take every free port,
Shift-drags one cable), with dual-homed nodes, a node with one cable and uneven
uplinks (a few single cables per leaf and spine, one leaf with every free port
up). The validator's bisection must equal the exact value of an enumeration kept
apart from the product.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from PySide6.QtCore import QPointF, Qt
from pytestqt.qtbot import QtBot

from designer.qt.palette import catalog_mime
from tests.analysis.oracle import oracle_by_placement
from tests.qt.helpers import settle

Mod = Qt.KeyboardModifier


def _drop(window: Any, catalog_id: str, x: float, y: float) -> str:
    before = {d.id for d in window.document.design.devices}
    window.canvas.edits.drop_catalog_item(catalog_mime(catalog_id, 1), QPointF(x, y))
    (new,) = [d.id for d in window.document.design.devices if d.id not in before]
    return str(new)


def _connect(qtbot: QtBot, window: Any, a: str, b: str, shift: bool = False) -> int:
    """Drag from ``a`` to ``b`` with the connect tool; links made (0 if refused)."""
    view = window.canvas
    devices = window.document.design.device_map()
    p = view.mapFromScene(QPointF(devices[a].x, devices[a].y))
    q = view.mapFromScene(QPointF(devices[b].x, devices[b].y))
    mod = Mod.ShiftModifier if shift else Mod.NoModifier
    before = len(window.document.design.links)
    qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, mod, p)
    for k in range(1, 6):
        qtbot.mouseMove(view.viewport(), p + (q - p) * (k / 5))
    qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, mod, q)
    return len(window.document.design.links) - before


@pytest.mark.slow
@pytest.mark.parametrize("seed", [20, 7])
def test_bisection_of_a_sketch_drawn_by_hand_is_exact(
    main_window: Any, qtbot: QtBot, seed: int
) -> None:
    rng = random.Random(seed)
    window = main_window()
    spines = [_drop(window, "qm9700", 600 + 700 * i, 0) for i in range(2)]
    leaves = [_drop(window, "qm9700", 250 + 500 * i, 400) for i in range(4)]
    nodes = [_drop(window, "dgx-h100", 40 + 110 * i, 900) for i in range(20)]
    window.canvas.fit_all()
    window.canvas.set_tool("connect")
    dual = set(rng.sample(range(15), 3))
    sparse = rng.randrange(15, 20)
    for i, node in enumerate(nodes):
        leaf = leaves[i // 5]
        if i in dual:  # four single cables to its own leaf and four to the next
            for _ in range(4):
                assert _connect(qtbot, window, node, leaf, shift=True) == 1
                assert _connect(qtbot, window, node, leaves[i // 5 + 1], True) == 1
        elif i == sparse:  # a node still being wired: one cable
            assert _connect(qtbot, window, node, leaf, shift=True) == 1
        else:
            assert _connect(qtbot, window, node, leaf) == 1
    for leaf in leaves:  # uneven uplinks: 0-6 single cables to each spine
        for spine in spines:
            for _ in range(rng.randrange(0, 7)):
                assert _connect(qtbot, window, leaf, spine, shift=True) == 1
    # a plain drag takes every port still free on the leaf
    assert _connect(qtbot, window, leaves[rng.randrange(4)], spines[0]) == 1
    window.canvas.set_tool("select")
    report = settle(qtbot, window)
    truth = oracle_by_placement(window.document.design)
    assert truth > 0
    assert report.bisection.exact
    assert report.bisection.lower_gbps == pytest.approx(truth)
    assert report.bisection.gbps == pytest.approx(truth)
