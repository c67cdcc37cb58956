"""The canvas's quotient patched for an edit equals the quotient made afresh.

After each random edit (links added or removed beside others, devices dropped,
deleted or of another model, tier changes, undos) the quotient is carried over
the way the scene carries it (:func:`relinked` with the geometry's splices,
:func:`with_devices`, :func:`rekinded`) and compared, field by field, with
:func:`quotient` of the edited design over a geometry read afresh; in the
overview and with a collapsed group, as the canvas shows a design.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from designer.catalog import Catalog, default_catalog
from designer.core.commands import Command
from designer.core.device_commands import AddDevices, RemoveDevices, UpdateDevices
from designer.core.document import Document
from designer.core.events import DevicesAdded, DevicesChanged, DevicesRemoved, Event
from designer.core.link_commands import AddLinks, RemoveLinks
from designer.core.model import Design, Device, GroupKind, Tier
from designer.view.canvas.geometry import Geometry
from designer.view.canvas.quotient import Quotient, quotient
from designer.view.canvas.quotient_edits import rekinded, relinked, with_devices
from tests.qt.canvas.synthetic import node_link, synthetic_fat_tree


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return default_catalog()


def _design(collapsed: bool) -> Design:
    design = synthetic_fat_tree(96, su_size=16, pod_sus=2)
    if not collapsed:
        return design
    su = next(g for g in design.groups if g.kind == GroupKind.SU)
    groups = [
        g.model_copy(update={"collapsed": True}) if g.id == su.id else g
        for g in design.groups
    ]
    return design.model_copy(update={"groups": groups})


def _plain(q: Quotient) -> dict[str, object]:
    return {
        "rep": q.rep.tolist(),
        "blocks": [
            (b.key, b.group_id, b.title, b.summary, b.rows.tolist(), b.rect)
            for b in q.blocks
        ],
        "trunks": list(q.trunks),
        "link_trunk": q.link_trunk.tolist(),
        "direct": np.asarray(q.direct, bool).tolist(),
    }


def _edit(design: Design, rng: random.Random, k: int) -> tuple[str, Command]:
    comp = [d for d in design.devices if d.tier is None]
    switches = [d for d in design.devices if d.tier is not None]
    kind = rng.choice(
        [
            *("remove links", "add link", "add link", "drop"),
            *("delete", "delete edge", "swap", "tier"),
        ]
    )
    links = design.links.id
    if kind == "remove links":
        return kind, RemoveLinks(rng.sample(links, rng.choice([1, 1, 3])))
    if kind == "add link":
        a, b = rng.choice(comp), rng.choice(switches)
        return kind, AddLinks([node_link(f"n{k}", a.id, b.id)])
    if kind == "drop":
        cat = rng.choice(["qm9700", "dgx-h100"])
        return kind, AddDevices([Device(id=f"x{k}", catalog_id=cat, x=-300.0, y=0.0)])
    if kind == "delete":
        return kind, RemoveDevices([rng.choice(comp).id])
    if kind == "delete edge":  # the column at a block's edge: its outline moves
        right = max(d.x for d in design.devices)
        return "delete", RemoveDevices([d.id for d in design.devices if d.x == right])
    if kind == "swap":
        d = rng.choice(comp)
        other = "dgx-h200" if d.catalog_id == "dgx-h100" else "dgx-h100"
        return kind, UpdateDevices({d.id: {"catalog_id": other}})
    d = rng.choice(switches)
    tier = Tier.LEAF if d.tier is not Tier.LEAF else Tier.SPINE
    return kind, UpdateDevices({d.id: {"tier": tier}})


def _carried(
    q: Quotient, design: Design, g: Geometry, events: list[Event], catalog: Catalog
) -> Quotient | None:
    """``q`` carried over the step as the scene carries it (None: afresh)."""
    if any(isinstance(e, DevicesAdded | DevicesRemoved) for e in events):
        return with_devices(q, design, g, catalog, g.splices)  # devices came or went
    changed = [e for e in events if isinstance(e, DevicesChanged)]
    if changed:  # another model or tier
        rows = [g.row_of[i] for e in changed for i in e.ids]
        return rekinded(q, design, g, catalog, rows)
    return relinked(q, g, g.splices)


@pytest.mark.parametrize("overview", [True, False], ids=["overview", "collapsed"])
def test_patched_quotients_equal_quotients_made_afresh(
    catalog: Catalog, overview: bool
) -> None:
    doc = Document(_design(collapsed=not overview))
    rng = random.Random(7)
    g = Geometry()
    g.rebuild(doc.design)
    q = quotient(doc.design, g, catalog, overview)
    carried: Counter[str] = Counter()
    for k in range(60):
        kind, command = _edit(doc.design, rng, k)
        try:
            events = doc.undo() if k % 6 == 5 else doc.execute(command)
        except ValueError:
            continue  # an edit the rules refuse
        if k % 6 == 5:
            kind = "undo"
        g.apply(doc.design, events)
        fresh_geom = Geometry()
        fresh_geom.rebuild(doc.design)
        fresh = quotient(doc.design, fresh_geom, catalog, overview)
        patched = _carried(q, doc.design, g, events, catalog)
        if patched is not None:
            carried[kind] += 1
            assert _plain(patched) == _plain(fresh), (k, kind)
        q = (
            patched
            if patched is not None
            else quotient(doc.design, g, catalog, overview)
        )
        assert _plain(q) == _plain(fresh), (k, kind)
    # the patches are taken, not only their fall-backs
    for kind in ("remove links", "add link", "drop", "delete", "swap"):
        assert carried[kind] > 0, (kind, carried)
