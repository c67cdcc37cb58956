"""Slurm findings on NVL72 designs: trays without compute links, NVLink domains
of unequal size, block sizes that do not tile the leaf groups."""

from __future__ import annotations

import csv
import io

import pytest

from designer.analysis import analyze, build_index
from designer.analysis.blocks import cabled_trays, compute_leaves, plan_blocks
from designer.catalog import default_catalog
from designer.catalog.hosts import design_hosts
from designer.core.model import Design, Device, Link, LinkTable
from designer.generate import fat_tree
from designer.io.export import write_cabling_csv


def _codes(design: Design) -> dict[str, str]:
    return {f.code: f.message for f in analyze(design).findings}


def _plan(design: Design) -> tuple[int, tuple[int, ...], list[int]]:
    hosts = design_hosts(design)
    idx = build_index(design, default_catalog())
    plan = plan_blocks(hosts, compute_leaves(idx))
    assert plan is not None
    return len(plan.blocks), plan.sizes, [len(g.domains) for g in plan.groups]


@pytest.mark.parametrize(
    ("racks", "su", "blocks", "sizes", "groups", "misaligned"),
    [
        (8, None, 8, (18, 36, 72, 144), [8], False),
        (16, 8, 16, (18, 36, 72, 144), [8, 8], False),
        (12, 4, 12, (18, 36, 72), [4, 4, 4], False),
        (6, None, 6, (18, 36), [6], True),  # 6 is no power of two
        (12, 8, 12, (18, 36, 72), [8, 4], True),  # the 8-rack group > 4
        (1, None, 1, (18,), [1], False),
    ],
)
def test_block_sizes_double_as_far_as_the_leaf_groups_allow(
    racks: int,
    su: int | None,
    blocks: int,
    sizes: tuple[int, ...],
    groups: list[int],
    misaligned: bool,
) -> None:
    design = fat_tree("gb200-nvl72", racks, "qm9700", su_size=su)
    assert _plan(design) == (blocks, sizes, groups)
    found = _codes(design)
    assert ("BLOCK_SIZE_MISALIGNED" in found) is misaligned
    assert "NVLINK_DOMAINS_UNEQUAL" not in found
    assert "TRAY_WITHOUT_COMPUTE_LINK" not in found
    if misaligned:
        assert "power-of-two" in found["BLOCK_SIZE_MISALIGNED"]


def _drop_links(design: Design, ids: set[str]) -> Design:
    keep = [link for link in design.links if link.id not in ids]
    return design.model_copy(update={"links": LinkTable.from_links(keep)})


def test_a_tray_without_compute_cables_is_named_and_matches_the_cabling_plan() -> None:
    design = fat_tree("gb200-nvl72", 8, "qm9700")
    rack = "nvl72-0002" if any(d.id == "nvl72-0002" for d in design.devices) else None
    assert rack is not None
    last = [
        link.id
        for link in design.links
        if rack in (link.a, link.b) and link.fabric.value == "compute"
    ]
    # the rack's last compute link carries its last tray's ports
    design = _drop_links(design, {last[-1]})
    found = _codes(design)
    message = found["TRAY_WITHOUT_COMPUTE_LINK"]
    assert f"{rack}-t[18]" in message or f"{rack}-t18" in message
    # the rule the finding uses is the cabling plan's: same trays
    hosts = design_hosts(design)
    index = build_index(design, default_catalog())
    rule = cabled_trays(index, hosts)
    out = io.StringIO()
    write_cabling_csv(design, out)
    plan: dict[str, set[int]] = {}
    for row in csv.DictReader(io.StringIO(out.getvalue())):
        if row["fabric"] == "compute" and row["from_host"]:
            h = hosts.by_name(row["from_host"])
            assert h is not None and h.tray is not None
            plan.setdefault(h.device, set()).add(h.tray)
    assert rule == plan
    assert 18 not in rule[rack] and len(rule[rack]) == 17


def test_racks_and_servers_side_by_side_are_unequal_domains() -> None:
    design = fat_tree("gb200-nvl72", 2, "qm9700")
    leaf = next(d.id for d in design.devices if d.id.startswith("leaf"))
    extra = [Device(id=f"dgx-{i}", catalog_id="dgx-b200") for i in range(2)]
    links = [
        Link(
            id=f"x{i}",
            a=f"dgx-{i}",
            a_port="compute",
            b=leaf,
            b_port="ports",
            speed_gbps=400,
        )
        for i in range(2)
    ]
    design = design.model_copy(
        update={
            "devices": [*design.devices, *extra],
            "links": LinkTable.from_links([*design.links, *links]),
        }
    )
    found = _codes(design)
    text = found["NVLINK_DOMAINS_UNEQUAL"]
    assert "2 hosts (dgx-[0-1]) are in no NVLink block" in text
    assert "18 hosts" in text


def test_no_slurm_finding_on_designs_without_trays() -> None:
    design = fat_tree("dgx-h100", 64, "qm9700")
    found = _codes(design)
    assert not {"TRAY_WITHOUT_COMPUTE_LINK", "NVLINK_DOMAINS_UNEQUAL"} & set(found)
    assert "BLOCK_SIZE_MISALIGNED" not in found
