"""Headline wording: racks as placed, else rack units and a packed estimate."""

from __future__ import annotations

from pathlib import Path

from designer.cli.summary import format_summary
from designer.core.model import Placement
from designer.io import load_design
from designer.io.export.summary import headline, rack_estimate, racks_text
from tests.io.export.designs import fake_report, rail_design

SAMPLES = Path(__file__).resolve().parents[3] / "samples"


def test_unplaced_design_gets_units_and_estimate_not_zero_racks() -> None:
    design = rail_design()  # 4 DGX H100 (8 U) + 4 QM9700 (1 U) = 36 U
    report = fake_report(design).model_copy(update={"racks": 0, "rack_units": 36.0})
    text = racks_text(report, design)
    assert text == (
        "36 U, about 1 rack of 42 U if packed "
        "(estimate; no rack placement in the design)"
    )
    assert dict(headline(design, report))["Racks"] == text
    summary = format_summary(report, design, "x.json")
    assert "0 racks" not in summary and "0 rack" not in summary
    assert f"Racks            {text}" in summary


def test_placed_design_keeps_the_real_count() -> None:
    design = rail_design()
    devices = [
        d.model_copy(update={"placement": Placement(row="A", rack=f"A0{i % 2 + 1}")})
        if d.catalog_id == "dgx-h100"
        else d
        for i, d in enumerate(design.devices)
    ]
    design = design.model_copy(update={"devices": devices})
    report = fake_report(design)  # racks=2, rack_units=36
    text = racks_text(report, design)
    assert text == "2 racks, 36 U in all; 4 of 8 devices have no rack placement"
    assert dict(headline(design, report))["Racks"] == text
    assert text in format_summary(report, design, "x.json")


def test_estimate_on_samples() -> None:
    b200 = load_design(SAMPLES / "dgx-b200-superpod-16su.json")
    assert rack_estimate(b200) == (0, 133)  # 5,585 U / 42, rounded up
    nvl = load_design(SAMPLES / "gb200-nvl72-su.json")
    whole, packed = rack_estimate(nvl)
    assert whole == 8  # each NVL72 (48 U) is a rack of its own
    report = fake_report(nvl).model_copy(update={"racks": 0, "rack_units": 453.0})
    assert racks_text(report, nvl).startswith(
        f"453 U, about {8 + packed} racks if packed: 8 rack-scale systems + "
        f"{packed} of 42 U"
    )


def test_typical_cost_note_reads_as_a_sentence() -> None:
    design = rail_design()
    report = fake_report(design)
    assert dict(headline(design, report))["Typical cost of the class"] == (
        "$500K – $3.00M (product brief)"  # the one formatter (issue 16 item 9)
    )
    tier = report.tier.model_copy(
        update={"typical_cost_note": "The range is a rule of thumb (brief §3)."}
    )
    report = report.model_copy(update={"tier": tier})
    assert dict(headline(design, report))["Typical cost of the class"] == (
        "$500K – $3.00M. The range is a rule of thumb (brief §3)."
    )
