"""The overview never draws one block over another (storage beside the spines)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from designer.core.model import Design, Group, GroupKind, Tier
from designer.view.canvas.quotient import Block, spread
from tests.qt.canvas.helpers import dev


def _overlapping(rects: list[tuple[float, float, float, float]]) -> list[tuple]:
    return [
        (a, b)
        for a, b in itertools.combinations(rects, 2)
        if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
    ]


def _crowded() -> Design:
    """A spine bar whose right end runs into storage and management devices."""
    groups = [Group(id=f"su-{k}", label=f"SU {k}", kind=GroupKind.SU) for k in (1, 2)]
    nodes = [
        dev(f"n{k}-{i}", "dgx-h100", i * 80 + k * 1400, 400, group=f"su-{k}")
        for k in (1, 2)
        for i in range(12)
    ]
    spines = [dev(f"s{i}", "qm9700", i * 160, 0, Tier.SPINE) for i in range(20)]
    storage = [dev(f"st{i}", "lustre-appliance", 2900 + i * 80, 20) for i in range(4)]
    mgmt = [dev(f"m{i}", "head-node", 2950 + i * 80, 60) for i in range(3)]
    return Design(groups=groups, devices=nodes + spines + storage + mgmt)


@pytest.mark.slow
def test_overview_blocks_do_not_overlap(make_view) -> None:
    design = _crowded()
    view = make_view(design)
    scene = view.design_scene
    scene.set_overview(True)
    blocks = {b.title: b.rect for b in scene.block_items()}
    assert {"Spine", "SU 1", "SU 2"} <= blocks.keys()
    rects = [r.getCoords() for r in blocks.values()]
    assert _overlapping(rects) == []
    # the spine bar (biggest) stays over its devices; members keep their place
    spine_rows = [scene.geometry.row_of[f"s{i}"] for i in range(20)]
    x0, _, x1, _ = scene.geometry.bounds(np.asarray(spine_rows))
    assert blocks["Spine"].left() < x0 and blocks["Spine"].right() > x1
    storage_key = next(b.key for b in scene.block_items() if "torage" in b.title)
    real = scene.members_rect(storage_key)
    assert not real.isEmpty()
    # moving a device re-spreads: still no overlap
    doc = view.document
    from designer.core.device_commands import move_devices

    doc.execute(move_devices({"st0": (100.0, 0.0)}))
    rects = [b.rect.getCoords() for b in scene.block_items()]
    assert _overlapping(rects) == []


@pytest.mark.slow
def test_spread_moves_the_smaller_block_the_least() -> None:
    rows = np.zeros(0, np.int64)
    big = Block("a", None, "A", "", rows, (0.0, 0.0, 1000.0, 100.0))
    small = Block("b", None, "B", "", rows, (900.0, 50.0, 1100.0, 150.0))
    far = Block("c", None, "C", "", rows, (0.0, 500.0, 100.0, 600.0))
    out = spread([small, big, far], gap=10.0)
    assert out[1].rect == big.rect and out[2] is far
    # nearest free place: slide down past the bar (60) beats right (110)
    assert out[0].rect == (900.0, 110.0, 1100.0, 210.0)
    assert _overlapping([b.rect for b in out]) == []


@pytest.mark.slow
def test_spread_many_blocks_in_one_place() -> None:
    rows = np.zeros(0, np.int64)
    blocks = [
        Block(str(i), None, str(i), "", rows, (0.0, 0.0, 100.0 + i, 50.0))
        for i in range(30)
    ]
    out = spread(blocks, gap=5.0)
    assert _overlapping([b.rect for b in out]) == []
    assert all(
        b.rect[2] - b.rect[0] == a.rect[2] - a.rect[0]
        for a, b in zip(blocks, out, strict=True)
    )
