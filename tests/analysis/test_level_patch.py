"""Levels and blocks patched across a link edit equal those computed afresh.

:func:`designer.analysis.levels.patched_hierarchy` derives the hierarchy of a
state from the last one when the links that differ provably leave every level
and block as they were, and declines otherwise. Along random link deletions,
additions and undos on fat trees, uneven trees and drawn sketches, every patch
it returns is checked field by field against :func:`hierarchy` of the new
graph, and the cases that must change a level or a block are checked to be
declined.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from designer.analysis import build_index
from designer.analysis.graph import ComputeGraph, compute_graph, switch_planes
from designer.analysis.levels import Hierarchy, hierarchy, patched_hierarchy
from designer.analysis.reuse import Reuse
from designer.catalog import Catalog, default_catalog
from designer.core.document import Document
from designer.core.link_commands import AddLinks, RemoveLinks
from designer.core.model import Design
from designer.core.snapshot import snapshot
from designer.generate import fat_tree
from tests.analysis.builders import Spec, make_design, perturbed_fat_tree, sketch_design
from tests.analysis.walk import walk


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return default_catalog()


def _graph(design: Design, catalog: Catalog) -> tuple[ComputeGraph, np.ndarray]:
    light, links = snapshot(design)
    index = build_index(light, catalog, links=links)
    g = compute_graph(index)
    return g, index.links.serial[g.link]


def _same(patched: Hierarchy, fresh: Hierarchy, graph: ComputeGraph) -> None:
    for name in ("level", "up_x", "up_y", "up_c", "up_start", "up_edge"):
        assert np.array_equal(getattr(patched, name), getattr(fresh, name)), name
    assert patched.top == fresh.top
    if patched.plane is not None:  # planes the patch proved unchanged
        assert np.array_equal(patched.plane, switch_planes(graph)), "plane"
    assert patched.n_blocks == fresh.n_blocks
    assert len(patched.blocks) == len(fresh.blocks)
    for ours, theirs in zip(patched.blocks, fresh.blocks, strict=True):
        assert np.array_equal(ours, theirs)


def _edit(rng: random.Random, doc: Document, step: int) -> None:
    links = doc.design.links
    if rng.random() < 0.25 and doc.history.done:
        doc.undo()
        return
    if rng.random() < 0.6 or not len(links):
        doc.execute(RemoveLinks([links.id[rng.randrange(len(links))]]))
        return
    # a copy of a link (a parallel cable), or a link between two random ends
    row = links.get(links.id[rng.randrange(len(links))])
    assert row is not None
    if rng.random() < 0.5:
        other = links.get(links.id[rng.randrange(len(links))])
        assert other is not None
        row = row.model_copy(update={"b": other.b, "b_port": other.b_port})
        if row.a == row.b:
            return
    doc.execute(AddLinks([row.model_copy(update={"id": f"new-{step}", "cables": 1})]))


@pytest.mark.parametrize(
    "make",
    [
        lambda: fat_tree("dgx-h100", 64, "qm9700"),
        lambda: fat_tree("dgx-h100", 256, "qm9700"),
        lambda: perturbed_fat_tree(256, 5),
        lambda: sketch_design(4, 24, mixed=True),
    ],
    ids=["fat tree 64", "fat tree 256", "perturbed fat tree", "sketch"],
)
def test_every_patch_equals_the_hierarchy_computed_afresh(
    make: object, catalog: Catalog
) -> None:
    doc = Document(make())  # type: ignore[operator]
    rng = random.Random(5)
    g, serial = _graph(doc.design, catalog)
    h = hierarchy(g)
    h.plane = switch_planes(g)  # as the worker keeps it
    patched = declined = kept_planes = 0
    for step in range(60):
        try:
            _edit(rng, doc, step)
        except ValueError:
            continue  # a link the rules refuse (a port already full)
        g1, serial1 = _graph(doc.design, catalog)
        fresh = hierarchy(g1)
        fresh.plane = switch_planes(g1)
        same_nodes = np.array_equal(g.dev, g1.dev) and np.array_equal(
            g.switch, g1.switch
        )
        ours = (
            patched_hierarchy(h, (serial, g.u, g.v), g1, serial1)
            if same_nodes
            else None
        )
        if ours is None:
            declined += 1
        else:
            patched += 1
            _same(ours, fresh, g1)
            kept_planes += ours.plane is not None
        g, serial, h = g1, serial1, ours if ours is not None else fresh
    assert patched >= 10, (patched, declined)
    assert kept_planes > 0


def test_an_edit_that_moves_a_level_is_declined(catalog: Catalog) -> None:
    """A spine losing its last link (it is no longer reached) and a compute
    node cabled straight to a spine (the spine's level falls) are never
    patched: the levels afresh differ, and the patch says None."""
    doc = Document(fat_tree("dgx-h100", 64, "qm9700"))
    design = doc.design
    spine = next(d.id for d in design.devices if d.id.startswith("spine"))
    own = [
        lid
        for lid, a, b in zip(
            design.links.id, design.links.a, design.links.b, strict=True
        )
        if spine in (a, b)
    ]
    assert len(own) > 1
    doc.execute(RemoveLinks(own[:-1]))
    g, serial = _graph(doc.design, catalog)
    h = hierarchy(g)
    doc.execute(RemoveLinks(own[-1:]))
    g1, serial1 = _graph(doc.design, catalog)
    assert not np.array_equal(hierarchy(g1).level, h.level)
    assert patched_hierarchy(h, (serial, g.u, g.v), g1, serial1) is None
    doc.undo()
    doc.undo()
    g, serial = _graph(doc.design, catalog)
    h = hierarchy(g)
    node = next(d.id for d in design.devices if d.tier is None)
    spine_row = next(
        design.links.get(lid)
        for lid, b in zip(design.links.id, design.links.b, strict=True)
        if b == spine
    )
    node_row = next(
        design.links.get(lid)
        for lid, a in zip(design.links.id, design.links.a, strict=True)
        if a == node
    )
    assert spine_row is not None and node_row is not None
    shortcut = node_row.model_copy(
        update={"id": "shortcut", "b": spine_row.b, "b_port": spine_row.b_port}
    )
    doc.execute(AddLinks([shortcut]))
    g2, serial2 = _graph(doc.design, catalog)
    assert not np.array_equal(hierarchy(g2).level, h.level)  # the spine's fell
    assert patched_hierarchy(h, (serial, g.u, g.v), g2, serial2) is None


def test_the_worker_patches_a_link_delete_and_finds_the_undo_again(
    catalog: Catalog,
) -> None:
    doc = Document(fat_tree("dgx-h100", 128, "qm9700"))
    reuse = Reuse()

    def levels() -> Hierarchy:
        light, links = snapshot(doc.design)
        index = reuse.build_index(light, catalog, links)
        top = reuse.topology(index)
        g = compute_graph(index, top)
        return reuse.levels(index, top, g)

    first = levels()
    g0, _ = _graph(doc.design, catalog)
    spine_link = next(
        lid
        for lid, a in zip(doc.design.links.id, doc.design.links.a, strict=True)
        if a.startswith("leaf")
    )
    doc.execute(RemoveLinks([spine_link]))
    after = levels()
    assert reuse.hits["hierarchy patched"] == 1
    g, _ = _graph(doc.design, catalog)
    _same(after, hierarchy(g), g)
    assert after.plane is not None and np.array_equal(after.plane, switch_planes(g))
    doc.undo()
    again = levels()
    assert reuse.hits["hierarchy"] == 1  # the first state's, found with its topology
    _same(again, first, g0)


def test_planes_joined_or_split_by_a_link_are_worked_out_again(
    catalog: Catalog,
) -> None:
    """Two leaves with no link between them are two switch planes; a
    leaf-to-leaf link (one level: no level or block moves) joins them, and
    removing it parts them again. The patch keeps the levels but never the
    planes of the state before."""
    hosts = [Spec(f"h{i}", "generic-host", ports={"compute": 4}) for i in range(4)]
    leaves = [Spec(x, "generic-switch", ports={"ports": 64}) for x in ("la", "lb")]
    rows = [
        (h.id, "compute", leaf.id, "ports", 1, 400) for h in hosts for leaf in leaves
    ]
    doc = Document(make_design([*hosts, *leaves], rows))
    g, serial = _graph(doc.design, catalog)
    h = hierarchy(g)
    h.plane = switch_planes(g)
    assert len(set(h.plane[g.switch].tolist())) == 2
    row = doc.design.links.get(doc.design.links.id[0])
    assert row is not None
    bridge = row.model_copy(
        update={"id": "bridge", "a": "la", "a_port": "ports", "b": "lb"}
    )
    doc.execute(AddLinks([bridge]))
    g1, serial1 = _graph(doc.design, catalog)
    joined = patched_hierarchy(h, (serial, g.u, g.v), g1, serial1)
    assert joined is not None and joined.plane is None  # the planes are asked again
    _same(joined, hierarchy(g1), g1)
    joined.plane = switch_planes(g1)
    assert len(set(joined.plane[g1.switch].tolist())) == 1
    doc.undo()
    g2, serial2 = _graph(doc.design, catalog)
    parted = patched_hierarchy(joined, (serial1, g1.u, g1.v), g2, serial2)
    assert parted is not None and parted.plane is None
    _same(parted, hierarchy(g2), g2)


def _shapes_equal(ours: object, theirs: object) -> None:
    assert (ours is None) == (theirs is None)
    if ours is None:
        return
    for name in ("rank", "same", "high", "up", "group", "keys", "owner"):
        assert np.array_equal(getattr(ours, name), getattr(theirs, name)), name
    assert ours.n_up_a == theirs.n_up_a  # type: ignore[attr-defined]
    assert ours.counts == theirs.counts  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "make",
    [
        lambda: fat_tree("dgx-h100", 256, "qm9700"),
        lambda: perturbed_fat_tree(256, 5),
        lambda: sketch_design(4, 24, mixed=True),
    ],
    ids=["fat tree 256", "perturbed fat tree", "sketch"],
)
def test_every_patched_tree_shape_equals_the_shape_made_afresh(
    make: object, catalog: Catalog
) -> None:
    """The fat-tree checks' shape (ranks, miswires, up-port groups) patched
    from the last topology's equals the one made from scratch, and the
    findings read from it are the same."""
    from designer.analysis import tree_checks

    patched = 0
    states = walk(make(), catalog, seed=9, steps=60, edit=_edit)  # type: ignore[operator]
    for _step, reuse, index, _doc in states:
        top = reuse.topology(index)
        g = compute_graph(index, top)
        declared = index.declared_rank[g.dev]
        earlier = g.memo.get("earlier")
        had_base = (
            earlier is not None
            and "tree shape" not in g.memo
            and earlier.memo.get("tree shape", (None, None))[1] is not None
        )
        ours = tree_checks._shape_of(g, declared)
        _shapes_equal(ours, tree_checks._shape(g, declared))
        patched += had_base
    assert patched >= 10


def test_tree_shape_patches_that_renumber_rerank_or_reorder(catalog: Catalog) -> None:
    """Patches aimed at each way one can go wrong, from one state to another
    of the same devices, each checked against the shape made afresh: a (leaf,
    spine) pair losing its only link or getting one (the up-port groups are
    numbered again), a switch moved to another tier by a link (made afresh),
    and a leaf-to-leaf link or an up-link put into the middle of the table
    (its place among its kind) or taken out of it."""
    from designer.analysis import tree_checks
    from designer.analysis.graph import EarlierEdges, changed_run, topology

    hosts = [Spec(f"h{i}", "generic-host", ports={"compute": 4}) for i in range(12)]
    switches = [
        Spec(x, "generic-switch", ports={"ports": 64})
        for x in ("la", "lb", "lc", "s1", "s2", "x")
    ]
    rows = [
        (h.id, "compute", ("la", "lb", "lc")[i % 3], "ports", 1, 400)
        for i, h in enumerate(hosts)
    ]
    rows += [
        (a, "ports", b, "ports", 1, 400)
        for a in ("la", "lb", "lc")
        for b in ("s1", "s2")
    ]
    rows += [
        ("x", "ports", "s1", "ports", 1, 400),
        ("x", "ports", "s2", "ports", 1, 400),
    ]
    doc = Document(make_design([*hosts, *switches], rows))

    def state() -> tuple[ComputeGraph, np.ndarray]:
        light, links = snapshot(doc.design)
        index = build_index(light, catalog, links=links)
        top = topology(index)
        return compute_graph(index, top), index.links.serial[top.link]

    def patch(before: tuple[ComputeGraph, np.ndarray]) -> str:
        """Patch the current state from ``before``; say which way it went."""
        g0, serial0 = before
        g1, serial1 = state()
        assert np.array_equal(g0.dev, g1.dev)  # as the worker asks of a patch
        declared = np.zeros(g1.n, dtype=np.int64)
        base = tree_checks._shape(g0, declared)
        assert base is not None
        run = changed_run(
            (serial0, g0.all_u, g0.all_v), (serial1, g1.all_u, g1.all_v), 64
        )
        assert run is not None
        earlier = EarlierEdges(*run, g0.all_u, g0.all_v, {})
        made = []
        real = tree_checks._shape

        def counting(*args: object, **kwargs: object) -> object:
            made.append(1)
            return real(*args, **kwargs)  # type: ignore[arg-type]

        tree_checks._shape = counting  # type: ignore[assignment]
        try:
            ours = tree_checks._patched_shape(base, earlier, g1, declared)
        finally:
            tree_checks._shape = real
        _shapes_equal(ours, real(g1, declared))
        return "made afresh" if made else "patched"

    def link_id(a: str, b: str) -> str:
        t = doc.design.links
        return next(
            lid for lid, x, y in zip(t.id, t.a, t.b, strict=True) if {x, y} == {a, b}
        )

    def copy_of(lid: str, new_id: str, **ends: str) -> AddLinks:
        row = doc.design.links.get(lid)
        assert row is not None
        return AddLinks([row.model_copy(update={"id": new_id, **ends})])

    start = state()
    doc.execute(RemoveLinks([link_id("lb", "s2")]))
    assert patch(start) == "patched"  # the pair (lb, s2) lost its only link
    without = state()
    doc.undo()
    assert patch(without) == "patched"  # the pair comes back: a new group
    doc.execute(copy_of(link_id("la", "s1"), "la-s1-2"))  # a second la-s1 cable
    assert patch(start) == "patched"
    doc.undo()
    doc.execute(copy_of(link_id("x", "s1"), "x-la", b="la"))  # x: core -> spine
    assert patch(start) == "made afresh"
    doc.undo()
    original = link_id("la", "s1")
    doc.execute(copy_of(original, "la-lb", b="lb"))  # a same-tier link
    doc.execute(copy_of(original, "la-s1-2"))  # a second la-s1 cable
    doc.execute(copy_of(link_id("lb", "s1"), "lb-lc", b="lc"))  # same tier, later
    full = state()
    doc.execute(RemoveLinks(["la-lb"]))  # out of the middle of the table
    assert patch(full) == "patched"
    out = state()
    doc.undo()  # back into the middle, before lb-lc
    assert patch(out) == "patched"
    doc.execute(RemoveLinks([original]))  # an up-link whose pair keeps a cable
    assert patch(full) == "patched"
    gone = state()
    doc.undo()  # back into the middle, before other up-links
    assert patch(gone) == "patched"
    # every leaf up-link gone and one new pair made (the old groups all lost)
    ups = [
        lid
        for lid, a, b in zip(
            doc.design.links.id, doc.design.links.a, doc.design.links.b, strict=True
        )
        if a.startswith("l") and b.startswith(("s", "l"))
    ]
    doc.execute(RemoveLinks(ups))
    doc.execute(copy_of(link_id("x", "s1"), "x-la", b="la"))
    patch(full)


def test_regrouping_numbers_groups_as_a_fresh_unique_would() -> None:
    """After an edit, the up-port groups are the distinct keys of the links
    left and added, numbered in key order: on random cases (every old group
    lost, none, new pairs before, between and after the old ones, repeats),
    the kept links' new numbers and the keys equal :func:`numpy.unique`'s."""
    from designer.analysis.tree_checks import _regrouped

    rng = np.random.default_rng(4)
    for case in range(300):
        keys = np.unique(rng.integers(0, 60, rng.integers(0, 12)))
        n_kept = 0 if case % 7 == 0 else int(rng.integers(0, 20))
        kept = (
            rng.integers(0, len(keys), n_kept)
            if len(keys)
            else np.zeros(0, dtype=np.int64)
        )
        added = rng.integers(0, 60, int(rng.integers(0, 4)))
        out, renumber = _regrouped(keys, kept, added)
        expect = np.unique(np.concatenate((keys[kept], added)))
        assert np.array_equal(out, expect), case
        assert np.array_equal(renumber(kept), np.searchsorted(expect, keys[kept])), case


@pytest.mark.parametrize(
    "make",
    [lambda: fat_tree("dgx-h100", 256, "qm9700"), lambda: sketch_design(4, 24)],
    ids=["fat tree 256", "sketch"],
)
def test_the_run_the_lineage_gives_is_what_comparing_the_links_finds(
    make: object, catalog: Catalog
) -> None:
    """The worker takes the compute links an edit left from the link table's
    lineage rather than by comparing two topologies: its (head, tail) is
    true of the two topologies' serials and ends, and is the run that
    comparing them finds."""
    from designer.analysis.graph import changed_run

    last = None
    told = exact = 0
    states = walk(make(), catalog, seed=4, steps=50, edit=_edit)  # type: ignore[operator]
    for _step, reuse, index, _doc in states:
        before = reuse.hits["compute links' run from the lineage"]
        top = reuse.topology(index)
        serial = index.links.serial[top.link]
        if reuse.hits["compute links' run from the lineage"] > before:
            told += 1
            earlier = top.memo["earlier"]
            assert last is not None
            head, tail = earlier.head, earlier.tail
            old_serial, old_u, old_v = last
            for old, new in ((old_serial, serial), (old_u, top.local_u),
                             (old_v, top.local_v)):  # fmt: skip
                assert np.array_equal(old[:head], new[:head])
                assert np.array_equal(old[len(old) - tail :], new[len(new) - tail :])
            found = changed_run(last, (serial, top.local_u, top.local_v), 1 << 30)
            assert found is not None
            # the lineage never says more than comparing finds (it may say
            # less: each step counts its whole run as changed); with every
            # state analysed, undos included, it says as much
            assert found[0] >= head and found[1] >= tail
            exact += found == (head, tail)
        last = (serial, top.local_u, top.local_v)
    assert told >= 10 and exact == told, (told, exact)
