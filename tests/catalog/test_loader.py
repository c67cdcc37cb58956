"""A bad catalog entry fails loudly at load, naming the file and the field."""

from __future__ import annotations

import copy
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.catalog import CatalogError, default_catalog_dir, load_catalog
from designer.catalog.loader import load_entry
from tests.hypo import examples


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A writable copy of the shipped catalog."""
    dst = tmp_path / "catalog"
    shutil.copytree(default_catalog_dir(), dst)
    return dst


def _edit(path: Path, change: Any) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def _group(data: dict[str, Any], i: int) -> dict[str, Any]:
    group: dict[str, Any] = data["x-designer"]["port_groups"][i]
    return group


def _fails(root: Path, *needles: str) -> str:
    with pytest.raises(CatalogError) as info:
        load_catalog(root)
    msg = str(info.value)
    for needle in needles:
        assert needle in msg, msg
    return msg


def test_copy_loads(root: Path) -> None:
    assert "qm9700" in load_catalog(root)


def test_missing_field(root: Path) -> None:
    f = root / "switch" / "qm9700.yaml"
    _edit(f, lambda d: d.pop("u_height"))
    _fails(root, str(f), "field u_height", "required")


def test_missing_nested_field(root: Path) -> None:
    f = root / "compute" / "dgx-h100.yaml"
    _edit(f, lambda d: d["x-designer"]["price"].pop("source"))
    _fails(root, "dgx-h100.yaml", "field x-designer.price.source")


def test_wrong_type(root: Path) -> None:
    f = root / "compute" / "dgx-h100.yaml"
    _edit(f, lambda d: _group(d, 0).update(ports_per_cage="two"))
    _fails(
        root, "dgx-h100.yaml", "field x-designer.port_groups[0].ports_per_cage", "'two'"
    )


def test_unknown_key(root: Path) -> None:
    f = root / "storage" / "nfs-filer.yaml"
    _edit(f, lambda d: d["x-designer"].update(colour="blue"))
    _fails(root, "nfs-filer.yaml", "field x-designer.colour", "not permitted")


def test_bad_slug(root: Path) -> None:
    f = root / "switch" / "sn5600.yaml"
    _edit(f, lambda d: d.update(slug="SN 5600"))
    _fails(root, "sn5600.yaml", "field slug")


def test_slug_must_match_file_name(root: Path) -> None:
    f = root / "switch" / "sn5600.yaml"
    _edit(f, lambda d: d.update(slug="sn5610"))
    _fails(root, "sn5600.yaml", "field slug", "file name")


def test_duplicate_slug_names_both_files(root: Path) -> None:
    (root / "extra").mkdir()
    shutil.copy(root / "switch" / "qm9700.yaml", root / "extra" / "qm9700.yaml")
    _fails(root, "duplicate catalog id 'qm9700'", "extra", "switch")


def test_category_must_match_folder(root: Path) -> None:
    shutil.move(root / "switch" / "sn2201.yaml", root / "storage" / "sn2201.yaml")
    _fails(root, "sn2201.yaml", "x-designer.category", "'storage'")


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("- just\n- a list\n", "expected a mapping at the top level, got a list"),
        ("", "got an empty file"),
        ("42\n", "got a int"),
    ],
)
def test_non_mapping_yaml(root: Path, text: str, needle: str) -> None:
    f = root / "switch" / "qm9700.yaml"
    f.write_text(text, encoding="utf-8")
    _fails(root, str(f), needle)


def test_unparseable_yaml_names_line(root: Path) -> None:
    f = root / "switch" / "qm9700.yaml"
    f.write_text("slug: qm9700\ninterfaces: [\n  {name: x\n", encoding="utf-8")
    _fails(root, str(f), "not valid YAML", "line ")


def test_undecodable_file(root: Path) -> None:
    f = root / "switch" / "qm9700.yaml"
    f.write_bytes(b"slug: qm9700\nmodel: \xff\xfe\n")
    _fails(root, str(f), "cannot read file")


def test_entry_path_that_is_a_folder(root: Path) -> None:
    (root / "switch" / "odd.yaml").mkdir()
    _fails(root, "odd.yaml", "cannot read file")


@pytest.mark.skipif(
    os.name != "posix" or os.geteuid() == 0, reason="root reads any file"
)
def test_unreadable_file(root: Path) -> None:
    f = root / "switch" / "qm9700.yaml"
    f.chmod(0)
    try:
        _fails(root, str(f), "cannot read file")
    finally:
        f.chmod(0o644)


def test_empty_and_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="no catalog entries"):
        load_catalog(tmp_path)
    with pytest.raises(CatalogError, match="not found"):
        load_catalog(tmp_path / "nope")


def test_switch_radix_must_match_ports(root: Path) -> None:
    f = root / "switch" / "qm8700.yaml"
    _edit(f, lambda d: d["x-designer"].update(switch_radix=36))
    _fails(root, "qm8700.yaml", "switch_radix 36", "40")


def test_convention_port_groups_are_required(root: Path) -> None:
    f = root / "storage" / "weka-appliance.yaml"
    _edit(f, lambda d: _group(d, 0).update(name="nic"))
    _fails(root, "weka-appliance.yaml", "'data'")


def test_speeds_native_first_and_breakout_speeds_known(root: Path) -> None:
    f = root / "switch" / "sn5600.yaml"
    _edit(f, lambda d: _group(d, 0).update(speeds_gbps=[400, 800]))
    _fails(root, "sn5600.yaml", "native (highest) speed first")
    _edit(f, lambda d: _group(d, 0).update(speeds_gbps=[800, 400]))
    _fails(root, "sn5600.yaml", "breakout speed 200")


def test_unknown_transceiver(root: Path) -> None:
    f = root / "switch" / "qm9700.yaml"
    _edit(f, lambda d: _group(d, 0).update(transceiver="osfp-9x9g"))
    _fails(root, "qm9700.yaml", "x-designer.port_groups[0].transceiver", "osfp-9x9g")


def test_twin_cage_needs_a_twin_module(root: Path) -> None:
    f = root / "switch" / "qm9700.yaml"
    _edit(f, lambda d: _group(d, 0).update(transceiver="osfp-400g"))
    _fails(root, "qm9700.yaml", "carries 1 link(s)", "2 port(s)")
    _edit(f, lambda d: _group(d, 0).pop("transceiver"))
    _fails(root, "qm9700.yaml", "must name its transceiver")


def test_estimated_price_needs_an_estimate_line(root: Path) -> None:
    f = root / "switch" / "qm9700.yaml"
    _edit(f, lambda d: d["x-designer"].update(estimates=[]))
    _fails(root, "qm9700.yaml", "price: <derivation>")


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ("max_power_w", "must read '<field>: <derivation>'"),
        ("wattage: a guess", "unknown field 'wattage'"),
        ("storage.read_gbytes_s: no storage here", "unknown field"),
        ("port_groups.nope.count: no such group", "unknown field"),
        ("interfaces.ports.count: the old place of port groups", "unknown field"),
    ],
)
def test_estimates_name_real_fields(root: Path, line: str, needle: str) -> None:
    f = root / "switch" / "qm9700.yaml"
    _edit(f, lambda d: d["x-designer"]["estimates"].append(line))
    _fails(root, "qm9700.yaml", needle)


def test_broken_optics_table(root: Path) -> None:
    f = root / "optics.yaml"
    _edit(
        f,
        lambda d: next(c for c in d["cables"] if c["kind"] == "fiber").update(
            transceiver="nope"
        ),
    )
    _fails(root, "optics.yaml", "fiber needs a known transceiver")
    f.write_text("[]\n", encoding="utf-8")
    _fails(root, "optics.yaml", "expected a mapping")


def test_catalog_without_optics_uses_the_shipped_table(tmp_path: Path) -> None:
    (tmp_path / "switch").mkdir()
    shutil.copy(default_catalog_dir() / "switch" / "qm9700.yaml", tmp_path / "switch")
    cat = load_catalog(tmp_path)
    assert list(cat) == ["qm9700"]
    assert cat.optics.transceiver("osfp-2x400g").links == 2


def test_require_names_the_unknown_id() -> None:
    cat = load_catalog()
    assert cat.require("qm9700").slug == "qm9700"
    with pytest.raises(CatalogError, match=r"unknown catalog id 'qm9701'.*qm9700"):
        cat.require("qm9701")


def test_yaml_dates_are_kept_as_text(root: Path) -> None:
    f = root / "switch" / "qm9700.yaml"
    text = f.read_text(encoding="utf-8").replace("date: 2024-08,", "date: 2024-08-15,")
    f.write_text(text, encoding="utf-8")
    assert load_entry(f).ext.price.date == "2024-08-15"


_SHIPPED = yaml.safe_load(
    (default_catalog_dir() / "compute" / "dgx-h100.yaml").read_text(encoding="utf-8")
)
_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=True),
    st.text(max_size=8),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


_ALL_PATHS = _paths(_SHIPPED)


@pytest.mark.slow
@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    edits=st.lists(
        st.tuples(st.sampled_from(_ALL_PATHS), st.booleans(), _VALUES),
        min_size=1,
        max_size=4,
    )
)
def test_mutated_entries_load_or_fail_cleanly(
    tmp_path: Path, edits: list[tuple[tuple[Any, ...], bool, Any]]
) -> None:
    """Random replacements/deletions never escape as anything but CatalogError."""
    data = copy.deepcopy(_SHIPPED)  # plain YAML data: what a reload would give
    for path, delete, value in edits:
        node = data
        try:
            for key in path[:-1]:
                node = node[key]
            if delete and isinstance(node, dict):
                node.pop(path[-1], None)
            else:
                node[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue
    f = tmp_path / "dgx-h100.yaml"
    f.write_text(yaml.safe_dump(data), encoding="utf-8")
    try:
        entry = load_entry(f)
    except CatalogError as exc:
        assert str(f) in str(exc)
    else:
        assert entry.slug == "dgx-h100"


# -- NetBox interfaces and the port groups over them --------------------------------


def test_yml_files_are_read(root: Path) -> None:
    f = root / "switch" / "qm9700.yaml"
    f.rename(f.with_suffix(".yml"))
    assert load_catalog(root)["qm9700"].interface("ports").count == 64  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("change", "needles"),
    [
        (
            lambda d: _group(d, 0).update(ports="osfp[1-33]/[1-2]"),
            ("x-designer.port_groups[0].ports", "'osfp33/1'", "NetBox interfaces"),
        ),
        (
            lambda d: _group(d, 1).update(ports=["mgmt0", "osfp1/1"]),
            ("port_groups[1].ports", "'osfp1/1' is also in port group 'ports'"),
        ),
        (
            lambda d: _group(d, 0).update(ports=["osfp1/1", "osfp1/2", "mgmt0"]),
            ("port_groups[0].ports", "different NetBox types"),
        ),
        (
            lambda d: _group(d, 0).update(ports="osfp[32-1]/1"),
            ("port_groups[0].ports", "backwards"),
        ),
        (
            lambda d: _group(d, 0).update(count=128),
            ("port_groups[0].count", "128", "64", "leave count out"),
        ),
        (lambda d: _group(d, 0).pop("ports"), ("port_groups[0].ports: missing",)),
        (
            lambda d: _group(d, 0).update(ports="osfp[1-31]/1"),
            ("do not fill whole cages",),
        ),
        (
            lambda d: d["interfaces"][0].update(type="400g-osfp"),
            ("field interfaces[0].type", "not a NetBox interface type"),
        ),
        (
            lambda d: d["interfaces"][0].update(count=64),
            ("field interfaces[0].count", "not permitted"),
        ),
        (
            lambda d: d["interfaces"][1].update(name="osfp1/1"),
            ("interfaces: names repeat", "osfp1/1"),
        ),
        (
            lambda d: d["power-ports"][0].update(type="schuko"),
            ("field power-ports[0].type", "not a NetBox power-port type"),
        ),
        (
            lambda d: d["power-ports"][0].update(maximum_draw=0),
            ("field power-ports[0].maximum_draw", "greater than or equal to 1"),
        ),
        (lambda d: d.pop("weight_unit"), ("weight and weight_unit go together",)),
        (lambda d: d.pop("is_full_depth"), ("field is_full_depth", "required")),
        (lambda d: d.update(airflow="sideways"), ("field airflow", "front-to-rear")),
        (lambda d: d.update(u_height=1.25), ("field u_height", "multiple of 0.5")),
        (lambda d: d.update(weight=0.07), ("field weight", "multiple of 0.01")),
        (lambda d: d.update(part_number=None), ("part_number: empty (null)",)),
        (
            lambda d: d["interfaces"][0].update(mgmt_only="yes"),
            ("field interfaces[0].mgmt_only", "valid boolean"),
        ),
    ],
)
def test_netbox_part_and_port_groups_fail_with_the_place_named(
    root: Path, change: Any, needles: tuple[str, ...]
) -> None:
    f = root / "switch" / "qm9700.yaml"
    _edit(f, change)
    _fails(root, "qm9700.yaml", *needles)


def test_port_format_must_name_the_listed_ports(root: Path) -> None:
    f = root / "switch" / "generic-switch.yaml"
    _edit(f, lambda d: _group(d, 0).update(port_format="p{n}"))
    _fails(root, "generic-switch.yaml", "port_format 'p{n}' names port 1 'p1'")


def test_port_format_only_on_configurable_entries(root: Path) -> None:
    f = root / "switch" / "sn5600.yaml"
    _edit(f, lambda d: _group(d, 0).update(port_format="swp{n}"))
    _fails(root, "sn5600.yaml", "port_groups[0].port_format", "configurable")
