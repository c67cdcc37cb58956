"""The exported topology in the real InfiniBand tools (ibsim, OpenSM, ibnetdiscover).

Each test writes a design's fabric with ``export --ibnetdiscover --opensm``,
brings it up in ibsim, routes it with ``opensm -R ftree`` and the exported
root (and compute/I-O) GUID files, discovers it with ``ibnetdiscover`` and
runs ``verify`` on what was discovered. ibsim 0.10 brings NDR/XDR links up at
SDR: those ``degraded`` items are the simulator's (``ibsim_rate_items``) and
are set aside here, each checked to be exactly that.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from designer import generate
from designer.cli.main import main
from designer.core.model import Design
from designer.io import load_design, save_design
from designer.io.export.ib_fabric import IbFabric, ib_fabrics
from tests.ib.harness import (
    MISSING,
    SKIP_REASON,
    Sim,
    ibsim_rate_items,
    limits_for,
)

pytestmark = [pytest.mark.ib, pytest.mark.skipif(bool(MISSING), reason=SKIP_REASON)]

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
FTREE_OK = "ftree tables configured on all switches"


@dataclass
class Exported:
    design_file: Path
    topo: dict[str, Path]
    opensm: Path
    fabrics: dict[str, IbFabric]

    def opensm_options(self, fabric: str, *, roots: bool = True) -> list[str]:
        opts = ["-R", "ftree"]
        files = (
            ("root-guids.txt", "-a"),
            ("cn-guids.txt", "--cn_guid_file"),
            ("io-guids.txt", "--io_guid_file"),
        )
        for name, flag in files:
            if name == "root-guids.txt" and not roots:
                continue
            path = self.opensm / f"{fabric}-{name}"
            if path.exists():
                opts += [flag, str(path)]
        return opts


def export(design: Design | Path, tmp: Path) -> Exported:
    """``cluster-designer export --ibnetdiscover --opensm`` of ``design``."""
    if isinstance(design, Design):
        path = tmp / "design.json"
        save_design(design, path)
    else:
        path = design
    topo = tmp / "fabric.topo"
    osm = tmp / "opensm"
    code = main(
        ["export", str(path), "--ibnetdiscover", str(topo), "--opensm", str(osm)]
    )
    assert code == 0
    fabrics = {f.name: f for f in ib_fabrics(load_design(path))}
    paths = {}
    for i, name in enumerate(fabrics):
        paths[name] = topo if i == 0 else topo.with_name(f"fabric-{name}.topo")
        assert paths[name].exists()
    return Exported(path, paths, osm, fabrics)


def verify(design_file: Path, text: str, tmp: Path, capsys: Any) -> tuple[int, dict]:
    found = tmp / f"discovered-{time.monotonic_ns()}.txt"
    found.write_text(text)
    capsys.readouterr()
    code = main(["verify", str(design_file), str(found), "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


def design_items(report: dict) -> list[dict]:
    """The items that are the fabric's, not the simulator's rate limit."""
    sim = {id(i) for i in ibsim_rate_items(report["items"])}
    return [i for i in report["items"] if id(i) not in sim]


def bring_up(ex: Exported, fabric: str, tmp: Path) -> Sim:
    fab = ex.fabrics[fabric]
    limits = limits_for(
        len(fab.switches), len(fab.cas), sum(n.ports for n in fab.switches)
    )
    return Sim(ex.topo[fabric], tmp, limits)


def _routed(log: str) -> bool:
    return FTREE_OK in log and "ERR AB" not in log


# -- a fabric comes up, routes under ftree and verifies clean ---------------


def test_generated_fat_tree_comes_up_routes_and_verifies(
    tmp_path: Path, capsys
) -> None:
    design = generate.fat_tree("dgx-h100", 12, "qm9700")
    ex = export(design, tmp_path)
    fab = ex.fabrics["compute"]
    sim = bring_up(ex, "compute", tmp_path)
    try:
        host = fab.cas[0].node_id
        code, log, _ = sim.opensm(host, *ex.opensm_options("compute"))
        assert code == 0
        assert _routed(log), log[-3000:]
        assert "FatTree rank (roots to leaf switches): 2" in log
        text = sim.discover(host)
        code, report = verify(ex.design_file, text, tmp_path, capsys)
    finally:
        sim.close()
    # every cable seen as designed; only the simulator's rate limit remains
    assert report["matched_cables"] == report["designed_cables"] == len(fab.links)
    assert report["seen_cables"] == len(fab.links)
    assert design_items(report) == []
    rate = ibsim_rate_items(report["items"])
    assert len(rate) in (0, len(fab.links))  # 0: an ibsim that parses NDR
    assert code == (0 if not rate else 1)
    assert {n.desc for n in fab.nodes.values()} <= set(text.split('"'))


@pytest.mark.parametrize(
    "source",
    ["generated", "dgx-h100-superpod-4su"],
    ids=["fat-tree-12", "h100-4su-placed"],
)
def test_mistakes_made_in_ibsim_are_each_named_and_nothing_else(
    source: str, tmp_path: Path, capsys
) -> None:
    placed = source != "generated"
    design: Design | Path = (
        SAMPLES / f"{source}.json"
        if placed
        else generate.fat_tree("dgx-h100", 12, "qm9700")
    )
    ex = export(design, tmp_path)
    fab = ex.fabrics["compute"]
    nodes = fab.nodes
    sid = {n.desc: n.node_id for n in nodes.values()}
    used: dict[str, set[int]] = {}
    for link in fab.links:
        for e in (link.a, link.b):
            used.setdefault(e.node, set()).add(e.port)

    def free(switch: str) -> int:
        return min(set(fab.port_names[switch]) - used[switch])

    down = [
        x
        for x in fab.links
        if not nodes[x.b.node].is_switch or not nodes[x.a.node].is_switch
    ]
    up = [
        x for x in fab.links if nodes[x.a.node].is_switch and nodes[x.b.node].is_switch
    ]

    def leaf_end(link):  # (leaf end, spine end) of an uplink
        a, b = link.a, link.b
        return (a, b) if nodes[a.node].rank < nodes[b.node].rank else (b, a)

    # 1. a host cable pulled
    pulled = down[0]
    sw_end = pulled.a if nodes[pulled.a.node].is_switch else pulled.b
    host_end = pulled.b if sw_end is pulled.a else pulled.a
    # 2. two uplinks of different leaves swapped at the spines
    u1 = up[0]
    u2 = next(
        x
        for x in up
        if leaf_end(x)[0].node != leaf_end(u1)[0].node
        and leaf_end(x)[1].node != leaf_end(u1)[1].node
    )
    (l1, s1), (l2, s2) = leaf_end(u1), leaf_end(u2)
    # 3. an uplink moved to a free port of its leaf
    u3 = next(x for x in up if leaf_end(x)[0].node not in {l1.node, l2.node})
    l3, s3 = leaf_end(u3)
    l3_free = free(l3.node)
    # 4. leaf to leaf on free ports
    leaves = [n.desc for n in fab.switches if n.rank == 0]
    la, lb = [x for x in leaves if x != l3.node][:2]
    la_free, lb_free = free(la), free(lb)

    def q(node: str, port: int) -> str:
        return f'"{sid[node]}"[{port}]'

    commands = [
        f"Unlink {q(sw_end.node, sw_end.port)}",
        f"Unlink {q(l1.node, l1.port)}",
        f"Unlink {q(l2.node, l2.port)}",
        f"Link {q(l1.node, l1.port)} {q(s2.node, s2.port)}",
        f"Link {q(l2.node, l2.port)} {q(s1.node, s1.port)}",
        f"Unlink {q(l3.node, l3.port)}",
        f"Link {q(l3.node, l3_free)} {q(s3.node, s3.port)}",
        f"Link {q(la, la_free)} {q(lb, lb_free)}",
    ]
    sim = bring_up(ex, "compute", tmp_path)
    try:
        host = next(n.node_id for n in fab.cas if n.desc != host_end.node)
        said = sim.console(*commands)
        assert "can't link" not in said and "not found" not in said, said
        text = sim.discover(host)
        code, report = verify(ex.design_file, text, tmp_path, capsys)
        # OpenSM's fat-tree router accepts the leaf-to-leaf cable (siblings)
        _, log, _ = sim.opensm(host, *ex.opensm_options("compute"))
    finally:
        sim.close()
    assert code == 1
    items = design_items(report)
    got = sorted(
        (
            i["kind"],
            tuple(sorted((e["node"], e["port"]) for e in (i["a"], i["b"]) if e)),
        )
        for i in items
    )
    want = sorted(
        [
            (
                "missing",
                tuple(sorted([(sw_end.node, sw_end.port), (host_end.node, 1)])),
            ),
            ("swapped", tuple(sorted([(l1.node, l1.port), (s2.node, s2.port)]))),
            ("swapped", tuple(sorted([(l2.node, l2.port), (s1.node, s1.port)]))),
            ("unexpected", tuple(sorted([(l3.node, l3_free), (s3.node, s3.port)]))),
            ("unexpected", tuple(sorted([(la, la_free), (lb, lb_free)]))),
        ]
    )
    assert got == want, json.dumps(items, indent=1)[:4000]
    # each item names both ends with their rack and U from the physical layer
    for item in items:
        for e in (item["a"], item["b"]):
            assert e["device"] and e["port_name"], item
            if placed:
                assert e["rack"] and e["u"] is not None, item
    assert FTREE_OK in log  # ftree does not flag the sibling link: we do


# -- every InfiniBand sample within ibsim's limits comes up under ftree -------

IB_SAMPLES = [
    "dgx-h100-superpod-4su",
    "gb200-nvl72-su",
    "vera-rubin-nvl72-pod",
    "dgx-b200-superpod-16su",
]


@pytest.mark.slow
@pytest.mark.parametrize("sample", IB_SAMPLES)
def test_every_ib_sample_routes_under_ftree_and_verifies(
    sample: str, tmp_path: Path, capsys
) -> None:
    ex = export(SAMPLES / f"{sample}.json", tmp_path)
    for name, fab in ex.fabrics.items():
        work = tmp_path / name
        work.mkdir()
        sim = bring_up(ex, name, work)
        try:
            host = next(n.node_id for n in fab.cas if n.role == "compute")
            code, log, _took = sim.opensm(host, *ex.opensm_options(name))
            text = sim.discover(host)
        finally:
            sim.close()
        assert code == 0
        assert _routed(log), f"{sample} {name}: {log[-3000:]}"
        code, report = verify(ex.design_file, text, tmp_path, capsys)
        assert design_items(report) == [], (sample, name, report["counts"])
        assert report["matched_cables"] == len(fab.links)


def test_a_single_switch_fabric_is_not_a_fat_tree_for_opensm(
    tmp_path: Path, capsys
) -> None:
    """The minimum viable enterprise sample has one leaf: OpenSM's ftree needs
    two tiers and routes it with its default engine; it still verifies clean."""
    ex = export(SAMPLES / "minimum-viable-enterprise.json", tmp_path)
    ((name, fab),) = ex.fabrics.items()
    assert name == "compute+storage" and len(fab.switches) == 1
    sim = bring_up(ex, name, tmp_path)
    try:
        host = fab.cas[0].node_id
        code, log, _ = sim.opensm(host, *ex.opensm_options(name))
        text = sim.discover(host)
    finally:
        sim.close()
    assert code == 0
    assert "topology is not fat-tree" in log
    code, report = verify(ex.design_file, text, tmp_path, capsys)
    assert design_items(report) == []
    assert report["seen_cables"] == len(fab.links) == 30


@pytest.mark.slow
@pytest.mark.parametrize(
    "make",
    [
        lambda: generate.fat_tree("dgx-b200", 64, "qm9700"),
        lambda: generate.fat_tree("dgx-h100", 256, "qm9700", tiers=3),
        lambda: generate.fat_tree("gb200-nvl72", 8, "qm9700"),
        lambda: generate.fat_tree("dgx-a100", 40, "qm8700"),
        lambda: generate.superpod("dgx-h100", 2),
        lambda: generate.superpod("dgx-b200", 1),
        lambda: generate.superpod("gb200-nvl72", 2),
    ],
    ids=[
        "b200-64",
        "h100-256-3tier",
        "gb200-8racks",
        "a100-40-hdr",
        "superpod-h100-2su",
        "superpod-b200-1su",
        "superpod-gb200-2su",
    ],
)
def test_generated_fabrics_route_under_ftree(make, tmp_path: Path, capsys) -> None:
    ex = export(make(), tmp_path)
    assert ex.fabrics
    for name, fab in ex.fabrics.items():
        work = tmp_path / name.replace("+", "_")
        work.mkdir()
        sim = bring_up(ex, name, work)
        try:
            host = next(n.node_id for n in fab.cas if n.role == "compute")
            code, log, _ = sim.opensm(host, *ex.opensm_options(name))
            text = sim.discover(host)
        finally:
            sim.close()
        assert code == 0
        if len(fab.switches) > 1:
            assert _routed(log), f"{name}: {log[-3000:]}"
        _, report = verify(ex.design_file, text, tmp_path, capsys)
        assert design_items(report) == [], (name, report["counts"])
        if all(lk.speed == "HDR" for lk in fab.links):  # ibsim 0.10 parses HDR
            assert report["ok"], report["counts"]


# -- what OpenSM itself reports on miswired fat trees (the notes) ------


@pytest.mark.slow
def test_opensm_refuses_uneven_uplinks_and_a_node_on_a_spine(tmp_path: Path) -> None:
    design = generate.fat_tree("dgx-h100", 12, "qm9700")
    ex = export(design, tmp_path)
    fab = ex.fabrics["compute"]
    nodes = fab.nodes
    sid = {n.desc: n.node_id for n in nodes.values()}
    up = [
        x for x in fab.links if nodes[x.a.node].is_switch and nodes[x.b.node].is_switch
    ]
    leaf_up = up[0].a if nodes[up[0].a.node].rank == 0 else up[0].b
    spine = next(n for n in fab.switches if n.rank == 1)
    spine_used = {e.port for x in fab.links for e in (x.a, x.b) if e.node == spine.desc}
    spine_free = min(set(fab.port_names[spine.desc]) - spine_used)
    host_end = next(
        e for x in fab.links for e in (x.a, x.b) if not nodes[e.node].is_switch
    )
    host = nodes[host_end.node]
    other = next(n for n in fab.cas if n.desc != host.desc)
    sim = bring_up(ex, "compute", tmp_path)
    try:
        # one uplink pulled: without the root GUIDs ftree cannot rank it
        sim.console(f'Unlink "{sid[leaf_up.node]}"[{leaf_up.port}]')
        _, log_no_roots, _ = sim.opensm(
            other.node_id, *ex.opensm_options("compute", roots=False)
        )
        # with the exported root GUID file it routes the degraded tree
        _, log_roots, _ = sim.opensm(other.node_id, *ex.opensm_options("compute"))
        # a host cabled to a spine
        sim.console(
            f'Unlink "{host.node_id}"[1]',
            f'Link "{host.node_id}"[1] "{spine.node_id}"[{spine_free}]',
        )
        _, log_cn, _ = sim.opensm(other.node_id, *ex.opensm_options("compute"))
    finally:
        sim.close()
    assert "ERR AB0B: Different number of ports in an upward port group" in (
        log_no_roots
    ), log_no_roots[-2000:]
    assert FTREE_OK in log_roots, log_roots[-2000:]
    assert "ERR AB26: CN port" in log_cn, log_cn[-2000:]
    assert f"{host.port_guid(1):x}" in log_cn  # it names the host's port GUID
