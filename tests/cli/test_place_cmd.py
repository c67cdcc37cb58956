"""cluster-designer place / generate --place / validate --json's physical object."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from designer.cli.main import main
from designer.io import load_design

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
STABLE = {
    "placed",
    "racks",
    "racks_by_cooling",
    "max_rack_kw",
    "floor_m2",
    "cables_by_media",
    "longest_cable_m",
}


def _validate(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    main(["validate", str(path), "--json"])
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def test_place_writes_a_placed_design(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "pod.json"
    assert main(["generate", "superpod", "--system", "dgx-h100", "--sus", "1",
                 "--no-place", "-o", str(src)]) == 0  # fmt: skip
    capsys.readouterr()
    assert load_design(src).physical is None
    out = tmp_path / "placed.json"
    assert main(["place", str(src), "-o", str(out), "--per-rack", "2"]) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"wrote {out}: ") and "racks in" in text
    placed = load_design(out)
    assert placed.physical is not None
    report = _validate(out, capsys)
    ph = report["physical"]
    assert set(ph) >= STABLE and ph["placed"] is True
    assert set(ph["racks_by_cooling"]) == {"air", "containment", "liquid"}
    assert set(ph["cables_by_media"]) == {
        "dac", "acc", "aoc", "multimode", "singlemode", "copper"
    }  # fmt: skip
    assert ph["max_rack_kw"] == pytest.approx(20.4)  # 2 DGX H100 per rack
    assert ph["racks_by_cooling"]["containment"] == 0  # 20.4 kW is air


def test_generate_places_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "k.json"
    assert main(["generate", "k-ary", "--k", "4", "-o", str(out),
                 "--max-cooling", "air"]) == 0  # fmt: skip
    capsys.readouterr()
    ph = _validate(out, capsys)["physical"]
    assert ph["placed"] and ph["racks"] > 0 and ph["longest_cable_m"] > 0


def test_place_to_stdout_and_facility_options(
    capsys: pytest.CaptureFixture[str],
) -> None:
    src = SAMPLES / "minimum-viable-enterprise.json"
    assert main(["place", str(src), "-o", "-", "--pue", "1.5", "--slack-m", "2",
                 "--hall-budget-kw", "40"]) == 0  # fmt: skip
    data = json.loads(capsys.readouterr().out)
    facility = data["physical"]["facility"]
    assert facility["pue"] == 1.5 and facility["slack_m"] == 2.0
    assert data["physical"]["halls"][0]["power_budget_kw"] == 40.0


def test_bad_input_exits_two(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = SAMPLES / "development.json"
    assert (
        main(["place", str(src), "-o", str(tmp_path / "x.json"), "--pue", "0.5"]) == 2
    )
    assert "--pue" in capsys.readouterr().err
    assert main(["place", str(src), "-o", "x", "--air-kw", "-3"]) == 2
    assert "expected a number > 0" in capsys.readouterr().err
    assert main(["place", str(tmp_path / "none.json"), "-o", "x"]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["place", str(src), "-o", str(tmp_path / "no" / "dir.json")]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_unplaced_report_keeps_the_stable_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "ft.json"
    assert main(["generate", "fat-tree", "--compute", "dgx-h100", "--nodes", "8",
                 "--switch", "qm9700", "--no-place", "-o", str(out)]) == 0  # fmt: skip
    capsys.readouterr()
    ph = _validate(out, capsys)["physical"]
    assert set(ph) >= STABLE
    assert ph["placed"] is False and ph["racks"] == 0
    assert ph["max_rack_kw"] is None and ph["floor_m2"] is None
    assert ph["longest_cable_m"] is None
    assert ph["cables_by_media"]["multimode"] == 64  # default NDR medium
