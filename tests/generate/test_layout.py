"""Generated designs are laid out as a readable grid of pods (see generate.layout)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from designer.core.model import Design, Tier
from designer.generate import fat_tree, k_ary, superpod
from designer.generate.layout import Shape, band, grid_layout, side_offsets
from designer.io import load_design
from tests.generate.layout_checks import (
    aspect,
    blocks,
    box_of,
    overlap,
    overlapping_blocks,
    overlapping_devices,
    tier_order_problems,
)

SAMPLES = Path(__file__).resolve().parents[2] / "samples"

GENERATED: dict[str, Callable[[], Design]] = {
    "superpod-h100-1": lambda: superpod("dgx-h100", 1),
    "superpod-h100-2": lambda: superpod("dgx-h100", 2),
    "superpod-h100-4": lambda: superpod("dgx-h100", 4),
    "superpod-h100-8": lambda: superpod("dgx-h100", 8),
    "superpod-b200-16": lambda: superpod("dgx-b200", 16),
    "superpod-h200-32": lambda: superpod("dgx-h200", 32),
    "superpod-gb200-1": lambda: superpod("gb200-nvl72", 1),
    "superpod-gb200-2": lambda: superpod("gb200-nvl72", 2),
    "superpod-gb200-16": lambda: superpod("gb200-nvl72", 16),
    "fat-tree-one-switch": lambda: fat_tree("dgx-h100", 4, "qm9700"),
    "fat-tree-1024": lambda: fat_tree("dgx-h100", 1024, "qm9700"),
    "fat-tree-partial-su": lambda: fat_tree("dgx-b200", 100, "qm9700"),
    "fat-tree-rail-planes": lambda: fat_tree("dgx-h100", 512, "qm9700", tiers=2),
    "fat-tree-not-rail": lambda: fat_tree(
        "hgx-h100", 200, "generic-400g-64", rail_optimized=False
    ),
    "fat-tree-vr-nvl72": lambda: fat_tree("vr-nvl72", 16, "q3400"),
    "fat-tree-l40s": lambda: fat_tree("l40s-server", 64, "sn5600"),
    "k-ary-4": lambda: k_ary(4),
    "k-ary-16": lambda: k_ary(16),
}


@pytest.fixture(scope="module")
def big() -> Design:
    """The 100,000-GPU design of the brief."""
    return fat_tree("dgx-h100", 12_500, "qm9700")


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_generated_blocks_do_not_overlap(name: str) -> None:
    d = GENERATED[name]()
    # top-level groups (pods, SUs, storage, management) and the ungrouped
    # tier bands are what the canvas overview draws as blocks
    assert overlapping_blocks(d, ungrouped=True) == []
    assert overlapping_devices(d) == []
    assert tier_order_problems(d) == []


@pytest.mark.parametrize("name", sorted(p.name for p in SAMPLES.glob("*.json")))
def test_sample_group_boxes_do_not_overlap(name: str) -> None:
    d = load_design(SAMPLES / name)
    assert overlapping_blocks(d, ungrouped=False) == []
    assert overlapping_devices(d) == []


@pytest.mark.parametrize(
    "name",
    [
        "superpod-h100-8",
        "superpod-b200-16",
        "superpod-h200-32",
        "superpod-gb200-16",
        "fat-tree-1024",
        "k-ary-16",
    ],
)
def test_large_designs_are_landscape_not_strips(name: str) -> None:
    assert 1.0 <= aspect(GENERATED[name]()) <= 3.0


@pytest.mark.slow
def test_100k_gpu_design_is_a_grid_of_pods(big: Design) -> None:
    assert 1.0 <= aspect(big) <= 3.0  # was ~150:1 as flat rows
    assert overlapping_blocks(big, ungrouped=True) == []
    assert overlapping_devices(big) == []
    assert tier_order_problems(big) == []
    pods = {k: v for k, v in blocks(big, ungrouped=False).items() if k[:3] == "pod"}
    assert len(pods) == 49
    rows = {round(b[1]) for b in pods.values()}
    cols = {round(b[0]) for b in pods.values()}
    assert len(rows) >= 3 and len(cols) >= 3  # wrapped both ways
    core = blocks(big, ungrouped=True)["tier:core"]
    assert all(core[3] < b[1] for b in pods.values())  # cores above every pod


def test_small_design_keeps_tier_rows() -> None:
    d = superpod("dgx-h100", 1)
    ys = {t: {x.y for x in d.devices if x.tier is t} for t in (Tier.LEAF, Tier.SPINE)}
    nodes = {x.y for x in d.devices if x.catalog_id == "dgx-h100"}
    assert len(ys[Tier.LEAF]) == len(ys[Tier.SPINE]) == len(nodes) == 1
    assert max(ys[Tier.SPINE]) < min(ys[Tier.LEAF]) < min(nodes)


def test_side_blocks_sit_right_of_the_fabric() -> None:
    d = superpod("dgx-b200", 16)
    b = blocks(d, ungrouped=True)
    fabric = [v for k, v in b.items() if k not in ("storage", "mgmt")]
    right = max(v[2] for v in fabric)
    assert b["storage"][0] > right and b["mgmt"][0] > right
    assert not overlap(b["storage"], b["mgmt"])


def test_band_wraps_rows_and_keeps_order() -> None:
    at = band(5, 0.0, 160.0, 100.0)  # two devices fit a row of 160
    assert at == [
        (40.0, 100.0),
        (120.0, 100.0),
        (40.0, 180.0),
        (120.0, 180.0),
        (40.0, 260.0),
    ]
    assert band(0, 0.0, 160.0, 0.0) == []


def test_grid_layout_wraps_pods_for_a_landscape_grid() -> None:
    lay = grid_layout(Shape(slots=32, leaves=8), 64, 4, 16, 32, 64)
    assert 1.1 <= lay.width / lay.height <= 2.6
    assert len(set(lay.pod_top)) > 1 and len(set(lay.pod_left)) > 1
    # an SU's nodes sit below its leaves, inside its pod's span
    for i in range(64):
        x, y = lay.node(i, 31)
        assert y > lay.su_leaf_y[i]
        p = i // 4
        assert lay.pod_left[p] <= x <= lay.pod_left[p] + lay.pod_width


SIDE = ("storage", "mgmt")
SMALL: dict[str, Callable[[], Design]] = {
    "superpod-h100-1": GENERATED["superpod-h100-1"],
    "superpod-h100-2": GENERATED["superpod-h100-2"],
    "superpod-b200-1": lambda: superpod("dgx-b200", 1),
    "superpod-gb200-1": GENERATED["superpod-gb200-1"],
    "superpod-gb200-2": GENERATED["superpod-gb200-2"],
    "sample-gb200-nvl72-su": lambda: load_design(SAMPLES / "gb200-nvl72-su.json"),
}


def _fabric_share(d: Design) -> float:
    """Share of the whole design's box that the fabric's box covers."""
    a = box_of([(x.x, x.y) for x in d.devices])
    f = box_of([(x.x, x.y) for x in d.devices if x.group not in SIDE])
    return (f[2] - f[0]) * (f[3] - f[1]) / ((a[2] - a[0]) * (a[3] - a[1]))


@pytest.mark.parametrize("name", sorted(SMALL))
def test_small_designs_are_compact(name: str) -> None:
    d = SMALL[name]()
    # was 1.1-1.6:1 with the fabric in 15-25 % of the box (a tall column of
    # storage and management far to the right of a 1-SU strip)
    assert 1.0 <= aspect(d) <= 2.5
    assert _fabric_share(d) >= 0.45
    assert overlapping_blocks(d, ungrouped=True) == []
    assert overlapping_devices(d) == []
    b = blocks(d, ungrouped=True)
    fabric = box_of(
        [(x.x, x.y) for x in d.devices if x.group not in SIDE]
    )  # the side blocks hug the fabric: right of it or below it, a small gap
    for g in SIDE:
        s = b[g]
        gap = max(s[0] - fabric[2], s[1] - fabric[3])
        assert 0 < gap <= 400, (g, gap)


def test_side_blocks_go_below_a_wide_strip_and_beside_a_tall_fabric() -> None:
    blocks_ = [(0.0, 0.0, 160.0, 320.0), (0.0, 0.0, 320.0, 480.0)]
    strip = (0.0, 0.0, 3000.0, 800.0)
    moves = side_offsets(strip, blocks_)
    # one row below the strip: its bottom 800 + a glyph 32 + a gap of 3000 / 10
    assert [m[1] for m in moves] == [1132.0, 1132.0]
    assert moves[0][0] == 0.0 and moves[1][0] > 160.0
    tall = (0.0, 0.0, 3000.0, 2400.0)
    moves = side_offsets(tall, blocks_)
    assert moves[0][0] == moves[1][0] > 3000.0  # one column to the right
    assert moves[0][1] == 0.0 and moves[1][1] > 320.0
    assert side_offsets(tall, []) == []


@pytest.mark.parametrize("name", sorted(p.name for p in SAMPLES.glob("*.json")))
def test_samples_are_tidy(name: str) -> None:
    d = load_design(SAMPLES / name)
    # every device is in a block (an SU, storage, management) or in the band of
    # the top tier; the OOB switches are no longer a loose row above everything
    assert [x.id for x in d.devices if x.group is None and x.tier is None] == []
    oob = [x for x in d.devices if x.catalog_id == "sn2201"]
    assert oob and all(x.group == "mgmt" for x in oob)
    assert min(x.y for x in oob) >= min(x.y for x in d.devices if x.tier is not None)
    assert overlapping_blocks(d, ungrouped=True) == []
    assert tier_order_problems(d) == []
    assert 1.0 <= aspect(d) <= 2.5  # the vera rubin pod was a 3.5:1 strip
