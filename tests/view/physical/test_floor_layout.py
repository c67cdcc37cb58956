"""Floor plan colours, scale bar and cable runs in plan, without Qt."""

from __future__ import annotations

import pytest

from designer.catalog import default_catalog
from designer.core.physical import Facility
from designer.physical.views import PhysicalView
from designer.view.physical.floor import (
    EMPTY_COLOUR,
    kw_bands,
    kw_colour,
    label_point,
    label_room,
    plan_path,
    scale_length,
)
from tests.physical.builders import placed_design


def test_bands_follow_the_facility_limits() -> None:
    bands = kw_bands(Facility())
    assert [(b.low, b.high) for b in bands] == [
        (0.0, 10.0),
        (10.0, 30.0),
        (30.0, 60.0),
        (60.0, 142.0),
        (142.0, float("inf")),
    ]
    assert "air" in bands[1].label and "30 kW" in bands[1].source
    assert len({b.colour for b in bands}) == len(bands)
    assert kw_colour(0.0, bands) == EMPTY_COLOUR
    assert kw_colour(30.0, bands) == bands[1].colour  # at the limit: still air
    assert kw_colour(30.01, bands) == bands[2].colour
    assert kw_colour(40.8, bands) == bands[2].colour  # 4 DGX H100
    assert kw_colour(120.0, bands) == bands[3].colour  # GB200 NVL72
    assert kw_colour(500.0, bands) == bands[4].colour
    # another facility moves the edges, and an edge below 10 kW is kept in order
    low = kw_bands(Facility(air_kw=8.0, containment_kw=40.0, liquid_kw=100.0))
    assert [b.high for b in low][:4] == [8.0, 10.0, 40.0, 100.0]


@pytest.mark.parametrize(
    ("per_unit", "target", "want"),
    [(0.05, 120, 5.0), (0.01, 120, 1.0), (1.0, 150, 100.0), (0.2, 120, 20.0)],
)
def test_scale_bar_takes_a_round_length(
    per_unit: float, target: float, want: float
) -> None:
    got = scale_length(per_unit, target)
    assert got == pytest.approx(want)
    assert got <= per_unit * target + 1e-9 < got * 2.5 + 1e-9


def test_cable_run_in_plan_and_its_label() -> None:
    design = placed_design(
        [("dgx-1", "dgx-h100", "a01", 1), ("leaf", "qm9700", "b01", 40)],
        [("l1", "dgx-1", "compute", "leaf", "ports", 400, 2)],
        racks=[("a01", "rack-48u", "r1", 0), ("b01", "rack-48u", "r2", 3)],
        rows=[("r1", 2.0, 3.0), ("r2", 2.0, 8.0)],
    )
    (run,) = PhysicalView(design, default_catalog()).longest_cables(["dgx-1"])
    pts = plan_path(run.path)
    # up at a01's centre, along r1 to b01's x, across to r2, down
    assert pts == [
        pytest.approx((2.3, 3.6)),
        pytest.approx((4.1, 3.6)),
        pytest.approx((4.1, 8.6)),
    ]
    assert label_point(pts) == pytest.approx((4.1, 6.1))  # the 5 m leg across
    assert label_point([(1.0, 2.0)]) == (1.0, 2.0)
    with pytest.raises(ValueError):
        label_point([])


def test_row_labels_get_the_aisle_left_of_their_row() -> None:
    # two columns of rows: the second column's rows start 2 m after the first's end
    racks = [(0.0, 0.0, 0.6), (0.6, 0.0, 0.6), (3.2, 0.0, 0.6), (0.0, 2.4, 0.6)]
    starts = [(0.0, 0.0), (3.2, 0.0), (0.0, 2.4), (3.2, 2.4)]
    assert label_room(starts, racks, 5.0) == pytest.approx([5.0, 2.0, 5.0, 2.6])
    assert label_room(starts, [], 1.0) == [1.0] * 4
