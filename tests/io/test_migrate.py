"""schema_version 0 (links as a list of objects) migrates to version 1 (columns)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from designer.core.model import SCHEMA_VERSION, Design
from designer.io import DesignFileError, load_design, loads_design, migrate
from designer.io.migrate import MIGRATIONS, OLDEST_VERSION
from tests.io.conftest import make_design

V0 = Path(__file__).parent / "fixtures" / "v0-small.json"


def v0_data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(V0.read_text(encoding="utf-8"))
    return data


def test_every_version_has_a_step() -> None:
    assert sorted(MIGRATIONS) == list(range(OLDEST_VERSION, SCHEMA_VERSION))


def test_v0_fixture_loads_as_the_v1_design(catalog: Any) -> None:
    assert v0_data()["schema_version"] == 0
    assert isinstance(v0_data()["links"], list)
    assert load_design(V0, catalog=catalog) == make_design()


def test_migrate_fills_v0_defaults() -> None:
    out = migrate(v0_data(), 0)
    assert out["schema_version"] == SCHEMA_VERSION
    assert out["links"]["id"] == ["l1", "l2", "l3", "l4"]
    assert out["links"]["cables"] == [8, 8, 16, 1]
    assert out["links"]["fabric"] == ["compute", "compute", "compute", "storage"]
    assert out["links"]["rail"] == [0, 1, None, None]


def test_migrate_does_not_touch_its_input() -> None:
    data = v0_data()
    before = json.dumps(data, sort_keys=True)
    migrate(data, 0)
    assert json.dumps(data, sort_keys=True) == before


def test_v0_without_links() -> None:
    out = migrate({"schema_version": 0, "devices": []}, 0)
    assert out["links"]["id"] == [] and out["links"]["rail"] == []


def test_migrate_refuses_unknown_versions() -> None:
    newer = SCHEMA_VERSION + 1
    with pytest.raises(ValueError, match=f"no migration from schema_version {newer}"):
        migrate({}, newer)


def test_saving_a_migrated_file_writes_the_current_version(
    tmp_path: Path, catalog: Any
) -> None:
    from designer.io import save_design

    design = load_design(V0, catalog=catalog)
    out = tmp_path / "v1.json"
    save_design(design, out)
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["schema_version"] == SCHEMA_VERSION
    assert isinstance(data["links"], dict)
    assert Design.model_validate(data) == design


def _fail(data: dict[str, Any], catalog: Any) -> str:
    with pytest.raises(DesignFileError) as info:
        loads_design(json.dumps(data), "old.json", catalog=catalog)
    return str(info.value)


def test_v0_links_not_a_list(catalog: Any) -> None:
    data = v0_data()
    data["links"] = {"id": []}
    assert _fail(data, catalog) == (
        "old.json: links: expected an array of link objects (schema_version 0), "
        "found an object (file has schema_version 0)"
    )


def test_v0_link_not_an_object(catalog: Any) -> None:
    data = v0_data()
    data["links"][2] = "l3"
    message = _fail(data, catalog)
    assert message.startswith("old.json: links[2]: expected a link object, found ")


def test_v0_link_missing_key(catalog: Any) -> None:
    data = v0_data()
    del data["links"][1]["b_port"]
    message = _fail(data, catalog)
    assert message.startswith("old.json: links[1]: missing key 'b_port'; expected id,")


def test_v0_link_unknown_key(catalog: Any) -> None:
    data = v0_data()
    data["links"][0]["colour"] = "red"
    message = _fail(data, catalog)
    assert message.startswith("old.json: links[0].colour: unknown key; expected one")


def test_v0_type_errors_are_reported_row_wise(catalog: Any) -> None:
    data = v0_data()
    data["links"][3]["speed_gbps"] = "fast"
    assert _fail(data, catalog) == (
        "old.json: links[3].speed_gbps: expected a whole number, found the string "
        "'fast' (file has schema_version 0)"
    )


def test_v0_dangling_endpoint_reported_row_wise(catalog: Any) -> None:
    data = v0_data()
    data["links"][1]["a"] = "dgx-3"
    message = _fail(data, catalog)
    assert message.startswith("old.json: links[1].a: unknown device 'dgx-3'")


def test_v0_unknown_port_group_reported_row_wise(catalog: Any) -> None:
    data = v0_data()
    data["links"][2]["b_port"] = "uplinks"
    message = _fail(data, catalog)
    assert message.startswith(
        "old.json: links[2].b_port: device 'spine-1' (generic-switch) has no port "
        "group 'uplinks'"
    )


def test_v3_file_gets_the_default_tray_rule(catalog: Any) -> None:
    """Version 3 had no ``settings.tray_hostnames``: the default rule names trays."""
    from designer.io import dumps_design

    data = json.loads(dumps_design(make_design()))
    del data["settings"]["tray_hostnames"]
    data["schema_version"] = 3
    design = loads_design(json.dumps(data), "v3.json", catalog=catalog)
    assert design.settings.tray_hostnames == "{rack}-t{tray:02}"
    assert design == make_design()


def test_v4_file_gets_its_ports_once_as_its_cabling_plan_had_them(
    tmp_path: Path,
) -> None:
    """A version-4 file kept no ports: opening it pins every cable to the port
    the version-4 cabling plan gave it (rails and cages in order), and saving
    writes them, so the next open reads the same ports."""
    from designer.catalog.loader import default_catalog
    from designer.generate import fat_tree
    from designer.io import load_design, save_design
    from designer.io.save import dumps_design

    design = fat_tree("dgx-h100", 8, "qm9700", catalog=default_catalog())
    data = json.loads(dumps_design(design))
    data["schema_version"] = 4
    del data["links"]["a_pins"], data["links"]["b_pins"]
    old = tmp_path / "v4.json"
    old.write_text(json.dumps(data), encoding="utf-8")
    opened = load_design(old)
    assert not opened.links.pins_pending()
    first = opened.links.row(0)
    # node 1's first rail goes to the first port of its leaf (cages in order)
    assert first.a_pins == ("osfp1/1",) and first.b_pins == ("osfp1/1",)
    b_ends = [
        (b, pin)
        for b, pins in zip(opened.links.b, opened.links.b_pins, strict=True)
        for pin in pins or ()
    ]
    assert len(set(b_ends)) == len(b_ends)  # no port held twice
    save_design(opened, tmp_path / "v5.json")
    again = load_design(tmp_path / "v5.json")
    assert again.links.a_pins == opened.links.a_pins
    assert again.links.b_pins == opened.links.b_pins
    assert json.loads((tmp_path / "v5.json").read_text())["schema_version"] == 5
