"""N-1 against brute force: every switch removed, the bisection by enumeration."""

from __future__ import annotations

import networkx as nx
import pytest

from designer.analysis import analyze
from designer.core.model import Design, Fabric
from designer.io import load_design
from designer.workload import read_design
from designer.workload.fabric import tier_name
from tests.analysis.builders import (
    Spec,
    fat_tree_2tier,
    gpus_of,
    make_design,
    oracle_bisection,
    random_design,
)
from tests.workload.conftest import SAMPLES

EPS = 1e-6


def without(design: Design, device: str) -> Design:
    """The design with one device and its links removed."""
    keep = [
        i
        for i, (a, b) in enumerate(zip(design.links.a, design.links.b, strict=True))
        if device not in (a, b)
    ]
    return Design(
        settings=design.settings,
        groups=design.groups,
        devices=[d for d in design.devices if d.id != device],
        links=design.links.take(keep),
    )


def compute_switches(design: Design) -> dict[str, str]:
    """Compute-fabric switch id -> tier name, as the estimate assigns them."""
    facts = read_design(design)
    ids = facts._index.device_ids
    return {ids[i]: tier_name(int(r)) for i, r in enumerate(facts._rank) if r > 0}


def check_against(design: Design, truth: dict[str, float]) -> None:
    """The N-1 figures bracket the true worst failure, overall and per tier."""
    facts = read_design(design)
    n1 = facts.n_minus_1()
    full = facts.report.bisection.full_gbps
    tiers = compute_switches(design)
    assert set(truth) == set(tiers)
    assert n1.switches == len(tiers)
    assert n1.ratio_after is not None and n1.ratio_after_lower is not None
    worst = min(truth.values())
    assert n1.ratio_after_lower * full <= worst + EPS
    assert worst <= n1.ratio_after * full + EPS
    assert n1.worst_device in truth
    assert truth[n1.worst_device] <= n1.ratio_after * full + EPS
    if n1.exact:
        assert n1.ratio_after * full == pytest.approx(worst, abs=EPS)
    for tier, fig in n1.by_tier.items():
        members = {s: v for s, v in truth.items() if tiers[s] == tier}
        assert fig.switches == len(members)
        t_worst = min(members.values())
        assert fig.ratio_lower * full <= t_worst + EPS
        assert t_worst <= fig.ratio * full + EPS
        assert fig.worst_device is not None
        assert truth[fig.worst_device] <= fig.ratio * full + EPS
        if fig.exact:
            assert fig.ratio * full == pytest.approx(t_worst, abs=EPS)
        assert fig.ratio <= n1.ratio_live + EPS


@pytest.mark.parametrize("seed", range(10))
def test_random_fabrics_against_enumeration(seed: int) -> None:
    design = random_design(seed, hosts=8, switches=4)
    truth = {s: oracle_bisection(without(design, s)) for s in compute_switches(design)}
    check_against(design, truth)


@pytest.mark.slow
def test_twin_spines_share_one_analysis() -> None:
    design = fat_tree_2tier(leaves=4, spines=4, hosts_per_leaf=3, up_per_leaf=4)
    truth = {s: oracle_bisection(without(design, s)) for s in compute_switches(design)}
    check_against(design, truth)
    spines = [v for s, v in truth.items() if s.startswith("spine")]
    assert len(set(spines)) == 1  # interchangeable indeed
    n1 = read_design(design).n_minus_1()
    assert n1.exact
    # the spines are twins: one analysis stands for all four
    assert sum(1 for s in n1.analysed if s.startswith("spine")) <= 1


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    ["dgx-h100-superpod-4su.json", "gb200-nvl72-su.json", "inference-ethernet.json"],
)
def test_samples_against_the_naive_recompute(name: str) -> None:
    """Naive: the full analysis of the design without each switch in turn."""
    design = load_design(SAMPLES / name)
    facts = read_design(design)
    n1 = facts.n_minus_1()
    full = facts.report.bisection.full_gbps
    lower, upper = {}, {}
    for s in compute_switches(design):
        b = analyze(without(design, s)).bisection
        lower[s], upper[s] = b.lower_gbps, b.upper_gbps
    assert n1.ratio_after is not None and n1.ratio_after_lower is not None
    # our floor is below every real cut; our worst is no better than the naive floor
    assert n1.ratio_after_lower * full <= min(upper.values()) + EPS
    assert n1.ratio_after * full >= min(lower.values()) - EPS
    assert n1.ratio_after * full <= min(upper.values()) + EPS or not n1.exact
    assert n1.evaluated < len(upper)


def _fabric_graph(design: Design) -> nx.MultiGraph:
    g = nx.MultiGraph()
    g.add_nodes_from(d.id for d in design.devices)
    for link in design.links:
        if link.fabric is Fabric.COMPUTE:
            g.add_edge(link.a, link.b)
    return g


def cut_off_oracle(design: Design, leaf: str) -> int:
    """GPUs that lose the main fabric when ``leaf`` fails (networkx)."""
    gpus = gpus_of(design)

    def main(graph: nx.MultiGraph) -> set[str]:
        comps = [
            c
            for c in nx.connected_components(graph)
            if sum(1 for x in c if x in gpus) >= 2
        ]
        return max(comps, key=lambda c: sum(gpus.get(x, 0) for x in c), default=set())

    g = _fabric_graph(design)
    before = main(g)
    g.remove_node(leaf)
    after = main(g)
    return sum(gpus.get(x, 0) for x in before) - sum(gpus.get(x, 0) for x in after)


def rail_oracle(design: Design, leaf: str) -> int:
    """GPUs whose NIC is cabled to ``leaf``: min(GPUs, cables x GPUs per port)."""
    gpus = gpus_of(design)
    ports = {"dgx-h100": 8, "generic-host": 16}
    kind = {d.id: d.catalog_id for d in design.devices}
    per_node: dict[str, float] = {}
    for link in design.links:
        if link.fabric is not Fabric.COMPUTE:
            continue
        for node, other in ((link.a, link.b), (link.b, link.a)):
            if other == leaf and node in gpus:
                share = max(1.0, gpus[node] / ports[kind[node]])
                per_node[node] = per_node.get(node, 0) + link.cables * share
    return sum(min(gpus[n], round(v)) for n, v in per_node.items())


def test_single_homed_hosts_are_cut_off_with_their_leaf() -> None:
    """Two leaves under one spine; leaf 0's hosts are single-homed to it."""
    specs = [
        Spec("leaf0", "generic-switch"),
        Spec("leaf1", "generic-switch"),
        Spec("spine", "generic-switch"),
    ]
    specs += [Spec(f"a{i}", "dgx-h100") for i in range(3)]
    specs += [Spec(f"b{i}", "dgx-h100") for i in range(3)]
    links = [(f"a{i}", "compute", "leaf0", "ports", 8, 400) for i in range(3)]
    links += [(f"b{i}", "compute", "leaf1", "ports", 8, 400) for i in range(3)]
    links += [
        ("leaf0", "ports", "spine", "ports", 12, 400),
        ("leaf1", "ports", "spine", "ports", 12, 400),
    ]
    design = make_design(specs, links)
    n1 = read_design(design).n_minus_1()
    assert n1.worst_leaf in ("leaf0", "leaf1")
    assert n1.gpus_losing_fabric_path == 24 == cut_off_oracle(design, n1.worst_leaf)
    assert n1.gpus_losing_rail == 24 == rail_oracle(design, n1.worst_leaf)
    assert n1.ratio_after == 0.0  # a leaf's hosts can no longer reach the others
    assert n1.exact


@pytest.mark.parametrize("seed", range(8))
def test_rails_and_paths_against_networkx(seed: int) -> None:
    design = random_design(seed, hosts=10, switches=5)
    facts = read_design(design)
    n1 = facts.n_minus_1()
    if n1.worst_leaf is None:
        pytest.skip("no leaf tier in this random fabric")
    assert n1.gpus_losing_fabric_path == cut_off_oracle(design, n1.worst_leaf)
    assert n1.gpus_losing_rail == rail_oracle(design, n1.worst_leaf)
    leaves = [s for s, t in compute_switches(design).items() if t == "leaf"]
    # the worst leaf cuts off at least as many GPUs as any other leaf
    assert all(cut_off_oracle(design, s) <= n1.gpus_losing_fabric_path for s in leaves)


def test_a_design_without_a_fabric() -> None:
    design = make_design([Spec("a", "dgx-h100")], [])
    n1 = read_design(design).n_minus_1()
    assert n1.ratio_after is None and n1.worst_device is None
    assert "fewer than two compute nodes" in n1.method
