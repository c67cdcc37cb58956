"""Catalog files are NetBox device types: checked against NetBox's own schema.

The schema is the netbox-community/devicetype-library JSON Schema, carried as
test data in ``tests/catalog/data/netbox-schema`` (see its README); nothing is
fetched. Every catalog file with its ``x-designer`` block removed must pass it,
and whatever our loader accepts must pass it too (property test).
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from designer.catalog import CatalogError, default_catalog, default_catalog_dir
from designer.catalog.loader import ENTRY_SUFFIXES, OPTICS_FILE, load_entry
from designer.catalog.netbox import expand_names
from designer.catalog.netbox_types import INTERFACE_TYPES, POWER_PORT_TYPES
from tests.hypo import examples

SCHEMA_DIR = Path(__file__).parent / "data" / "netbox-schema"
FILES = sorted(
    p
    for p in default_catalog_dir().rglob("*")
    if p.suffix in ENTRY_SUFFIXES and p.name != OPTICS_FILE
)


@cache
def validator() -> Draft202012Validator:
    """The device-type schema with its three referenced files registered."""
    resources = [
        Resource.from_contents(
            json.loads(p.read_text(encoding="utf-8")),
            default_specification=DRAFT202012,
        )
        for p in sorted(SCHEMA_DIR.glob("*.json"))
    ]
    registry: Registry[Any] = Registry().with_resources(
        (r.id() or "", r) for r in resources
    )
    schema = json.loads((SCHEMA_DIR / "devicetype.json").read_text(encoding="utf-8"))
    return Draft202012Validator(schema, registry=registry)


def netbox_errors(data: dict[str, Any]) -> list[str]:
    """Schema violations of a device-type mapping, as readable lines."""
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}"
        for e in validator().iter_errors(data)
    ]


def _netbox_part(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    data.pop("x-designer")
    return data


def test_the_shipped_catalog_has_files() -> None:
    assert len(FILES) == len(default_catalog()) >= 26


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_catalog_file_without_x_designer_is_a_netbox_device_type(path: Path) -> None:
    assert netbox_errors(_netbox_part(path)) == []


def test_the_schema_check_bites() -> None:
    """Old-style group rows, a missing field and our own block all fail NetBox."""
    good = _netbox_part(default_catalog_dir() / "switch" / "qm9700.yaml")
    assert netbox_errors(good) == []
    grouped = copy.deepcopy(good)
    grouped["interfaces"] = [{"name": "ports", "type": "infiniband-ndr", "count": 64}]
    assert any("count" in e for e in netbox_errors(grouped))
    no_depth = {k: v for k, v in good.items() if k != "is_full_depth"}
    assert any("is_full_depth" in e for e in netbox_errors(no_depth))
    assert netbox_errors({**good, "x-designer": {}})
    assert netbox_errors({**good, "weight_unit": None, "weight": 1})
    bad_type = copy.deepcopy(good)
    bad_type["interfaces"][0]["type"] = "400g-osfp"
    assert netbox_errors(bad_type)


def test_one_netbox_interface_per_physical_port() -> None:
    """Every port group is its ports: count = ports listed, each port in one group."""
    for entry in default_catalog().values():
        names = [i.name for i in entry.netbox_interfaces]
        grouped = [p for g in entry.interfaces for p in g.ports]
        assert sorted(grouped) == sorted(names), entry.slug
        assert len(set(names)) == len(names), entry.slug
        for g in entry.interfaces:
            assert g.count == len(g.ports), (entry.slug, g.name)
            types = {entry.netbox_interface(p).type for p in g.ports}  # type: ignore[union-attr]
            assert types == {g.type}, (entry.slug, g.name)
    qm = default_catalog()["qm9700"]
    assert len(qm.netbox_interfaces) == 65  # 64 OSFP ports in 32 cages + management
    assert qm.interface("ports").ports[:3] == ("osfp1/1", "osfp1/2", "osfp2/1")  # type: ignore[union-attr]


def test_management_ports_are_mgmt_only() -> None:
    for entry in default_catalog().values():
        for g in entry.interfaces:
            flags = {entry.netbox_interface(p).mgmt_only for p in g.ports}  # type: ignore[union-attr]
            expected = {True} if g.name in ("bmc", "mgmt") else {None}
            assert flags == expected, (entry.slug, g.name, flags)


def _said(entry: Any, field: str, *words: str) -> bool:
    """Whether an estimate line names ``field`` or a source mentions a word."""
    if field in entry.estimated_fields:
        return True
    return any(w in s.text for s in entry.ext.sources for w in words)


def test_power_airflow_and_weight_are_sourced_or_estimated() -> None:
    for entry in default_catalog().values():
        assert entry.power_ports, entry.slug
        for port in entry.power_ports:
            assert port.maximum_draw is not None, (entry.slug, port.name)
            assert port.maximum_draw <= entry.ext.max_power_w, (entry.slug, port.name)
        assert _said(entry, "power-ports", "PSU", "power shelves"), entry.slug
        assert entry.airflow is not None, entry.slug
        assert _said(entry, "airflow", "airflow"), entry.slug
        if entry.weight is not None:
            assert entry.weight_unit == "kg", entry.slug
            assert _said(entry, "weight", " kg", " t per rack"), entry.slug


def test_expand_names() -> None:
    assert expand_names("osfp[1-2]/[1-2]") == [
        *("osfp1/1", "osfp1/2", "osfp2/1", "osfp2/2")
    ]
    assert expand_names("bmc") == ["bmc"]
    assert expand_names("swp[49-52]") == ["swp49", "swp50", "swp51", "swp52"]
    assert len(expand_names("tray[1-18]-osfp[1-4]")) == 72
    for bad, needle in (
        ("p[3-1]", "backwards"),
        ("p[a-b]", "number range"),
        ("p[1-9999]/[1-9]", "more than"),
    ):
        with pytest.raises(ValueError, match=needle):
            expand_names(bad)


def test_port_names_beyond_the_list_only_for_configurable_entries() -> None:
    cat = default_catalog()
    gs = cat["generic-switch"].interface("ports")
    assert gs is not None
    assert (gs.port_name(0), gs.port_name(99)) == ("port1", "port100")
    qm = cat["qm9700"].interface("ports")
    assert qm is not None
    assert (qm.port_name(63), qm.port_name(64)) == ("osfp32/2", None)


# -- whatever the loader accepts, NetBox accepts ------------------------------------

_BASE = yaml.safe_load(
    (default_catalog_dir() / "switch" / "qm9700.yaml").read_text(encoding="utf-8")
)
_TEXT = st.one_of(
    st.sampled_from(sorted(INTERFACE_TYPES)[:20] + sorted(POWER_PORT_TYPES)[:10]),
    st.text(max_size=6),
    st.sampled_from(["front-to-rear", "sideways", "kg", "stone", "rj-45", ""]),
)
_VALUE = st.one_of(
    _TEXT,
    st.none(),
    st.booleans(),
    st.integers(-3, 3000),
    st.floats(-1, 100, allow_nan=False),
    st.sampled_from([0.5, 1.25, 14.8, 0.07, 7.41]),
)
_PLACES = [
    *("manufacturer", "model", "slug", "part_number", "u_height", "is_full_depth"),
    *("airflow", "weight", "weight_unit", "description", "comments", "front_image"),
    *("is_powered", "subdevice_role", "colour"),
]
_COMPONENT_KEYS = [
    *("name", "type", "label", "mgmt_only", "enabled", "description"),
    *("maximum_draw", "count"),
]


@st.composite
def _mutations(draw: st.DrawFn) -> dict[str, Any]:
    data = copy.deepcopy(_BASE)
    for _ in range(draw(st.integers(1, 4))):
        where = draw(st.sampled_from(["top", "interface", "power", "console"]))
        if where == "top":
            key = draw(st.sampled_from(_PLACES))
            if draw(st.booleans()):
                data.pop(key, None)
            else:
                data[key] = draw(_VALUE)
            continue
        items = {"interface": "interfaces", "power": "power-ports"}.get(
            where, "console-ports"
        )
        row = data[items][draw(st.integers(0, len(data[items]) - 1))]
        key = draw(st.sampled_from(_COMPONENT_KEYS))
        if draw(st.booleans()):
            row.pop(key, None)
        else:
            row[key] = draw(_VALUE)
    return data


@pytest.mark.slow
@settings(
    max_examples=examples(200),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=_mutations())
def test_what_the_loader_accepts_netbox_accepts(
    tmp_path: Path, data: dict[str, Any]
) -> None:
    f = tmp_path / "qm9700.yaml"
    f.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    try:
        load_entry(f)
    except CatalogError as exc:
        assert str(f) in str(exc)
        return
    netbox = {k: v for k, v in data.items() if k != "x-designer"}
    assert netbox_errors(netbox) == []
