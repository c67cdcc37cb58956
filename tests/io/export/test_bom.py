"""BOM CSV: rows are the report's cost lines; the total equals the analysis total."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from designer.io.export import BOM_COLUMNS, write_bom_csv
from tests.io.export.designs import fake_report, rail_design


def _read(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_bom_rows_and_total_match_report() -> None:
    design = rail_design()
    report = fake_report(design)
    buf = io.StringIO()
    total = write_bom_csv(report, buf)
    rows = _read(buf.getvalue())
    assert list(rows[0]) == list(BOM_COLUMNS)
    body, last = rows[:-1], rows[-1]
    assert last["category"] == "TOTAL"
    assert float(last["extended_price_usd"]) == pytest.approx(report.cost_usd.total)
    assert total == report.cost_usd.total
    assert sum(float(r["extended_price_usd"]) for r in body) == pytest.approx(
        report.cost_usd.total, abs=0.01
    )
    assert [r["catalog_id"] for r in body] == ["dgx-h100", "qm9700", "cable-ndr-400g"]
    dgx = body[0]
    assert dgx["manufacturer"] == "NVIDIA"
    assert dgx["model"] == "DGX H100"
    assert dgx["quantity"] == "4"
    assert dgx["unit_price_usd"] == "270000.00"
    assert dgx["extended_price_usd"] == "1080000.00"
    assert dgx["estimate"] == "yes"
    cable = body[2]
    assert cable["category"] == "cables_optics"
    assert cable["model"] == (
        "NDR 400G multimode fiber cable (cables count lanes: a breakout "
        "splitter counts once per leg)"
    )
    assert cable["quantity"] == str(sum(design.links.cables))
    assert cable["estimate"] == "no"
    assert cable["source"] == "vendor list, 2024"


def test_bom_to_path_is_written_whole(tmp_path: Path) -> None:
    report = fake_report(rail_design())
    out = tmp_path / "bom.csv"
    write_bom_csv(report, out)
    assert out.read_text(encoding="utf-8").startswith("category,catalog_id,")
    assert not list(tmp_path.glob("*.part"))


def test_bom_total_equals_analysis_total() -> None:
    analysis = pytest.importorskip("designer.analysis")
    if not hasattr(analysis, "analyze"):
        pytest.skip("designer.analysis.analyze not available yet")
    design = rail_design()
    report = analysis.analyze(design)
    buf = io.StringIO()
    write_bom_csv(report, buf)
    rows = _read(buf.getvalue())
    assert float(rows[-1]["extended_price_usd"]) == pytest.approx(
        report.cost_usd.total, abs=0.005
    )
    assert sum(float(r["extended_price_usd"]) for r in rows[:-1]) == pytest.approx(
        report.cost_usd.total, abs=0.01 * len(rows)
    )
    categories = {r["category"] for r in rows[:-1]}
    assert "cables_optics" in categories
