"""The pure API the rack elevation and the floor plan read."""

from __future__ import annotations

import pytest

from designer.catalog import Medium, default_catalog
from designer.core.document import Document
from designer.core.physical import SLOT_M, Cooling, RackRole
from designer.generate import superpod
from designer.physical import place
from designer.physical.views import PhysicalView
from tests.physical.builders import placed_design

CAT = default_catalog()


def _small() -> PhysicalView:
    design = placed_design(
        [
            ("dgx-1", "dgx-h100", "a01", 1),
            ("dgx-2", "dgx-h100", "a01", 9),
            ("leaf", "qm9700", "a02", 40),
            ("loose", "qm9700", "a02", None),
        ],
        [
            ("l1", "dgx-1", "compute", "leaf", "ports", 400, 2),
            ("l2", "dgx-2", "compute", "leaf", "ports", 400, 2),
        ],
        racks=[("a01", "rack-48u", "r1", 0), ("a02", "network-48u", "r1", 1)],
        rows=[("r1", 2.0, 3.0)],
    )
    return PhysicalView(design, CAT)


def test_rack_elevation_u_by_u() -> None:
    view = _small()
    rack = view.rack("a01")
    assert [(s.device, s.u, s.height, s.top) for s in rack.devices] == [
        ("dgx-1", 1, 8, 8),
        ("dgx-2", 9, 8, 16),
    ]
    assert rack.free == [(17, 48)]
    assert rack.kw == pytest.approx(20.4) and rack.cooling is Cooling.AIR
    assert rack.devices[0].airflow == "front-to-rear"
    net = view.rack("a02")
    assert net.unracked == ("loose",) and net.free == [(1, 39), (41, 48)]
    assert net.width_m == pytest.approx(0.8)
    with pytest.raises(KeyError, match="no rack 'zz'"):
        view.rack("zz")


def test_floor_plan_in_site_metres() -> None:
    plan = _small().floor()
    assert [r.id for r in plan.racks] == ["a01", "a02"]
    a01, a02 = plan.racks
    assert (a01.x_m, a01.y_m) == (2.0, 3.0)
    assert a02.x_m == pytest.approx(2.0 + SLOT_M)
    (row,) = plan.rows
    assert row.racks == ("a01", "a02")
    assert row.length_m == pytest.approx(0.6 + 0.8)
    (hall,) = plan.halls
    assert hall.kw == pytest.approx(20.4 + 2 * 1.72)
    assert plan.max_rack_kw == pytest.approx(20.4)


def test_longest_cables_with_their_route() -> None:
    view = _small()
    runs = view.longest_cables(["leaf"], n=5)
    assert [r.link for r in runs] == ["l1", "l2"]  # dgx-1 sits lower: longer
    assert runs[0].length_m > runs[1].length_m
    first = runs[0]
    # 5.03 m: just past active copper's 5 m, so multimode fibre
    assert first.length_m == pytest.approx(5.034, abs=1e-3)
    assert first.medium is Medium.MULTIMODE and not first.too_long
    # up from dgx-1's ports, along the row's tray, down to the leaf (one row:
    # no run across rows, so no corner there)
    (x0, _, z0), (_, _, top), (x1, _, top2), (_, _, z1) = first.path
    assert x0 == pytest.approx(2.3) and x1 == pytest.approx(2.6 + 0.4)
    assert top == top2 > z1 > z0
    assert view.longest_cables(["nobody"]) == []


def test_can_place_and_free_positions() -> None:
    view = _small()
    assert view.can_place("dgx-2", "a01", 17) is None
    assert "taken by dgx-1" in (view.can_place("dgx-2", "a01", 5) or "")
    assert "stick out" in (view.can_place("dgx-2", "a01", 44) or "")
    assert view.free_positions("dgx-2", "a01")[:3] == [9, 10, 11]
    assert view.free_positions("dgx-2", "a01")[-1] == 41
    nvl = placed_design(
        [("nvl", "gb200-nvl72", None, None)], racks=[("a01", "rack-48u", "r1", 0)]
    )
    assert "liquid-cooled" in (PhysicalView(nvl, CAT).can_place("nvl", "a01", 1) or "")


def test_drag_to_another_rack_is_one_undo_step() -> None:
    design = place(superpod("dgx-h100", 1), CAT)
    doc = Document(design)
    view = PhysicalView(design, CAT)
    before = design.model_dump()
    target = next(r for r in view.racks() if r.role is RackRole.NETWORK)
    u = view.free_positions("dgx-0001", target.id)[0]
    doc.execute(view.place_command("dgx-0001", target.id, u))
    after = PhysicalView(design, CAT)
    assert after.rack_of("dgx-0001") == target.id
    assert after.rack(target.id).kw == pytest.approx(target.kw + 10.2)
    doc.undo()
    assert design.model_dump() == before
    with pytest.raises(ValueError, match="taken by"):
        view.place_command("dgx-0002", view.rack_of("dgx-0001") or "", 1)


def test_rack_move_command_and_slot_at() -> None:
    design = place(superpod("dgx-h100", 1), CAT)
    view = PhysicalView(design, CAT)
    rack = view.racks()[0]
    row = view.floor().rows[0]
    slot = view.slot_at(row.id, row.x_m + row.length_m + 5 * SLOT_M + 0.1)
    doc = Document(design)
    doc.execute(view.move_rack_command(rack.id, row.id, slot))
    moved = PhysicalView(design, CAT).rack(rack.id)
    assert moved.x_m == pytest.approx(row.x_m + slot * SLOT_M)
    doc.undo()
    assert PhysicalView(design, CAT).rack(rack.id).x_m == pytest.approx(rack.x_m)


def test_an_unplaced_design_has_no_view() -> None:
    with pytest.raises(ValueError, match="place it first"):
        PhysicalView(superpod("dgx-h100", 1), CAT)
