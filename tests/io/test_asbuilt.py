"""As-built verification: each kind of mistake is named once with both ends, a
clean fabric verifies clean, bad files are refused with file and line."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from designer import generate
from designer.cli.main import main
from designer.io import load_design, save_design
from designer.io.asbuilt import punch_list_csv, verify_fabric
from designer.io.export.ib_fabric import IbEnd, IbFabric, IbLink, ib_fabrics
from designer.io.export.ibnetdiscover import ibnetdiscover_text
from designer.io.ibdiscovered import (
    DiscoveredFileError,
    node_name,
    parse_ibnetdiscover,
    read_ibnetdiscover,
)

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


@pytest.fixture(scope="module")
def design():
    return load_design(SAMPLES / "dgx-h100-superpod-4su.json")


@pytest.fixture(scope="module")
def fabric(design) -> IbFabric:
    return ib_fabrics(design)[0]


def run(design, fab: IbFabric):
    found = parse_ibnetdiscover(ibnetdiscover_text(fab), "built.txt")
    return verify_fabric(design, found)


def ends(item) -> set[tuple[str, int]]:
    return {(e.node, e.port) for e in (item.a, item.b) if e is not None}


def uplinks(fab: IbFabric) -> list[IbLink]:
    n = fab.nodes
    return [x for x in fab.links if n[x.a.node].is_switch and n[x.b.node].is_switch]


def test_the_design_as_built_matches(design, fabric) -> None:
    report = run(design, fabric)
    assert report.ok and report.items == []
    assert report.fabrics == ["compute"] and report.not_in_file == ["storage"]
    assert report.matched_cables == report.designed_cables == 2044


def test_a_pulled_cable_is_missing_with_both_ends_located(design, fabric) -> None:
    fab = copy.copy(fabric)
    pulled = uplinks(fabric)[5]
    fab.links = [x for x in fabric.links if x is not pulled]
    report = run(design, fab)
    (item,) = report.items
    assert item.kind == "missing"
    assert ends(item) == {
        (pulled.a.node, pulled.a.port),
        (pulled.b.node, pulled.b.port),
    }
    assert item.links == (pulled.link,) and item.cables == (pulled.cable,)
    assert item.a.rack and item.a.u is not None and item.a.port_name
    assert "rack" in item.message() and pulled.a.port_name in item.message()


def test_two_cables_swapped_are_two_swapped_items(design, fabric) -> None:
    up = uplinks(fabric)
    a = up[0]
    b = next(x for x in up if x.a.node != a.a.node and x.b.node != a.b.node)
    fab = copy.copy(fabric)
    fab.links = [x for x in fabric.links if x not in (a, b)] + [
        IbLink(a.a, b.b, a.width, a.speed, "", 0),
        IbLink(b.a, a.b, b.width, b.speed, "", 0),
    ]
    report = run(design, fab)
    assert [i.kind for i in report.items] == ["swapped", "swapped"]
    assert {frozenset(ends(i)) for i in report.items} == {
        frozenset({(a.a.node, a.a.port), (b.b.node, b.b.port)}),
        frozenset({(b.a.node, b.a.port), (a.b.node, a.b.port)}),
    }
    assert set(report.items[0].links) | set(report.items[1].links) == {a.link, b.link}


def test_a_leaf_to_leaf_cable_is_unexpected(design, fabric) -> None:
    leaves = [n for n in fabric.switches if n.rank == 0][:2]
    used = {(e.node, e.port) for x in fabric.links for e in (x.a, x.b)}
    free = [
        min(p for p in fabric.port_names[n.desc] if (n.desc, p) not in used)
        for n in leaves
    ]
    extra = IbLink(
        IbEnd(leaves[0].desc, free[0], leaves[0].device, ""),
        IbEnd(leaves[1].desc, free[1], leaves[1].device, ""),
        4,
        "NDR",
        "",
        0,
    )
    fab = copy.copy(fabric)
    fab.links = [*fabric.links, extra]
    report = run(design, fab)
    (item,) = report.items
    assert item.kind == "unexpected"
    assert ends(item) == {(leaves[0].desc, free[0]), (leaves[1].desc, free[1])}
    assert "port unused" in item.expected


def test_a_link_up_at_lower_rate_is_degraded(design, fabric) -> None:
    slow = uplinks(fabric)[3]
    fab = copy.copy(fabric)
    fab.links = [
        IbLink(x.a, x.b, 2, x.speed, x.link, x.cable) if x is slow else x
        for x in fabric.links
    ]
    report = run(design, fab)
    (item,) = report.items
    assert item.kind == "degraded"
    assert (
        item.expected == "4xNDR (400 Gb/s)" and item.found == "up at 2xNDR (200 Gb/s)"
    )


def test_a_host_off_is_its_missing_cables_and_a_stranger_is_unknown(
    design, fabric
) -> None:
    host = fabric.cas[0]
    fab = copy.copy(fabric)
    fab.nodes = dict(fabric.nodes)
    del fab.nodes[host.desc]
    fab.links = [x for x in fabric.links if host.desc not in (x.a.node, x.b.node)]
    report = run(design, fab)
    (item,) = report.items  # a single-port CA: its cable, named from the switch
    assert item.kind == "missing" and f"{host.desc} not seen" in item.found
    # a node the design does not have
    text = ibnetdiscover_text(fabric).replace(f'"{host.desc}"', '"spare-99 mlx5_0"')
    report = verify_fabric(design, parse_ibnetdiscover(text, "x"))
    # its cable leads to a stranger: the cable is unexpected, the node unknown
    kinds = sorted(i.kind for i in report.items)
    assert kinds == ["unexpected", "unknown_device"]
    unknown = next(i for i in report.items if i.kind == "unknown_device")
    assert "spare-99 mlx5_0" in unknown.found
    odd = next(i for i in report.items if i.kind == "unexpected")
    assert f"to {host.desc} port 1" in odd.expected


def test_quantum_switch_descriptions_match_by_name(design, fabric) -> None:
    assert node_name("MF0;leaf-su01-r0:MQM9700/U1") == "leaf-su01-r0"
    assert node_name("dgx-0001.pod.example mlx5_11") == "dgx-0001 mlx5_11"
    assert node_name("dgx-0001  mlx5_11") == "dgx-0001 mlx5_11"
    assert node_name("spine.01") == "spine.01"  # a switch name keeps its dots
    text = ibnetdiscover_text(fabric)
    for sw in fabric.switches:
        text = text.replace(f'"{sw.desc}"', f'"MF0;{sw.desc}:MQM9700/U1"')
    assert verify_fabric(design, parse_ibnetdiscover(text, "x")).ok


def test_punch_list_csv_has_a_row_per_item(design, fabric) -> None:
    fab = copy.copy(fabric)
    fab.links = fabric.links[3:]
    report = run(design, fab)
    lines = punch_list_csv(report).splitlines()
    assert len(lines) == 1 + len(report.items) == 4
    assert lines[0].startswith("item,kind,fabric,a_device,a_node,a_port")
    assert "Missing cable" in lines[1]


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("", None, "no Switch or Ca stanza"),
        ("hello world\n", 1, "expected a 'Switch', 'Ca' or '[port]' line"),
        ('[1]\t"S-1"[2]\n', 1, "before any Switch or Ca line"),
        ('Switch\t4 "S-1"  # "a"\n[9]\t"H-2"[1]  # "b" lid 1 4xNDR\n', 2, "port 9"),
        ('Switch\t4 "S-1"  # "a"\n[1 "H-2"\n', 2, "expected a port line"),
        (
            'Switch\t4 "S-1"  # "a"\n[1]\t"H-2"[1]\n[2]\t"H-2"[1]\n',
            3,
            "is cabled to",
        ),
    ],
)
def test_bad_files_name_the_line_and_what_was_expected(text, line, words) -> None:
    with pytest.raises(DiscoveredFileError) as info:
        parse_ibnetdiscover(text, "built.txt")
    assert info.value.line == line and words in str(info.value)
    assert str(info.value).startswith("built.txt" + (f":{line}" if line else ""))


def test_verify_command_exit_codes(tmp_path, capsys) -> None:
    design = generate.fat_tree("dgx-h100", 12, "qm9700")
    path = tmp_path / "d.json"
    save_design(design, path)
    (fab,) = ib_fabrics(design)
    good = tmp_path / "good.txt"
    good.write_text(ibnetdiscover_text(fab))
    assert main(["verify", str(path), str(good)]) == 0
    assert "matches the design" in capsys.readouterr().out
    fab.links = fab.links[1:]
    bad = tmp_path / "bad.txt"
    bad.write_text(ibnetdiscover_text(fab))
    csv_out = tmp_path / "punch.csv"
    assert main(["verify", str(path), str(bad), "--json", "--csv", str(csv_out)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and report["counts"]["missing"] == 1
    assert csv_out.read_text().count("\n") == 2
    broken = tmp_path / "broken.txt"
    broken.write_text('Switch 4 "S-1" # "a"\n[x] oops\n')
    assert main(["verify", str(path), str(broken)]) == 2
    err = capsys.readouterr().err
    assert f"{broken}:2: expected a port line" in err and "Traceback" not in err
    assert main(["verify", str(path), str(tmp_path / "none.txt")]) == 2
    assert "cannot read" in capsys.readouterr().err
    with pytest.raises(DiscoveredFileError):
        read_ibnetdiscover(tmp_path / "none.txt")


@pytest.mark.parametrize("seed", range(12))
def test_random_mistakes_are_each_named_and_nothing_else(seed: int) -> None:
    """Pulls, swaps, moves to a free port and extra leaf-to-leaf cables, on
    ports no other mistake touches: one item per cable wrong, of its kind."""
    import random

    rng = random.Random(seed)
    design = generate.fat_tree("dgx-h100", 12, "qm9700")
    (fab,) = ib_fabrics(design)
    n = fab.nodes
    touched: set[tuple[str, int]] = set()
    used = {(e.node, e.port) for x in fab.links for e in (x.a, x.b)}
    links = list(fab.links)
    want: list[tuple[str, frozenset[tuple[str, int]]]] = []

    def key(*ports: IbEnd | tuple[str, int]) -> frozenset[tuple[str, int]]:
        return frozenset(p if isinstance(p, tuple) else (p.node, p.port) for p in ports)

    def fresh(*ports: IbEnd) -> bool:
        return not any((p.node, p.port) in touched for p in ports)

    def free_port(switch: str) -> int:
        options = [
            p
            for p in fab.port_names[switch]
            if (switch, p) not in used and (switch, p) not in touched
        ]
        return rng.choice(options)

    for _ in range(rng.randint(1, 6)):
        kind = rng.choice(["pull", "swap", "move", "extra"])
        if kind == "pull":
            x = rng.choice(links)
            if not fresh(x.a, x.b):
                continue
            links.remove(x)
            touched |= key(x.a, x.b)
            want.append(("missing", key(x.a, x.b)))
        elif kind == "swap":
            x, y = rng.sample(
                [
                    lk
                    for lk in links
                    if n[lk.a.node].is_switch and n[lk.b.node].is_switch
                ],
                2,
            )
            if (
                not fresh(x.a, x.b, y.a, y.b)
                or x.a.node == y.b.node
                or y.a.node == x.b.node
            ):
                continue
            if x.a.node == y.a.node or x.b.node == y.b.node:
                continue
            links.remove(x)
            links.remove(y)
            links += [
                IbLink(x.a, y.b, 4, "NDR", "", 0),
                IbLink(y.a, x.b, 4, "NDR", "", 0),
            ]
            touched |= key(x.a, x.b, y.a, y.b)
            want += [("swapped", key(x.a, y.b)), ("swapped", key(y.a, x.b))]
        elif kind == "move":
            x = rng.choice(
                [
                    lk
                    for lk in links
                    if n[lk.a.node].is_switch and n[lk.b.node].is_switch
                ]
            )
            if not fresh(x.a, x.b):
                continue
            p = free_port(x.a.node)
            moved = IbEnd(x.a.node, p, x.a.device, "")
            links.remove(x)
            links.append(IbLink(moved, x.b, 4, "NDR", "", 0))
            touched |= key(x.a, x.b) | {(x.a.node, p)}
            want.append(("unexpected", key(moved, x.b)))
        else:
            a, b = rng.sample([s.desc for s in fab.switches if s.rank == 0], 2)
            pa, pb = free_port(a), free_port(b)
            ea, eb = IbEnd(a, pa, n[a].device, ""), IbEnd(b, pb, n[b].device, "")
            links.append(IbLink(ea, eb, 4, "NDR", "", 0))
            touched |= {(a, pa), (b, pb)}
            want.append(("unexpected", key(ea, eb)))
    bad = copy.copy(fab)
    bad.links = links
    report = run(design, bad)
    got = sorted((i.kind, sorted(ends(i))) for i in report.items)
    assert got == sorted((k, sorted(e)) for k, e in want)
    assert report.ok == (not want)


def test_a_leaf_switched_off_is_not_seen_with_its_hosts_and_uplinks(
    design, fabric
) -> None:
    leaf = next(n for n in fabric.switches if n.rank == 0)
    hosts = {
        e.node
        for x in fabric.links
        if leaf.desc in (x.a.node, x.b.node)
        for e in (x.a, x.b)
        if not fabric.nodes[e.node].is_switch
    }
    gone = {leaf.desc} | {
        h
        for h in hosts
        if all(
            leaf.desc in (x.a.node, x.b.node)
            for x in fabric.links
            if h in (x.a.node, x.b.node)
        )
    }
    fab = copy.copy(fabric)
    fab.nodes = {k: v for k, v in fabric.nodes.items() if k not in gone}
    fab.links = [x for x in fabric.links if not {x.a.node, x.b.node} & gone]
    report = run(design, fab)
    counts = report.counts()
    uplinks_of_leaf = [
        x
        for x in fabric.links
        if leaf.desc in (x.a.node, x.b.node)
        and fabric.nodes[x.a.node].is_switch
        and fabric.nodes[x.b.node].is_switch
    ]
    assert counts["not_seen"] == len(gone)
    assert counts["missing"] == len(uplinks_of_leaf) > 0
    assert sum(counts.values()) == len(report.items) == len(gone) + len(uplinks_of_leaf)
    assert any(i.kind == "not_seen" and i.a.node == leaf.desc for i in report.items)
