"""Rack elevation geometry (screen and print) without Qt."""

from __future__ import annotations

import pytest

from designer.catalog import default_catalog
from designer.core.physical import RackRole
from designer.generate import superpod
from designer.physical import place
from designer.physical.views import PhysicalView
from designer.view.physical.elevation import (
    LABEL_PT,
    MIN_UNIT_PT,
    ElevationLayout,
    ElevationStyle,
    alike_racks,
    load_text,
    print_plan,
    short_name,
)
from tests.physical.builders import placed_design

CAT = default_catalog()


def test_bottoms_align_and_units_map_both_ways() -> None:
    style = ElevationStyle(unit=10, rack_width=100, rail=20, header=30, gap=10)
    lay = ElevationLayout([("a", 48), ("b", 42)], style)
    assert lay.floor_y == style.margin + 30 + 48 * 10
    ax, ay, _, ah = lay.body_rect(0)
    bx, by, _, bh = lay.body_rect(1)
    assert ay + ah == by + bh == lay.floor_y  # bottoms aligned
    assert (ah, bh) == (480, 420) and by - ay == 60  # the 42U rack starts lower
    assert bx - ax == style.pitch == 130
    x, y, w, h = lay.unit_rect(0, 1, 8)
    assert (x, y + h, w, h) == (ax, lay.floor_y, 100, 80)
    for u in (1, 2, 17, 48):
        _, top, _, hh = lay.unit_rect(0, u)
        assert lay.unit_at(0, top + hh / 2) == u
        assert lay.unit_at(0, top + 0.01) == u and lay.unit_at(0, top + hh - 0.01) == u
    # the rail and the units belong to the rack, the gap to none
    assert lay.rack_at(ax - 20 + 1) == 0 and lay.rack_at(ax + 99) == 0
    assert lay.rack_at(ax + 105) is None and lay.rack_at(bx + 1) == 1
    assert lay.rack_at(-50) is None and lay.rack_at(10_000) is None
    # held 3 units above its bottom, released over U 20: lands at U 17
    _, top, _, hh = lay.unit_rect(1, 20)
    assert lay.drop_at(bx + 50, top + hh / 2, 3) == ("b", 17)
    w_all, h_all = lay.size
    assert w_all == 2 * style.margin + 2 * 130 - 10
    assert h_all == lay.floor_y + style.footer + style.margin


def test_names_and_load_text() -> None:
    view = PhysicalView(
        placed_design(
            [("dgx-1", "dgx-h100", "a01", 1)], racks=[("a01", "rack-48u", "r1", 0)]
        ),
        CAT,
    )
    rack = view.rack("a01")
    (slot,) = rack.devices
    assert short_name(slot) == "dgx-1"  # no label: the id
    assert load_text(rack) == "10.2 / 30 kW"  # air cooling (30) below 60 kW feeds


def test_alike_racks_fold_a_superpod_and_keep_every_rack() -> None:
    view = PhysicalView(place(superpod("dgx-h100", 2), CAT), CAT)
    racks = view.racks()
    folded = alike_racks(racks)
    assert sorted(r for _, ids in folded for r in ids) == sorted(r.id for r in racks)
    compute = sorted(
        (len(first.devices), len(ids))
        for first, ids in folded
        if first.role is RackRole.COMPUTE
    )
    # RA-H100: 4 DGX per rack; SU 1 holds 31 DGX (127 in 4 SUs), so its last
    # rack has 3: two layouts stand for the 16 compute racks of 2 SUs
    assert compute == [(3, 1), (4, 15)]
    assert len(folded) < len(racks)
    for first, ids in folded:
        assert first.id == ids[0]


@pytest.mark.parametrize("n", [1, 7, 40])
def test_print_plan_keeps_labels_readable_and_fits(n: int) -> None:
    width, height = 770.0, 500.0  # A4 landscape less margins and a title
    units = [48] * (n - 1) + [52]
    plan = print_plan(units, width, height)
    assert plan.style.unit >= MIN_UNIT_PT > LABEL_PT
    drawn = [i for page in plan.pages for band in page for i in band]
    assert drawn == list(range(n))
    for page in plan.pages:
        assert len(page) <= plan.bands
        for band in page:
            lay = ElevationLayout([(str(i), units[i]) for i in band], plan.style)
            w, h = lay.size
            assert w <= width + 1e-6
            assert h * plan.bands <= height + 1e-6
    assert len(plan.pages) == -(-n // (plan.per_band * plan.bands))


def test_print_plan_says_when_a_page_is_too_small() -> None:
    with pytest.raises(ValueError, match=r"48U rack needs .* 6 pt labels"):
        print_plan([48], 500, 300)
