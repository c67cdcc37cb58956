"""The physical block: strict structure checks, JSON round trip, commands with undo."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from designer.core.document import Document
from designer.core.events import DevicesChanged, PhysicalChanged
from designer.core.model import Design, Device, Placement
from designer.core.physical import (
    STANDARD_RACK_TYPES,
    Cooling,
    Facility,
    Hall,
    Physical,
    Rack,
    Row,
    standard_rack_type,
)
from designer.core.physical_commands import (
    AddRacks,
    EditRacks,
    EditRows,
    PlaceDevices,
    SetFacility,
    SetPhysical,
    remove_racks,
)


def _physical(**changes: object) -> Physical:
    base = Physical(
        rack_types=[standard_rack_type("rack-48u"), standard_rack_type("nvl72")],
        halls=[Hall(id="h1", width_m=30, depth_m=20)],
        rows=[Row(id="r1", hall="h1", x_m=1, y_m=1)],
        racks=[
            Rack(id="a01", type="rack-48u", row="r1", slot=0),
            Rack(id="a02", type="rack-48u", row="r1", slot=1),
        ],
    )
    return base.model_copy(update=changes)


def _design(physical: Physical | None = None, **placements: Placement) -> Design:
    devices = [
        Device(id=f"d{i}", catalog_id="dgx-h100", placement=placements.get(f"d{i}"))
        for i in range(1, 4)
    ]
    return Design(devices=devices, physical=physical or _physical())


def _fails(*needles: str, **kw: object) -> str:
    with pytest.raises(ValidationError) as info:
        Design.model_validate(kw)
    text = str(info.value)
    for n in needles:
        assert n in text, text
    return text


def test_standard_rack_types_cover_the_issue() -> None:
    heights = {t.u for t in STANDARD_RACK_TYPES}
    assert {42, 48, 52} <= heights
    nvl = standard_rack_type("nvl72")
    assert nvl.cooling is Cooling.LIQUID and nvl.max_kw >= 142
    assert all(t.source for t in STANDARD_RACK_TYPES)
    assert standard_rack_type("network-48u").slots == 2  # 800 mm in 600 mm tiles
    with pytest.raises(KeyError, match="rack-48u"):
        standard_rack_type("rack-99u")


def test_placed_design_round_trips() -> None:
    d = _design(d1=Placement(rack="a01", u=1), d2=Placement(rack="a01", u=9))
    again = Design.model_validate_json(d.model_dump_json())
    assert again == d
    assert again.physical is not None and again.physical.racks[1].id == "a02"


def test_unplaced_design_keeps_free_placement_labels() -> None:
    # without a physical block, placements are labels (schema 2 and older)
    d = Design(devices=[Device(id="x", catalog_id="c", placement=Placement(rack="Z9"))])
    assert d.physical is None


def _data(**physical: object) -> dict[str, object]:
    return {"physical": _physical().model_dump() | physical}


def test_duplicate_rack_ids_are_refused() -> None:
    racks = [
        {"id": "a01", "type": "rack-48u", "row": "r1", "slot": 0},
        {"id": "a01", "type": "rack-48u", "row": "r1", "slot": 3},
    ]
    _fails("physical.racks[1].id", "duplicate id 'a01'", **_data(racks=racks))


def test_unknown_rack_type_row_and_hall() -> None:
    racks = [{"id": "a01", "type": "rack-47u", "row": "r1", "slot": 0}]
    _fails(
        "physical.racks[0].type", "unknown rack type 'rack-47u'", **_data(racks=racks)
    )
    racks = [{"id": "a01", "type": "rack-48u", "row": "r9", "slot": 0}]
    _fails("physical.racks[0].row", "unknown row 'r9'", **_data(racks=racks))
    rows = [{"id": "r1", "hall": "h9"}]
    _fails("physical.rows[0].hall", "unknown hall 'h9'", **_data(rows=rows))


def test_two_racks_in_one_floor_slot() -> None:
    wide = standard_rack_type("network-48u")  # two slots
    data = _physical(
        rack_types=[standard_rack_type("rack-48u"), wide],
        racks=[
            Rack(id="n01", type="network-48u", row="r1", slot=0),
            Rack(id="a01", type="rack-48u", row="r1", slot=1),
        ],
    ).model_dump()
    _fails("physical.racks[1].slot", "already taken by rack 'n01'", physical=data)


def test_placements_must_name_a_rack_and_stay_below_its_top() -> None:
    base = _physical().model_dump()
    dev = {"id": "d1", "catalog_id": "dgx-h100"}
    _fails(
        "devices[0].placement.rack",
        "unknown rack 'b07'",
        physical=base,
        devices=[dev | {"placement": {"rack": "b07", "u": 1}}],
    )
    _fails(
        "devices[0].placement.u",
        "U 49 is above the top of rack 'a01' (48U",
        physical=base,
        devices=[dev | {"placement": {"rack": "a01", "u": 49}}],
    )
    _fails(
        "devices[0].placement.row",
        "rack 'a01' stands in row 'r1'",
        physical=base,
        devices=[dev | {"placement": {"row": "r2", "rack": "a01", "u": 1}}],
    )


def test_rack_group_must_exist() -> None:
    racks = [{"id": "a01", "type": "rack-48u", "row": "r1", "slot": 0, "group": "su9"}]
    _fails("physical.racks[0].group", "unknown group 'su9'", **_data(racks=racks))


def test_facility_limits_by_cooling_class() -> None:
    f = Facility()
    assert (f.kw_for(Cooling.AIR), f.kw_for(Cooling.CONTAINMENT)) == (30.0, 60.0)
    assert f.kw_for(Cooling.LIQUID) == 142.0
    with pytest.raises(ValidationError):
        Facility(pue=0.9)


def _same_after_undo(design: Design, command: object) -> None:
    doc = Document(design)
    before = design.model_dump()
    doc.execute(command)  # type: ignore[arg-type]
    after = design.model_dump()
    assert after != before
    doc.undo()
    assert design.model_dump() == before
    doc.redo()
    assert design.model_dump() == after


def test_place_devices_is_one_undoable_step() -> None:
    d = _design(d1=Placement(rack="a01", u=1))
    cmd = PlaceDevices(
        {"d1": Placement(rack="a02", u=5), "d2": Placement(rack="a01", u=1)}
    )
    doc = Document(d)
    events = doc.execute(cmd)
    assert [type(e) for e in events] == [DevicesChanged]
    assert isinstance(events[0], DevicesChanged)
    assert events[0].fields == {"placement"} and events[0].ids == ("d1", "d2")
    assert d.devices[0].placement == Placement(rack="a02", u=5)
    doc.undo()
    assert d.devices[0].placement == Placement(rack="a01", u=1)
    assert d.devices[1].placement is None
    _same_after_undo(_design(), PlaceDevices({"d3": Placement(rack="a02", u=40)}))


def test_place_devices_refuses_overlap_and_overflow_given_heights() -> None:
    d = _design(d1=Placement(rack="a01", u=1))
    heights = {"d1": 8.0, "d2": 8.0, "d3": 8.0}
    with pytest.raises(ValueError, match="share U 8 with 'd1'"):
        PlaceDevices({"d2": Placement(rack="a01", u=8)}, heights=heights).do(d)
    with pytest.raises(ValueError, match=r"sticks out of rack 'a01' \(48U\)"):
        PlaceDevices({"d2": Placement(rack="a01", u=42)}, heights=heights).do(d)
    with pytest.raises(ValueError, match="unknown rack 'zz'"):
        PlaceDevices({"d2": Placement(rack="zz", u=1)}).do(d)
    assert d.devices[1].placement is None  # refused steps change nothing
    # moving d1 up and d2 into its old place is fine as one step
    PlaceDevices(
        {"d1": Placement(rack="a01", u=9), "d2": Placement(rack="a01", u=1)},
        heights=heights,
    ).do(d)
    assert d.devices[1].placement == Placement(rack="a01", u=1)


def test_edit_racks_moves_and_refuses_a_taken_slot() -> None:
    d = _design()
    doc = Document(d)
    events = doc.execute(EditRacks({"a02": {"slot": 5}}))
    assert events == [PhysicalChanged(frozenset({"racks"}), ("a02",))]
    assert d.physical is not None and d.physical.racks[1].slot == 5
    with pytest.raises(ValueError, match="already taken by rack 'a01'"):
        EditRacks({"a02": {"slot": 0}}).do(d)
    with pytest.raises(ValueError, match="ids are stable"):
        EditRacks({"a02": {"id": "b"}}).do(d)
    with pytest.raises(ValueError, match="field cooling"):
        EditRacks({"a02": {"cooling": "ice"}}).do(d)
    doc.undo()
    assert d.physical.racks[1].slot == 1


def test_edit_rows_names_the_racks_that_moved() -> None:
    d = _design()
    events = EditRows({"r1": {"x_m": 4.0}}).do(d)
    assert events == [PhysicalChanged(frozenset({"rows"}), ("a01", "a02"))]
    _same_after_undo(_design(), EditRows({"r1": {"y_m": 7.5}}))


def test_add_and_remove_racks() -> None:
    d = _design(d1=Placement(rack="a02", u=1))
    _same_after_undo(d, AddRacks([Rack(id="a03", type="nvl72", row="r1", slot=4)]))
    with pytest.raises(ValueError, match="slot 4 of row 'r1', already taken"):
        AddRacks([Rack(id="a04", type="rack-48u", row="r1", slot=4)]).do(d)
    fresh = _design(d1=Placement(rack="a02", u=1))
    _same_after_undo(fresh, remove_racks(fresh, ["a02"]))
    d = _design(d1=Placement(rack="a02", u=1))
    doc = Document(d)
    doc.execute(remove_racks(d, ["a02"]))
    assert d.devices[0].placement is None
    assert d.physical is not None and [r.id for r in d.physical.racks] == ["a01"]
    with pytest.raises(ValueError, match="not in the design"):
        remove_racks(d, ["nope"])


def test_set_physical_and_facility() -> None:
    d = _design(d1=Placement(rack="a01", u=1))
    _same_after_undo(d, SetFacility(Facility(air_kw=20)))
    # removing the block clears the placements in the same step
    _same_after_undo(_design(d1=Placement(rack="a01", u=1)), SetPhysical(None))
    d = _design(d1=Placement(rack="a01", u=1))
    doc = Document(d)
    doc.execute(SetPhysical(None))
    assert d.physical is None and d.devices[0].placement is None
    doc.undo()
    assert d.devices[0].placement == Placement(rack="a01", u=1)
    bad = _physical(racks=[Rack(id="a01", type="x", row="r1", slot=0)])
    with pytest.raises(ValueError, match="unknown rack type 'x'"):
        SetPhysical(bad).do(d)


def test_adding_a_device_refuses_an_unknown_rack() -> None:
    from designer.core.device_commands import AddDevices

    d = _design()
    bad = Device(id="new", catalog_id="dgx-h100", placement=Placement(rack="zz", u=1))
    with pytest.raises(ValueError, match="unknown rack 'zz'"):
        AddDevices([bad]).do(d)
    ok = Device(id="new", catalog_id="dgx-h100", placement=Placement(rack="a02", u=1))
    AddDevices([ok]).do(d)
    assert d.devices[-1].placement == Placement(rack="a02", u=1)


def test_a_pasted_copy_has_no_rack_yet() -> None:
    from designer.core.edits import copy_selection, paste

    d = _design(d1=Placement(rack="a01", u=1))
    clip = copy_selection(d, ["d1"])
    Document(d).execute(paste(d, clip))
    assert d.devices[-1].id != "d1" and d.devices[-1].placement is None
