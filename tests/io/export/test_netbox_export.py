"""NetBox bulk-import CSVs: racks, devices at their U, cables with length."""

from __future__ import annotations

import csv
from collections import Counter
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
    assert len(cables) == len(plan) == counts["cables"]
    assert all(c["length"] and c["length_unit"] == "m" for c in cables)
    assert {c["type"] for c in cables} <= set(NETBOX_CABLE_TYPE.values())
    # side names are NetBox interface names of the catalog's device type
    names = {i.name for i in CAT["gb200-nvl72"].netbox_interfaces}
    ends = [c["side_a_name"] for c in cables if c["side_a_device"] == "nvl72-0001"]
    assert ends and set(ends) <= names
    sites = _rows(tmp_path / "sites.csv")
    assert [s["name"] for s in sites] == [design.settings.name]
    (hall,) = _rows(tmp_path / "locations.csv")
    assert {r["location"] for r in racks} == {hall["name"]}


def test_a_breakout_cable_is_several_single_termination_rows(tmp_path: Path) -> None:
    """The 4 UFM ports run at 200G: lanes of QM9700 twin cages (2 per port)."""
    design = load_design(SAMPLES / "dgx-h100-superpod-4su.json")
    write_netbox_csvs(design, tmp_path, CAT)
    cables = _rows(tmp_path / "cables.csv")
    lanes = [c for c in cables if "lane" in c["label"]]
    assert lanes, "the UFM breakout lanes"
    per_port = Counter((c["side_b_device"], c["side_b_name"]) for c in lanes)
    assert all(":" not in name for _, name in per_port)  # the NetBox interface
    ufm = [c for c in lanes if c["side_a_device"].startswith("ufm")]
    assert len(ufm) == 4 and all(c["side_a_name"] for c in ufm)


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
    assert text.startswith(f"netbox: {out} (1 sites")
    assert sorted(p.name for p in out.iterdir()) == [
        "cables.csv",
        "devices.csv",
        "locations.csv",
        "racks.csv",
        "sites.csv",
    ]
