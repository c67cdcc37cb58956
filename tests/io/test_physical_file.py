"""Design files with a physical block: version 2 migrates, bad blocks say where."""

from __future__ import annotations

import json
from typing import Any

import pytest

from designer.core.model import SCHEMA_VERSION
from designer.core.physical import Hall, Physical, Rack, Row, standard_rack_type
from designer.io import DesignFileError, dumps_design, loads_design
from tests.io.conftest import make_design


def _placed() -> dict[str, Any]:
    design = make_design()
    physical = Physical(
        rack_types=[standard_rack_type("rack-48u")],
        halls=[Hall(id="h1", width_m=20, depth_m=10)],
        rows=[Row(id="A", hall="h1", x_m=1, y_m=1)],
        racks=[Rack(id="A01", type="rack-48u", row="A", slot=0)],
    )
    design = design.model_copy(update={"physical": physical})
    data: dict[str, Any] = json.loads(dumps_design(design))
    return data


def test_version_2_file_with_placement_labels_opens(catalog: Any) -> None:
    data = json.loads(dumps_design(make_design()))
    data["schema_version"] = 2
    del data["physical"]
    design = loads_design(json.dumps(data), catalog=catalog)
    assert design.schema_version == SCHEMA_VERSION
    assert design.physical is None
    assert design.devices[0].placement is not None
    assert design.devices[0].placement.rack == "A01"  # a free label, as before


def test_placed_file_round_trips(catalog: Any) -> None:
    data = _placed()
    text = json.dumps(data)
    design = loads_design(text, catalog=catalog)
    assert design.physical is not None and design.physical.racks[0].id == "A01"
    assert json.loads(dumps_design(design)) == data


def _message(data: dict[str, Any], catalog: Any) -> str:
    with pytest.raises(DesignFileError) as info:
        loads_design(json.dumps(data), "placed.json", catalog=catalog)
    return str(info.value)


def test_unknown_rack_is_named_with_its_place(catalog: Any) -> None:
    data = _placed()
    data["devices"][0]["placement"] = {"row": None, "rack": "B07", "u": 3}
    msg = _message(data, catalog)
    assert "placed.json: devices[0].placement.rack: unknown rack 'B07'" in msg
    assert "expected one of: 'A01'" in msg


def test_duplicate_rack_and_unknown_type(catalog: Any) -> None:
    data = _placed()
    racks = data["physical"]["racks"]
    racks.append(dict(racks[0], slot=4))
    racks.append(dict(racks[0], id="A03", type="rack-47u", slot=8))
    msg = _message(data, catalog)
    assert "physical.racks[1].id: duplicate id 'A01'" in msg
    assert "physical.racks[2].type: unknown rack type 'rack-47u'" in msg


def test_bad_values_in_the_block_are_typed(catalog: Any) -> None:
    data = _placed()
    data["physical"]["facility"]["pue"] = 0.5
    assert "physical.facility.pue: expected a number >= 1" in _message(data, catalog)
    data = _placed()
    data["physical"]["racks"][0]["colour"] = "red"
    msg = _message(data, catalog)
    assert "physical.racks[0].colour: unknown key; expected one of: id, label" in msg


def test_u_above_the_rack_top(catalog: Any) -> None:
    data = _placed()
    data["devices"][0]["placement"] = {"row": "A", "rack": "A01", "u": 52}
    msg = _message(data, catalog)
    assert "devices[0].placement.u: U 52 is above the top of rack 'A01'" in msg
