"""Bisection on hand-drawn-like designs against an independent exact method.

The oracle (tests/analysis/oracle.py) enumerates every placement of the
switches and solves the compute split by a knapsack table; it shares no code
with the product's integer program, partitioner or LP bounds.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
import time

import numpy as np
import pytest

from designer.analysis import analyze, build_index
from designer.analysis.balance import balance, choose, min_side_injection
from designer.analysis.bisection import bisect
from designer.analysis.bounds import (
    CutState,
    lift_lower,
    short,
    whole_capacities,
    whole_lower,
)
from designer.analysis.graph import compute_graph
from designer.analysis.hose import class_bound, tree_bound
from designer.analysis.levels import hierarchy
from designer.analysis.partition import candidate_sides, cut_value, improve
from designer.analysis.refine import refine_bisection
from designer.core.model import Fabric
from tests.analysis.builders import (
    Spec,
    gpus_of,
    make_design,
    perturbed_fat_tree,
    random_design,
    sketch_design,
)
from tests.analysis.oracle import every_split, oracle_by_placement

SKETCHES = [(seed, 17 + (seed * 7) % 48) for seed in range(24)]


def _graph(design):  # type: ignore[no-untyped-def]
    g = compute_graph(build_index(design))
    return g, balance(g.weight[g.endpoint])


def _side_gpus(design, side_a):  # type: ignore[no-untyped-def]
    gpus = gpus_of(design)
    a = sum(w for x, w in gpus.items() if x in side_a)
    return a, sum(gpus.values()) - a


@pytest.mark.slow
@pytest.mark.parametrize(("seed", "hosts"), SKETCHES)
def test_sketches_exact_after_refinement(seed: int, hosts: int) -> None:
    """21-64-node sketches: bounds bracket the oracle at once, and meet it."""
    design = sketch_design(
        seed, hosts, mixed=seed % 3 == 0, islands=1 + (seed % 5 == 0)
    )
    truth = oracle_by_placement(design)
    first = analyze(design).bisection
    assert first.lower_gbps <= truth + 1e-6 <= first.upper_gbps + 2e-6, first.method
    if first.exact:
        assert first.gbps == pytest.approx(truth)
    refined = analyze(design, refine_seconds=20.0).bisection
    assert refined.exact, refined.method
    assert refined.gbps == pytest.approx(truth)
    a, b = _side_gpus(design, refined.side_a)
    sides = every_split(gpus_of(design)) if hosts <= 18 else None
    if sides is not None:
        assert any(set(refined.side_a) & set(gpus_of(design)) == s for s in sides)
    assert abs(a - b) == balance(np.array(list(gpus_of(design).values()))).delta


@pytest.mark.parametrize("seed", range(12))
def test_random_17_to_20_nodes_exact(seed: int) -> None:
    """Past 16 nodes the old path tried one split (median 4.6x too high). The
    first result brackets the truth (exact unless the machine is too slow for
    the live time limit); refined, it is exact."""
    design = random_design(500 + seed, hosts=17 + seed % 4, switches=3 + seed % 3)
    truth = oracle_by_placement(design)
    first = analyze(design).bisection
    assert first.lower_gbps <= truth + 1e-6 <= first.upper_gbps + 2e-6
    b = analyze(design, refine_seconds=20.0).bisection
    assert b.exact, b.method
    assert b.gbps == pytest.approx(truth)


def test_mixed_gpu_counts_use_the_most_balanced_halves() -> None:
    """8-GPU servers and 72-GPU racks: halves differ by the least possible GPUs."""
    specs = [Spec("rack0", "gb200-nvl72"), Spec("rack1", "gb200-nvl72")]
    specs += [Spec(f"d{i}", "dgx-h100") for i in range(10)]
    specs += [Spec("sw0", "generic-switch", ports={"ports": 512})]
    specs += [Spec("sw1", "generic-switch", ports={"ports": 512})]
    rows = [("rack0", "compute", "sw0", "ports", 72, 400)]
    rows += [("rack1", "compute", "sw1", "ports", 72, 400)]
    rows += [(f"d{i}", "compute", f"sw{i % 2}", "ports", 8, 400) for i in range(10)]
    rows += [("sw0", "ports", "sw1", "ports", 8, 400)]
    design = make_design(specs, rows)
    _, bal = _graph(design)
    assert bal.total == 224 and bal.delta == 0  # 72 + 5 x 8 = 112 each side
    b = analyze(design).bisection
    gpus = {"rack0": 72, "rack1": 72} | {f"d{i}": 8 for i in range(10)}
    a = sum(w for x, w in gpus.items() if x in b.side_a)
    assert a == 112
    assert b.exact
    # brute force over every split with the switches placed optimally
    assert b.gbps == pytest.approx(oracle_by_placement(design))


@pytest.mark.parametrize("seed", range(60))
def test_balance_is_the_least_achievable_gap(seed: int) -> None:
    rng = random.Random(seed)
    w = np.array([rng.choice([1, 8, 8, 72, 4]) for _ in range(rng.randint(2, 11))])
    bal = balance(w)
    best = min(
        abs(2 * int(w[list(c)].sum()) - int(w.sum()))
        for r in range(1, len(w))
        for c in itertools.combinations(range(len(w)), r)
    )
    assert bal.delta == best
    cost = np.array([rng.random() for _ in w])
    side = choose(cost, w, bal)
    assert side is not None and int(w[side].sum()) == bal.light
    inj = np.array([rng.randint(1, 4) * 400.0 for _ in w])
    lb = min_side_injection(inj, w, bal)
    truth = min(
        min(inj[list(c)].sum(), inj.sum() - inj[list(c)].sum())
        for r in range(1, len(w))
        for c in itertools.combinations(range(len(w)), r)
        if bal.ok(int(w[list(c)].sum()))
    )
    assert lb <= truth + 1e-9


def _islands(sizes: list[int]):  # type: ignore[no-untyped-def]
    specs, rows = [], []
    for k, n in enumerate(sizes):
        specs.append(Spec(f"sw{k}", "generic-switch", ports={"ports": 64}))
        for i in range(n):
            specs.append(Spec(f"h{k}_{i}", "dgx-h100"))
            rows.append((f"h{k}_{i}", "compute", f"sw{k}", "ports", 8, 400))
    return make_design(specs, rows)


def test_two_equal_islands_have_zero_bisection_and_name_their_parts() -> None:
    design = _islands([4, 4])
    b = analyze(design).bisection
    assert b.gbps == 0 and b.exact and b.lower_gbps == 0
    g, _ = _graph(design)
    idx = build_index(design)
    res = bisect(g, hierarchy(g), np.ones(8), idx.endpoint_order)
    ids = idx.device_ids_arr
    assert [sorted(ids[p].tolist()) for p in res.parts_compute] == [
        [f"h0_{i}" for i in range(4)],
        [f"h1_{i}" for i in range(4)],
    ]
    assert sorted(ids[res.parts[0]].tolist()) == sorted(
        [f"h0_{i}" for i in range(4)] + ["sw0"]
    )


@pytest.mark.parametrize("sizes", [[3, 1], [5, 2, 2], [4, 3], [2, 2, 2]])
def test_islands_match_the_oracle(sizes: list[int]) -> None:
    design = _islands(sizes)
    truth = oracle_by_placement(design)
    b = analyze(design).bisection
    assert b.exact and b.gbps == pytest.approx(truth)
    assert (truth == 0) == (b.gbps == 0)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(10))
def test_random_islands_match_the_oracle(seed: int) -> None:
    design = sketch_design(900 + seed, 17 + seed * 3, islands=2 + seed % 2)
    truth = oracle_by_placement(design)
    b = analyze(design, refine_seconds=20.0).bisection
    assert b.exact and b.gbps == pytest.approx(truth)


def test_single_node_has_no_ratio() -> None:
    specs = [Spec("a", "dgx-h100"), Spec("sw", "qm9700")]
    design = make_design(specs, [("a", "compute", "sw", "ports", 8, 400)])
    b = analyze(design).bisection
    assert b.ratio is None
    assert "fewer than two" in b.method
    dumped = analyze(design).model_dump(mode="json")["bisection"]
    assert dumped["ratio"] is None


@pytest.mark.parametrize("seed", range(25))
def test_hose_lps_and_partitioner_are_sound(seed: int) -> None:
    """Every LP bound is below the truth, every partitioner cut above it."""
    design = random_design(2000 + seed, hosts=6 + seed % 8, switches=2 + seed % 4)
    truth = oracle_by_placement(design)
    g, bal = _graph(design)
    for fn in (class_bound, tree_bound):
        hb = fn(g, bal)
        if hb is not None:
            assert hb.value <= truth + 1e-6, hb.how
    from designer.analysis.candidates import split_cut

    h = hierarchy(g)
    for _, start in candidate_sides(g, bal, seeds=2):
        value, side = improve(g, bal, start, lambda s: split_cut(g, s, h)[:2])
        assert value == pytest.approx(cut_value(g, side))
        assert value >= truth - 1e-6
        assert int(g.weight[side & g.endpoint].sum()) in (bal.light, bal.heavy)


@pytest.mark.slow
def test_perturbed_1k_fat_tree_bounds_within_5_percent() -> None:
    """1,024 GPUs, 5 % of uplinks removed, cables changed, extra links."""
    for seed in range(2):
        b = analyze(perturbed_fat_tree(1024, seed), refine_seconds=10.0).bisection
        assert b.lower_gbps >= 0.95 * b.upper_gbps, b.method


@pytest.mark.slow
def test_perturbed_4k_fat_tree_has_a_real_lower_bound() -> None:
    """The old path gave lower bound 0 on this design; the first result,
    before any refinement, has one."""
    b = analyze(perturbed_fat_tree(4096, 0)).bisection
    assert b.lower_gbps >= 0.7 * b.upper_gbps, b.method


@pytest.mark.parametrize("seed", [0, 3])
def test_a_hose_lp_bound_a_hair_under_the_cut_meets_it(seed: int) -> None:
    """Whole link capacities make every cut a whole number of Gb/s, so the
    tree hose LP's bound, kept a safety margin under the cut it proves
    (186,799.98 against 186,800 for seed 0), is rounded up and the bounds
    meet: the refinement ends there, not at its deadline after the integer
    program has run on to it."""
    idx = build_index(perturbed_fat_tree(1024, seed))
    g = compute_graph(idx)
    h = hierarchy(g)
    nominal = g.injection[g.endpoint]
    first = bisect(g, h, nominal, idx.endpoint_order)
    assert not first.exact
    *_, last = refine_bisection(g, h, nominal, first)
    assert last.exact, last.method
    assert last.lower == last.upper == pytest.approx(cut_value(g, last.side))
    assert "rounded up to a whole Gb/s" in last.method
    assert last.stage != "integer program"
    assert float(last.lower).is_integer()


@pytest.mark.slow
def test_refinement_stops_when_asked_and_only_tightens() -> None:
    design = perturbed_fat_tree(1024, 3)
    idx = build_index(design)
    g = compute_graph(idx)
    h = hierarchy(g)
    nominal = g.injection[g.endpoint]
    first = bisect(g, h, nominal, idx.endpoint_order)
    assert not first.exact
    assert list(refine_bisection(g, h, nominal, first, should_stop=lambda: True)) == []
    assert (
        list(refine_bisection(g, h, nominal, first, deadline=time.perf_counter())) == []
    )
    lo, up = first.lower, first.upper
    for r in refine_bisection(g, h, nominal, first):
        assert r.lower >= lo - 1e-6 and r.upper <= up + 1e-6
        assert r.lower <= r.upper
        assert cut_value(g, r.side) == pytest.approx(r.upper)
        lo, up = r.lower, r.upper
    assert lo > first.lower


def test_cut_links_cross_the_reported_sides() -> None:
    design = sketch_design(7, 40)
    b = analyze(design).bisection
    crossing = {
        x.id
        for x in design.links
        if x.fabric is Fabric.COMPUTE and ((x.a in b.side_a) != (x.b in b.side_a))
    }
    assert set(b.cut_links) == crossing


def test_a_lower_bound_is_rounded_up_only_to_the_whole_number_it_proves() -> None:
    """Up to the next whole number, never past one it already is (a sum
    with floating-point error above it), never down; only for a graph of
    whole capacities."""
    assert whole_lower(186_799.98) == 186_800.0
    assert whole_lower(186_800.0) == 186_800.0
    assert whole_lower(186_800.000_000_1) == 186_800.000_000_1
    assert whole_lower(0.0) == 0.0
    assert whole_lower(0.25) == 1.0
    side = np.zeros(2, dtype=np.bool_)
    whole = CutState(10.0, side, "cut", 9.5, "bound", [], whole=True)
    assert (whole.lower, "rounded up" in whole.lower_how) == (10.0, True)
    assert not short(whole)
    plain = CutState(10.0, side, "cut", 9.5, "bound", [])
    assert plain.lower == 9.5 and short(plain)
    assert lift_lower(plain, 9.75, "better") and plain.lower == 9.75
    assert lift_lower(whole, 9.2, "worse") is False
    g, _ = _graph(sketch_design(7, 40))
    assert whole_capacities(g)
    assert whole_capacities(dataclasses.replace(g, c=g.c.astype(np.float64)))
    assert not whole_capacities(dataclasses.replace(g, c=g.c + 0.5))
