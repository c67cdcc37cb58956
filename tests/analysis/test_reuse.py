"""Reusing the last analysis's stages changes no figure, along random edits.

Each state of an edited design is analysed twice: with one :class:`Reuse` kept
across the whole edit sequence (as the GUI's worker does) and from scratch. The
two reports must be equal in every field, and reuse must actually happen for
the edits that leave its inputs alone (otherwise this test proves nothing).
"""

from __future__ import annotations

import copy
import gc
import hashlib
import random
import weakref
from typing import Any

import numpy as np
import pytest
from scipy.optimize import Bounds, LinearConstraint
from scipy.sparse import csr_matrix

from designer.analysis import bisection, build_index, completeness, exact
from designer.analysis import index as index_module
from designer.analysis.engine import analyze_stages
from designer.analysis.reuse import Reuse
from designer.catalog import Catalog, default_catalog
from designer.core.commands import Command, SetGroups, SetSettings
from designer.core.device_commands import (
    AddDevices,
    RemoveDevices,
    UpdateDevices,
    move_devices,
)
from designer.core.document import Document
from designer.core.link_commands import AddLinks, RemoveLinks, UpdateLink
from designer.core.model import Design, Device, Group, Purpose
from designer.core.snapshot import snapshot
from designer.generate import fat_tree
from designer.physical import place
from tests.analysis.builders import perturbed_fat_tree, sketch_design


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return default_catalog()


def _milp_key(*args: Any, **kwargs: Any) -> bytes:
    """Every input of one ``scipy.optimize.milp`` call, as bytes."""
    digest = hashlib.sha256()

    def feed(x: Any) -> None:
        if isinstance(x, np.ndarray):
            digest.update(f"{x.dtype}{x.shape}".encode())
            digest.update(np.ascontiguousarray(x).tobytes())
        elif isinstance(x, Bounds):
            feed(np.asarray(x.lb))
            feed(np.asarray(x.ub))
        elif isinstance(x, LinearConstraint):
            a = csr_matrix(x.A)
            for part in (a.data, a.indices, a.indptr, a.shape, x.lb, x.ub):
                feed(np.asarray(part))
        elif isinstance(x, dict):
            for k in sorted(x):
                digest.update(repr(k).encode())
                feed(x[k])
        else:
            digest.update(repr(x).encode())

    for arg in args:
        feed(arg)
    feed(kwargs)
    return digest.digest()


@pytest.fixture(autouse=True)
def _untimed_exact_solve(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first bisection's integer program has a time limit (0.3 s), so on a
    busy machine a fresh analysis may stop short of a bound an earlier one
    proved; lift it so that both runs find the same figures.

    Untimed, HiGHS answers the same integer program the same way, so each
    distinct program is solved once per test: the run from scratch (and a state
    seen again after an undo) gets the answer of the identical program the run
    with reuse already solved. A reuse that changed the program (another graph,
    capacities, balance) misses the memo and is solved, and compared, afresh.
    """
    defaults = dict(bisection.bisect.__kwdefaults__ or {})
    defaults["exact_seconds"] = 60.0
    monkeypatch.setattr(bisection.bisect, "__kwdefaults__", defaults)
    solved: dict[bytes, Any] = {}
    solve = exact.milp

    def memo(*args: Any, **kwargs: Any) -> Any:
        key = _milp_key(*args, **kwargs)
        if key not in solved:
            solved[key] = solve(*args, **kwargs)
        return copy.deepcopy(solved[key])

    monkeypatch.setattr(exact, "milp", memo)


def _report(design: Design, links: object, catalog: Catalog, reuse: Reuse | None):
    if reuse is not None:
        index = reuse.build_index(design, catalog, links)  # type: ignore[arg-type]
    else:
        index = build_index(design, catalog, links=links)  # type: ignore[arg-type]
    return next(analyze_stages(index, design, reuse=reuse)).model_dump(mode="json")


def _edit(rng: random.Random, doc: Document, step: int) -> Command:
    design = doc.design
    links = design.links
    kind = rng.choice(
        [
            "cables",
            "cables",
            "settings",
            "move",
            "delete link",
            "add link",
            "swap",
            "drop",
            "delete device",
            "speed",
            "rail",
        ]
    )
    if kind in ("speed", "rail") and len(links):
        # a link's speed or rail: its ends stay, what is read of them not
        lid = links.id[rng.randrange(len(links))]
        link = links.get(lid)
        assert link is not None
        if kind == "speed":
            return UpdateLink(
                lid, {"speed_gbps": 200 if link.speed_gbps == 400 else 400}
            )
        return UpdateLink(lid, {"rail": ((link.rail or 0) + 1) % 8})
    if kind == "cables" and len(links):
        lid = links.id[rng.randrange(len(links))]
        link = links.get(lid)
        assert link is not None
        return UpdateLink(lid, {"cables": max(1, link.cables + rng.choice((-1, 1)))})
    if kind == "settings":
        other = rng.choice([p for p in Purpose if p is not design.settings.purpose])
        return SetSettings(design.settings.model_copy(update={"purpose": other}))
    if kind == "delete link" and len(links):
        return RemoveLinks([links.id[rng.randrange(len(links))]])
    if kind == "add link" and len(links):
        row = links.get(links.id[rng.randrange(len(links))])
        assert row is not None
        return AddLinks([row.model_copy(update={"id": f"copy-{step}", "cables": 1})])
    computes = [d for d in design.devices if d.catalog_id in ("dgx-h100", "dgx-h200")]
    if kind == "swap" and computes:
        d = rng.choice(computes)
        other = "dgx-h200" if d.catalog_id == "dgx-h100" else "dgx-h100"
        return UpdateDevices({d.id: {"catalog_id": other}})
    if kind == "drop":
        return AddDevices([Device(id=f"drop-{step}", catalog_id="qm9700", x=0, y=0)])
    if kind == "delete device" and computes:
        return RemoveDevices([rng.choice(computes).id])
    d = rng.choice(design.devices)
    return move_devices({d.id: (d.x + 10.0, d.y)})


@pytest.mark.slow
@pytest.mark.parametrize(
    "make",
    [
        lambda: fat_tree("dgx-h100", 32, "qm9700"),
        lambda: perturbed_fat_tree(512, 3),
        lambda: sketch_design(5, 30, mixed=True),
        lambda: place(fat_tree("dgx-h100", 64, "qm9700"), default_catalog()),
    ],
    ids=["fat tree", "perturbed fat tree", "sketch", "placed fat tree"],
)
def test_reports_with_reuse_equal_reports_from_scratch(
    make: object, catalog: Catalog
) -> None:
    doc = Document(make())  # type: ignore[operator]
    rng = random.Random(11)
    reuse = Reuse()
    for step in range(40):
        if step and rng.random() < 0.2 and doc.history.done:
            doc.undo()
        elif step:
            try:
                doc.execute(_edit(rng, doc, step))
            except ValueError:
                continue  # an edit the rules refuse (a port already full)
        design, links = snapshot(doc.design)
        assert _report(design, links, catalog, reuse) == _report(
            design, links, catalog, None
        ), f"step {step}"
    stages = ("device columns", "index", "index figures", "topology", "hierarchy")
    for stage in (*stages, "end table", "endpoint orders", "rows of names"):
        assert reuse.hits[stage] > 0, stage
    patches = ("link sums patched", "topology by the rows", "graph capacities patched")
    for stage in patches:
        assert reuse.hits[stage] > 0, stage


@pytest.mark.parametrize(
    "make",
    [
        lambda: fat_tree("dgx-h100", 32, "qm9700"),
        lambda: perturbed_fat_tree(256, 5),
    ],
    ids=["fat tree", "perturbed fat tree"],
)
def test_undo_and_redo_take_an_earlier_states_fabric_and_equal_from_scratch(
    make: object, catalog: Catalog
) -> None:
    """The topologies of the last few states are kept with their levels and
    what the checks derived from them (tree ranks, single points of failure):
    an undo or redo comes back to one of them, and the report must still be
    the one from scratch."""
    doc = Document(make())  # type: ignore[operator]
    rng = random.Random(5)
    reuse = Reuse()
    for step in range(30):
        r = rng.random()
        if step and r < 0.3 and doc.history.done:
            doc.undo()
        elif step and r < 0.45 and doc.history.undone:
            doc.redo()
        elif step:
            doc.execute(_edit(rng, doc, step))
        design, links = snapshot(doc.design)
        assert _report(design, links, catalog, reuse) == _report(
            design, links, catalog, None
        ), f"step {step}"
    assert reuse.hits["earlier topology"] > 0
    assert reuse.hits["hierarchy"] > 0


def _same_column(x: object, y: object) -> bool:
    if isinstance(x, np.ndarray):
        return (
            isinstance(y, np.ndarray)
            and x.dtype == y.dtype
            and bool(np.array_equal(x, y))
        )
    return x == y


@pytest.mark.parametrize("seed", range(3))
def test_patched_device_columns_equal_columns_gathered_afresh(
    seed: int, catalog: Catalog
) -> None:
    """Swaps, drops (of new catalog entries too), deletions and their undo
    patch the device columns; every state's columns equal a fresh gather."""
    doc = Document(fat_tree("dgx-h100", 16, "qm9700"))
    rng = random.Random(seed)
    reuse = Reuse()
    for step in range(40):
        devices = doc.design.devices
        kind = rng.choice(
            ["swap", "drop", "drop other", "delete", "undo", "groups", "other"]
        )
        if kind == "undo" and doc.history.done:
            doc.undo()
        elif kind == "groups":  # a new outer group first: the groups' order moves
            outer = Group(id=f"outer-{step}")
            inner = [
                g if g.parent else g.model_copy(update={"parent": outer.id})
                for g in doc.design.groups
            ]
            doc.execute(SetGroups([outer, *inner]))
        elif kind == "drop":
            at = f"drop-{step}"
            doc.execute(AddDevices([Device(id=at, catalog_id="qm9700", x=0, y=0)]))
        elif kind == "drop other":
            model = rng.choice(["dgx-b200", "dgx-h200", "sn5600"])
            new = Device(id=f"other-{step}", catalog_id=model, x=0, y=0)
            doc.execute(AddDevices([new]))
        elif kind == "delete" and len(devices) > 2:
            doc.execute(RemoveDevices([rng.choice(devices).id]))
        elif kind == "swap":
            computes = [d for d in devices if d.catalog_id.startswith("dgx-h")]
            if computes:
                d = rng.choice(computes)
                other = "dgx-h200" if d.catalog_id == "dgx-h100" else "dgx-h100"
                doc.execute(UpdateDevices({d.id: {"catalog_id": other}}))
        else:
            doc.execute(_edit(rng, doc, step))
        design, links = snapshot(doc.design)
        ours = reuse.build_index(design, catalog, links)
        fresh = build_index(design, catalog, links=links)
        assert ours.device_ids == fresh.device_ids, f"step {step}"
        for name in index_module._DEVICE_COLUMNS:
            assert _same_column(getattr(ours, name), getattr(fresh, name)), (
                f"step {step}: {name}"
            )
        assert np.array_equal(ours.row_of_name, fresh.row_of_name), f"step {step}"
        orders = ours.endpoint_order
        assert orders.keys() == fresh.endpoint_order.keys(), f"step {step}"
        for name, order in fresh.endpoint_order.items():
            assert np.array_equal(orders[name], order), f"step {step}: {name}"
    assert reuse.hits["device columns patched"] > 0
    assert reuse.hits["endpoint orders"] > 0


def test_a_cable_change_reuses_the_fabric_but_not_the_capacities(
    catalog: Catalog,
) -> None:
    doc = Document(fat_tree("dgx-h100", 64, "qm9700"))
    reuse = Reuse()
    design, links = snapshot(doc.design)
    before = _report(design, links, catalog, reuse)
    leaf_spine = next(
        lid
        for lid, a in zip(doc.design.links.id, doc.design.links.a, strict=True)
        if a.startswith("leaf")
    )
    doc.execute(UpdateLink(leaf_spine, {"cables": 0 + 1}))
    design, links = snapshot(doc.design)
    after = _report(design, links, catalog, reuse)
    assert reuse.hits["topology"] == 1 and reuse.hits["hierarchy"] == 1
    assert reuse.hits["index"] == 0  # the link table changed: a new index
    assert after["bisection"]["gbps"] < before["bisection"]["gbps"]
    assert after == _report(design, links, catalog, None)


def test_link_findings_are_kept_for_a_count_and_found_anew_for_a_cut(
    catalog: Catalog,
) -> None:
    """The completeness findings that read only which links join which
    devices are kept across a cable count edit (the same arrays) and found
    again when a leaf loses its uplinks (the devices' columns stay the same
    objects then: only the links' ends tell)."""
    doc = Document(fat_tree("dgx-h100", 64, "qm9700"))
    reuse = Reuse()
    made: list[int] = []
    real = completeness._of_links

    def counting(*args: Any) -> Any:
        made.append(1)
        return real(*args)

    design, links = snapshot(doc.design)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(completeness, "_of_links", counting)
        _report(design, links, catalog, reuse)
        assert len(made) == 1
        table = doc.design.links
        doc.execute(UpdateLink(table.id[0], {"cables": 2}))
        design, links = snapshot(doc.design)
        assert _report(design, links, catalog, reuse) == _report(
            design, links, catalog, None
        )
        assert len(made) == 2  # (the one from scratch): kept with reuse
        leaf = next(a for a in table.a if a.startswith("leaf"))
        uplinks = [
            i
            for i, a, b in zip(table.id, table.a, table.b, strict=True)
            if a == leaf and b.startswith("spine")
        ]
        assert uplinks
        doc.execute(RemoveLinks(uplinks))
        design, links = snapshot(doc.design)
        after = _report(design, links, catalog, reuse)
    assert after == _report(design, links, catalog, None)
    assert "LEAF_WITHOUT_UPLINKS" in [f["code"] for f in after["findings"]]


def test_a_settings_change_reuses_the_whole_index(catalog: Catalog) -> None:
    doc = Document(fat_tree("dgx-h100", 64, "qm9700"))
    reuse = Reuse()
    design, links = snapshot(doc.design)
    _report(design, links, catalog, reuse)
    doc.execute(
        SetSettings(
            doc.design.settings.model_copy(update={"purpose": Purpose.INFERENCE})
        )
    )
    design, links = snapshot(doc.design)
    after = _report(design, links, catalog, reuse)
    assert reuse.hits["index"] == 1 and reuse.hits["index figures"] == 1
    assert after == _report(design, links, catalog, None)


def test_an_unwired_drop_keeps_the_fabric_a_wired_one_does_not(
    catalog: Catalog,
) -> None:
    doc = Document(fat_tree("dgx-h100", 64, "qm9700"))
    reuse = Reuse()
    design, links = snapshot(doc.design)
    _report(design, links, catalog, reuse)
    doc.execute(AddDevices([Device(id="spare", catalog_id="qm9700", x=0, y=0)]))
    design, links = snapshot(doc.design)
    after = _report(design, links, catalog, reuse)
    assert reuse.hits["topology"] == 1 and reuse.hits["hierarchy"] == 1
    # the links' ends are the same devices at the same positions
    assert reuse.hits["end table"] == 1
    assert after == _report(design, links, catalog, None)
    doc.undo()  # the drop undone: the first state's devices again
    design, links = snapshot(doc.design)
    assert _report(design, links, catalog, reuse) == _report(
        design, links, catalog, None
    )
    assert reuse.hits["end table"] == 2
    doc.redo()
    design, links = snapshot(doc.design)
    _report(design, links, catalog, reuse)
    seen = reuse.hits["topology"]
    # a compute node is in the fabric even unwired (an island): built afresh
    doc.execute(AddDevices([Device(id="lone", catalog_id="dgx-h100", x=0, y=0)]))
    design, links = snapshot(doc.design)
    after = _report(design, links, catalog, reuse)
    assert reuse.hits["topology"] == seen
    assert after == _report(design, links, catalog, None)


def test_a_changed_device_is_never_taken_from_the_last_state(
    catalog: Catalog,
) -> None:
    doc = Document(fat_tree("dgx-h100", 8, "qm9700"))
    reuse = Reuse()
    design, links = snapshot(doc.design)
    _report(design, links, catalog, reuse)
    node = next(d for d in doc.design.devices if d.catalog_id == "dgx-h100")
    doc.execute(UpdateDevices({node.id: {"catalog_id": "dgx-b200"}}))
    design, links = snapshot(doc.design)
    after = _report(design, links, catalog, reuse)
    assert reuse.hits["device columns"] == 0
    assert after == _report(design, links, catalog, None)
    assert after["gpus"] == 64


def test_what_the_index_derives_from_link_columns_equals_a_fresh_index(
    catalog: Catalog,
) -> None:
    """Along random edits, the link-side arrays of an index built with reuse
    (taken again for a column the edit left) equal a fresh index's; a cable
    edit keeps the speeds and ends as the very same arrays."""
    doc = Document(fat_tree("dgx-h100", 32, "qm9700"))
    rng = random.Random(3)
    reuse = Reuse()
    names = ("a", "b", "a_port", "b_port", "cables", "speed", "cap", "fabric", "rail")
    last = None
    for step in range(40):
        if step:
            doc.execute(_edit(rng, doc, step))
        design, links = snapshot(doc.design)
        ours = reuse.build_index(design, catalog, links)
        fresh = build_index(design, catalog, links=links)
        for name in names:
            assert np.array_equal(getattr(ours, name), getattr(fresh, name)), name
        assert ours.port_keys == fresh.port_keys, f"step {step}"
        last = ours
    assert last is not None
    lid = doc.design.links.id[0]
    row = doc.design.links.get(lid)
    assert row is not None
    doc.execute(UpdateLink(lid, {"cables": row.cables + 1}))
    design, links = snapshot(doc.design)
    after = reuse.build_index(design, catalog, links)
    assert after.speed is last.speed and after.a is last.a
    assert after.cables is not last.cables
    assert not after.speed.flags.writeable


def test_an_earlier_states_index_is_freed_without_the_garbage_collector(
    catalog: Catalog,
) -> None:
    """Nothing of an analysed state makes a reference cycle (the end table
    holds its index weakly): once the worker's :class:`Reuse` lets a state's
    index go, reference counting frees its arrays at once, so the next state
    reuses their memory. (A cycle kept ~90 MB a state at 100K GPUs alive
    until a full collection, and the next state's arrays were faulted in
    anew: ~10,000 page faults an edit.)"""
    doc = Document(fat_tree("dgx-h100", 32, "qm9700"))
    rng = random.Random(3)
    reuse = Reuse()
    seen: list[weakref.ref[Any]] = []
    gc.collect()
    gc.disable()
    try:
        for step in range(16):
            if step:
                try:
                    doc.execute(_edit(rng, doc, step))
                except ValueError:
                    continue
            design, links = snapshot(doc.design)
            index = reuse.build_index(design, catalog, links)
            report = next(analyze_stages(index, design, reuse=reuse))
            assert index._ends is not None  # (the checks read the end table)
            if not seen or seen[-1]() is not index:  # (the same inputs: the same index)
                seen.append(weakref.ref(index))
            del index, report
            alive = [i for i, ref in enumerate(seen) if ref() is not None]
            assert alive == [len(seen) - 1], f"step {step}: alive {alive}"
    finally:
        gc.enable()
    assert len(seen) > 8  # (states enough to prove it)
