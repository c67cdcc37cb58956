"""Small hand-built designs for analysis tests (no generator needed)."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

import networkx as nx
from networkx.algorithms.flow import boykov_kolmogorov, build_residual_network

from designer.core.model import (
    Design,
    Device,
    Fabric,
    Link,
    LinkTable,
    Placement,
    Settings,
    Tier,
)

PORTS = {
    "compute": "compute",
    "switch": "ports",
    "storage": "data",
}


@dataclass
class Spec:
    """A device to place: id, catalog id, optional tier/ports/rack."""

    id: str
    catalog_id: str
    tier: Tier | None = None
    ports: dict[str, int] | None = None
    rack: str | None = None
    group: str | None = None


def make_design(
    devices: Iterable[Spec],
    links: Iterable[tuple[str, str, str, str, int, int]],
    *,
    fabric: dict[int, Fabric] | None = None,
    rails: dict[int, int] | None = None,
    **settings: object,
) -> Design:
    """Design from device specs and links (a, a_port, b, b_port, cables, speed)."""
    devs = [
        Device(
            id=s.id,
            catalog_id=s.catalog_id,
            tier=s.tier,
            ports=s.ports,
            group=s.group,
            placement=Placement(rack=s.rack) if s.rack else None,
        )
        for s in devices
    ]
    table = LinkTable()
    for i, (a, ap, b, bp, cables, speed) in enumerate(links):
        table.append(
            Link(
                id=f"l{i}",
                a=a,
                a_port=ap,
                b=b,
                b_port=bp,
                cables=cables,
                speed_gbps=speed,
                fabric=(fabric or {}).get(i, Fabric.COMPUTE),
                rail=(rails or {}).get(i),
            )
        )
    defaults: dict[str, object] = {
        "scheduler": "slurm",
        "monitoring": ["dcgm"],
    }
    defaults.update(settings)
    return Design(settings=Settings(**defaults), devices=devs, links=table)  # type: ignore[arg-type]


def random_design(seed: int, *, hosts: int = 8, switches: int = 4) -> Design:
    """A random connected compute fabric of generic hosts and generic switches.

    Some hosts are DGX H100 (8 GPUs) when ``seed`` is odd, so GPU weights differ.
    """
    rng = random.Random(seed)
    specs: list[Spec] = []
    for i in range(hosts):
        if seed % 2 and rng.random() < 0.3:
            specs.append(Spec(f"h{i}", "dgx-h100"))
        else:
            specs.append(Spec(f"h{i}", "generic-host", ports={"compute": 16}))
    specs += [
        Spec(f"s{j}", "generic-switch", ports={"ports": 256}) for j in range(switches)
    ]
    links: list[tuple[str, str, str, str, int, int]] = []
    speeds = (100, 200, 400)
    for i in range(hosts):
        for j in rng.sample(range(switches), rng.randint(1, min(3, switches))):
            links.append(
                (
                    f"h{i}",
                    "compute",
                    f"s{j}",
                    "ports",
                    rng.randint(1, 2),
                    rng.choice(speeds),
                )
            )
    for j in range(switches):
        for k in range(j + 1, switches):
            if rng.random() < 0.6:
                links.append(
                    (f"s{j}", "ports", f"s{k}", "ports", rng.randint(1, 4), 400)
                )
    if rng.random() < 0.3 and hosts >= 2:
        # a back-to-back host link now and then
        links.append(("h0", "compute", "h1", "compute", 1, 400))
    return make_design(specs, links)


def gpus_of(design: Design) -> dict[str, int]:
    """GPUs per compute node (DGX H100 and B200 8, generic host 1, NVL72 72)."""
    per = {"dgx-h100": 8, "dgx-b200": 8, "generic-host": 1, "gb200-nvl72": 72}
    return {d.id: per[d.catalog_id] for d in design.devices if d.catalog_id in per}


def balanced_splits(gpus: dict[str, int]) -> Iterable[tuple[set[str], set[str]]]:
    """Every split of the compute nodes into the most balanced halves in GPUs.

    Both sides non-empty, |GPUs(A) - GPUs(B)| the least any split achieves
    (all nodes alike: node counts differ by at most one). Written without the
    product's subset-sum: every split is enumerated twice over.
    """
    nodes = sorted(gpus)
    total = sum(gpus.values())
    first, rest = nodes[0], nodes[1:]
    splits = []
    for r in range(len(rest) + 1):
        for combo in combinations(rest, r):
            side = {first, *combo}
            if len(side) < len(nodes):
                splits.append((side, abs(2 * sum(gpus[x] for x in side) - total)))
    best = min(gap for _, gap in splits)
    for side, gap in splits:
        if gap == best:
            yield side, set(nodes) - side


def oracle_bisection(design: Design) -> float:
    """Brute force: every balanced split, networkx max-flow for each.

    One network holds the fabric and an edge from the source to every compute
    node and from every compute node to the sink; its residual network is
    built once, and each split only sets those edges' capacities (infinite
    into side A and out of side B, zero otherwise) before a max-flow on it
    (Boykov-Kolmogorov, which resets the flows). The same flow per split as a
    network built afresh with only that split's edges, without the rebuild.
    """
    gpus = gpus_of(design)
    graph = nx.DiGraph()
    for link in design.links:
        if link.fabric is not Fabric.COMPUTE:
            continue
        cap = link.cables * link.speed_gbps
        for x, y in ((link.a, link.b), (link.b, link.a)):
            prev = graph.get_edge_data(x, y, {"capacity": 0})["capacity"]
            graph.add_edge(x, y, capacity=prev + cap)
    graph.add_nodes_from(gpus)
    for x in gpus:
        graph.add_edge("__S", x)  # no capacity attribute = infinite
        graph.add_edge(x, "__T")
    residual = build_residual_network(graph, "capacity")
    infinite = residual.graph["inf"]  # larger than every finite cut
    source, sink = residual.succ["__S"], residual.pred["__T"]
    best = float("inf")
    for side_a, side_b in balanced_splits(gpus):
        for x in gpus:
            source[x]["capacity"] = infinite if x in side_a else 0
            sink[x]["capacity"] = infinite if x in side_b else 0
        boykov_kolmogorov(graph, "__S", "__T", residual=residual)
        best = min(best, residual.graph["flow_value"])
    return best


def fat_tree_2tier(
    leaves: int, spines: int, hosts_per_leaf: int, up_per_leaf: int, speed: int = 400
) -> Design:
    """Hand-built leaf-spine: hosts single-homed, each leaf wired evenly to spines."""
    specs = [
        Spec(f"leaf{i}", "generic-switch", Tier.LEAF, {"ports": 64})
        for i in range(leaves)
    ]
    specs += [
        Spec(f"spine{j}", "generic-switch", Tier.SPINE, {"ports": 64})
        for j in range(spines)
    ]
    links: list[tuple[str, str, str, str, int, int]] = []
    for i in range(leaves):
        for h in range(hosts_per_leaf):
            hid = f"h{i}_{h}"
            specs.append(Spec(hid, "generic-host"))
            links.append((hid, "compute", f"leaf{i}", "ports", 1, speed))
        assert up_per_leaf % spines == 0
        for j in range(spines):
            links.append(
                (
                    f"leaf{i}",
                    "ports",
                    f"spine{j}",
                    "ports",
                    up_per_leaf // spines,
                    speed,
                )
            )
    return make_design(specs, links)


def split_value(design: Design, side_a: Sequence[str]) -> float:
    """Capacity crossing between side_a and the rest (compute fabric)."""
    a = set(side_a)
    return float(
        sum(
            link.cables * link.speed_gbps
            for link in design.links
            if link.fabric is Fabric.COMPUTE and ((link.a in a) != (link.b in a))
        )
    )


def perturbed_fat_tree(
    gpus: int,
    seed: int,
    *,
    removed: float = 0.05,
    changed: float = 0.02,
    extra: int = 4,
    compute: str = "dgx-h100",
    switch: str = "qm9700",
) -> Design:
    """A generated fat tree edited by hand: a fraction of its uplinks removed,
    some switch-to-switch cable counts changed, a few extra switch links."""
    from designer.generate import fat_tree

    rng = random.Random(seed)
    per = {"dgx-h100": 8, "dgx-b200": 8, "gb200-nvl72": 72}[compute]
    design = fat_tree(compute, -(-gpus // per), switch)
    kind = {d.id: d.tier for d in design.devices}
    links = list(design.links)
    up = [
        i
        for i, x in enumerate(links)
        if x.fabric is Fabric.COMPUTE
        and kind[x.a] is not None
        and kind[x.b] is not None
    ]
    gone = set(rng.sample(up, round(removed * len(up))))
    rest = [i for i in up if i not in gone]
    for i in rng.sample(rest, round(changed * len(up))):
        links[i] = links[i].model_copy(
            update={"cables": max(1, links[i].cables + rng.choice((-1, 1)))}
        )
    switches = sorted({links[i].a for i in up} | {links[i].b for i in up})
    for k in range(extra):
        a, b = rng.sample(switches, 2)
        links.append(
            Link(
                id=f"extra{k}",
                a=a,
                a_port="ports",
                b=b,
                b_port="ports",
                cables=rng.randint(1, 2),
                speed_gbps=400,
            )
        )
    kept = [x for i, x in enumerate(links) if i not in gone]
    return design.model_copy(update={"links": LinkTable.from_links(kept)})


def sketch_design(
    seed: int, hosts: int, *, mixed: bool = False, islands: int = 1
) -> Design:
    """A leaf/spine fabric as drawn by hand: hosts spread unevenly over leaves,
    a few dual-homed, cable counts varied, some uplinks missing or doubled, a
    stray leaf-to-leaf link now and then; ``islands`` separate fabrics."""
    rng = random.Random(seed)
    specs: list[Spec] = []
    rows: list[tuple[str, str, str, str, int, int]] = []
    per_island = [
        hosts // islands + (1 if i < hosts % islands else 0) for i in range(islands)
    ]
    h = 0
    for isl, n_hosts in enumerate(per_island):
        n_leaf = max(2, min(8, n_hosts // rng.randint(4, 8)))
        n_spine = rng.randint(1, 4)
        leaves = [f"i{isl}leaf{j}" for j in range(n_leaf)]
        spines = [f"i{isl}spine{j}" for j in range(n_spine)]
        specs += [
            Spec(x, "generic-switch", ports={"ports": 256}) for x in leaves + spines
        ]
        for _ in range(n_hosts):
            hid = f"h{h}"
            h += 1
            big = mixed and rng.random() < 0.3
            specs.append(
                Spec(hid, "dgx-h100")
                if big
                else Spec(hid, "generic-host", ports={"compute": 16})
            )
            home = rng.sample(leaves, 2 if rng.random() < 0.15 else 1)
            for leaf in home:
                rows.append((hid, "compute", leaf, "ports", rng.randint(1, 2), 400))
        for leaf in leaves:
            for sp in spines:
                r = rng.random()
                if r < 0.12:
                    continue  # missing uplink
                cables = rng.randint(1, 3) * (2 if r > 0.9 else 1)
                rows.append((leaf, "ports", sp, "ports", cables, 400))
        if rng.random() < 0.3:
            a, b = rng.sample(leaves, 2)
            rows.append((a, "ports", b, "ports", rng.randint(1, 2), 400))
    return make_design(specs, rows)
