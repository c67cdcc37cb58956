"""The overview on screen: titles stay in the window, trunks click and follow drags."""

from __future__ import annotations

from functools import cache

import pytest
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtWidgets import QApplication

from designer.core.model import Design
from designer.generate import superpod
from designer.qt.canvas import CanvasView
from tests.qt.canvas.helpers import vp


@cache
def _superpod_json() -> str:
    return superpod("dgx-b200", 16).model_dump_json()


def _fitted(make_view, size: tuple[int, int] = (700, 600)) -> CanvasView:
    """The 16-SU B200 SuperPOD fitted in a window (the overview)."""
    view = make_view(Design.model_validate_json(_superpod_json()))
    view.resize(*size)
    QApplication.processEvents()
    view.fit_all()
    QApplication.processEvents()
    assert view.design_scene.overview
    return view


def _visible_titles(view: CanvasView) -> list[tuple[str, QRectF]]:
    """Device-pixel rects (scene transform, no scroll) of titles shown outside."""
    tr = view.transform()
    return [
        (str(key), item.boundingRect().translated(tr.map(item.pos())))
        for key, item in view.design_scene.titles().items()
        if item.isVisible()
    ]


def _window(view: CanvasView) -> QRectF:
    tr = view.transform()
    return tr.mapRect(view.mapToScene(view.viewport().rect()).boundingRect())


@pytest.mark.slow
@pytest.mark.parametrize("size", [(700, 600), (560, 600)])
def test_titles_outside_blocks_stay_inside_the_window(make_view, size) -> None:
    view = _fitted(make_view, size)
    titles = _visible_titles(view)
    assert any("block" in key for key, _ in titles)  # storage/management outside
    window = _window(view)
    for key, rect in titles:
        assert window.contains(rect), (key, rect, window)


def test_scrolling_replaces_titles_once_per_turn(make_view, monkeypatch) -> None:
    view = _fitted(make_view)
    view.zoom_in()
    view.zoom_in()
    QApplication.processEvents()
    calls: list[QRectF | None] = []
    scene = view.design_scene
    # every placing of titles goes through the scene's follower, whoever asks
    follower = scene.follower
    original = follower.place_labels

    def counting(transform, bounds) -> None:
        calls.append(bounds)
        original(transform, bounds)

    monkeypatch.setattr(follower, "place_labels", counting)
    bar = view.horizontalScrollBar()
    assert bar.maximum() > bar.minimum() + 30
    for step in (10, 20, 30):
        bar.setValue(bar.minimum() + step)
    view.resize(690, 590)
    assert calls == []  # nothing placed synchronously
    QApplication.processEvents()
    assert len(calls) == 1
    assert calls[0] == _window(view).adjusted(2, 2, -2, -2)
    for key, rect in _visible_titles(view):
        assert _window(view).contains(rect), key


def _trunk_point(view: CanvasView) -> tuple[int, QPointF]:
    """A trunk and a scene point on it that picks it."""
    scene = view.design_scene
    tol = view.pick_tolerance()
    for k, (line, _) in enumerate(scene.state.trunk_items):
        seg = line.line()
        for f in (0.45, 0.3, 0.6):
            p = seg.pointAt(f)
            hit = scene.hit(p, tol)
            if hit is not None and hit.kind == "trunk" and hit.id == str(k):
                return k, p
    raise AssertionError("no trunk can be picked")


def _oracle(view: CanvasView, k: int) -> tuple[list[str], str]:
    """Links between the two ends of trunk k, computed from the model."""
    scene = view.design_scene
    q = scene.current_quotient()
    ids = scene.geometry.ids
    nb = len(q.blocks)
    ends = [
        {ids[r] for r in q.blocks[c].rows.tolist()} if c < nb else {ids[c - nb]}
        for c in q.trunks[k].ends
    ]
    links = [
        link
        for link in view.document.design.links
        if (link.a in ends[0] and link.b in ends[1])
        or (link.a in ends[1] and link.b in ends[0])
    ]
    cables = sum(link.cables for link in links)
    tbps = sum(link.cables * link.speed_gbps for link in links) / 1000
    text = f"{len(links):,} links, {cables:,} cables, {tbps:,.1f} Tb/s"
    return [link.id for link in links], text


@pytest.mark.slow
def test_clicking_a_trunk_selects_its_links(make_view, qtbot) -> None:
    view = _fitted(make_view)
    k, p = _trunk_point(view)
    want_ids, want_text = _oracle(view, k)
    assert len(want_ids) > 1
    selections: list[list[str]] = []
    messages: list[str] = []
    view.selection_changed.connect(selections.append)
    view.status_message.connect(messages.append)
    qtbot.mouseClick(
        view.viewport(),
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
        vp(view, p.x(), p.y()),
    )
    assert selections[-1] == want_ids
    assert view.selected_ids() == want_ids
    assert messages[-1] == want_text
    line, _ = view.design_scene.state.trunk_items[k]
    assert line.pen().color().name() == "#1a73e8"  # drawn as selected


@pytest.mark.slow
def test_double_clicking_a_trunk_zooms_to_its_ends(make_view, qtbot) -> None:
    view = _fitted(make_view)
    k, p = _trunk_point(view)
    scene = view.design_scene
    q = scene.current_quotient()
    g = scene.geometry
    nb = len(q.blocks)
    rows = [
        r
        for c in q.trunks[k].ends
        for r in (q.blocks[c].rows.tolist() if c < nb else [c - nb])
    ]
    before = view.scale_factor()
    qtbot.mouseDClick(
        view.viewport(),
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
        vp(view, p.x(), p.y()),
    )
    QApplication.processEvents()
    visible = view.mapToScene(view.viewport().rect()).boundingRect()
    for r in rows:
        assert visible.contains(QPointF(*g.xy[r])), g.ids[r]
    assert view.scale_factor() > before


@pytest.mark.slow
def test_dragging_a_block_moves_its_trunks_during_the_drag(make_view, qtbot) -> None:
    view = _fitted(make_view)
    view.set_grid_snap(False)
    scene = view.design_scene
    q = scene.current_quotient()
    nb = len(q.blocks)
    # a block with trunks whose other end stays put
    b = next(
        i
        for i in range(nb)
        if any(i in t.ends and t.ends[0] != t.ends[1] for t in q.trunks)
        and q.blocks[i].group_id is not None
    )
    block = scene.block_items()[b]
    touching = [k for k, t in enumerate(q.trunks) if b in t.ends]
    before = {k: scene.state.trunk_items[k][0].line() for k in touching}
    start = block.rect.center()
    a = vp(view, start.x(), start.y())
    w = view.viewport()
    qtbot.mousePress(w, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a)
    for step in (10, 20, 40):
        qtbot.mouseMove(w, a + type(a)(step, 0))
    # still pressed: the trunks already follow the block
    dx = view.mapToScene(a + type(a)(40, 0)).x() - view.mapToScene(a).x()
    assert dx > 0
    for k in touching:
        t = q.trunks[k]
        now, was = scene.state.trunk_items[k][0].line(), before[k]
        moved_end = now.p1() if t.ends[0] == b else now.p2()
        kept_end = now.p2() if t.ends[0] == b else now.p1()
        old_moved = was.p1() if t.ends[0] == b else was.p2()
        old_kept = was.p2() if t.ends[0] == b else was.p1()
        assert moved_end.x() == pytest.approx(old_moved.x() + dx)
        assert moved_end.y() == pytest.approx(old_moved.y())
        assert kept_end == old_kept
    member = view.document.design.devices[int(q.blocks[b].rows[0])]
    x0 = member.x
    assert view.document.history.done == []  # no model change while dragging
    qtbot.mouseRelease(
        w,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
        a + type(a)(40, 0),
    )
    QApplication.processEvents()
    assert len(view.document.history.done) == 1
    moved = view.document.design.devices[int(q.blocks[b].rows[0])]
    assert moved.x == pytest.approx(x0 + dx)


@pytest.mark.slow
def test_a_trunk_label_picks_its_trunk(make_view) -> None:
    view = _fitted(make_view)
    scene = view.design_scene
    shown = [
        (k, label)
        for k, (line, label) in enumerate(scene.state.trunk_items)
        if label.isVisible()
    ]
    assert shown
    for k, label in shown:
        hit = scene.hit(label.pos(), view.pick_tolerance())
        assert hit is not None and (hit.kind, hit.id) == ("trunk", str(k))
