"""Edits update the canvas incrementally, batched per event loop turn, and end
in exactly the state a full rebuild gives."""

from __future__ import annotations

import random

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication

from designer.core.commands import Command, Macro, SetGroups
from designer.core.device_commands import (
    AddDevices,
    RemoveDevices,
    UpdateDevices,
    move_devices,
)
from designer.core.link_commands import AddLinks, RemoveLinks, UpdateLinks
from designer.core.model import Design, Group, GroupKind, Link
from designer.qt.canvas.items import FrameItem
from designer.view.canvas.geometry import Geometry
from designer.view.canvas.quotient import BLOCK_PAD, Quotient, quotient
from tests.qt.canvas.helpers import dev
from tests.qt.canvas.synthetic import node_link, synthetic_fat_tree


def _assert_matches_model(view) -> None:
    """Scene arrays and items equal a from-scratch read of the design."""
    scene = view.design_scene
    design = view.document.design
    g = scene.geometry
    fresh = Geometry()
    fresh.rebuild(design)
    assert g.ids == fresh.ids
    assert g.link_ids.tolist() == fresh.link_ids.tolist()
    assert g.groups == fresh.groups
    np.testing.assert_array_equal(g.xy, fresh.xy)
    for name in ("la", "lb", "fabric", "cables", "speed"):
        np.testing.assert_array_equal(getattr(g, name), getattr(fresh, name), name)
    every = np.ones(len(fresh.link_ids), bool)
    for rect in ((-500.0, -500.0, 500.0, 500.0), (0.0, 0.0, 3000.0, 3000.0)):
        np.testing.assert_array_equal(
            g.segments_in_rect(every, rect), fresh.segments_in_rect(every, rect)
        )
    blocked = scene.current_quotient().rep >= 0
    for r, d in enumerate(design.devices):
        item = scene.item_for(d.id)
        assert item is not None
        assert (item.pos().x(), item.pos().y()) == (d.x, d.y)
        assert item.isVisible() == (not blocked[r] and not scene.overview), d.id
    assert len(scene.link_mask()) == len(design.links)
    q = scene.current_quotient()
    oracle = quotient(design, fresh, scene.catalog, scene.overview)
    np.testing.assert_array_equal(q.rep, oracle.rep)
    assert [(b.key, b.rect) for b in q.blocks] == [
        (b.key, b.rect) for b in oracle.blocks
    ]

    def trunks(q: Quotient) -> list[tuple[object, ...]]:
        return [
            (t.ends, t.links, t.cables, t.capacity_gbps, t.speed_gbps, t.p0, t.p1)
            for t in q.trunks
        ]

    assert trunks(q) == trunks(oracle)
    np.testing.assert_array_equal(q.link_trunk, oracle.link_trunk)
    for frame in scene.frame_items():
        rows = [fresh.row_of[i] for i in view.group_members(frame.group_id)]
        x0, y0, x1, y1 = fresh.bounds(np.asarray(rows))
        pad = BLOCK_PAD + 14.0 * frame.depth
        assert frame.rect.getCoords() == pytest.approx(
            (x0 - pad, y0 - pad - FrameItem.HEADER, x1 + pad, y1 + pad)
        ), frame.group_id


def _link(i: int, a: str, b: str, cables: int = 1) -> Link:
    return node_link(f"new-{i}", a, b, cables)


def _random_edit(design: Design, rng: random.Random, k: int) -> Command:
    devices = [d.id for d in design.devices]
    kinds = ["move", "add_link", "remove_links", "remove_dev", "add_dev", "regroup"]
    kind = rng.choice([*kinds, "cables", "add_dev_linked"])
    if kind == "add_dev_linked":
        # a device and its links in one step (a paste): rows and names both
        # grow; an old device never linked before gets its first link too
        new_id = f"linked-{k}"
        to = rng.choice(devices)
        lonely = [d for d in devices if d.startswith("extra-")]
        links = [_link(k + 2000, new_id, to), _link(k + 3000, to, new_id)]
        if lonely:
            links.append(_link(k + 4000, rng.choice(lonely), to))
        return Macro(
            "add linked",
            [AddDevices([dev(new_id, "dgx-h100", 32.0 * k, 700)]), AddLinks(links)],
        )
    if kind == "cables" and len(design.links):
        # fields other than the ends: the trunks are re-summed, not rebuilt
        picked = rng.sample(design.links.id, min(4, len(design.links)))
        return UpdateLinks(
            {
                i: {"cables": rng.randint(1, 4)}
                | ({"speed_gbps": 200} if rng.random() < 0.5 else {})
                for i in picked
            }
        )
    if kind == "regroup" and design.groups:
        target = rng.choice(design.groups).id
        return UpdateDevices({rng.choice(devices): {"group": target}})
    if kind == "move":
        moved = rng.sample(devices, min(3, len(devices)))
        return move_devices({i: (rng.randrange(-900, 900), 50.0) for i in moved})
    if kind == "add_link":
        a, b = rng.sample(devices, 2)
        return AddLinks([_link(k, a, b), _link(k + 1000, b, a, 2)])
    if kind == "remove_links" and len(design.links) > 8:
        return RemoveLinks(rng.sample(design.links.id, rng.choice([1, 3, 9])))
    if kind == "remove_dev":
        return RemoveDevices(rng.sample(devices, rng.choice([1, 2])))
    return AddDevices([dev(f"extra-{k}", "dgx-h100", 32.0 * k, 900)])


@pytest.mark.slow
@pytest.mark.parametrize("batched", [False, True])
def test_random_edits_and_undo_match_a_full_rebuild(make_view, batched) -> None:
    view = make_view(synthetic_fat_tree(96, su_size=16, pod_sus=2))
    doc = view.document
    rng = random.Random(7)
    app = QApplication.instance()
    # one collapsed SU: its members are hidden behind a block throughout
    su = next(g for g in doc.design.groups if g.kind == GroupKind.SU)
    doc.execute(
        SetGroups(
            [
                g.model_copy(update={"collapsed": True}) if g.id == su.id else g
                for g in doc.design.groups
            ]
        )
    )
    for k in range(40):
        try:
            doc.execute(_random_edit(doc.design, rng, k))
        except ValueError:
            continue
        if rng.random() < 0.3:
            doc.undo()
        if rng.random() < 0.2:
            doc.redo()
        if rng.random() < 0.15:
            doc.execute(
                UpdateLinks({doc.design.links.id[0]: {"cables": 3, "fabric": "oob"}})
            )
        if not batched:
            app.processEvents()
            _assert_matches_model(view)
    app.processEvents()
    _assert_matches_model(view)
    view.design_scene.set_overview(True)
    for k in range(40, 50):
        try:
            doc.execute(_random_edit(doc.design, rng, k))
        except ValueError:
            continue
        _assert_matches_model(view)
    view.design_scene.set_overview(False)
    while doc.history.can_undo:
        doc.undo()
    _assert_matches_model(view)


def test_one_link_or_device_edit_never_rereads_all_links(
    make_view, monkeypatch
) -> None:
    design = synthetic_fat_tree(256, su_size=32, pod_sus=4)
    view = make_view(design)
    scene = view.design_scene
    calls: list[str] = []
    for name in ("rebuild",):
        original = getattr(Geometry, name)

        def spy(self, design, _name=name, _original=original):
            calls.append(_name)
            return _original(self, design)

        monkeypatch.setattr(Geometry, name, spy)
    doc = view.document
    node = next(d for d in doc.design.devices if d.catalog_id == "dgx-h100")
    leaf = next(d for d in doc.design.devices if str(d.tier) == "leaf")
    doc.execute(AddLinks([_link(1, node.id, leaf.id)]))
    doc.execute(UpdateLinks({"new-1": {"cables": 4}}))
    doc.execute(move_devices({node.id: (node.x + 16, node.y)}))
    doc.execute(RemoveDevices([node.id]))
    doc.undo()
    doc.execute(RemoveLinks(["new-1"]))
    doc.undo()
    doc.execute(AddDevices([dev("extra", "dgx-h100", 0, 2000)]))
    assert scene.geometry.link_ids.tolist() == doc.design.links.id
    assert calls == []
    _assert_matches_model(view)


def test_edits_in_one_turn_are_applied_in_one_pass(make_view, monkeypatch) -> None:
    view = make_view(synthetic_fat_tree(64, su_size=16, pod_sus=2))
    scene = view.design_scene
    doc = view.document
    passes: list[int] = []
    original = type(scene.follower)._apply

    def counting(self, changes):
        passes.append(len(changes))
        return original(self, changes)

    monkeypatch.setattr(type(scene.follower), "_apply", counting)
    d = doc.design.devices[0]
    for k in range(6):
        doc.execute(move_devices({d.id: (d.x + 16 * (k + 1), d.y)}))
    doc.undo()
    assert scene.has_pending()
    assert passes == []
    QApplication.instance().processEvents()
    assert not scene.has_pending()
    assert passes == [7]
    assert scene.item_for(d.id).pos().x() == d.x + 16 * 5
    # reading the scene before the event loop runs sees the edit at once
    doc.execute(move_devices({d.id: (0.0, 0.0)}))
    assert scene.item_for(d.id).pos().x() == 0.0
    assert passes == [7, 1]


def test_moves_refit_group_frames_and_collapsed_blocks(make_view) -> None:
    design = Design(
        groups=[
            Group(id="su-1", label="SU 1", kind=GroupKind.SU),
            Group(id="su-2", label="SU 2", kind=GroupKind.SU, collapsed=True),
        ],
        devices=[
            dev("n1", "dgx-h100", 0, 0, group="su-1"),
            dev("n2", "dgx-h100", 100, 0, group="su-1"),
            dev("n3", "dgx-h100", 400, 0, group="su-2"),
            dev("n4", "dgx-h100", 500, 0, group="su-2"),
        ],
    )
    view = make_view(design)
    scene = view.design_scene
    doc = view.document
    (frame,) = scene.frame_items()
    (block,) = scene.block_items()
    width, block_right = frame.rect.width(), block.rect.right()
    doc.execute(move_devices({"n2": (300.0, 0.0), "n4": (700.0, 0.0)}))
    (frame2,) = scene.frame_items()
    (block2,) = scene.block_items()
    assert frame2 is frame  # re-fitted in place
    assert frame2.rect.width() == pytest.approx(width + 200)
    assert block2.rect.right() == pytest.approx(block_right + 200)
    expanded = doc.design.groups[1].model_copy(update={"collapsed": False})
    doc.execute(SetGroups([doc.design.groups[0], expanded]))
    assert scene.block_items() == []
    assert len(scene.frame_items()) == 2


def test_the_geometry_reads_the_link_store_instead_of_copying_it() -> None:
    """One source of truth: the canvas's link columns are the design's arrays."""
    design = Design(
        devices=[dev("a", "dgx-h100", 0, 0), dev("b", "qm9700", 0, -200)],
    )
    design.links.append(_link(1, "a", "b"))
    g = Geometry()
    g.rebuild(design)
    assert g.links is design.links.arrays
    assert g.cables is design.links.arrays.cables
    assert (g.la.tolist(), g.lb.tolist()) == ([0], [1])
