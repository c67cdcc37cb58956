"""The enumeration of placements (designer/analysis/placement.py) against the
independent oracle of tests/analysis/oracle.py and against brute force."""

from __future__ import annotations

import numpy as np
import pytest

from designer.analysis import analyze, build_index, placement
from designer.analysis.balance import balance
from designer.analysis.graph import compute_graph
from tests.analysis.builders import (
    Spec,
    gpus_of,
    make_design,
    oracle_bisection,
    random_design,
    sketch_design,
)
from tests.analysis.oracle import every_split, oracle_by_placement


def _solve(design):  # type: ignore[no-untyped-def]
    g = compute_graph(build_index(design))
    bal = balance(g.weight[g.endpoint])
    return g, bal, placement.solve(g, bal)


def _check(design, expected: float) -> None:  # type: ignore[no-untyped-def]
    g, bal, res = _solve(design)
    assert res is not None
    assert res.value == pytest.approx(expected)
    side = res.side
    assert float(g.c[side[g.u] != side[g.v]].sum()) == pytest.approx(res.value)
    assert int(g.weight[side & g.endpoint].sum()) in (bal.light, bal.heavy)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(30))
def test_sketches_match_the_oracle(seed: int) -> None:
    """Hand-drawn-like leaf/spine sketches of 17-64 nodes, mixed GPUs, islands
    (smaller, so that the oracle's enumeration stays within its limit)."""
    islands = 2 if seed % 7 == 0 else 1
    hosts = 17 + seed % 14 if islands > 1 else 17 + (seed * 11) % 48
    design = sketch_design(300 + seed, hosts, mixed=seed % 2 == 0, islands=islands)
    _check(design, oracle_by_placement(design))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(30))
def test_random_fabrics_match_brute_force(seed: int) -> None:
    """Random fabrics (back-to-back host links now and then): every split."""
    design = random_design(4000 + seed, hosts=4 + seed % 9, switches=2 + seed % 4)
    _check(design, oracle_bisection(design))


def test_compute_nodes_wired_to_each_other_are_placed() -> None:
    """A ring of hosts, no switch: every node is placed, none free."""
    specs = [Spec(f"h{i}", "generic-host", ports={"compute": 4}) for i in range(8)]
    rows = [
        (f"h{i}", "compute", f"h{(i + 1) % 8}", "compute", 1, 400) for i in range(8)
    ]
    design = make_design(specs, rows)
    _check(design, 800.0)  # a ring cut in two places
    assert every_split(gpus_of(design))  # brute force agrees below
    assert oracle_bisection(design) == pytest.approx(800.0)


def test_three_gpu_counts_are_left_to_the_integer_program() -> None:
    """More than two GPU counts among free nodes: not enumerated (None)."""
    specs = [
        Spec("a", "generic-host", ports={"compute": 4}),
        Spec("b", "dgx-h100"),
        Spec("c", "gb200-nvl72"),
        Spec("d", "generic-host", ports={"compute": 4}),
        Spec("sw", "generic-switch", ports={"ports": 256}),
    ]
    rows = [(x, "compute", "sw", "ports", 1, 400) for x in "abcd"]
    _, _, res = _solve(make_design(specs, rows))
    assert res is None


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(10))
def test_first_result_of_64_node_sketches_is_exact(seed: int) -> None:
    """The bench's 64-node sketches: the live result is exact and right
    (the enumeration has no time limit, so this does not depend on load)."""
    design = sketch_design(100 + seed, 64, mixed=seed % 3 == 0)
    b = analyze(design).bisection
    assert b.exact, b.method
    assert b.gbps == pytest.approx(oracle_by_placement(design))
    assert "every placement" in b.method


def test_mirror_halving_keeps_odd_splits_right() -> None:
    """Odd node count (halves differ): both sides' weights are tried."""
    design = random_design(77, hosts=9, switches=3)
    g, bal, res = _solve(design)
    assert bal.light != bal.heavy or len(np.unique(g.weight[g.endpoint])) > 1
    assert res is not None
    assert res.value == pytest.approx(oracle_bisection(design))
