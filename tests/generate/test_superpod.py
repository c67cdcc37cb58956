"""Golden tests: SuperPOD presets against RA-H100 Table 4 and RA-B200 Table 3."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from designer.catalog import Catalog, Role, default_catalog
from designer.core.model import Design, GroupKind, Tier
from designer.generate import GeneratorError, superpod
from tests.generate.fabric_checks import (
    check_invariants,
    check_rails,
    compute_cables,
    device_counts,
)
from tests.generate.layout_checks import box_of, overlap, tier_order_problems

# RA-H100 Table 4 (hardware.md §1.1): SU, nodes, GPUs, leaf, spine,
# cables Compute+UFM, cables Spine-Leaf.
TABLE_4 = [
    (1, 31, 248, 8, 4, 252, 256),
    (2, 63, 504, 16, 8, 508, 512),
    (3, 95, 760, 24, 16, 764, 768),
    (4, 127, 1016, 32, 16, 1020, 1024),
]

# RA-B200 Table 3 (hardware.md §1.1): SU, nodes, GPUs, leaf, spine, core,
# node-leaf, leaf-spine, spine-core cables.
TABLE_3 = [
    (2, 64, 512, 16, 8, 0, 512, 512, 0),
    (4, 128, 1024, 32, 16, 0, 1024, 1024, 0),
    (8, 256, 2048, 64, 32, 0, 2048, 2048, 0),
    (16, 512, 4096, 128, 128, 64, 4096, 4096, 4096),
    (32, 1024, 8192, 256, 256, 128, 8192, 8192, 8192),
    (64, 2048, 16384, 512, 512, 256, 16384, 16384, 16384),
]


@pytest.mark.parametrize(("sus", "nodes", "gpus", "leaf", "spine", "cu", "sl"), TABLE_4)
def test_dgx_h100_table_4(
    sus: int, nodes: int, gpus: int, leaf: int, spine: int, cu: int, sl: int
) -> None:
    d = superpod("dgx-h100", sus)
    counts = device_counts(d)
    assert (counts["node"], counts["gpus"]) == (nodes, gpus)
    assert (counts["leaf"], counts["spine"], counts["core"]) == (leaf, spine, 0)
    cables = compute_cables(d)
    # Compute + UFM: DGX-leaf plus the 4 UFM appliance ports
    assert cables["leaf-node"] + cables["leaf-mgmt"] == cu
    assert cables["leaf-mgmt"] == 4
    assert cables["leaf-spine"] == sl
    assert cables["core-spine"] == 0
    ufm = [x for x in d.devices if x.catalog_id == "ufm-appliance"]
    assert len(ufm) == 4
    check_invariants(d)
    check_rails(d)


def test_h100_3_su_has_16_spines_because_12_does_not_divide_32_uplinks() -> None:
    d = superpod("dgx-h100", 3)
    spines = {x.id for x in d.devices if x.tier and x.tier.value == "spine"}
    per_leaf: dict[str, set[str]] = {}
    for a, b, c in zip(d.links.a, d.links.b, d.links.cables, strict=True):
        if b in spines:
            assert c == 2  # 32 uplinks / 16 spines
            per_leaf.setdefault(a, set()).add(b)
    assert len(spines) == 16
    assert all(v == spines for v in per_leaf.values())
    # each spine is provisioned for 4 SU: 48 of 64 ports used
    used = {s: 0 for s in spines}
    for b, c in zip(d.links.b, d.links.cables, strict=True):
        if b in used:
            used[b] += c
    assert set(used.values()) == {48}


@pytest.mark.slow
@pytest.mark.parametrize("system", ["dgx-b200", "dgx-h200"])
@pytest.mark.parametrize(
    ("sus", "nodes", "gpus", "leaf", "spine", "core", "nl", "ls", "sc"), TABLE_3
)
def test_table_3(
    system: str,
    sus: int,
    nodes: int,
    gpus: int,
    leaf: int,
    spine: int,
    core: int,
    nl: int,
    ls: int,
    sc: int,
) -> None:
    d = superpod(system, sus)
    counts = device_counts(d)
    assert (counts["node"], counts["gpus"]) == (nodes, gpus)
    assert not [x for x in d.devices if x.catalog_id == "ufm-appliance"]
    assert (counts["leaf"], counts["spine"], counts["core"]) == (leaf, spine, core)
    cables = compute_cables(d)
    assert cables["leaf-node"] == nl
    assert cables["leaf-spine"] == ls
    assert cables["core-spine"] == sc
    check_invariants(d)
    check_rails(d)
    pods = [g for g in d.groups if g.kind is GroupKind.POD]
    sus_groups = [g for g in d.groups if g.kind is GroupKind.SU]
    assert len(sus_groups) == sus
    if core:
        assert len(pods) == sus // 4  # 4 SU = 32 leaves under 32 spines
        assert all(g.parent in {p.id for p in pods} for g in sus_groups)
    else:
        assert not pods


def test_dgx_h100_beyond_4_su_follows_table_3() -> None:
    counts = device_counts(superpod("dgx-h100", 16))
    assert (counts["node"], counts["leaf"], counts["spine"], counts["core"]) == (
        512,
        128,
        128,
        64,
    )


@pytest.mark.parametrize("sus", [1, 2, 3, 4, 8])
def test_gb200_derivation_invariants(sus: int) -> None:
    """GB200's switch table is unverified: test the derivation, not a table."""
    d = superpod("gb200-nvl72", sus)
    counts = device_counts(d)
    assert counts["node"] == 8 * sus
    assert counts["gpus"] == 576 * sus
    # one NDR port per GPU, every one cabled to a leaf
    cables = compute_cables(d)
    assert cables["leaf-node"] == 576 * sus
    # 32 down / 32 up leaves, each leaf takes 4 whole rails of the SU's 8 racks
    assert counts["leaf"] == 18 * sus
    assert cables["leaf-spine"] == cables["leaf-node"]
    if counts["core"]:
        assert cables["core-spine"] == cables["leaf-node"]
    check_invariants(d)
    check_rails(d)
    assert "derived" in (superpod.__doc__ or "")
    assert "estimate" in d.settings.notes


def test_superpod_layout_and_settings() -> None:
    d = superpod("dgx-b200", 16)
    # tiers of SU 1 and pod 1 (pods wrap into rows, so compare within one)
    ys = {
        x.tier.value: x.y
        for x in d.devices
        if x.tier is not None and x.group in (None, "su01", "pod01")
    }
    ys["node"] = next(x.y for x in d.devices if x.catalog_id == "dgx-b200")
    assert ys["node"] > ys["leaf"] > ys["spine"] > ys["core"]
    assert max(x.y for x in d.devices) == max(  # compute lowest on screen
        x.y for x in d.devices if x.catalog_id == "dgx-b200"
    )
    assert "SuperPOD" in d.settings.name and "16 SU" in d.settings.name
    assert d.settings.purpose.value == "training"
    assert d.settings.scheduler
    assert [x.id for x in d.devices if x.catalog_id == "dgx-b200"][:2] == [
        "dgx-0001",
        "dgx-0002",
    ]
    ids = {x.id for x in d.devices}
    assert {"leaf-su01-r0", "leaf-su16-r7", "spine-p01-01", "core-064"} <= ids
    # SUs wrap into rows of pods (generate.layout): the boxes of the SUs'
    # nodes and leaves never overlap, and SUs of a row run left to right
    su_pts: dict[str, list[tuple[float, float]]] = {}
    for x in d.devices:
        if x.catalog_id == "dgx-b200" or x.tier is Tier.LEAF:
            assert x.group is not None
            su_pts.setdefault(x.group, []).append((x.x, x.y))
    boxes = [box_of(v) for _, v in sorted(su_pts.items())]
    assert not any(overlap(a, b) for a, b in itertools.combinations(boxes, 2))
    for a, b in itertools.pairwise(boxes):
        assert a[2] < b[0] or a[3] < b[1]  # next to the right, or a row lower
    assert tier_order_problems(d) == []


@pytest.mark.parametrize("sus", [1, 3])
def test_superpod_round_trips_through_json(sus: int) -> None:
    d = superpod("dgx-h100", sus)
    again = Design.model_validate_json(d.model_dump_json())
    assert again == d
    assert again.model_dump() == d.model_dump()


@pytest.mark.parametrize(
    ("system", "sus", "message"),
    [
        ("dgx-a100", 1, "unknown SuperPOD system"),
        ("dgx-h100", 0, "at least 1"),
        ("dgx-h100", 1.5, "whole number"),
        ("dgx-b200", 129, "at most"),
    ],
)
def test_superpod_bad_input(system: str, sus: int, message: str) -> None:
    with pytest.raises(GeneratorError, match=message):
        superpod(system, sus)


@pytest.mark.parametrize(("system", "sus"), [("dgx-h100", 4), ("gb200-nvl72", 2)])
def test_management_side_is_separate_and_complete(system: str, sus: int) -> None:
    """Head nodes, in-band and out-of-band networks; compute counts untouched."""
    d = superpod(system, sus)
    cat = default_catalog()
    by_fabric: dict[str, set[str]] = {}
    for a, b, f in zip(d.links.a, d.links.b, d.links.fabric, strict=True):
        by_fabric.setdefault(f.value, set()).update((a, b))
    counts = Counter(x.catalog_id for x in d.devices)
    assert counts["head-node"] == 5
    mgmt_switches = {x.id for x in d.devices if x.tier is None and x.group == "mgmt"}
    mgmt_switches -= {x.id for x in d.devices if x.catalog_id == "head-node"}
    assert mgmt_switches
    assert not mgmt_switches & by_fabric["compute"]
    assert all(x.tier is None for x in d.devices if x.id in mgmt_switches)
    # every device with a BMC / management port is on the OOB network
    for x in d.devices:
        if cat[x.catalog_id].interfaces_for(Role.OOB) and x.catalog_id != "sn2201":
            assert x.id in by_fabric["oob"], x.id
        if cat[x.catalog_id].interfaces_for(Role.INBAND):
            assert x.id in by_fabric["inband"], x.id
    check_invariants(d)  # port budgets of every fabric included


def test_h100_4_su_management_close_to_the_bom() -> None:
    """RA-H100 BOM (4 SU): 8 SN4600C, 8 SN2201 (incl. storage switches and
    108 PDUs, which are not generated), 5 BCM servers."""
    counts = Counter(x.catalog_id for x in superpod("dgx-h100", 4).devices)
    assert counts["head-node"] == 5
    assert 6 <= counts["sn4600c"] <= 8
    assert 3 <= counts["sn2201"] <= 8


@pytest.mark.parametrize(("system", "sus"), [("dgx-h100", 4), ("gb200-nvl72", 2)])
def test_storage_meets_the_better_guidance(system: str, sus: int) -> None:
    """RA-H100 Table 6 'better': 40 GB/s read per SU of 256 GPUs; every compute
    node's storage ports cabled; storage never on the compute fabric."""
    d = superpod(system, sus)
    cat = default_catalog()
    gpus = device_counts(d)["gpus"]
    specs = [cat[x.catalog_id].ext.storage for x in d.devices]
    read = sum(s.read_gbytes_s for s in specs if s is not None)
    assert read >= 40 * max(gpus / 256, sus)
    storage_ends: Counter[str] = Counter()
    for a, b, c, f in zip(
        d.links.a, d.links.b, d.links.cables, d.links.fabric, strict=True
    ):
        if f.value == "storage":
            storage_ends[a] += c
            storage_ends[b] += c
            assert d.device_map()[b].tier is None
    for x in d.devices:
        ports = cat[x.catalog_id].interfaces_for(Role.STORAGE)
        if ports and x.tier is None:
            assert storage_ends[x.id] == sum(i.count for i in ports), x.id
    assert "Storage (sketch)" in d.settings.notes


@pytest.mark.slow
def test_storage_skipped_with_a_note_when_too_large() -> None:
    d = superpod("dgx-b200", 128)
    assert not [x for x in d.devices if x.catalog_id == "lustre-appliance"]
    assert "No storage generated" in d.settings.notes


def test_superpod_without_management_entries_still_builds_the_fabric() -> None:
    cat = default_catalog()
    drop = {"head-node", "sn2201", "sn4600c", "lustre-appliance"}
    small = Catalog([e for e in cat.values() if e.slug not in drop])
    d = superpod("dgx-h100", 2, catalog=small)
    counts = device_counts(d)
    assert (counts["node"], counts["leaf"], counts["spine"]) == (63, 16, 8)
    assert "No storage generated" in d.settings.notes
    assert "No management networks generated" in d.settings.notes
