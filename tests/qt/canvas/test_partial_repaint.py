"""An edit repaints only the lines it changed, and the screen still shows what a
full repaint would.

Oracle: the window's backing store (what the screen holds, the sum of every
partial repaint so far) against the same backing store after the whole
viewport is repainted, pixel for pixel, after each of a run of random edits,
zoomed out and zoomed in far enough for the cable-count badges. (Both go
through the same paint path: a ``grab()`` renders into a pixmap, whose clip
rasterises a few line pixels differently.) The raster engine may end a line
one pixel short where a repaint's clip cuts it (Qt's own item updates do the
same), so up to :data:`CLIP_PIXELS` pixels may differ; a line, a badge or a
pen left over differs in tens to thousands.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QObject, QPoint, QRect
from PySide6.QtGui import QGuiApplication, QImage
from PySide6.QtWidgets import QApplication

from designer.core.commands import Command, SetGroups
from designer.core.device_commands import (
    AddDevices,
    RemoveDevices,
    UpdateDevices,
    move_devices,
)
from designer.core.link_commands import AddLinks, RemoveLinks, UpdateLinks
from designer.core.model import Design, Fabric, GroupKind, Link, LinkTable
from tests.qt.canvas.helpers import dev
from tests.qt.canvas.synthetic import node_link, synthetic_fat_tree
from tests.qt.helpers import settle

CLIP_PIXELS = 8
"""Pixels a repaint of part of the view may draw otherwise than a whole one:
the ends of lines its clip cuts."""


def _differ(a: QImage, b: QImage) -> int:
    """How many pixels of two same-sized images differ."""
    assert a.size() == b.size()

    def pixels(img: QImage) -> np.ndarray:
        rows = np.frombuffer(img.constBits(), np.uint8).reshape(img.height(), -1)
        return rows[:, : img.width() * 4].view(np.uint32)

    return int((pixels(a) != pixels(b)).sum())


def _settle() -> None:
    app = QApplication.instance()
    for _ in range(4):  # the flush, its repaint, a whole repaint it may ask for
        app.processEvents()


def _on_screen(view) -> QImage:
    """The viewport's pixels as the window's backing store holds them."""
    vp = view.viewport()
    top = view.window()
    at = vp.mapTo(top, QPoint(0, 0))
    shot = QGuiApplication.primaryScreen().grabWindow(
        top.winId(), at.x(), at.y(), vp.width(), vp.height()
    )
    return shot.toImage().convertToFormat(QImage.Format.Format_RGB32)


def _fresh(view) -> QImage:
    """The viewport's pixels after it is repainted whole, now."""
    view.viewport().repaint()
    return _on_screen(view)


class _Painted(QObject):
    """The viewport's paint regions, as Qt asks for them."""

    def __init__(self) -> None:
        super().__init__()
        self.rects: list[QRect] = []

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.rects.append(event.rect())
        return False


def _link(k: int, a: str, b: str) -> Link:
    return node_link(f"new-{k}", a, b, cables=3)


def _edit(design: Design, rng: random.Random, k: int) -> Command:
    links = design.links.id
    comp = [d.id for d in design.devices if d.catalog_id == "dgx-h100"]
    leaves = [d.id for d in design.devices if d.catalog_id == "qm9700"]
    kinds = ["cables", "fabric", "remove", "add", "move", "add dev", "rm dev"]
    kind = rng.choice([*kinds, "swap", "regroup", "collapse"])
    if kind == "cables":
        picked = rng.sample(links, 2)
        # now and then a count whose badge is wider than any: all are laid out anew
        top = 12 if rng.random() < 0.7 else 1200
        return UpdateLinks({i: {"cables": rng.randint(1, top)} for i in picked})
    if kind == "fabric":
        return UpdateLinks({rng.choice(links): {"fabric": Fabric.STORAGE}})
    if kind == "remove":
        return RemoveLinks(rng.sample(links, rng.choice([1, 2])))
    if kind == "add":
        return AddLinks([_link(k, rng.choice(comp), rng.choice(leaves))])
    if kind == "move":
        node = rng.choice(comp)
        d = design.devices[[x.id for x in design.devices].index(node)]
        return move_devices({node: (d.x + rng.choice([-60.0, 45.0]), d.y)})
    if kind == "swap":  # the block's summary changes, no line does
        node = rng.choice(comp)
        return UpdateDevices({node: {"catalog_id": "dgx-h200"}})
    if kind == "regroup" and design.groups:
        node = rng.choice(comp)
        return UpdateDevices({node: {"group": rng.choice(design.groups).id}})
    if kind == "collapse" and design.groups:  # links go into trunks and back
        pick = rng.choice(design.groups).id
        return SetGroups(
            [
                g.model_copy(update={"collapsed": not g.collapsed})
                if g.id == pick
                else g
                for g in design.groups
            ]
        )
    if kind == "add dev":
        return AddDevices([dev(f"extra-{k}", "dgx-h100", 80.0 * k, 900.0)])
    return RemoveDevices([rng.choice(comp)])


@pytest.mark.parametrize("zoom", ["fit", "badges"])
def test_partial_repaints_add_up_to_a_full_one(make_view, zoom, tmp_path) -> None:
    view = make_view(synthetic_fat_tree(24, su_size=12))
    doc = view.document
    # some bundles, so that the badges show counts
    doc.execute(
        UpdateLinks(
            {i: {"cables": 2 + k % 3} for k, i in enumerate(doc.design.links.id[::3])}
        )
    )
    view.fit_all()
    _settle()
    if zoom == "badges":
        for _ in range(6):
            view.zoom_in()
        _settle()
    layer = view.design_scene.state.links
    assert bool(layer.cable_labels) == (zoom == "badges")
    assert _differ(_on_screen(view), _fresh(view)) <= CLIP_PIXELS
    rng = random.Random(11)
    for k in range(40):
        try:
            doc.execute(_edit(doc.design, rng, k))
        except ValueError:
            continue
        if k % 5 == 4:
            doc.undo()
        _settle()
        shown, fresh = _on_screen(view), _fresh(view)
        differ = _differ(shown, fresh)
        if differ > CLIP_PIXELS:
            shown.save(str(tmp_path / f"{k}-on-screen.png"))
            fresh.save(str(tmp_path / f"{k}-fresh.png"))
        assert differ <= CLIP_PIXELS, (k, differ)


@pytest.mark.parametrize("edit", ["fabric", "remove", "add"])
def test_an_edit_repaints_a_small_part_of_the_view(make_view, edit) -> None:
    """(Fewer than 100 lines, whose pens do not lighten with their number: with
    more, a line added or removed may change every line's shade, and the whole
    layer is repainted, rightly.)"""
    view = make_view(synthetic_fat_tree(4, su_size=4))  # 96 links
    view.fit_all()
    _settle()
    painted = _Painted()
    view.viewport().installEventFilter(painted)
    doc = view.document
    table = doc.design.links
    k = len(table) // 2
    link, node, leaf = table.id[k], table.a[k], table.b[k]
    doc.execute(
        {
            "fabric": UpdateLinks({link: {"fabric": Fabric.STORAGE}}),
            "remove": RemoveLinks([link]),
            "add": AddLinks([node_link("extra", node, leaf)]),
        }[edit]
    )
    _settle()
    whole = view.viewport().rect()
    assert painted.rects, "the changed line was not repainted"
    area = sum(r.width() * r.height() for r in painted.rects)
    assert area < 0.25 * whole.width() * whole.height()
    assert _differ(_on_screen(view), _fresh(view)) <= CLIP_PIXELS


def test_a_wider_badge_elsewhere_lays_every_badge_out_anew(make_view) -> None:
    """Badges are as wide as the widest count in view: a count of 1,200 on one
    link, far to the right, makes two badges on the left overlap, and one of
    them goes: the screen shows that, not only the edited line's area."""
    devices = []
    links = []
    for k, x in enumerate((-400.0, -360.0, 400.0)):
        devices += [
            dev(f"top{k}", "qm9700", x, -300.0),
            dev(f"bottom{k}", "dgx-h100", x, 300.0),
        ]
        links.append(node_link(f"l{k}", f"bottom{k}", f"top{k}", cables=2))
    view = make_view(Design(devices=devices, links=LinkTable.from_links(links)))
    _settle()
    layer = view.design_scene.state.links
    assert [t for t, _, _ in layer.cable_labels] == ["×2"] * 3
    view.document.execute(UpdateLinks({"l2": {"cables": 1200}}))
    _settle()
    assert sorted(t for t, _, _ in layer.cable_labels) == ["×1200", "×2"]
    assert _differ(_on_screen(view), _fresh(view)) <= CLIP_PIXELS


def test_a_cable_count_keeps_the_paths_and_repaints_its_badge(make_view) -> None:
    """Lines drawn as before (only a count changed) keep the layer's paths;
    the badge shows the new count, and the screen what a whole repaint shows."""
    devices = [dev("top", "qm9700", 0.0, -300.0), dev("bottom", "dgx-h100", 0.0, 300.0)]
    link = node_link("l0", "bottom", "top", cables=2)
    view = make_view(Design(devices=devices, links=LinkTable.from_links([link])))
    _settle()
    scene = view.design_scene
    layer = scene.state.links
    state = scene.state.link_state
    assert [t for t, _, _ in layer.cable_labels] == ["×2"]
    view.document.execute(UpdateLinks({"l0": {"cables": 6}}))
    _settle()
    assert scene.state.link_state == state  # the paths were kept
    assert [t for t, _, _ in layer.cable_labels] == ["×6"]
    assert _differ(_on_screen(view), _fresh(view)) <= CLIP_PIXELS
    view.document.execute(UpdateLinks({"l0": {"fabric": Fabric.STORAGE}}))
    _settle()
    assert scene.state.link_state > state  # another pen: built anew
    assert _differ(_on_screen(view), _fresh(view)) <= CLIP_PIXELS


def test_collapsing_a_group_redraws_the_lines_it_bundles(make_view) -> None:
    """The middle SU of three collapses: its links leave the link layer for
    trunks, though no line moved and the scene keeps its extent."""
    view = make_view(synthetic_fat_tree(36, su_size=12))
    view.fit_all()
    _settle()
    doc = view.document
    rect = view.scene().sceneRect()
    middle = [g for g in doc.design.groups if g.kind == GroupKind.SU][1]
    for collapsed in (True, False):
        doc.execute(
            SetGroups(
                [
                    g.model_copy(update={"collapsed": collapsed})
                    if g.id == middle.id
                    else g
                    for g in doc.design.groups
                ]
            )
        )
        _settle()
        assert view.scene().sceneRect() == rect  # (else all is repainted anyway)
        assert _differ(_on_screen(view), _fresh(view)) <= CLIP_PIXELS


def test_the_main_window_after_edits_shows_what_a_whole_repaint_does(
    qtbot, main_window
) -> None:
    """The real window on a sample: counts, a cut, a move, a model swap and two
    undos, each repainted in part; the canvas then repainted whole changes no
    pixel of the window."""
    window = main_window()
    sample = Path(__file__).resolve().parents[3] / "samples/dgx-h100-superpod-4su.json"
    assert window.open_path(sample)
    settle(qtbot, window)
    canvas = window.canvas
    for _ in range(4):  # links drawn one by one, not as the overview's trunks
        canvas.zoom_in()
    settle(qtbot, window)
    qtbot.wait(50)
    assert not canvas.design_scene.overview
    doc = window.document
    table = doc.design.links
    # the links nearest the middle of the view
    g = canvas.design_scene.state.geom
    mid = canvas.mapToScene(canvas.viewport().rect().center())
    centre = (g.xy[g.la] + g.xy[g.lb]) / 2
    near = np.argsort(np.hypot(centre[:, 0] - mid.x(), centre[:, 1] - mid.y()))
    shown = [table.id[k] for k in near[:40].tolist()]
    node = next(d for d in doc.design.devices if d.tier is None)
    for edit in (
        UpdateLinks({i: {"cables": 3} for i in shown[:20:2]}),
        RemoveLinks(shown[20:30]),
        move_devices({node.id: (node.x + 300, node.y - 200)}),
        UpdateDevices({node.id: {"catalog_id": "dgx-h200"}}),
        None,
        None,
    ):
        if edit is None:
            doc.undo()
        else:
            doc.execute(edit)
        settle(qtbot, window)
        qtbot.wait(50)

    def shot() -> QImage:
        image = QGuiApplication.primaryScreen().grabWindow(window.winId()).toImage()
        return image.convertToFormat(QImage.Format.Format_RGB32)

    before = shot()
    window.canvas.viewport().repaint()
    assert _differ(before, shot()) <= CLIP_PIXELS
    doc.mark_clean()
