"""A bad catalog entry fails loudly at load, naming the file and the field."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.catalog import CatalogError, default_catalog_dir, load_catalog
from designer.catalog.loader import load_entry


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
    _edit(f, lambda d: d["interfaces"][0].update(count="eight"))
    _fails(root, "dgx-h100.yaml", "field interfaces[0].count", "'eight'")


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
    _edit(f, lambda d: d["interfaces"][0].update(name="nic"))
    _fails(root, "weka-appliance.yaml", "'data'")


def test_speeds_native_first_and_breakout_speeds_known(root: Path) -> None:
    f = root / "switch" / "sn5600.yaml"
    _edit(f, lambda d: d["interfaces"][0].update(speeds_gbps=[400, 800]))
    _fails(root, "sn5600.yaml", "native (highest) speed first")
    _edit(f, lambda d: d["interfaces"][0].update(speeds_gbps=[800, 400]))
    _fails(root, "sn5600.yaml", "breakout speed 200")


def test_unknown_transceiver(root: Path) -> None:
    f = root / "switch" / "qm9700.yaml"
    _edit(f, lambda d: d["interfaces"][0].update(transceiver="osfp-9x9g"))
    _fails(root, "qm9700.yaml", "interfaces[0].transceiver", "osfp-9x9g")


def test_twin_cage_needs_a_twin_module(root: Path) -> None:
    f = root / "switch" / "qm9700.yaml"
    _edit(f, lambda d: d["interfaces"][0].update(transceiver="osfp-400g"))
    _fails(root, "qm9700.yaml", "carries 1 link(s)", "2 port(s)")
    _edit(f, lambda d: d["interfaces"][0].pop("transceiver"))
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
        ("interfaces.nope.count: no such group", "unknown field"),
    ],
)
def test_estimates_name_real_fields(root: Path, line: str, needle: str) -> None:
    f = root / "switch" / "qm9700.yaml"
    _edit(f, lambda d: d["x-designer"]["estimates"].append(line))
    _fails(root, "qm9700.yaml", needle)


def test_broken_optics_table(root: Path) -> None:
    f = root / "optics.yaml"
    _edit(f, lambda d: d["cables"][0].update(transceiver="nope"))
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


def test_loads_fast() -> None:
    load_catalog()  # warm imports
    start = time.perf_counter()
    for _ in range(5):
        load_catalog()
    per_load = (time.perf_counter() - start) / 5
    assert per_load < 0.25, f"{per_load * 1000:.0f} ms per catalog load"


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


@settings(
    max_examples=150,
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
    data = yaml.safe_load(yaml.safe_dump(_SHIPPED))
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
