"""Bulk wiring, groups (collapse/expand), auto-layout, cut overlay, export drawing."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from pytestqt.qtbot import QtBot

from designer.core.model import Design, Group, GroupKind, Tier
from designer.qt.canvas import style as st
from designer.qt.canvas.offscreen import OffscreenRenderer
from tests.qt.canvas.helpers import dev, vp


def _leaf_spine() -> Design:
    leaves = [dev(f"leaf-{i}", "qm9700", i * 100, 200, Tier.LEAF) for i in range(4)]
    spines = [
        dev(f"spine-{i}", "qm9700", i * 100 + 50, 0, Tier.SPINE) for i in range(2)
    ]
    return Design(devices=leaves + spines)


def test_connect_all_to_all_counts(make_view) -> None:
    view = make_view(_leaf_spine())
    view.select_ids([d.id for d in view.document.design.devices], center=False)
    assert view.edits.connect_all_to_all(2)
    t = view.document.design.links
    assert len(t) == 8
    assert set(t.cables) == {2}
    pairs = {(a, b) for a, b in zip(t.a, t.b, strict=True)}
    assert pairs == {(f"leaf-{i}", f"spine-{j}") for i in range(4) for j in range(2)}
    assert len(view.document.history.done) == 1


def test_connect_all_to_all_refuses_one_tier(make_view, qtbot: QtBot) -> None:
    view = make_view(_leaf_spine())
    view.select_ids(["leaf-0", "leaf-1"], center=False)
    with qtbot.waitSignal(view.status_message) as sig:
        assert not view.edits.connect_all_to_all(1)
    assert "two tiers" in sig.args[0]
    assert len(view.document.design.links) == 0


def test_wire_rail_optimized_counts_and_rails(make_view) -> None:
    nodes = [dev(f"n{i}", "dgx-h100", i * 100, 400) for i in range(4)]
    leaves = [
        dev(f"rail-{r}", "qm9700", 700 - r * 100, 200, Tier.LEAF) for r in range(8)
    ]
    view = make_view(Design(devices=nodes + leaves))
    view.select_ids([d.id for d in nodes + leaves], center=False)
    assert view.edits.wire_rail_optimized()
    t = view.document.design.links
    assert len(t) == 32
    for link in t:
        # leaves are taken left to right: rail r goes to the r-th leaf from the left
        assert link.b == f"rail-{7 - link.rail}"
    assert len(view.document.history.done) == 1


def test_wire_rail_optimized_refusal_says_why(make_view, qtbot: QtBot) -> None:
    nodes = [dev(f"n{i}", "dgx-h100", i * 100, 400) for i in range(2)]
    leaves = [dev(f"rail-{r}", "qm9700", r * 100, 200, Tier.LEAF) for r in range(3)]
    view = make_view(Design(devices=nodes + leaves))
    view.select_ids([d.id for d in nodes + leaves], center=False)
    with qtbot.waitSignal(view.status_message) as sig:
        assert not view.edits.wire_rail_optimized()
    assert "8" in sig.args[0]
    assert len(view.document.design.links) == 0


def _su() -> Design:
    return Design(
        groups=[Group(id="su-1", label="SU 1", kind=GroupKind.SU)],
        devices=[
            dev("n1", "dgx-h100", 0, 200, group="su-1"),
            dev("n2", "dgx-h100", 100, 200, group="su-1"),
            dev("leaf", "qm9700", 50, 0, Tier.LEAF, group="su-1"),
            dev("spine", "qm9700", 50, -300, Tier.SPINE),
        ],
    )


def test_collapse_and_expand_group(make_view, qtbot: QtBot) -> None:
    view = make_view(_su())
    view.edits.connect_devices("n1", "leaf")
    view.edits.connect_devices("leaf", "spine")
    scene = view.design_scene
    assert [f.group_id for f in scene.frame_items()] == ["su-1"]
    assert view.edits.toggle_group_collapsed("su-1")
    assert view.document.design.group_map()["su-1"].collapsed is True
    (block,) = scene.block_items()
    assert block.title == "SU 1"
    assert block.summary == "2x DGX H100 · 16 GPUs · 1 switch"
    assert not scene.item_for("n1").isVisible()
    assert scene.item_for("spine").isVisible()
    assert scene.trunk_count() == 1  # su-1 to spine; n1-leaf is inside the block
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=vp(view, 50, 100))
    assert view.document.design.group_map()["su-1"].collapsed is False
    assert scene.block_items() == []
    assert scene.item_for("n1").isVisible()
    assert [c.label for c in view.document.history.done][-2:] == [
        "Collapse SU 1",
        "Expand SU 1",
    ]


def test_group_selection_makes_one_step(make_view) -> None:
    view = make_view(_leaf_spine())
    view.select_ids(["leaf-0", "leaf-1"], center=False)
    assert view.edits.group_selection("su")
    design = view.document.design
    (g,) = design.groups
    assert g.kind is GroupKind.SU
    assert {d.id for d in design.devices if d.group == g.id} == {"leaf-0", "leaf-1"}
    assert len(view.document.history.done) == 1


def test_auto_layout_rows_by_tier(make_view) -> None:
    design = _su()
    design.devices[3] = design.devices[3].model_copy(update={"y": 900.0})
    view = make_view(design)
    assert view.edits.auto_layout()
    y = {d.id: d.y for d in view.document.design.devices}
    assert y["n1"] == y["n2"] > y["leaf"] > y["spine"]
    assert view.document.history.done[-1].label == "Auto layout"


def test_cut_overlay_colours_sides_and_links(make_view) -> None:
    view = make_view(_su())
    view.edits.connect_devices("n1", "leaf")
    scene = view.design_scene
    view.select_ids([], center=False)
    lid = view.document.design.links.id[0]
    view.set_cut({"n1", "n2"}, {lid})
    assert scene.item_for("n1").cut_fill == st.CUT_A
    assert scene.item_for("leaf").cut_fill == st.CUT_B
    (colour, _, mask) = scene.link_highlights()[0]
    assert colour == st.CUT_LINK and mask.tolist() == [True]
    view.set_cut(None, None)
    assert scene.item_for("n1").cut_fill is None
    assert scene.link_highlights() == []


def _ink(image: QImage) -> int:
    """Pixels that differ from the background."""
    bg = st.BACKGROUND.rgb()
    return sum(
        1
        for y in range(0, image.height(), 2)
        for x in range(0, image.width(), 2)
        if image.pixel(x, y) != bg
    )


def test_export_drawing_works_without_a_view(catalog) -> None:
    scene = OffscreenRenderer(_su(), catalog)
    image = QImage(400, 300, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    scene.render(painter, QRectF(0, 0, 400, 300))
    painter.end()
    green = st.CATEGORY_FILL["compute"].rgb()
    pixels = [image.pixel(x, y) for y in range(300) for x in range(400)]
    assert green in pixels
    only = QImage(400, 300, QImage.Format.Format_RGB32)
    only.fill(QColor("white"))
    painter = QPainter(only)
    scene.render(painter, QRectF(0, 0, 400, 300), ids={"spine"})
    painter.end()
    assert green not in [only.pixel(x, y) for y in range(300) for x in range(400)]
    assert scene.scene.item_for("n1").isVisible()  # restored after the export
    scene.close()
