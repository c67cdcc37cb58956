"""Bisection against a brute-force oracle (every balanced split, networkx max-flow)."""

from __future__ import annotations

import pytest

from designer.analysis import analyze, bisection, candidates, levels
from designer.core.model import Fabric
from tests.analysis.builders import (
    Spec,
    balanced_splits,
    fat_tree_2tier,
    gpus_of,
    make_design,
    oracle_bisection,
    random_design,
    split_value,
)

SEEDS = range(40)


def _no_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    """Turn the first result's exact methods off (the bounds path alone)."""
    monkeypatch.setattr(bisection, "EXACT_LIVE_COMPUTE", 0)
    monkeypatch.setattr(bisection, "EXACT_LIVE_LOCAL", 0)
    monkeypatch.setattr(bisection, "PLACEMENT_LIVE_DEVICES", -1)


def _check_cut(design, report) -> None:  # type: ignore[no-untyped-def]
    """The reported cut is a real balanced split whose crossing is the upper bound."""
    b = report.bisection
    gpus = gpus_of(design)
    a_nodes = {x for x in b.side_a if x in gpus}
    assert any(a_nodes in (sa, sb) for sa, sb in balanced_splits(gpus))
    assert split_value(design, b.side_a) == pytest.approx(b.upper_gbps)
    crossing = {
        link.id
        for link in design.links
        if link.fabric is Fabric.COMPUTE
        and ((link.a in b.side_a) != (link.b in b.side_a))
    }
    assert set(b.cut_links) == crossing


@pytest.mark.parametrize("seed", SEEDS)
def test_exact_equals_brute_force(seed: int) -> None:
    design = random_design(seed, hosts=4 + seed % 7, switches=2 + seed % 4)
    report = analyze(design)
    oracle = oracle_bisection(design)
    b = report.bisection
    assert b.exact  # the integer program, small designs
    assert b.gbps == pytest.approx(oracle)
    assert b.lower_gbps == pytest.approx(oracle)
    _check_cut(design, report)


@pytest.mark.parametrize("seed", SEEDS)
def test_bounds_bracket_brute_force_without_enumeration(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the integer program off, the candidate/certificate/pair path stays
    sound."""
    _no_exact(monkeypatch)
    design = random_design(1000 + seed, hosts=4 + seed % 6, switches=2 + seed % 4)
    report = analyze(design)
    oracle = oracle_bisection(design)
    b = report.bisection
    assert b.lower_gbps <= oracle + 1e-6
    assert oracle <= b.upper_gbps + 1e-6
    if b.exact:
        assert b.gbps == pytest.approx(oracle)
    _check_cut(design, report)


@pytest.mark.parametrize(
    ("leaves", "spines", "hosts", "up"),
    [
        (2, 1, 4, 4),
        (4, 2, 2, 2),
        (3, 3, 3, 3),
        (4, 2, 3, 2),
        (2, 2, 6, 2),
        (3, 1, 4, 2),
    ],
)
def test_leaf_spine_certificate_matches_brute_force(
    leaves: int, spines: int, hosts: int, up: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Uniform leaf-spine trees: certificate + structured cut are exact and right."""
    _no_exact(monkeypatch)
    design = fat_tree_2tier(leaves, spines, hosts, up)
    b = analyze(design).bisection
    oracle = oracle_bisection(design)
    assert "certificate" in b.method
    assert b.gbps == pytest.approx(oracle)  # the structured cut is optimal
    assert b.lower_gbps <= oracle + 1e-6
    n = leaves * hosts
    closed = (n // 2) * 400 * min(1.0, up / hosts)
    assert b.lower_gbps == pytest.approx(closed)  # theta x min-side injection
    if leaves % 2 == 0:  # halves of whole leaves exist: bounds meet
        assert b.exact, b.method
        assert b.gbps == pytest.approx(closed)


def test_uneven_tree_is_not_certified(monkeypatch: pytest.MonkeyPatch) -> None:
    """A leaf wired to one spine only breaks uniform reach: no certificate."""
    _no_exact(monkeypatch)
    design = fat_tree_2tier(4, 2, 2, 2)
    # rewire: drop leaf0's link to spine1 and double its link to spine0
    links = [
        link for link in design.links if not (link.a == "leaf0" and link.b == "spine1")
    ]
    specs = [Spec(d.id, d.catalog_id, d.tier, d.ports) for d in design.devices]
    rows = [(x.a, x.a_port, x.b, x.b_port, x.cables, x.speed_gbps) for x in links]
    rows = [
        (a, ap, b, bp, 2 if (a, b) == ("leaf0", "spine0") else c, s)
        for a, ap, b, bp, c, s in rows
    ]
    edited = make_design(specs, rows)
    b = analyze(edited).bisection
    oracle = oracle_bisection(edited)
    # the uniform certificate does not apply (the bound near a regular
    # fabric may, and must stay below the truth)
    assert "uniform Clos checked" not in b.method.split("lower bound:")[1]
    assert b.lower_gbps <= oracle + 1e-6 <= b.upper_gbps + 2e-6


def test_single_switch_pair() -> None:
    specs = [Spec("a", "dgx-h100"), Spec("b", "dgx-h100"), Spec("sw", "qm9700")]
    rows = [
        ("a", "compute", "sw", "ports", 8, 400),
        ("b", "compute", "sw", "ports", 8, 400),
    ]
    report = analyze(make_design(specs, rows))
    assert report.bisection.gbps == 3200
    assert report.bisection.ratio == 1.0
    assert report.bisection.exact


def test_fewer_than_two_nodes() -> None:
    report = analyze(make_design([Spec("a", "dgx-h100")], []))
    assert report.bisection.gbps == 0
    assert report.bisection.exact
    assert "fewer than two" in report.bisection.method


def test_disconnected_halves_have_zero_bisection() -> None:
    specs = [Spec(f"h{i}", "generic-host") for i in range(4)]
    specs += [Spec("s0", "generic-switch"), Spec("s1", "generic-switch")]
    rows = [
        ("h0", "compute", "s0", "ports", 1, 400),
        ("h1", "compute", "s0", "ports", 1, 400),
        ("h2", "compute", "s1", "ports", 1, 400),
        ("h3", "compute", "s1", "ports", 1, 400),
    ]
    b = analyze(make_design(specs, rows)).bisection
    assert b.gbps == 0 and b.exact


def _uneven_clos(seed: int):  # type: ignore[no-untyped-def]
    """Two-tier trees with uneven groups: uniform reach, but lopsided capacity."""
    import random

    rng = random.Random(seed)
    specs: list[Spec] = []
    rows: list[tuple[str, str, str, str, int, int]] = []
    spines = [f"sp{j}" for j in range(rng.randint(1, 2))]
    specs += [Spec(s, "generic-switch", ports={"ports": 256}) for s in spines]
    hosts = 0
    group = 0
    while hosts < 6 or (hosts < 10 and rng.random() < 0.5):
        size = rng.randint(1, 4)
        leaves = [f"g{group}l{i}" for i in range(rng.randint(1, 2))]
        specs += [Spec(x, "generic-switch", ports={"ports": 256}) for x in leaves]
        c1 = rng.randint(1, 2)
        for h in range(size):
            hid = f"g{group}h{h}"
            specs.append(Spec(hid, "generic-host", ports={"compute": 8}))
            rows += [(hid, "compute", x, "ports", c1, 400) for x in leaves]
        c2 = rng.randint(1, 3)
        for x in leaves:
            rows += [(x, "ports", s, "ports", c2, 400) for s in spines]
        hosts += size
        group += 1
    return make_design(specs, rows)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(30))
def test_certificate_sound_on_uneven_trees(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_exact(monkeypatch)
    design = _uneven_clos(seed)
    b = analyze(design).bisection
    oracle = oracle_bisection(design)
    assert b.lower_gbps <= oracle + 1e-6, b.method
    assert oracle <= b.upper_gbps + 1e-6
    if b.exact:
        assert b.gbps == pytest.approx(oracle)


def _perturbed_tree(seed: int):  # type: ignore[no-untyped-def]
    """A uniform leaf-spine tree with a few links' capacities changed, one link
    removed now and then, and a leaf-to-leaf link now and then."""
    import random

    from designer.core.model import Link

    rng = random.Random(seed)
    shapes = [(2, 1, 4, 4), (4, 2, 2, 2), (3, 3, 3, 3), (4, 2, 3, 2), (2, 2, 6, 2)]
    design = fat_tree_2tier(*shapes[seed % len(shapes)])
    table = design.links
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(table))
        table.replace(i, table.row(i).model_copy(update={"cables": rng.randint(1, 4)}))
    if rng.random() < 0.3:
        table.pop(rng.randrange(len(table)))
    if rng.random() < 0.3:
        table.append(
            Link(
                id="extra",
                a="leaf0",
                a_port="ports",
                b="leaf1",
                b_port="ports",
                cables=rng.randint(1, 3),
                speed_gbps=400,
            )
        )
    return design


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(40))
def test_levelled_certificate_sound_on_perturbed_trees(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Capacities lowered/raised to a uniform value per level: a sound bound."""
    _no_exact(monkeypatch)
    monkeypatch.setattr(candidates, "PAIR_BOUND_MAX_NODES", 0)
    design = _perturbed_tree(seed)
    oracle = oracle_bisection(design)
    from designer.analysis import build_index
    from designer.analysis.graph import compute_graph

    g = compute_graph(build_index(design))
    from designer.analysis.balance import balance

    bal = balance(g.weight[g.endpoint])
    lb = levels.levelled_bound(g, levels.hierarchy(g), bal)
    if lb is not None:
        assert lb[0] <= oracle + 1e-6, lb[1]
    b = analyze(design).bisection
    assert b.lower_gbps <= oracle + 1e-6, b.method
    assert oracle <= b.upper_gbps + 1e-6
    if b.exact:
        assert b.gbps == pytest.approx(oracle)


@pytest.mark.slow
def test_one_raised_host_link_keeps_the_tree_exact(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _no_exact(monkeypatch)
    monkeypatch.setattr(candidates, "PAIR_BOUND_MAX_NODES", 0)
    design = fat_tree_2tier(4, 2, 3, 2)
    design.links.replace(0, design.links.row(0).model_copy(update={"cables": 3}))
    b = analyze(design).bisection
    assert b.exact
    assert b.gbps == pytest.approx(oracle_bisection(design))
    assert "uniform value per level" in b.method
