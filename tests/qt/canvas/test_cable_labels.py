"""Links show their cable count on the canvas when zoomed in, never in the overview."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPointF, QRectF
from pytestqt.qtbot import QtBot

from designer.core.model import Design, Link, LinkTable, Tier
from designer.generate import superpod
from designer.view.canvas.sizes import LOD_CABLE_LABELS, MAX_CABLE_LABELS
from tests.qt.canvas.helpers import dev
from tests.qt.helpers import settle, window_png

SAMPLE = Path(__file__).resolve().parents[3] / "samples" / "dgx-h100-superpod-4su.json"


def _bundles() -> Design:
    """Four DGX H100 with 8 cables each to a leaf, and one single cable."""
    devices = [dev(f"dgx-{n}", "dgx-h100", 160.0 * n, 200) for n in range(5)]
    devices.append(dev("leaf", "qm9700", 320, 0, Tier.LEAF))
    links = [
        Link(
            id=f"dgx-{n}--leaf",
            a=f"dgx-{n}",
            a_port="compute",
            b="leaf",
            b_port="ports",
            cables=8 if n < 4 else 1,
            speed_gbps=400,
        )
        for n in range(5)
    ]
    return Design(devices=devices, links=LinkTable.from_links(links))


def _labels_after_paint(view) -> list[tuple[str, float, float]]:
    view.viewport().grab()
    return view.design_scene.cable_labels()


def test_bundles_show_their_count_when_zoomed_in(make_view, qtbot: QtBot) -> None:
    view = make_view(_bundles())
    view.centerOn(320, 100)
    labels = _labels_after_paint(view)
    assert sorted(text for text, _, _ in labels) == ["×8"] * 4
    # each at its link's midpoint, inside the window
    design = view.document.design
    xy = {d.id: (d.x, d.y) for d in design.devices}
    by_x = sorted(labels, key=lambda t: t[1])
    for n, (_, x, y) in enumerate(by_x):
        ax, ay = xy[f"dgx-{n}"]
        bx, by = xy["leaf"]
        assert (x, y) == ((ax + bx) / 2, (ay + by) / 2)
        assert view.viewport().rect().contains(view.mapFromScene(QPointF(x, y)))


def test_no_counts_when_zoomed_out(make_view, qtbot: QtBot) -> None:
    view = make_view(_bundles())
    view.centerOn(320, 100)
    assert _labels_after_paint(view)
    view.scale(0.9 * LOD_CABLE_LABELS, 0.9 * LOD_CABLE_LABELS)
    assert _labels_after_paint(view) == []
    view.resetTransform()
    assert len(_labels_after_paint(view)) == 4


def test_counts_follow_an_edit(make_view, qtbot: QtBot) -> None:
    from designer.core.link_commands import UpdateLink

    view = make_view(_bundles())
    view.centerOn(320, 100)
    _labels_after_paint(view)
    view.document.execute(UpdateLink("dgx-0--leaf", {"cables": 3}))
    view.design_scene.flush()
    assert sorted(t for t, _, _ in _labels_after_paint(view)) == ["×3"] + ["×8"] * 3


def test_none_in_the_overview_and_capped_when_zoomed(make_view, qtbot: QtBot) -> None:
    design = superpod("dgx-h100", 16)
    assert any(link.cables > 1 for link in design.links)
    view = make_view(design)
    view.zoom_to_rect(view.design_scene.design_rect().adjusted(-8000, 0, 8000, 0))
    qtbot.waitUntil(lambda: view.design_scene.overview)
    assert _labels_after_paint(view) == []
    # the first spine and the middle of its 16-cable bundles to the core
    spine = design.device_map()["spine-p01-01"]
    view.zoom_to_rect(QRectF(spine.x - 300, spine.y - 1000, 1500, 1100))
    qtbot.waitUntil(lambda: not view.design_scene.overview)
    assert view.scale_factor() >= LOD_CABLE_LABELS
    labels = _labels_after_paint(view)
    assert 0 < len(labels) <= MAX_CABLE_LABELS


@pytest.mark.slow
def test_window_zoomed_in_at_1280x800(
    qtbot: QtBot, main_window: Any, tmp_path: Path
) -> None:
    window = main_window()
    assert window.open_path(SAMPLE)
    settle(qtbot, window)
    fit = window_png(window, tmp_path / "fit.png")
    assert (fit.width(), fit.height()) == (1280, 800)
    assert window.canvas.design_scene.cable_labels() == []
    spine = window.document.design.device_map()["spine-01"]
    zoomed = window_png(
        window,
        tmp_path / "zoomed.png",
        zoom=QRectF(spine.x - 300, spine.y - 100, 1000, 650),
    )
    assert zoomed.width() == 1280
    labels = window.canvas.design_scene.cable_labels()
    assert labels and {text for text, _, _ in labels} <= {"×2", "×4", "×6"}
