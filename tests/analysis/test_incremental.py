"""Incremental index: patched from edits, equal to a rebuild; carried bisection
lower bound sound against the brute-force oracle."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from designer.analysis import analyze, analyze_index, build_index
from designer.analysis.ends import EndTable
from designer.analysis.incremental import IncrementalIndex, hint_for
from designer.analysis.index import DesignIndex
from designer.core.commands import (
    AddDevices,
    AddLinks,
    Change,
    Command,
    Document,
    Macro,
    RemoveDevices,
    RemoveLinks,
    SetSettings,
    UpdateDevices,
    UpdateLink,
    move_devices,
)
from designer.core.model import Design, Device, Fabric, Link, Placement, Purpose
from designer.generate import fat_tree
from tests.analysis.builders import oracle_bisection, random_design


class _Follower:
    """What the GUI runner does: patch on each edit, rebuild when told to."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.inc = IncrementalIndex()
        self.inc.adopt(build_index(doc.design))
        self.rebuilds = 0
        doc.subscribe(self.on_changes)

    def on_changes(self, changes: list[Change]) -> None:
        self.inc.update(self.doc.design, changes)

    def index(self):  # type: ignore[no-untyped-def]
        if self.inc.index is None:
            self.rebuilds += 1
            self.inc.adopt(build_index(self.doc.design))
        return self.inc.index


def _random_edit(rng: random.Random, design: Design, removed: list[Link]) -> Command:
    links = design.links
    present = links.index()
    devices = {d.id for d in design.devices}
    # left out: brought back by an undo, or an end deleted since
    removed[:] = [x for x in removed if x.id not in present and {x.a, x.b} <= devices]
    if len(links) < 4:
        if removed:
            return AddLinks([removed.pop()])
        purpose = rng.choice(list(Purpose))  # a delete took the rest with a device
        return SetSettings(design.settings.model_copy(update={"purpose": purpose}))
    lid = links.id[rng.randrange(len(links))]
    pick = rng.random()
    if pick < 0.25:
        return UpdateLink(lid, {"cables": rng.randint(1, 4)})
    if pick < 0.35:
        return UpdateLink(lid, {"speed_gbps": rng.choice((200, 400))})
    if pick < 0.42:
        return UpdateLink(lid, {"fabric": rng.choice(list(Fabric)).value})
    if pick < 0.55:
        ids = rng.sample(links.id, min(len(links), rng.randint(1, 3)))
        removed.extend(links.get(i) for i in ids)  # type: ignore[misc]
        return RemoveLinks(ids)
    if pick < 0.65 and removed:
        return AddLinks([removed.pop()])
    if pick < 0.75:
        d = design.devices[rng.randrange(len(design.devices))]
        return move_devices({d.id: (d.x + 10, d.y - 5)})
    if pick < 0.8:
        d = design.devices[rng.randrange(len(design.devices))]
        return UpdateDevices({d.id: {"label": f"renamed {rng.random():.3f}"}})
    if pick < 0.85:
        purpose = rng.choice(list(Purpose))
        return SetSettings(design.settings.model_copy(update={"purpose": purpose}))
    if pick < 0.9:
        n = len(design.devices)
        return AddDevices([Device(id=f"extra{n}", catalog_id="qm9700")])
    d = design.devices[rng.randrange(len(design.devices))]
    return UpdateDevices({d.id: {"tier": rng.choice(("leaf", "spine", None))}})


_DROPS = ("qm9700", "dgx-h100", "weka-appliance", "sn2201", "dgx-b200")


def _random_device_edit(rng: random.Random, design: Design) -> Command:
    """A palette drop, a paste (devices + links among them), a delete, a swap."""
    tag = rng.randrange(10**9)
    pick = rng.random()
    if pick < 0.35:
        group = rng.choice([None, *(g.id for g in design.groups)])
        rack = Placement(rack=rng.choice(("r1", "r2"))) if rng.random() < 0.3 else None
        drop = Device(
            id=f"drop{tag}",
            catalog_id=rng.choice(_DROPS),
            group=group,
            placement=rack,
        )
        return AddDevices([drop])
    if pick < 0.6:
        host = Device(id=f"ph{tag}", catalog_id="dgx-h100")
        switch = Device(id=f"ps{tag}", catalog_id="qm9700")
        store = Device(id=f"pw{tag}", catalog_id="weka-appliance")
        links = [
            Link(
                id=f"pl{tag}",
                a=host.id,
                a_port="compute",
                b=switch.id,
                b_port="ports",
                cables=rng.randint(1, 4),
                speed_gbps=400,
            ),
            Link(  # a port group the design has not used yet
                id=f"pm{tag}",
                a=store.id,
                a_port="data",
                b=switch.id,
                b_port="ports",
                speed_gbps=400,
                fabric=Fabric.STORAGE,
            ),
        ]
        return Macro("Paste", [AddDevices([host, switch, store]), AddLinks(links)])
    ids = [d.id for d in design.devices]
    if pick < 0.8:
        return RemoveDevices(rng.sample(ids, min(len(ids), rng.randint(1, 3))))
    d = design.devices[rng.randrange(len(design.devices))]
    swap = {  # same ports, more GPUs or other speeds, or ports it does not have
        "dgx-h100": ("dgx-h200", "dgx-b200", "weka-appliance"),
        "qm9700": ("generic-400g-64", "q3400", "sn2201"),
    }.get(d.catalog_id, ("dgx-h100", "qm9700"))
    fields: dict[str, object] = {"catalog_id": rng.choice(swap)}
    if rng.random() < 0.3:
        fields["placement"] = {"rack": rng.choice(("r1", "r3"))}
    if rng.random() < 0.3:
        fields["group"] = rng.choice([None, *(g.id for g in design.groups)])
    return UpdateDevices({d.id: fields})


def _port_groups(index: DesignIndex) -> list[tuple[str, str]]:
    """The end table's port-group keys as (device id, port name)."""
    n = max(len(index.port_names), 1)
    keys = index.ends.group_key.tolist()
    return [(index.device_ids[k // n], index.port_names[k % n]) for k in keys]


def _assert_same_ends(patched: DesignIndex, rebuilt: DesignIndex) -> None:
    """The patched end table says what a fresh one says, row by row, with dense
    codes (module and speed numbering may differ, so keys are decoded)."""
    from designer.analysis.incremental import _ROW_FACTS

    got, want = patched.ends, rebuilt.ends
    for name in (*_ROW_FACTS, "link"):
        if name != "port":  # a code: compared by name below
            assert np.array_equal(getattr(got, name), getattr(want, name)), name
    for t in (got, want):
        for code, key in (
            (t.group_code, t.group_key),
            (t.cage_code, t.cage_key),
            (t.cable_code, t.cable_key),
        ):
            assert np.array_equal(np.unique(code), np.arange(len(key)))  # dense
            assert (np.diff(key) > 0).all()  # sorted, distinct
        assert np.array_equal(t.cage_sel, np.flatnonzero(t.module_code >= 0))
    assert _decoded(patched, got) == _decoded(rebuilt, want)


def _decoded(index: DesignIndex, t: EndTable) -> tuple[list[Any], ...]:
    """Per end: port group and module; per cage row: its cage; per link: its
    cable class; all as ids and names (codes depend on numbering)."""
    n_ports = max(len(index.port_names), 1)
    n_mod = max(len(t.module_id), 1)
    n_s = max(len(t.speeds), 1)
    names, devs = index.port_names, index.device_ids

    def group(key: int) -> tuple[str, str]:
        return devs[key // n_ports], names[key % n_ports]

    groups = [group(k) for k in t.group_key[t.group_code].tolist()]
    modules = [t.module_id[c] if c >= 0 else None for c in t.module_code.tolist()]
    cages = [
        (group(k // n_mod), t.module_id[k % n_mod])
        for k in t.cage_key[t.cage_code].tolist()
    ]
    cables = []
    for k in t.cable_key[t.cable_code].tolist():
        cp, sc = divmod(k, n_s)
        cat, port = divmod(cp, n_ports)
        cables.append((index.catalog_ids[cat], names[port], int(t.speeds[sc])))
    ports = [names[p] for p in t.port.tolist()]
    return ports, groups, modules, cages, cables


@pytest.mark.parametrize("seed", range(8))
def test_device_edits_are_patched_and_give_the_report_of_a_rebuild(seed: int) -> None:
    rng = random.Random(seed)
    doc = Document(fat_tree("dgx-h100", 16 + 8 * (seed % 3), "qm9700"))
    follow = _Follower(doc)
    for step in range(20):
        r = rng.random()
        if r < 0.2 and doc.history.can_undo:
            doc.undo()
        elif r < 0.3 and doc.history.can_redo:
            doc.redo()
        else:
            doc.execute(_random_device_edit(rng, doc.design))
        got = analyze_index(follow.index(), doc.design)
        want = analyze(doc.design)
        assert got.model_dump() == want.model_dump(), f"seed {seed} step {step}"
        _assert_same_ends(follow.index(), build_index(doc.design))
        patched, rebuilt = follow.index(), build_index(doc.design)
        _assert_same_ends(patched, rebuilt)
        assert _port_groups(patched) == _port_groups(rebuilt)
    assert follow.rebuilds == 0  # every drop, paste, delete, swap, undo was patched
    assert follow.inc.patched >= 20


@pytest.mark.parametrize("seed", range(6))
def test_mixed_device_and_link_edits_give_the_report_of_a_rebuild(seed: int) -> None:
    rng = random.Random(100 + seed)
    doc = Document(fat_tree("dgx-h100", 16 + 8 * seed, "qm9700"))
    follow = _Follower(doc)
    removed: list[Link] = []
    for step in range(25):
        r = rng.random()
        if r < 0.15 and doc.history.can_undo:
            doc.undo()
        elif r < 0.2 and doc.history.can_redo:
            doc.redo()
        elif r < 0.55:
            doc.execute(_random_device_edit(rng, doc.design))
        else:
            doc.execute(_random_edit(rng, doc.design, removed))
        got = analyze_index(follow.index(), doc.design)
        want = analyze(doc.design)
        assert got.model_dump() == want.model_dump(), f"seed {seed} step {step}"
        _assert_same_ends(follow.index(), build_index(doc.design))


def test_a_device_patch_never_changes_the_one_handed_out() -> None:
    doc = Document(fat_tree("dgx-h100", 32, "qm9700"))
    follow = _Follower(doc)
    handed = follow.index()
    ids, a, names = list(handed.device_ids), handed.a.copy(), list(handed.port_names)
    doc.execute(RemoveDevices([doc.design.devices[3].id]))
    doc.execute(_random_device_edit(random.Random(1), doc.design))  # a paste
    doc.undo()
    doc.undo()
    assert follow.index() is not handed and follow.rebuilds == 0
    assert handed.device_ids == ids and (handed.a == a).all()
    assert handed.port_names == names


@pytest.mark.parametrize("seed", range(6))
def test_random_edits_give_the_report_of_a_rebuild(seed: int) -> None:
    rng = random.Random(seed)
    doc = Document(fat_tree("dgx-h100", 16 + 8 * seed, "qm9700"))
    follow = _Follower(doc)
    removed: list[Link] = []
    for step in range(25):
        r = rng.random()
        if r < 0.15 and doc.history.can_undo:
            doc.undo()
        elif r < 0.2 and doc.history.can_redo:
            doc.redo()
        else:
            doc.execute(_random_edit(rng, doc.design, removed))
        got = analyze_index(follow.index(), doc.design)
        want = analyze(doc.design)
        assert got.model_dump() == want.model_dump(), f"seed {seed} step {step}"
        _assert_same_ends(follow.index(), build_index(doc.design))
    # most edits were patched, not rebuilt
    assert follow.inc.patched >= 5


def test_settings_and_moves_reuse_the_index() -> None:
    doc = Document(fat_tree("dgx-h100", 32, "qm9700"))
    follow = _Follower(doc)
    before = follow.index()
    d = doc.design.devices[0]
    doc.execute(move_devices({d.id: (d.x + 1, d.y)}))
    doc.execute(
        SetSettings(doc.design.settings.model_copy(update={"purpose": "inference"}))
    )
    assert follow.index() is before


def test_a_patched_index_never_changes_the_one_handed_out() -> None:
    doc = Document(fat_tree("dgx-h100", 32, "qm9700"))
    follow = _Follower(doc)
    handed = follow.index()
    cables = handed.cables.copy()
    n_links = handed.n_links
    doc.execute(UpdateLink(doc.design.links.id[0], {"cables": 3}))
    doc.execute(RemoveLinks([doc.design.links.id[5]]))
    assert follow.index() is not handed
    assert (handed.cables == cables).all() and handed.n_links == n_links


# -- carried lower bound --------------------------------------------------------------


def _random_bound_device_edit(rng: random.Random, design: Design) -> Command:
    """Add or remove a switch (capacity only), now and then a host; swap a model."""
    tag = rng.randrange(10**9)
    switches = [d.id for d in design.devices if d.catalog_id == "generic-switch"]
    pick = rng.random()
    if pick < 0.4 and len(switches) > 1:
        return RemoveDevices([rng.choice(switches)])
    if pick < 0.5:
        hosts = [d.id for d in design.devices if d.id not in switches]
        if len(hosts) > 3:
            return RemoveDevices([rng.choice(hosts)])
    if pick < 0.6:
        return AddDevices([Device(id=f"host{tag}", catalog_id="dgx-h100")])
    if pick < 0.75:  # a model swap: same GPU count (bound kept) or not (dropped)
        hosts = [d for d in design.devices if d.catalog_id != "generic-switch"]
        host = rng.choice(hosts)
        other = rng.choice(("dgx-h100", "dgx-b200", "generic-host"))
        return UpdateDevices({host.id: {"catalog_id": other}})
    new = Device(id=f"sw{tag}", catalog_id="generic-switch", ports={"ports": 256})
    links = [
        Link(
            id=f"l{tag}-{s}",
            a=new.id,
            a_port="ports",
            b=s,
            b_port="ports",
            cables=rng.randint(1, 3),
            speed_gbps=400,
        )
        for s in rng.sample(switches, min(len(switches), 2))
    ]
    return Macro("Paste", [AddDevices([new]), AddLinks(links)])


@pytest.mark.parametrize("seed", range(30))
def test_carried_bound_is_sound_against_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    design = random_design(seed, hosts=4 + seed % 6, switches=2 + seed % 4)
    doc = Document(design)
    follow = _Follower(doc)
    truth = oracle_bisection(design)
    follow.inc.certify(truth, follow.index())
    removed: list[Link] = []
    for _ in range(16):
        roll = rng.random()
        if roll < 0.2 and doc.history.can_undo:
            doc.undo()  # back to compute nodes certified before (kept references)
        elif roll < 0.25 and doc.history.can_redo:
            doc.redo()
        elif roll < 0.45:
            doc.execute(_random_bound_device_edit(rng, doc.design))
        else:
            doc.execute(_random_edit(rng, doc.design, removed))
        hint = follow.inc.lower_hint()
        index = follow.index()
        carried = hint_for(hint, index)
        truth = oracle_bisection(doc.design)
        if carried is not None:
            assert carried <= truth + 1e-6
        report = analyze_index(index, doc.design, known_lower=carried)
        assert report.bisection.lower_gbps <= truth + 1e-6
        follow.inc.certify(report.bisection.lower_gbps, index)


def test_carried_bound_follows_capacity_exactly() -> None:
    """Hand-checked: remove 2 x 400G from the reference, add them back."""
    design = random_design(3, hosts=8, switches=4)
    doc = Document(design)
    follow = _Follower(doc)
    follow.inc.certify(5000.0, follow.index())

    def carried() -> float | None:
        assert follow.inc.index is not None  # every edit here is patched
        return hint_for(follow.inc.lower_hint(), follow.inc.index)

    link = next(x for x in doc.design.links if x.fabric is Fabric.COMPUTE)
    cap = link.cables * link.speed_gbps
    doc.execute(RemoveLinks([link.id]))
    assert carried() == 5000.0 - cap
    doc.undo()
    assert carried() == 5000.0
    doc.execute(UpdateLink(link.id, {"cables": link.cables + 1}))
    assert carried() == 5000.0
    doc.execute(UpdateLink(link.id, {"fabric": "storage"}))
    assert carried() == 5000.0 - cap
    switch = Device(id="new-switch", catalog_id="generic-switch", ports={"ports": 64})
    doc.execute(AddDevices([switch]))  # capacity only: the bound carries over
    assert carried() == 5000.0 - cap
    doc.execute(AddDevices([Device(id="new-host", catalog_id="dgx-h100")]))
    assert carried() is None  # the compute nodes changed: the bound does not hold
    doc.undo()  # ... until they are the certified ones again
    assert carried() == 5000.0 - cap


def test_deleting_a_compute_node_and_undoing_finds_the_bound_again() -> None:
    """Hand-checked: the node's links are a deficit of the old reference while
    it is gone; the undo brings them back, and another edit meanwhile counts."""
    design = random_design(3, hosts=8, switches=4)
    doc = Document(design)
    follow = _Follower(doc)
    follow.inc.certify(5000.0, follow.index())
    host = next(d for d in doc.design.devices if d.catalog_id != "generic-switch")
    doc.execute(RemoveDevices([host.id]))
    index = follow.index()
    assert hint_for(follow.inc.lower_hint(), index) is None
    follow.inc.certify(1234.0, index)  # the smaller design's own bound
    assert hint_for(follow.inc.lower_hint(), index) == 1234.0
    other = next(
        x
        for x in doc.design.links
        if x.fabric is Fabric.COMPUTE and host.id not in (x.a, x.b)
    )
    doc.execute(RemoveLinks([other.id]))  # tracked by both references
    doc.undo()
    doc.execute(RemoveLinks([other.id]))
    cap = other.cables * other.speed_gbps
    assert hint_for(follow.inc.lower_hint(), follow.index()) == max(0, 1234.0 - cap)
    doc.undo()
    doc.undo()  # the compute node and its links are back
    assert hint_for(follow.inc.lower_hint(), follow.index()) == 5000.0


def test_one_link_edit_on_a_regular_fabric_stays_exact() -> None:
    doc = Document(fat_tree("dgx-h100", 128, "qm9700"))
    follow = _Follower(doc)
    first = analyze_index(follow.index(), doc.design)
    assert first.bisection.exact
    follow.inc.certify(first.bisection.lower_gbps, follow.index())
    lid = doc.design.links.id[0]
    for cables in (2, 3, 4, 1):
        doc.execute(UpdateLink(lid, {"cables": cables}))
        index = follow.index()
        hint = hint_for(follow.inc.lower_hint(), index)
        report = analyze_index(index, doc.design, known_lower=hint)
        assert report.bisection.exact, cables
        assert report.bisection.gbps == first.bisection.gbps
        if cables != 1:  # uneven: the certificate fails, the carried bound holds
            assert "carried" in report.bisection.method
        follow.inc.certify(report.bisection.lower_gbps, index)


def test_bulk_link_edits_are_left_to_a_rebuild(monkeypatch: pytest.MonkeyPatch) -> None:
    import designer.analysis.incremental as incremental

    monkeypatch.setattr(incremental, "MAX_PATCH_LINKS", 3)
    doc = Document(fat_tree("dgx-h100", 16, "qm9700"))
    follow = _Follower(doc)
    doc.execute(RemoveLinks(doc.design.links.id[:4]))
    assert follow.inc.index is None
    got = analyze_index(follow.index(), doc.design)
    assert got.model_dump() == analyze(doc.design).model_dump()
    assert follow.rebuilds == 1


@pytest.mark.parametrize("k", [0, 1, 5, 64, 65, 300])
def test_cut_and_put_rows_match_numpy_delete_and_insert(k: int) -> None:
    from designer.analysis.rows import cut_rows, put_rows

    rng = np.random.default_rng(k)
    values = rng.integers(0, 1000, size=500)
    positions = sorted(rng.choice(500, size=k, replace=False).tolist())
    cut = cut_rows(values, positions)
    assert np.array_equal(cut, np.delete(values, positions))
    back = put_rows(cut, positions, values[positions])
    assert back.dtype == values.dtype and np.array_equal(back, values)
    boxes = rng.random((500, 4))  # rows of a 2-D array (the canvas' link boxes)
    assert np.array_equal(cut_rows(boxes, positions), np.delete(boxes, positions, 0))
    back2 = put_rows(cut_rows(boxes, positions), positions, boxes[positions])
    assert np.array_equal(back2, boxes)
    names = np.asarray([f"id{i}" for i in range(500)], dtype=object)
    assert put_rows(
        cut_rows(names, positions), positions, names[positions]
    ).tolist() == (names.tolist())


def test_link_deletes_and_undos_patch_the_end_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The worker cuts and puts end rows instead of rebuilding the table."""
    import designer.analysis.incremental as incremental

    made: dict[str, int] = {"without": 0, "added": 0}
    for name, key in (("_ends_without", "without"), ("_ends_with_added", "added")):
        real = getattr(incremental, name)

        def counted(*args, _real=real, _key=key):  # type: ignore[no-untyped-def]
            out = _real(*args)
            made[_key] += out is not None
            return out

        monkeypatch.setattr(incremental, name, counted)
    doc = Document(fat_tree("dgx-h100", 32, "qm9700"))
    follow = _Follower(doc)
    assert follow.index().ends is not None  # the worker has built it once
    links = doc.design.links.id
    host = next(d.id for d in doc.design.devices if d.tier is None)
    for command in (RemoveLinks([links[3], links[40]]), RemoveDevices([host])):
        doc.execute(command)
        _assert_same_ends(follow.index(), build_index(doc.design))
        doc.undo()
        _assert_same_ends(follow.index(), build_index(doc.design))
    assert made == {"without": 2, "added": 2}
    assert follow.rebuilds == 0
