"""The PDF report's floor plan and rack elevation pages."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from pypdf import PdfReader

from designer.analysis import analyze
from designer.catalog import default_catalog
from designer.core.model import Design
from designer.generate import superpod
from designer.physical import place
from designer.qt.export import write_pdf
from designer.qt.export.pdf import SECTIONS
from tests.physical.builders import placed_design

CAT = default_catalog()


def _pages(path: Path) -> tuple[list[str], PdfReader]:
    reader = PdfReader(str(path))
    return [re.sub(r"\s+", " ", p.extract_text() or "") for p in reader.pages], reader


def _smallest_text(reader: PdfReader, page: int) -> float:
    """Smallest printed text size (pt) on a page."""
    sizes: list[float] = []

    def visit(
        text: str, cm: list[float], tm: list[float], _: object, size: float
    ) -> None:
        if text.strip():
            a = cm[0] * tm[0] + cm[2] * tm[1]
            b = cm[1] * tm[0] + cm[3] * tm[1]
            sizes.append(size * math.hypot(a, b))

    reader.pages[page].extract_text(visitor_text=visit)
    return min(sizes)


def _write(
    tmp_path: Path, design: Design, sections: tuple[str, ...] = SECTIONS
) -> Path:
    return write_pdf(
        tmp_path / "r.pdf",
        design,
        analyze(design, CAT),
        CAT,
        date="2026-11-29",
        sections=sections,
    )


@pytest.mark.slow
def test_a_placed_design_gets_floor_plan_and_elevations(tmp_path: Path) -> None:
    design = place(superpod("dgx-h100", 1), CAT)
    pages, reader = _pages(_write(tmp_path, design, ("drawing", "racks")))
    floor = next(i for i, t in enumerate(pages) if t.startswith("Floor plan"))
    text = pages[floor]
    n = len(design.physical.racks)  # type: ignore[union-attr]
    assert f"{n} racks in " in text and "hottest rack 40.8 kW" in text
    assert (
        "0-10 kW (typical enterprise rack)" in text and "30-60 kW (containment)" in text
    )
    assert re.search(r"\d+ m\b", text)  # the scale bar
    elevations = [i for i, t in enumerate(pages) if t.startswith("Rack elevations")]
    assert elevations and elevations[0] == floor + 1
    shown = " ".join(pages[i] for i in elevations)
    assert "su01-c01" in shown
    assert "40.8 / 60 kW" in shown  # 4 DGX H100 in a containment rack
    assert "dgx-0001" in shown  # named as on the canvas (issue 16 item 11)
    assert re.search(r"× \d+ racks alike", shown)
    table = pages[elevations[-1] + 1]
    assert table.startswith("Racks by layout")
    # the feeds of each rack type used, with their source and estimate mark
    assert "Rack types" in table and "many [sites] can only support" in table
    for i in [floor, *elevations]:
        assert _smallest_text(reader, i) >= 6.0 - 1e-6
        assert reader.pages[i].mediabox.width > reader.pages[i].mediabox.height


@pytest.mark.slow
def test_floor_plan_row_names_are_whole(tmp_path: Path) -> None:
    """A long row name ("storage and management") wraps beside its row, never cut."""
    design = place(superpod("dgx-h100", 4), CAT)
    pages, _ = _pages(_write(tmp_path, design, ("racks",)))
    floor = next(t for t in pages if t.startswith("Floor plan"))
    assert "…" not in floor
    assert "storage and management" in floor
    table = next(t for t in pages if t.startswith("Racks by layout"))
    assert "…" not in table and re.search(r", and \d+ more", table)


@pytest.mark.slow
def test_many_layouts_take_several_elevation_pages(tmp_path: Path) -> None:
    # 30 racks, each with one switch at its own U: 30 layouts, none alike
    design = placed_design(
        [(f"s{k}", "qm9700", f"r{k:02d}", k + 1) for k in range(30)],
        racks=[(f"r{k:02d}", "rack-48u", "row1", k) for k in range(30)],
        rows=[("row1", 1.0, 1.0)],
    )
    pages, _ = _pages(_write(tmp_path, design, ("racks",)))
    titles = [t[:30] for t in pages if t.startswith("Rack elevations")]
    assert len(titles) >= 3
    assert titles[0].startswith(f"Rack elevations (1 of {len(titles)})")
    every = " ".join(pages)
    for k in range(30):
        assert f"r{k:02d}" in every


@pytest.mark.slow
def test_no_physical_pages_without_racks_or_when_left_out(tmp_path: Path) -> None:
    unplaced = superpod("dgx-h100", 1)
    pages, _ = _pages(_write(tmp_path, unplaced))
    assert not any(t.startswith(("Floor plan", "Rack elevations")) for t in pages)
    placed = place(unplaced, CAT)
    without = tuple(s for s in SECTIONS if s != "racks")
    pages, _ = _pages(_write(tmp_path, placed, without))
    assert not any(t.startswith(("Floor plan", "Rack elevations")) for t in pages)
