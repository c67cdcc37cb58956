"""The editor's live rack state against a fresh PhysicalView after every edit."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.core.commands import Command
from designer.core.device_commands import (
    AddDevices,
    RemoveDevices,
    UpdateDevices,
    move_devices,
)
from designer.core.document import Document
from designer.core.events import Event
from designer.core.model import Device, Placement
from designer.core.physical import Facility, Rack, standard_rack_type
from designer.core.physical_commands import (
    AddRacks,
    EditRacks,
    EditRows,
    PlaceDevices,
    SetFacility,
    SetPhysical,
    remove_racks,
)
from designer.generate import superpod
from designer.physical import place
from designer.physical.live import LiveRacks, RackChanges
from designer.physical.views import PhysicalView
from tests.hypo import examples
from tests.physical.builders import placed_design

CAT = default_catalog()


def _design() -> object:
    return placed_design(
        [
            ("dgx-1", "dgx-h100", "a01", 1),
            ("dgx-2", "dgx-h100", "a01", 9),
            ("leaf", "qm9700", "a02", 40),
            ("loose", "qm9700", "a02", None),
            ("spare", "qm9700", None, None),
            ("nvl", "gb200-nvl72", "n01", 1),
        ],
        [
            ("l1", "dgx-1", "compute", "leaf", "ports", 400, 2),
            ("l2", "dgx-2", "compute", "leaf", "ports", 400, 2),
        ],
        racks=[
            ("a01", "rack-48u", "r1", 0),
            ("a02", "network-48u", "r1", 1),
            ("a03", "rack-48u", "r2", 0),
            ("n01", "nvl72", "r2", 2),
        ],
        rows=[("r1", 2.0, 3.0), ("r2", 2.0, 6.0)],
        budget_kw=500.0,
    )


class _Follower:
    """A LiveRacks subscribed to a document, recording what it reported."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.live = LiveRacks(CAT)
        self.live.reset(doc.design)
        self.changes: list[RackChanges] = []
        doc.subscribe(self._on)

    def _on(self, events: list[Event]) -> None:
        self.changes.append(self.live.apply(self.doc.design, events))


def _same(live: LiveRacks, doc: Document) -> None:
    design = doc.design
    if design.physical is None:
        assert not live.placed and live.rack_ids == []
        return
    fresh = PhysicalView(design, CAT)
    assert live.rack_ids == [r.id for r in design.physical.racks]
    for r in fresh.racks():
        assert live.rack(r.id) == r
        t = live.tile(r.id)
        assert (t.x_m, t.y_m, t.width_m, t.depth_m) == (
            r.x_m,
            r.y_m,
            r.width_m,
            r.depth_m,
        )
        assert (t.kw, t.max_kw, t.cooling, t.cooling_kw) == (
            r.kw,
            r.max_kw,
            r.cooling,
            r.cooling_kw,
        )
    plan = fresh.floor()
    assert live.rows() == list(plan.rows)
    assert live.halls() == list(plan.halls)
    assert live.max_kw() == plan.max_rack_kw
    for d in design.devices:
        assert live.rack_of(d.id) == fresh.rack_of(d.id)


def test_reads_a_design_as_the_view_does() -> None:
    doc = Document(_design())  # type: ignore[arg-type]
    live = LiveRacks(CAT)
    changes = live.reset(doc.design)
    assert changes.reset and changes.layout
    assert changes.racks == {"a01", "a02", "a03", "n01"}
    _same(live, doc)
    assert live.rack("a02").unracked == ("loose",)
    assert live.kw("a01") == pytest.approx(20.4)


def test_a_drop_reports_only_the_two_racks_and_undo_restores() -> None:
    doc = Document(_design())  # type: ignore[arg-type]
    f = _Follower(doc)
    before = doc.design.model_dump()
    doc.execute(f.live.place_command("dgx-2", "a03", 5))
    assert f.changes[-1].racks == {"a01", "a03"}
    assert f.changes[-1].cables and not f.changes[-1].layout
    assert f.live.kw("a03") == pytest.approx(10.2)
    _same(f.live, doc)
    doc.undo()
    assert f.changes[-1].racks == {"a01", "a03"}
    assert doc.design.model_dump() == before
    _same(f.live, doc)


def test_a_rack_move_reports_the_rack_and_a_row_move_the_layout() -> None:
    doc = Document(_design())  # type: ignore[arg-type]
    f = _Follower(doc)
    doc.execute(EditRacks({"a03": {"slot": 6}}))
    got = f.changes[-1]
    assert got.moved == {"a03"} and got.racks == {"a03"}
    assert not got.layout and not got.reset and got.cables
    assert f.live.tile("a03").x_m == pytest.approx(2.0 + 6 * 0.6)
    doc.execute(EditRows({"r2": {"y_m": 9.0}}))
    got = f.changes[-1]
    assert got.layout and got.moved == {"a03", "n01"} and not got.reset
    _same(f.live, doc)
    doc.execute(SetFacility(Facility(air_kw=20.0)))
    got = f.changes[-1]
    assert got.racks == {"a01", "a02", "a03", "n01"} and not got.moved
    assert f.live.rack("a01").cooling_kw == 20.0


def test_canvas_moves_change_no_rack() -> None:
    doc = Document(_design())  # type: ignore[arg-type]
    f = _Follower(doc)
    doc.execute(move_devices({"dgx-1": (100.0, 50.0)}))
    assert not f.changes[-1]


def test_refusals_are_the_views_reasons() -> None:
    design = _design()
    doc = Document(design)  # type: ignore[arg-type]
    f = _Follower(doc)
    fresh = PhysicalView(doc.design, CAT)
    cases = [
        ("dgx-2", "a01", 5),  # on dgx-1
        ("dgx-2", "a01", 44),  # sticks out
        ("nvl", "a03", 1),  # liquid in an air rack
        ("leaf", "zz", 1),  # no such rack
        ("dgx-2", "a01", 0),  # below U 1
    ]
    for device, rack, u in cases:
        why = f.live.can_place(device, rack, u)
        assert why is not None and why == fresh.can_place(device, rack, u)
        with pytest.raises(ValueError) as refused:
            f.live.place_command(device, rack, u)
        assert str(refused.value) == why
    assert f.live.can_place("dgx-2", "a01", 17) is None
    assert f.live.can_place("dgx-2", "a01", 5 + 4) is None  # its own place
    with pytest.raises(KeyError, match="nobody"):
        f.live.can_place("nobody", "a01", 1)


def test_the_command_checks_full_heights_too() -> None:
    """The live command hands the rack's heights to PlaceDevices, so the core
    check sees an 8U device as 8U (not only its lowest unit)."""
    doc = Document(_design())  # type: ignore[arg-type]
    f = _Follower(doc)
    cmd = f.live.place_command("leaf", "a01", 17)
    assert cmd.heights == {"dgx-1": 8.0, "dgx-2": 8.0, "leaf": 1.0}
    inside = PlaceDevices({"leaf": Placement(rack="a01", u=3)}, heights=cmd.heights)
    with pytest.raises(ValueError, match="share U 3 with 'dgx-1'"):
        doc.execute(inside)
    assert len(doc.history.done) == 0


def test_a_whole_superpod_matches() -> None:
    design = place(superpod("dgx-h100", 1), CAT)
    doc = Document(design)
    f = _Follower(doc)
    _same(f.live, doc)
    rack = f.live.rack_of("dgx-0001")
    assert rack is not None
    doc.execute(remove_racks(doc.design, [rack]))
    assert f.changes[-1].reset  # a rack went: read again
    _same(f.live, doc)
    doc.undo()
    _same(f.live, doc)


_DEVICES = ["dgx-1", "dgx-2", "leaf", "loose", "spare", "nvl"]
_RACKS = ["a01", "a02", "a03", "n01", "zz"]


@st.composite
def _edit(draw: st.DrawFn, doc: Document) -> Command | str:
    kind = draw(
        st.sampled_from(
            [
                "place",
                "unplace",
                "label",
                "swap",
                "add",
                "remove",
                "rack",
                "facility",
                "add_rack",
                "drop_rack",
                "move",
                "undo",
                "redo",
                "block",
            ]
        )
    )
    ids = [d.id for d in doc.design.devices]
    physical = doc.design.physical
    if kind in ("undo", "redo"):
        return kind
    if kind == "block":
        return SetPhysical(None if physical is not None else _design().physical)  # type: ignore[attr-defined]
    if not ids:
        return "undo"
    device = draw(st.sampled_from(ids))
    if kind == "place":
        rack = draw(st.sampled_from(_RACKS))
        u = draw(st.integers(1, 48) | st.none())
        return PlaceDevices({device: Placement(rack=rack, u=u)})
    if kind == "unplace":
        return PlaceDevices({device: None})
    if kind == "label":
        return UpdateDevices({device: {"label": draw(st.sampled_from(["", "x y"]))}})
    if kind == "swap":
        cat = draw(st.sampled_from(["dgx-h100", "dgx-b200", "qm9700", "gb200-nvl72"]))
        return UpdateDevices({device: {"catalog_id": cat}})
    if kind == "add":
        n = len(doc.design.devices)
        rack = draw(st.sampled_from(_RACKS[:4]))
        return AddDevices(
            [
                Device(
                    id=f"new-{n}-{draw(st.integers(0, 999))}",
                    catalog_id="qm9700",
                    placement=Placement(rack=rack, u=draw(st.integers(1, 48))),
                )
            ]
        )
    if kind == "remove":
        return RemoveDevices([device])
    if kind == "move":
        return move_devices({device: (draw(st.floats(0, 500)), 0.0)})
    if physical is None:
        return "undo"
    racks = [r.id for r in physical.racks]
    if kind == "rack" and racks:
        rid = draw(st.sampled_from(racks))
        return EditRacks({rid: {"slot": draw(st.integers(0, 20))}})
    if kind == "facility":
        return SetFacility(Facility(air_kw=draw(st.sampled_from([15.0, 30.0]))))
    if kind == "add_rack" and physical.rows:
        n = len(racks)
        return AddRacks(
            [Rack(id=f"x{n}", type="rack-42u", row=physical.rows[0].id, slot=40 + n)]
        )
    if kind == "drop_rack" and racks:
        return remove_racks(doc.design, [draw(st.sampled_from(racks))])
    return "undo"


@pytest.mark.slow
@settings(max_examples=examples(60), deadline=None)
@given(data=st.data())
def test_random_edits_keep_the_live_state_equal_to_a_fresh_view(
    data: st.DataObject,
) -> None:
    design = _design()
    design.physical.rack_types.append(standard_rack_type("rack-42u"))  # type: ignore[attr-defined]
    doc = Document(design)  # type: ignore[arg-type]
    f = _Follower(doc)
    for _ in range(data.draw(st.integers(1, 12))):
        step = data.draw(_edit(doc))
        if step == "undo":
            doc.undo()
        elif step == "redo":
            doc.redo()
        else:
            assert isinstance(step, Command)
            try:
                doc.execute(step)
            except ValueError:
                continue  # refused: nothing changed, nothing was heard
        _same(f.live, doc)
