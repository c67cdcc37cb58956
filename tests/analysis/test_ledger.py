"""The carried bisection lower bound (designer.analysis.ledger): sound against the
brute-force oracle across edits, undo and redo; exact on hand-checked edits."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from designer.analysis import analyze, analyze_index, build_index
from designer.analysis.engine import analyze_stages
from designer.analysis.ledger import BoundLedger
from designer.core.commands import Command, Macro, SetSettings
from designer.core.device_commands import (
    AddDevices,
    RemoveDevices,
    UpdateDevices,
    move_devices,
)
from designer.core.document import Document
from designer.core.link_commands import AddLinks, RemoveLinks, UpdateLink
from designer.core.model import Design, Device, Fabric, Link, Purpose
from designer.generate import fat_tree
from tests.analysis.builders import oracle_bisection, perturbed_fat_tree, random_design


def _random_edit(rng: random.Random, design: Design, removed: list[Link]) -> Command:
    links = design.links
    devices = {d.id for d in design.devices}
    # left out: brought back by an undo, or an end deleted since
    removed[:] = [x for x in removed if not links.has(x.id) and {x.a, x.b} <= devices]
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
    d = design.devices[rng.randrange(len(design.devices))]
    if pick < 0.8:
        return move_devices({d.id: (d.x + 10, d.y - 5)})
    return UpdateDevices({d.id: {"label": f"renamed {rng.random():.3f}"}})


def _random_device_edit(rng: random.Random, design: Design) -> Command:
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


def _random_step(
    rng: random.Random,
    doc: Document,
    removed: list[Link],
    *,
    undo: float,
    redo: float | None,
    device: float,
) -> None:
    """One step of a random walk: a roll under ``undo`` undoes (when it can),
    else under ``redo`` redoes (when it can), else under ``device`` edits a
    device, else a link."""
    roll = rng.random()
    if roll < undo and doc.history.can_undo:
        doc.undo()
    elif redo is not None and roll < redo and doc.history.can_redo:
        doc.redo()
    elif roll < device:
        doc.execute(_random_device_edit(rng, doc.design))
    else:
        doc.execute(_random_edit(rng, doc.design, removed))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(30))
def test_carried_bound_is_sound_against_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    design = random_design(seed, hosts=4 + seed % 6, switches=2 + seed % 4)
    doc = Document(design)
    ledger = BoundLedger()
    ledger.record(oracle_bisection(design), build_index(doc.design))
    removed: list[Link] = []
    for _ in range(16):
        # an undo goes back to compute nodes proven before (kept references)
        _random_step(rng, doc, removed, undo=0.2, redo=0.25, device=0.45)
        index = build_index(doc.design)
        carried = ledger.lower_bound(index)
        truth = oracle_bisection(doc.design)
        if carried is not None:
            assert carried <= truth + 1e-6
        report = analyze_index(index, doc.design, known_lower=carried)
        assert report.bisection.lower_gbps <= truth + 1e-6
        ledger.record(report.bisection.lower_gbps, index)


def test_carried_bound_follows_capacity_exactly() -> None:
    """Hand-checked: remove 2 x 400G from the reference, add them back."""
    doc = Document(random_design(3, hosts=8, switches=4))
    ledger = BoundLedger()
    ledger.record(5000.0, build_index(doc.design))

    def carried() -> float | None:
        return ledger.lower_bound(build_index(doc.design))

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
    doc.execute(UpdateLink(link.id, {"fabric": "compute", "b": link.a, "a": link.b}))
    assert carried() == 5000.0  # the same two ends, either way round
    switch = Device(id="new-switch", catalog_id="generic-switch", ports={"ports": 64})
    doc.execute(AddDevices([switch]))  # capacity only: the bound carries over
    assert carried() == 5000.0
    doc.execute(AddDevices([Device(id="new-host", catalog_id="dgx-h100")]))
    assert carried() is None  # the compute nodes changed: the bound does not hold
    doc.undo()  # ... until they are the proven ones again
    assert carried() == 5000.0


def test_deleting_a_compute_node_and_undoing_finds_the_bound_again() -> None:
    """The node's links are a deficit of the old reference while it is gone; the
    undo brings them back, and another edit meanwhile counts."""
    doc = Document(random_design(3, hosts=8, switches=4))
    ledger = BoundLedger()
    ledger.record(5000.0, build_index(doc.design))
    host = next(d for d in doc.design.devices if d.catalog_id != "generic-switch")
    doc.execute(RemoveDevices([host.id]))
    index = build_index(doc.design)
    assert ledger.lower_bound(index) is None
    ledger.record(1234.0, index)  # the smaller design's own bound
    assert ledger.lower_bound(index) == 1234.0
    other = next(
        x
        for x in doc.design.links
        if x.fabric is Fabric.COMPUTE and host.id not in (x.a, x.b)
    )
    doc.execute(RemoveLinks([other.id]))
    doc.undo()
    doc.execute(RemoveLinks([other.id]))
    cap = other.cables * other.speed_gbps
    assert ledger.lower_bound(build_index(doc.design)) == max(0, 1234.0 - cap)
    doc.undo()
    doc.undo()  # the compute node and its links are back
    assert ledger.lower_bound(build_index(doc.design)) == 5000.0


def test_a_bound_of_another_table_is_never_carried() -> None:
    """A replaced design starts its serials afresh: its links are not the old ones."""
    doc = Document(random_design(3, hosts=8, switches=4))
    ledger = BoundLedger()
    ledger.record(5000.0, build_index(doc.design))
    doc.reset(random_design(3, hosts=8, switches=4))
    assert ledger.lower_bound(build_index(doc.design)) is None


def test_one_link_edit_on_a_regular_fabric_stays_exact() -> None:
    doc = Document(fat_tree("dgx-h100", 128, "qm9700"))
    ledger = BoundLedger()
    index = build_index(doc.design)
    first = analyze_index(index, doc.design)
    assert first.bisection.exact
    ledger.record(first.bisection.lower_gbps, index)
    lid = doc.design.links.id[0]
    for cables in (2, 3, 4, 1):
        doc.execute(UpdateLink(lid, {"cables": cables}))
        index = build_index(doc.design)
        hint = ledger.lower_bound(index)
        report = analyze_index(index, doc.design, known_lower=hint)
        assert report.bisection.exact, cables
        assert report.bisection.gbps == first.bisection.gbps
        if cables != 1:  # uneven: the certificate fails, the carried bound holds
            assert "carried" in report.bisection.method
        ledger.record(report.bisection.lower_gbps, index)


@pytest.mark.parametrize("seed", range(6))
def test_the_carried_bound_is_the_best_of_every_reference(seed: int) -> None:
    """The ledger skips references whose proof is below a bound already
    carried (a bound carries at most what was proven); the answer is still
    the best bound over all of them, and record() keeps the same references."""
    rng = random.Random(seed)
    doc = Document(random_design(seed, hosts=6, switches=3))
    ledger = BoundLedger()
    removed: list[Link] = []
    for step in range(14):
        if step:
            doc.execute(_random_edit(rng, doc.design, removed))
        index = build_index(doc.design)
        refs = list(ledger._refs)
        fp = ledger._fingerprint(index)
        links = index.links
        same = [r for r in refs if r.table == links.table and r.fingerprint == fp]
        expected = max((r.carried(links) for r in same), default=None)
        assert ledger.lower_bound(index) == expected, f"step {step}"
        lower = rng.uniform(0.0, 1.5) * oracle_bisection(doc.design)
        keep = not any(r.carried(links) >= lower for r in same)
        before = list(ledger._refs)
        ledger.record(lower, index)
        if keep:
            assert ledger._refs[-1].links is links, f"step {step}"
            assert ledger._refs[-1].lower == lower, f"step {step}"
        else:
            assert ledger._refs == before, f"step {step}"


def test_serials_are_found_as_by_a_search_of_the_whole_column() -> None:
    """The carried bound looks a reference's serials up only between the rows
    both states share at their start and end: the same rows as a search of
    the whole column, for rows added, removed or both."""
    import numpy as np

    from designer.analysis.ledger import _rows_of

    rng = np.random.default_rng(1)
    for _ in range(2000):
        n = int(rng.integers(0, 40))
        base = np.sort(rng.choice(200, size=n, replace=False)).astype(np.int64)
        keep = rng.random(n) > rng.random() * 0.5
        extra = rng.choice(np.arange(200, 260), size=int(rng.integers(0, 4)))
        now = np.unique(np.concatenate((base[keep], extra))).astype(np.int64)
        ref = base
        if rng.random() < 0.5:
            now, ref = ref, now
        if not len(now):
            continue
        whole = np.minimum(np.searchsorted(now, ref), len(now) - 1)
        ours = np.minimum(_rows_of(now, ref), len(now) - 1)
        found = now[whole] == ref
        assert (found == (now[ours] == ref)).all()
        assert (whole[found] == ours[found]).all()


@pytest.mark.parametrize("seed", range(8))
def test_a_bound_carried_along_the_lineage_equals_one_found_by_search(
    seed: int,
) -> None:
    """A state that knows how it came from the reference's
    (:func:`~designer.core.link_arrays.rows_run`) matches only the rows
    between the common first and last rows; the same state with no lineage is
    matched row by row over the whole column: the two carried bounds agree."""
    from designer.core.link_arrays import LinkArrays, next_state, rows_run

    rng = random.Random(seed)
    doc = Document(random_design(seed, hosts=6, switches=3))
    ledger = BoundLedger()
    removed: list[Link] = []
    along = 0
    for step in range(16):
        if step:
            doc.execute(_random_edit(rng, doc.design, removed))
        if rng.random() < 0.3 and doc.history.done:
            doc.undo()
        index = build_index(doc.design)
        links = index.links
        bare = LinkArrays(**{**links.__dict__, "state": next_state(), "origin": None})
        for r in ledger._refs:
            if r.table != links.table or r.links is links:
                continue
            along += rows_run(r.links, links) is not None
            assert rows_run(r.links, bare) is None
            assert r.carried(links) == r.carried(bare), f"step {step}"
        ledger.record(rng.uniform(0.2, 1.2) * oracle_bisection(doc.design), index)
    assert along >= 5  # the lineage path was taken


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(20))
def test_a_carried_cut_keeps_the_first_bounds_around_brute_force(seed: int) -> None:
    """The ledger's best cut of an earlier state is evaluated on the next
    state of the same nodes: along random edits the first result still
    brackets the brute-force bisection, its cut is the reported one, and it
    is never worse than the first result without the carried cut."""
    rng = random.Random(100 + seed)
    design = random_design(seed, hosts=4 + seed % 6, switches=2 + seed % 4)
    doc = Document(design)
    ledger = _CountingLedger()
    removed: list[Link] = []
    for step in range(16):
        if step:
            _random_step(rng, doc, removed, undo=0.15, redo=None, device=0.3)
        index = build_index(doc.design)
        carried = ledger.lower_bound(index)
        first = next(
            analyze_stages(index, doc.design, known_lower=carried, ledger=ledger)
        ).bisection
        alone = analyze_index(index, doc.design, known_lower=carried).bisection
        truth = oracle_bisection(doc.design)
        assert first.lower_gbps <= truth + 1e-6 <= first.upper_gbps + 2e-6
        assert first.upper_gbps <= alone.upper_gbps + 1e-6
        side = set(first.side_a)
        crossing = [
            x
            for x in doc.design.links
            if x.fabric is Fabric.COMPUTE and ((x.a in side) != (x.b in side))
        ]
        assert sorted(first.cut_links) == sorted(x.id for x in crossing)
        assert sum(x.cables * x.speed_gbps for x in crossing) == first.upper_gbps
        ledger.record(first.lower_gbps, index)
    assert ledger.offered > 0


class _CountingLedger(BoundLedger):
    """A ledger that counts the cuts it offers to a next state."""

    def __init__(self) -> None:
        super().__init__()
        self.offered = 0

    def side_for(self, *args: Any) -> Any:
        side = super().side_for(*args)
        self.offered += side is not None
        return side


def test_after_a_refinement_a_cable_more_is_exact_at_first() -> None:
    """A perturbed 1K fat tree: its candidate splits give 188,400 Gb/s, the
    refinement finds 186,800 and proves it. One cable more elsewhere keeps
    that cut: the next first result is exact with the refined cut and the
    carried bound, inside the bounds the refinement from scratch finds."""
    doc = Document(perturbed_fat_tree(1024, 0))
    ledger = BoundLedger()
    index = build_index(doc.design)
    deadline = time.perf_counter() + 30.0
    *_, refined = analyze_stages(index, doc.design, ledger=ledger, deadline=deadline)
    assert refined.bisection.exact
    ledger.record(refined.bisection.lower_gbps, index)
    cut = set(refined.bisection.cut_links)
    link = next(x for x in doc.design.links if x.id not in cut)
    doc.execute(UpdateLink(link.id, {"cables": link.cables + 1}))
    index = build_index(doc.design)
    first = next(
        analyze_stages(
            index, doc.design, known_lower=ledger.lower_bound(index), ledger=ledger
        )
    ).bisection
    assert first.exact, first.method
    assert "an earlier state of these nodes" in first.method
    # from scratch the refinement brackets that value (it proves no more in 2 s)
    scratch = analyze(doc.design, refine_seconds=2.0).bisection
    assert scratch.lower_gbps <= first.upper_gbps <= scratch.upper_gbps
    assert first.upper_gbps == refined.bisection.upper_gbps
    without = next(
        analyze_stages(index, doc.design, known_lower=ledger.lower_bound(index))
    ).bisection
    assert not without.exact  # the candidate splits alone do not find that cut
