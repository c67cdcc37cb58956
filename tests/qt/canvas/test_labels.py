"""Text placement: no screen-only hints in exports, titles readable, no collisions."""

from __future__ import annotations

import itertools

import pytest
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, QSize
from PySide6.QtGui import QPainter, QTransform
from PySide6.QtSvg import QSvgGenerator

from designer.core.model import Design, Group, GroupKind, Link, Tier
from designer.qt.canvas import CanvasView, labels
from designer.qt.canvas.offscreen import OffscreenRenderer
from tests.qt.canvas.helpers import dev
from tests.qt.canvas.test_overview_layout import _crowded


def _svg(paint: object, size: tuple[int, int] = (900, 600)) -> str:
    """Text of an SVG drawn by ``paint(painter, target)``."""
    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    gen = QSvgGenerator()
    gen.setOutputDevice(buf)
    gen.setSize(QSize(*size))
    gen.setViewBox(QRectF(0, 0, *size))
    painter = QPainter(gen)
    paint(painter, QRectF(0, 0, *size))  # type: ignore[operator]
    painter.end()
    buf.close()
    return bytes(data.data()).decode("utf-8", "replace")


def _collapsed() -> Design:
    groups = [Group(id="su-1", label="SU 1", kind=GroupKind.SU, collapsed=True)]
    nodes = [dev(f"n{i}", "dgx-h100", i * 80, 200, group="su-1") for i in range(12)]
    return Design(groups=groups, devices=[*nodes, dev("s", "qm9700", 400, 0)])


def test_hint_is_drawn_on_screen_but_never_in_an_export(make_view) -> None:
    view = make_view(_collapsed())
    scene = view.design_scene
    (block,) = scene.block_items()
    assert block.hint == "double-click to expand"
    rect = scene.design_rect()
    on_screen = _svg(lambda p, t: scene.render(p, t, rect))
    assert "double-click" in on_screen and "SU 1" in on_screen
    renderer = OffscreenRenderer(view.document.design, scene.catalog)
    exported = _svg(lambda p, t: renderer.render(p, t))
    assert "SU 1" in exported
    assert "double-click" not in exported
    assert not scene.exporting  # the editor's scene is never an export's


def _text_rects(scene) -> list[tuple[str, QRectF]]:
    """Reference-pixel rects of visible text outside blocks, for the last transform."""
    tr = scene.label_transform()
    out = []
    for key, item in scene.titles().items():
        if item.isVisible():
            out.append((str(key), item.boundingRect().translated(tr.map(item.pos()))))
    for _, label in scene.state.trunk_items:
        if label.isVisible():
            out.append(
                (label.text, label.boundingRect().translated(tr.map(label.pos())))
            )
    return out


def _wired_crowded() -> Design:
    design = _crowded()
    links = []
    k = 0
    for su in (1, 2):
        for i in range(12):
            links.append(
                Link(
                    id=f"l{k}",
                    a=f"n{su}-{i}",
                    a_port="compute",
                    b=f"s{i}",
                    b_port="ports",
                    cables=1,
                    speed_gbps=400,
                )
            )
            k += 1
    for i in range(4):
        links.append(
            Link(
                id=f"l{k}",
                a=f"st{i}",
                a_port="data",
                b=f"s{19 - i}",
                b_port="ports",
                cables=2,
                speed_gbps=400,
            )
        )
        k += 1
    for i in range(3):
        links.append(
            Link(
                id=f"l{k}",
                a=f"m{i}",
                a_port="compute",
                b=f"s{18 - i}",
                b_port="ports",
                cables=1,
                speed_gbps=200,
            )
        )
        k += 1
    design.links.extend(links)
    return design


def test_no_text_overlaps_a_block_or_other_text_at_any_zoom(make_view) -> None:
    view: CanvasView = make_view(_wired_crowded())
    scene = view.design_scene
    scene.set_overview(True)
    outside_seen = False
    whole_seen = False
    for s in (0.05, 0.1, 0.2, 0.4, 1.0):
        scene.declutter_labels(QTransform.fromScale(s, s))
        blocks = [scene.label_transform().mapRect(b.rect) for b in scene.block_items()]
        texts = _text_rects(scene)
        for (na, a), (nb, b) in itertools.combinations(texts, 2):
            assert not a.intersects(b), (s, na, nb)
        for name, r in texts:
            assert not any(r.intersects(b) for b in blocks), (s, name)
        outside_seen |= any(b.title_outside for b in scene.block_items())
        # a block whose text would be cut hands it to a title outside: whole
        # where there is room, else the title alone (never a cut line)
        for b in scene.block_items():
            item = scene.titles().get(("block", b.key))
            if b.title_outside:
                assert item is not None and item.isVisible()
                assert item.lines[0][0] == b.title
                assert [text for text, _ in item.lines[1:]] in ([], [b.summary])
                whole_seen |= len(item.lines) == 2
    assert outside_seen  # the small storage and management blocks at some zoom
    assert whole_seen  # with the counts wherever they fit


def test_trunk_labels_slide_along_the_trunk_rather_than_drop(
    make_view, monkeypatch
) -> None:
    view = make_view(_wired_crowded())
    scene = view.design_scene
    scene.set_overview(True)

    def shown(s: float) -> int:
        scene.declutter_labels(QTransform.fromScale(s, s))
        return sum(label.isVisible() for _, label in scene.state.trunk_items)

    with_slots = [shown(s) for s in (0.1, 0.4, 1.0)]
    monkeypatch.setattr(labels, "TRUNK_SLOTS", ())
    fixed = [shown(s) for s in (0.1, 0.4, 1.0)]
    assert all(a > b for a, b in zip(with_slots, fixed, strict=True))
    assert with_slots[-1] == len(scene.state.trunk_items) == 4


def _su_frames() -> Design:
    groups = [Group(id=f"su-{k}", label=f"SU {k}", kind=GroupKind.SU) for k in (1, 2)]
    nodes = [
        dev(f"n{k}-{i}", "dgx-h100", i * 80 + k * 1200, 400, group=f"su-{k}")
        for k in (1, 2)
        for i in range(12)
    ]
    return Design(
        groups=groups, devices=[*nodes, dev("s", "qm9700", 1600, 0, Tier.SPINE)]
    )


def test_frames_name_their_group_at_the_top_left_when_zoomed_out(make_view) -> None:
    view = make_view(_su_frames())
    scene = view.design_scene
    frames = {f.group_id: f for f in scene.frame_items()}
    # zoomed in: the header band carries the name, no extra title
    scene.declutter_labels(QTransform.fromScale(1.0, 1.0))
    assert not any(t.isVisible() for t in scene.titles().values())
    # zoomed out: the header is a sliver, the name sits at the frame's corner
    scene.declutter_labels(QTransform.fromScale(0.2, 0.2))
    tr = scene.label_transform()
    for gid, label in (("su-1", "SU 1"), ("su-2", "SU 2")):
        item = scene.titles()[("frame", gid)]
        assert item.isVisible() and item.lines[0][0] == label
        corner = tr.map(frames[gid].rect.topLeft())
        r = item.boundingRect().translated(tr.map(item.pos()))
        assert abs(r.left() - corner.x()) <= 3 and abs(r.bottom() - corner.y()) <= 20
    # far out the frame is narrower than its name: left out, never cut
    scene.declutter_labels(QTransform.fromScale(0.02, 0.02))
    assert not any(t.isVisible() for t in scene.titles().values())


def _placement(scene) -> list[tuple[str, bool, bool, tuple[float, float]]]:
    """Per block: key, title outside?, title item shown?, title item position."""
    out = []
    for b in scene.block_items():
        item = scene.titles().get(("block", b.key))
        shown = item is not None and item.isVisible()
        pos = (item.pos().x(), item.pos().y()) if shown else (0.0, 0.0)
        out.append((b.key, b.title_outside, shown, pos))
    return out


def test_a_text_only_change_reuses_titles_only_while_the_text_still_fits(
    make_view,
) -> None:
    """New counts on a block whose title sat inside keep the last placement only
    when the new text fits inside too; otherwise the titles are placed again,
    exactly as a fresh placement would put them."""
    view: CanvasView = make_view(_wired_crowded())
    scene = view.design_scene
    scene.set_overview(True)
    transform = QTransform.fromScale(0.4, 0.4)
    scene.declutter_labels(transform)
    inside = [b for b in scene.block_items() if not b.title_outside]
    assert inside
    block = max(inside, key=lambda b: b.rect.width())
    # counts that fit; counts that do not (the title stays inside with what
    # fits, issue 16 item 13); a title that cannot fit inside at all
    cases = [
        (block.title, block.summary + " "),
        (block.title, "x " * 400),
        ("x" * 400, block.summary),
    ]
    for title, summary in cases:
        block.set_block(block.group_id, block.rect, title, summary)
        scene.declutter_labels(transform)
        edited = _placement(scene)
        scene.state.label_memo.clear()
        scene.declutter_labels(transform)
        assert edited == _placement(scene), (title[:10], summary[:10])
        if title == block.title and summary.startswith("x"):
            assert not block.title_outside  # the title shows inside
    assert block.title_outside  # a title too long for the block went outside


@pytest.mark.slow
def test_remembered_line_boxes_match_a_fresh_measure(qtbot) -> None:
    from PySide6.QtGui import QColor

    from designer.qt.canvas import items

    font = items.font

    lines = [
        ("SU 1", font("block"), QColor("black")),
        ("32 nodes", font("normal"), QColor("gray")),
    ]
    for area in (QRectF(0, 0, 200, 60), QRectF(0, 0, 40, 20), QRectF(5, 5, 200, 60)):
        first = items._line_boxes(area, lines)
        assert items._line_boxes(area, lines) is first  # remembered
        assert first == items._measure_lines(area, lines)
    longer = [
        ("SU 1", font("block"), QColor("black")),
        ("x " * 200, font("normal"), QColor("gray")),
    ]
    narrow = QRectF(0, 0, 200, 60)
    assert items._line_boxes(narrow, longer) == items._measure_lines(narrow, longer)
    assert items._line_boxes(narrow, longer) != items._line_boxes(narrow, lines)


@pytest.mark.slow
def test_fit_to_view_leaves_room_to_name_every_top_level_frame(make_view) -> None:
    """The 4-SU sample's Storage frame is narrow and full of devices at its top:
    its name goes above it, which needs a screen margin when the view is fitted."""
    from pathlib import Path

    from designer.io import load_design

    sample = Path(__file__).parents[3] / "samples" / "dgx-h100-superpod-4su.json"
    view: CanvasView = make_view(load_design(sample))
    view.resize(840, 720)  # the canvas of the README screenshot
    view.fit_all()
    view.relabel()  # as the view does after a zoom: titles inside the window
    scene = view.design_scene
    assert not scene.overview
    top = [f for f in scene.state.frame_items if f.isVisible() and f.depth == 0]
    assert {f.title for f in top} >= {"Storage", "Management"}
    shown = {k[1] for k, item in scene.titles().items() if item.isVisible()}
    for frame in top:
        assert frame.group_id in shown, frame.title
