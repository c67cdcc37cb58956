"""Slurm topology.conf: every compute node exactly once under a leaf."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from designer.core.model import Device
from designer.io.export import compress_hostlist, hostnames, write_slurm_topology
from tests.io.export.designs import rail_design


def expand_hostlist(text: str) -> list[str]:
    """Oracle: expand ``a[01-03,07],b`` the way Slurm does (one bracket level)."""
    out: list[str] = []
    for m in re.finditer(r"([^,\[\]]+)(?:\[([^\]]+)\])?", text):
        prefix, body = m.group(1), m.group(2)
        if body is None:
            out.append(prefix)
            continue
        for part in body.split(","):
            lo, _, hi = part.partition("-")
            width = len(lo)
            for k in range(int(lo), int(hi or lo) + 1):
                out.append(f"{prefix}{k:0{width}d}")
    return out


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        ([f"dgx{i:03d}" for i in range(1, 33)], "dgx[001-032]"),
        (["dgx001", "dgx003", "dgx002", "dgx010"], "dgx[001-003,010]"),
        (["login", "dgx7"], "dgx7,login"),
        (["a1", "a01", "a2"], "a[1-2],a01"),
        (["su1-n9", "su1-n10", "su2-n1"], "su1-n[9-10],su2-n1"),
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


def test_every_node_exactly_once(tmp_path: Path) -> None:
    design = rail_design()
    out = tmp_path / "topology.conf"
    text = write_slurm_topology(design, out)
    assert out.read_text() == text
    nodes, switches = _parse(text)
    listed = [h for hs in nodes.values() for h in hs]
    assert sorted(listed) == sorted(hostnames(design).values())
    assert len(listed) == len(set(listed)) == 4
    # rail 0-3 leaf wins ties by lowest rail; leaf-2 then has no node: a comment
    assert nodes == {"leaf-1": ["dgx-01", "dgx-02", "dgx-03", "dgx-04"]}
    assert "# SwitchName=leaf-2" in text
    assert switches == {"spine-1": ["leaf-1"], "spine-2": ["leaf-1"]}
    assert "rail-optimized" in text
    assert "SwitchName=leaf-1 Nodes=dgx-[01-04]" in text


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


def test_most_cables_wins_over_rail() -> None:
    design = rail_design(nodes=1)
    # move rails 0..2 of node 1 to leaf-2: leaf-2 now has 7 of its 8 cables
    t = design.links
    for i in range(3):
        t.b[i] = "leaf-2"
    nodes, _ = _parse(write_slurm_topology(design, _Sink()))
    assert nodes == {"leaf-2": ["dgx-01"]}


class _Sink:
    def write(self, s: str) -> int:
        return len(s)
