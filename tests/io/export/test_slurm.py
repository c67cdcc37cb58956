"""Slurm topology.conf: every compute node exactly once under a leaf."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from designer.core.model import Design, Device, Link, LinkTable, Tier
from designer.io.export import compress_hostlist, hostnames, write_slurm_topology
from tests.io.export.designs import rail_design


def expand_hostlist(text: str) -> list[str]:
    """Oracle: expand ``a[01-03,07],b-[1-2]-t[01-02]`` the way Slurm does (any
    number of bracketed ranges in a name, numbers at the width written)."""
    out: list[str] = []
    for token in re.findall(r"(?:[^,\[\]]|\[[^\]]*\])+", text):
        names = [""]
        for literal, body in re.findall(r"([^\[]*)(?:\[([^\]]*)\])?", token):
            expanded = [literal]
            if body:
                expanded = []
                for part in body.split(","):
                    lo, _, hi = part.partition("-")
                    width = len(lo)
                    expanded += [
                        f"{literal}{k:0{width}d}"
                        for k in range(int(lo), int(hi or lo) + 1)
                    ]
            names = [n + e for n in names for e in expanded]
        out += names
    return out


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        ([f"dgx{i:03d}" for i in range(1, 33)], "dgx[001-032]"),
        (["dgx001", "dgx003", "dgx002", "dgx010"], "dgx[001-003,010]"),
        (["login", "dgx7"], "dgx7,login"),
        (["a1", "a01", "a2"], "a[1-2],a01"),
        (["su1-n9", "su1-n10", "su2-n1"], "su1-n[9-10],su2-n1"),
        (["n098", "n099", "n100"], "n[098-100]"),
        (["n8", "n9", "n10", "n11"], "n[8-11]"),
        (["n09", "n10", "n100"], "n100,n[09-10]"),
        (["dgx-0999", "dgx-1000", "dgx-0001"], "dgx-[0001,0999-1000]"),
        (["n007", "n7", "n07"], "n7,n07,n007"),
        (
            [f"nvl72-{r:04d}-t{t:02d}" for r in (1, 2, 3, 7) for t in range(1, 19)],
            "nvl72-[0001-0003,0007]-t[01-18]",
        ),
        (
            [f"r{r}-t{t:02d}" for r in (1, 2) for t in (1, 2)] + ["r3-t01", "dgx-01"],
            "dgx-01,r[1-2]-t[01-02],r3-t01",
        ),
        ([f"a{r}-b1" for r in (1, 2, 3)], "a[1-3]-b[1]"),
    ],
)
def test_compress_hostlist(names: list[str], expected: str) -> None:
    assert compress_hostlist(names) == expected
    assert sorted(expand_hostlist(expected)) == sorted(names)


def _parse(text: str) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    nodes: dict[str, list[str]] = {}
    switches: dict[str, list[str]] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        fields = dict(f.split("=", 1) for f in line.split())
        name = fields["SwitchName"]
        if "Nodes" in fields:
            nodes[name] = expand_hostlist(fields["Nodes"])
        if "Switches" in fields:
            switches[name] = fields["Switches"].split(",")
    return nodes, switches


def check_tree(text: str, expected_hosts: set[str]) -> dict[str, str]:
    """Assert topology.conf is a strict tree covering ``expected_hosts`` once.

    Returns the parent of each switch that has one.
    """
    assert not re.search(r"^#\s*SwitchName=", text, re.M), "commented-out switch"
    nodes, switches = _parse(text)
    listed = [h for hs in nodes.values() for h in hs]
    assert len(listed) == len(set(listed)), "a node is listed twice"
    assert set(listed) == expected_hosts
    defined = set(nodes) | set(switches)
    assert len(defined) == len(text.split("SwitchName=")) - 1, "a name is reused"
    assert not set(nodes) & set(switches)
    parent: dict[str, str] = {}
    for name, kids in switches.items():
        for kid in kids:
            assert kid in defined, f"{name} lists undefined switch {kid}"
            assert kid not in parent, f"{kid} has two parents"
            parent[kid] = name
    for name in defined:  # no cycles: every chain of parents ends
        seen = {name}
        while name in parent:
            name = parent[name]
            assert name not in seen
            seen.add(name)
    return parent


def _parse(text: str) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    nodes: dict[str, list[str]] = {}
    switches: dict[str, list[str]] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        fields = dict(f.split("=", 1) for f in line.split())
        name = fields["SwitchName"]
        if "Nodes" in fields:
            nodes[name] = expand_hostlist(fields["Nodes"])
        if "Switches" in fields:
            switches[name] = expand_hostlist(fields["Switches"])
    return nodes, switches


def test_rail_group_is_one_logical_leaf(tmp_path: Path) -> None:
    design = rail_design()
    out = tmp_path / "topology.conf"
    text = write_slurm_topology(design, out)
    assert out.read_text() == text
    check_tree(text, set(hostnames(design).values()))
    nodes, switches = _parse(text)
    # leaf-1 (rails 0-3) and leaf-2 (rails 4-7) serve the same 4 nodes
    assert nodes == {"leaf": ["dgx-01", "dgx-02", "dgx-03", "dgx-04"]}
    assert "SwitchName=leaf Nodes=dgx-[01-04]" in text
    assert "# leaf: rail group of 2 switches leaf-[1-2]" in text
    # both spines connect that group: one logical spine above it
    assert switches == {"spine": ["leaf"]}
    assert "# spine: logical switch for 2 switches spine-[1-2]" in text
    assert "Rail-optimized fabric" in text


def _two_fabrics() -> Design:
    """Two single-homed leaves under one spine, and a third leaf on its own."""
    dev = [
        Device(id=f"n{i}", catalog_id="dgx-h100", label=f"node{i:02d}")
        for i in range(1, 7)
    ]
    dev += [
        Device(id=f"tor-{j}", catalog_id="qm9700", label="", tier=Tier.LEAF)
        for j in range(1, 4)
    ]
    dev += [
        Device(id="spine-a", catalog_id="qm9700", label="", tier=Tier.SPINE),
        Device(id="spine-idle", catalog_id="qm9700", label="", tier=Tier.SPINE),
    ]
    links = [
        Link(
            id=f"l{i}",
            a=f"n{i}",
            a_port="compute",
            b=f"tor-{(i + 1) // 2}",
            b_port="ports",
            speed_gbps=400,
        )
        for i in range(1, 7)
    ]
    links += [
        Link(
            id=f"u{j}",
            a=f"tor-{j}",
            a_port="ports",
            b="spine-a",
            b_port="ports",
            speed_gbps=400,
        )
        for j in (1, 2)
    ]
    # a spine wired only to another spine has nothing below it
    links.append(
        Link(
            id="s",
            a="spine-idle",
            a_port="ports",
            b="spine-a",
            b_port="ports",
            speed_gbps=400,
        )
    )
    return Design(devices=dev, links=LinkTable.from_links(links))


def test_single_homed_leaves_keep_their_names_and_islands_are_said() -> None:
    design = _two_fabrics()
    text = write_slurm_topology(design, _Sink())
    parent = check_tree(text, {f"node{i:02d}" for i in range(1, 7)})
    nodes, switches = _parse(text)
    assert nodes == {
        "tor-1": ["node01", "node02"],
        "tor-2": ["node03", "node04"],
        "tor-3": ["node05", "node06"],
    }
    assert switches == {"spine-a": ["tor-1", "tor-2"]}
    assert "tor-3" not in parent
    assert "# 2 separate fabrics" in text
    assert "# Not in the tree (no compute node below them): spine-idle" in text
    assert "Rail-optimized" not in text


def test_switch_with_leaf_name_clash_gets_a_fresh_name() -> None:
    design = rail_design()
    # a physical switch already named like the rail group would be
    design.devices.append(Device(id="leaf", catalog_id="qm9700", label=""))
    design.links.append(
        Link(
            id="x",
            a="leaf",
            a_port="ports",
            b="spine-1",
            b_port="ports",
            speed_gbps=400,
        )
    )
    text = write_slurm_topology(design, _Sink())
    check_tree(text, set(hostnames(design).values()))
    nodes, _ = _parse(text)
    assert list(nodes) == ["rail-group-01"]


def test_hostnames_from_labels_when_they_are_hostnames() -> None:
    design = rail_design()
    for i, d in enumerate(design.devices):
        if d.catalog_id == "dgx-h100":
            design.devices[i] = d.model_copy(update={"label": f"GPU-Node-{i + 7}"})
    names = hostnames(design)
    assert names["dgx-01"] == "gpu-node-7"
    text = write_slurm_topology(design, _Sink())
    assert "Nodes=gpu-node-[7-10]" in text


def test_hostnames_fall_back_to_ids_when_labels_clash() -> None:
    design = rail_design()
    design.devices[1] = Device(
        id="dgx-02", catalog_id="dgx-h100", label="DGX 01", group="su1"
    )
    names = hostnames(design)
    assert names["dgx-01"] == "dgx-01"
    assert names["dgx-02"] == "dgx-02"
    assert all(re.fullmatch(r"[a-z0-9-]+", n) for n in names.values())


class _Sink:
    def write(self, s: str) -> int:
        return len(s)


def test_group_names_keep_the_tokens_members_share() -> None:
    from designer.io.export.slurm import _group_name

    taken: set[str] = set()
    planes = [f"spine-{p}-p07-{i:02d}" for p in "ab" for i in range(1, 33)]
    assert _group_name(planes, taken, "x") == "spine-p07"
    assert _group_name(["leaf-su01-r0", "leaf-su01-r7"], taken, "x") == "leaf-su01"
    assert _group_name(["core-1", "core-spare-2"], taken, "x") == "core"
    # a taken name falls back, and a fallback in use gets a number
    assert _group_name(["spine-p07-1", "spine-p07-2"], taken, "g") == "g"
    assert _group_name(["a-1", "b-2"], taken, "g") == "g-2"
