"""The geometry names the link lines an edit changed (what the canvas repaints).

Oracle: two geometries read afresh, before and after the edit; every line that
differs between them (gone, new, moved, or drawn otherwise: fabric, cables)
must lie inside the boxes :attr:`Geometry.dirty` gives, unless it says it does
not know (None), which only edits that re-read the links may say.
"""

from __future__ import annotations

import random

import numpy as np

from designer.core.commands import Command
from designer.core.device_commands import AddDevices, RemoveDevices, move_devices
from designer.core.document import Document
from designer.core.link_commands import AddLinks, RemoveLinks, UpdateLinks
from designer.core.model import Design, Device, Fabric, Link, LinkTable
from designer.view.canvas.geometry import Geometry
from tests.qt.canvas.synthetic import node_link

Line = tuple[float, float, float, float, int, int]


def _design(n: int = 24) -> Design:
    devices = [
        Device(id=f"s{k}", catalog_id="qm9700", x=200.0 * k, y=0.0) for k in range(4)
    ] + [
        Device(id=f"c{k}", catalog_id="dgx-h100", x=90.0 * k, y=600.0) for k in range(n)
    ]
    links = [
        node_link(f"l{k}-{s}", f"c{k}", f"s{s}")
        for k in range(n)
        for s in range(4)
        if (k + s) % 2 == 0
    ]
    return Design(devices=devices, links=LinkTable.from_links(links))


def _lines(design: Design) -> dict[str, Line]:
    g = Geometry()
    g.rebuild(design)
    pa, pb = g.xy[g.la], g.xy[g.lb]
    return {
        str(i): (
            float(min(a[0], b[0])),
            float(min(a[1], b[1])),
            float(max(a[0], b[0])),
            float(max(a[1], b[1])),
            int(f),
            int(c),
        )
        for i, a, b, f, c in zip(g.link_ids, pa, pb, g.fabric, g.cables, strict=True)
    }


def _link(k: int, a: str, b: str) -> Link:
    return node_link(f"n{k}", a, b, cables=2)


def _edit(design: Design, rng: random.Random, k: int) -> tuple[str, Command]:
    links = design.links.id
    comp = [d.id for d in design.devices if d.catalog_id == "dgx-h100"]
    kind = rng.choice(
        ["cables", "fabric", "remove", "add", "move", "add device", "remove device"]
    )
    if kind == "cables":
        picked = rng.sample(links, min(3, len(links)))
        return kind, UpdateLinks({i: {"cables": rng.randint(1, 8)} for i in picked})
    if kind == "fabric":
        return kind, UpdateLinks({rng.choice(links): {"fabric": Fabric.STORAGE}})
    if kind == "remove":
        return kind, RemoveLinks(rng.sample(links, min(rng.choice([1, 3]), len(links))))
    if kind == "add":
        return kind, AddLinks([_link(k, rng.choice(comp), f"s{rng.randrange(4)}")])
    if kind == "move":
        moved = rng.sample(comp, 2)
        return kind, move_devices({i: (rng.uniform(-500, 2500), 700.0) for i in moved})
    if kind == "add device":
        return kind, AddDevices(
            [Device(id=f"x{k}", catalog_id="dgx-h100", x=50.0 * k, y=900.0)]
        )
    return kind, RemoveDevices([rng.choice(comp)])


def _inside(line: Line, dirty: np.ndarray) -> bool:
    """Whether ``line``'s box is one of the dirty boxes or inside their bounds."""
    x0, y0, x1, y1 = line[:4]
    return bool(
        dirty.size
        and dirty[:, 0].min() <= x0
        and dirty[:, 2].min() <= y0
        and dirty[:, 1].max() >= x1
        and dirty[:, 3].max() >= y1
    )


def test_every_changed_line_lies_in_the_dirty_boxes() -> None:
    rng = random.Random(3)
    doc = Document(_design())
    g = Geometry()
    g.rebuild(doc.design)
    every = np.ones(len(g.la), bool)
    g.segments_in_rect(every, (-1e9, -1e9, 1e9, 1e9))  # the boxes are kept
    known = {}
    for k in range(160):
        before = _lines(doc.design)
        kind, command = _edit(doc.design, rng, k)
        events = doc.undo() if k % 7 == 6 else doc.execute(command)
        if k % 7 == 6:
            kind = "undo"
        g.apply(doc.design, events)
        after = _lines(doc.design)
        changed = [
            line
            for i in before.keys() | after.keys()
            if before.get(i) != after.get(i)
            for line in (before.get(i), after.get(i))
            if line is not None
        ]
        if g.dirty is None:
            g.segments_in_rect(np.ones(len(g.la), bool), (-1e9, -1e9, 1e9, 1e9))
            known.setdefault(kind, []).append(False)
            continue
        known.setdefault(kind, []).append(True)
        for line in changed:
            assert _inside(line, g.dirty), (k, kind, line)
    # the edits the canvas repaints in part say which lines they changed
    for kind in ("cables", "fabric", "remove", "add", "move", "add device"):
        assert all(known[kind]), kind
    assert any(known["remove device"])


def test_a_cable_edit_names_only_its_own_line() -> None:
    doc = Document(_design())
    g = Geometry()
    g.rebuild(doc.design)
    g.segments_in_rect(np.ones(len(g.la), bool), (-1e9, -1e9, 1e9, 1e9))
    link = doc.design.links.id[5]
    g.apply(doc.design, doc.execute(UpdateLinks({link: {"cables": 4}})))
    line = _lines(doc.design)[link]
    assert g.dirty is not None
    assert g.dirty.tolist() == [[line[0], line[2], line[1], line[3]]]
    assert g.dirty_bounds() == line[:4]
    assert g.lines_kept  # a count: the line is drawn as before
    g.apply(doc.design, doc.execute(UpdateLinks({link: {"fabric": Fabric.STORAGE}})))
    assert not g.lines_kept  # another pen
    g.apply(doc.design, doc.execute(move_devices({"c5": (50.0, 650.0)})))
    assert not g.lines_kept
    # a re-read geometry (nothing kept) does not know
    fresh = Geometry()
    fresh.rebuild(doc.design)
    fresh.apply(doc.design, doc.execute(UpdateLinks({link: {"cables": 2}})))
    assert fresh.dirty is None
    fresh.apply(doc.design, doc.execute(RemoveLinks([link])))
    assert not fresh.lines_kept
