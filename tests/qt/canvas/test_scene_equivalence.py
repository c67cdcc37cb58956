"""After a small edit the scene shows exactly what a freshly built scene shows.

The scene reacts to an edit by patching arrays, re-pointing block and trunk items
and re-placing only the labels whose inputs changed; these tests compare every
visible property of the patched scene with a scene built from a copy of the
edited design, for each kind of small edit and its undo.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QTransform
from PySide6.QtWidgets import QApplication, QGraphicsLineItem

from designer.core.commands import Command, SetGroups
from designer.core.device_commands import (
    AddDevices,
    RemoveDevices,
    UpdateDevices,
    move_devices,
)
from designer.core.document import Document
from designer.core.link_commands import AddLinks, RemoveLinks, UpdateLinks
from designer.core.model import Design, GroupKind
from designer.generate import fat_tree
from designer.qt.canvas.items import BlockItem, DeviceItem, FrameItem, LabelItem
from designer.qt.canvas.labels import TitleItem
from designer.qt.canvas.scene import DesignScene
from tests.qt.canvas.helpers import dev
from tests.qt.canvas.synthetic import synthetic_fat_tree


def _rect(r: QRectF) -> tuple[float, float, float, float]:
    return (r.x(), r.y(), r.width(), r.height())


def snapshot(scene: DesignScene) -> dict[str, object]:
    """Everything the scene draws or answers hit tests with, as plain values."""
    scene.flush()
    g = scene.state.geom
    out: dict[str, object] = {
        "overview": scene.overview,
        "scene_rect": _rect(scene.sceneRect()),
        "ids": list(g.ids),
        "link_ids": list(g.link_ids),
        "xy": g.xy.tolist(),
        "mask": scene.link_mask().tolist(),
        "hidden": scene.state.hidden.tolist(),
    }
    for name in ("la", "lb", "fabric", "cables", "speed"):
        out[name] = getattr(g, name).tolist()
    every = np.ones(g.la.size, bool)
    out["boxes"] = g.segments_in_rect(every, (-1e9, -1e9, 1e9, 1e9)).tolist()
    q = scene.state.quotient
    out["link_trunk"] = q.link_trunk.tolist()
    out["rep"] = q.rep.tolist()
    # stacking order matters where items of one z overlap: compare it per kind
    order: dict[str, list[object]] = {}
    for item in scene.items(Qt.SortOrder.AscendingOrder):
        if not item.isVisible():
            continue
        if isinstance(item, DeviceItem):
            key: object = (
                item.device_id,
                item.pos().x(),
                item.pos().y(),
                item.fill.name(),
                item.title,
                item.subtitle,
                item.selected,
            )
            order.setdefault("devices", []).append(key)
        elif isinstance(item, BlockItem):
            order.setdefault("blocks", []).append(
                (
                    item.key,
                    item.group_id,
                    _rect(item.rect),
                    item.title,
                    item.summary,
                    item.hint,
                    item.title_outside,
                    item.selected,
                    item.zValue(),
                )
            )
        elif isinstance(item, FrameItem):
            order.setdefault("frames", []).append(
                (item.group_id, _rect(item.rect), item.title, item.depth)
            )
        elif isinstance(item, QGraphicsLineItem):
            line, pen = item.line(), item.pen()
            order.setdefault("trunks", []).append(
                (
                    line.x1(),
                    line.y1(),
                    line.x2(),
                    line.y2(),
                    round(pen.widthF(), 9),
                    pen.color().name(),
                    pen.color().alpha(),
                )
            )
        elif isinstance(item, LabelItem):
            order.setdefault("labels", []).append(
                (
                    item.text,
                    item.pos().x(),
                    item.pos().y(),
                    _rect(item.boundingRect()),
                )
            )
        elif isinstance(item, TitleItem):
            order.setdefault("titles", []).append(
                (
                    [text for text, _ in item.lines],
                    item.pos().x(),
                    item.pos().y(),
                    _rect(item.boundingRect()),
                )
            )
    # a restored device is stacked last (devices rarely overlap): compare as a set
    order["devices"] = sorted(order.get("devices", []))  # type: ignore[type-var]
    # titles never overlap (placed apart), and are made when first needed
    order["titles"] = sorted(order.get("titles", []))  # type: ignore[type-var]
    out.update(order)
    return out


def fresh_scene(scene: DesignScene) -> DesignScene:
    """A scene built from scratch over a copy of ``scene``'s design and zoom."""
    other = DesignScene(
        Document(scene.document.design.model_copy(deep=True)), scene.catalog
    )
    other.set_overview(scene.overview)
    other.declutter_labels(scene.label_transform(), scene.label_bounds())
    return other


def assert_same_as_fresh(scene: DesignScene) -> None:
    """The scene equals a fresh one, key by key (so a failure names the part)."""
    ours = snapshot(scene)
    theirs = snapshot(fresh_scene(scene))
    assert ours.keys() == theirs.keys()
    for key in ours:
        assert ours[key] == theirs[key], key


def _medium() -> Design:
    return fat_tree("dgx-h100", 128, "qm9700")


def _small() -> Design:
    design = synthetic_fat_tree(96, su_size=16, pod_sus=2)
    su = next(g for g in design.groups if g.kind == GroupKind.SU)
    groups = [
        g.model_copy(update={"collapsed": True}) if g.id == su.id else g
        for g in design.groups
    ]
    return design.model_copy(update={"groups": groups})


def _tier(design: Design, device_id: str) -> str:
    return str(design.device_map()[device_id].tier)


def _edits(design: Design) -> list[tuple[str, Callable[[Design], Command]]]:
    """Each kind of small edit, built against the design it is applied to."""

    def bundled_link(d: Design) -> str:
        # a link between two switches (a trunk in the overview)
        t = d.links
        kinds = {x.id: str(x.tier) for x in d.devices}
        return next(
            t.id[i]
            for i in range(len(t))
            if kinds[t.a[i]] != "None" and kinds[t.b[i]] != "None"
        )

    def compute(d: Design) -> str:
        return [x.id for x in d.devices if x.tier is None][len(d.devices) // 5]

    def spine(d: Design) -> str:
        return next(x.id for x in d.devices if _tier(d, x.id) == "spine")

    def moved(d: Design) -> Command:
        x = d.device_map()[compute(d)]
        return move_devices({x.id: (x.x + 48.0, x.y - 30.0)})

    return [
        ("remove link", lambda d: RemoveLinks([bundled_link(d)])),
        ("remove device", lambda d: RemoveDevices([compute(d)])),
        (
            "add device",
            lambda d: AddDevices([dev("added-1", "dgx-h100", 64.0, 96.0)]),
        ),
        (
            # beside a bundled link: into the trunk of its ends
            "add link",
            lambda d: AddLinks(
                [d.links.get(bundled_link(d)).model_copy(update={"id": "added-l"})]
            ),
        ),
        (
            "set cables",
            lambda d: UpdateLinks({bundled_link(d): {"cables": 7}}),
        ),
        ("move device", moved),
        (
            "swap model",
            lambda d: UpdateDevices({compute(d): {"catalog_id": "dgx-h200"}}),
        ),
        (
            # ungrouped, of no tier: a block of its own in the overview
            "add ungrouped switch",
            lambda d: AddDevices([dev("added-2", "qm9700", -400.0, 96.0)]),
        ),
        (
            "change tier",
            lambda d: UpdateDevices({spine(d): {"tier": "leaf"}}),
        ),
    ]


@pytest.mark.parametrize("overview", [False, True])
@pytest.mark.parametrize("make", [_small, _medium], ids=["small", "medium"])
def test_each_small_edit_and_undo_equals_a_fresh_scene(
    qtbot, catalog, make, overview
) -> None:
    design = make()
    doc = Document(design)
    scene = DesignScene(doc, catalog)
    scene.set_overview(overview)
    # a zoom where some titles go beside their blocks and labels compete
    scene.declutter_labels(
        QTransform.fromScale(0.05, 0.2), QRectF(-5000, -5000, 20000, 20000)
    )
    assert_same_as_fresh(scene)
    app = QApplication.instance()
    for name, build in _edits(doc.design):
        doc.execute(build(doc.design))
        app.processEvents()
        assert not scene.has_pending(), name
        assert_same_as_fresh(scene)
        doc.undo()
        app.processEvents()
        assert_same_as_fresh(scene)
    scene.detach()


def test_an_edit_after_a_regroup_still_equals_a_fresh_scene(qtbot, catalog) -> None:
    doc = Document(_small())
    scene = DesignScene(doc, catalog)
    scene.declutter_labels(QTransform.fromScale(0.2, 0.2))
    groups = [g.model_copy(update={"collapsed": True}) for g in doc.design.groups]
    doc.execute(SetGroups(groups))
    scene.flush()
    assert_same_as_fresh(scene)
    for name, build in _edits(doc.design):
        doc.execute(build(doc.design))
        scene.flush()
        assert_same_as_fresh(scene)
        assert name
    scene.detach()


@pytest.mark.parametrize("overview", [False, True])
def test_edits_applied_in_one_pass_equal_a_fresh_scene(
    qtbot, catalog, overview
) -> None:
    """Edits made before the scene's next pass are applied together: a model
    swap with a drop, a deletion with a tier change, links with devices."""
    doc = Document(_small())
    scene = DesignScene(doc, catalog)
    scene.set_overview(overview)
    assert_same_as_fresh(scene)
    edits = dict(_edits(doc.design))
    for first, second in [
        ("swap model", "add ungrouped switch"),
        ("remove device", "change tier"),
        ("add link", "remove device"),
        ("remove link", "swap model"),
    ]:
        doc.execute(edits[first](doc.design))
        doc.execute(edits[second](doc.design))
        scene.flush()
        assert_same_as_fresh(scene)
        doc.undo()
        doc.undo()
        scene.flush()
        assert_same_as_fresh(scene)
    scene.detach()


def test_frames_follow_their_members_after_an_ungrouped_device_goes(
    qtbot, catalog
) -> None:
    """Deleting a device of no group keeps the group frames, their members'
    rows renumbered: a move after it re-fits the right frame."""
    design = _medium()
    lone = next(d for d in design.devices if d.group is None)  # (a core switch)
    rest = [d for d in design.devices if d.id != lone.id]
    doc = Document(design.model_copy(update={"devices": [lone, *rest]}))
    scene = DesignScene(doc, catalog)
    scene.declutter_labels(
        QTransform.fromScale(0.05, 0.2), QRectF(-5000, -5000, 20000, 20000)
    )
    assert_same_as_fresh(scene)
    doc.execute(RemoveDevices([lone.id]))  # every grouped row moves up one
    scene.flush()
    assert_same_as_fresh(scene)
    x = next(d for d in reversed(doc.design.devices) if d.group is not None)
    doc.execute(move_devices({x.id: (x.x + 48.0, x.y - 30.0)}))
    scene.flush()
    assert_same_as_fresh(scene)
    scene.detach()
