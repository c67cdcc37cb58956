"""NetBox bulk-import CSVs: racks, devices at their U, cables with length."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from designer.catalog import default_catalog
from designer.cli.main import main
from designer.generate import superpod
from designer.io import load_design
from designer.io.export import cabling_rows
from designer.io.export.netbox import (
    CABLE_COLUMNS,
    DEVICE_COLUMNS,
    NETBOX_CABLE_TYPE,
    RACK_COLUMNS,
    write_netbox_csvs,
)

CAT = default_catalog()
SAMPLES = Path(__file__).resolve().parents[3] / "samples"


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_placed_sample_exports_racks_devices_and_cables(tmp_path: Path) -> None:
    design = load_design(SAMPLES / "gb200-nvl72-su.json")
    counts = write_netbox_csvs(design, tmp_path, CAT)
    assert design.physical is not None
    assert counts["racks"] == len(design.physical.racks)
    racks = _rows(tmp_path / "racks.csv")
    assert tuple(racks[0]) == RACK_COLUMNS
    nvl = next(r for r in racks if r["name"] == "su01-c01")
    assert nvl["u_height"] == "48" and "liquid cooling" in nvl["description"]
    devices = {r["name"]: r for r in _rows(tmp_path / "devices.csv")}
    assert tuple(next(iter(devices.values()))) == DEVICE_COLUMNS
    rack = devices["nvl72-0001"]
    assert (rack["rack"], rack["position"], rack["face"]) == ("su01-c01", "1", "front")
    assert rack["device_type"] == CAT["gb200-nvl72"].model
    assert rack["manufacturer"] == "NVIDIA" and rack["role"] == "compute"
    assert all(d["rack"] and d["position"] for d in devices.values())
    cables = _rows(tmp_path / "cables.csv")
    assert tuple(cables[0]) == CABLE_COLUMNS
    plan = list(cabling_rows(design, CAT))
    # 1,857 lanes in 1,552 cables: splitters carry several lanes each
    assert (len(plan), len(cables), counts["cables"]) == (1857, 1552, 1552)
    assert counts["cable_lanes"] == len(plan) and counts["breakouts"] == 153
    assert all(c["length"] and c["length_unit"] == "m" for c in cables)
    assert {c["type"] for c in cables} <= set(NETBOX_CABLE_TYPE.values())
    # side names are NetBox interface names of the catalog's device type
    names = {i.name for i in CAT["gb200-nvl72"].netbox_interfaces}
    ends = [c["side_a_name"] for c in cables if c["side_a_device"] == "nvl72-0001"]
    assert ends and set(ends) <= names
    assert all(
        c["side_a_site"] == c["side_b_site"] == design.settings.name for c in cables
    )
    sites = _rows(tmp_path / "sites.csv")
    assert [s["name"] for s in sites] == [design.settings.name]
    (hall,) = _rows(tmp_path / "locations.csv")
    assert {r["location"] for r in racks} == {hall["name"]}


def _ends(row: dict[str, str], side: str) -> list[tuple[str, str]]:
    names = row[f"side_{side}_name"].split(",")
    devices = row[f"side_{side}_device"].split(",")
    if len(devices) == 1:
        devices = devices * len(names)
    assert len(devices) == len(names), row
    return list(zip(devices, names, strict=True))


def test_a_breakout_is_one_cable_split_port_on_side_a(tmp_path: Path) -> None:
    """Lustre and head-node ports run at 200G on lanes of QM9700 twin-cage
    ports (2 per port): one splitter cable per split port, as NetBox models
    it, its legs on one device or two; so are the 4 UFM ports (one leg of a
    2-way split used each)."""
    design = load_design(SAMPLES / "dgx-h100-superpod-4su.json")
    counts = write_netbox_csvs(design, tmp_path, CAT)
    cables = _rows(tmp_path / "cables.csv")
    splitters = [c for c in cables if c["profile"]]
    assert {c["profile"] for c in splitters} == {"breakout-1c2p-2c1p"}
    lustre = [c for c in splitters if c["side_b_device"].startswith("lustre")]
    assert len(lustre) == 8 and counts["breakouts"] == len(splitters) == 18
    for c in lustre:
        assert c["side_a_device"].startswith("storage-spine-")
        assert ":" not in c["side_a_name"] and "," not in c["side_a_name"]
        assert len(c["side_b_name"].split(",")) == 2  # both legs, one device
        assert "split 2 ways" in c["description"]
    two = [c for c in splitters if "," in c["side_b_device"]]
    assert two and all(c["side_b_device"].startswith("head-") for c in two)
    assert all(len(set(c["side_b_device"].split(","))) == 2 for c in two)
    ufm = [c for c in splitters if c["side_b_device"].startswith("ufm")]
    assert len(ufm) == 4 and all(c["side_a_name"] == "osfp32/2" for c in ufm)
    plan = list(cabling_rows(design, CAT))
    assert counts["cable_lanes"] == len(plan) == 3054
    assert counts["cables"] == len(cables) == 3054 - 12  # 28 lanes in 16 cables


@pytest.mark.parametrize(
    "name", ["dgx-h100-superpod-4su.json", "gb200-nvl72-su.json", "development.json"]
)
def test_cables_use_each_interface_once_and_carry_every_lane(
    name: str, tmp_path: Path
) -> None:
    """NetBox's rule: an interface is on one cable. Every plan lane's two ports
    are ends of one cable, on opposite sides; lanes add up to the plan's."""
    design = load_design(SAMPLES / name)
    counts = write_netbox_csvs(design, tmp_path, CAT)
    cables = _rows(tmp_path / "cables.csv")
    site = design.settings.name
    where: dict[tuple[str, str], tuple[int, str]] = {}
    for i, c in enumerate(cables):
        assert c["side_a_site"] == c["side_b_site"] == site
        for side in "ab":
            for end in _ends(c, side):
                assert end not in where, f"{end} on two cables"
                where[end] = (i, side)
    names = {r["name"] for r in _rows(tmp_path / "devices.csv")}
    assert {d for d, _ in where} <= names
    from designer.catalog.hosts import device_hostnames

    host = {d.id: d.id for d in design.devices} | device_hostnames(design, CAT)
    lanes = 0
    for row in cabling_rows(design, CAT):
        a, b = str(row[6]).split(":")[0], str(row[12]).split(":")[0]
        if not a or not b:
            continue
        lanes += 1
        ca, sa = where[(host[str(row[2])], a)]
        cb, sb = where[(host[str(row[8])], b)]
        assert ca == cb and sa != sb
    assert lanes == counts["cable_lanes"] >= counts["cables"] == len(cables)


def test_the_folder_has_what_netbox_needs_in_order(tmp_path: Path) -> None:
    import yaml

    from designer.io.export.netbox import IMPORT_STEPS, ROLE_COLORS

    design = load_design(SAMPLES / "gb200-nvl72-su.json")
    counts = write_netbox_csvs(design, tmp_path, CAT)
    names = [f for f, _, _ in IMPORT_STEPS]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*names, "README.md"])
    used = {CAT[d.catalog_id].slug: CAT[d.catalog_id] for d in design.devices}
    text = (tmp_path / "device-types.yaml").read_text(encoding="utf-8")
    assert text.startswith("---\n") and text.count("---\n") == len(used)
    docs = list(yaml.safe_load_all(text))
    assert {d["slug"] for d in docs} == set(used)
    assert counts["device-types"] == len(used)
    for d in docs:
        entry = used[d["slug"]]
        assert "x-designer" not in d
        assert d["model"] == entry.model and d["manufacturer"] == entry.manufacturer
        assert [i["name"] for i in d["interfaces"]] == [
            i.name for i in entry.netbox_interfaces
        ]
    makers = [r["name"] for r in _rows(tmp_path / "manufacturers.csv")]
    assert sorted(makers) == sorted({e.manufacturer for e in used.values()})
    roles = {r["name"]: r["color"] for r in _rows(tmp_path / "device-roles.csv")}
    assert roles == {
        e.category.value: ROLE_COLORS[e.category.value] for e in used.values()
    }
    devices = _rows(tmp_path / "devices.csv")
    assert {d["role"] for d in devices} == set(roles)
    readme = (tmp_path / "README.md").read_text(encoding="utf-8")
    at = [readme.index(f"`{n}`") for n in names]
    assert at == sorted(at)  # the import order
    assert f"{counts['cables']:,} physical cables carrying" in readme


def test_catalog_files_start_a_yaml_document() -> None:
    """NetBox's Import page detects YAML by the leading ``---``."""
    root = Path(__file__).resolve().parents[3] / "resources" / "catalog"
    files = sorted(root.rglob("*.yaml"))
    assert len(files) > 20
    for f in files:
        assert f.read_text(encoding="utf-8").startswith("---\n"), f


def test_unplaced_design_has_no_racks_or_lengths(tmp_path: Path) -> None:
    design = superpod("dgx-h100", 1)
    counts = write_netbox_csvs(design, tmp_path, CAT)
    assert counts["racks"] == 0 and counts["locations"] == 0
    devices = _rows(tmp_path / "devices.csv")
    assert all(d["rack"] == "" and d["position"] == "" for d in devices)
    cables = _rows(tmp_path / "cables.csv")
    assert cables and all(c["length"] == "" and c["length_unit"] == "" for c in cables)
    assert {c["type"] for c in cables} <= {"mmf", "aoc", "cat6"}  # default media


def test_export_command_writes_the_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "nb"
    code = main(
        [
            "export",
            str(SAMPLES / "minimum-viable-enterprise.json"),
            "--netbox",
            str(out),
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert text.startswith(f"netbox: {out} (")
    assert " cables (" in text and " lanes" in text
    assert (out / "README.md").is_file() and (out / "device-types.yaml").is_file()
