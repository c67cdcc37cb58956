"""PDF report: parse the text back and compare with the report's numbers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pypdf import PdfReader
from PySide6.QtGui import QPdfWriter

from designer.analysis.report import Finding, Severity
from designer.core.formatting import usd
from designer.io.export import ExportCancelled
from designer.io.export.summary import bandwidth, racks_text
from designer.qt.export import write_pdf
from tests.io.export.designs import fake_report, rail_design

A4_PT = (595, 842)
LETTER_PT = (612, 792)


def _text(path: Path) -> tuple[list[str], PdfReader]:
    reader = PdfReader(str(path))
    pages = [re.sub(r"\s+", " ", p.extract_text() or "") for p in reader.pages]
    return pages, reader


def _size(page: object) -> tuple[int, int]:
    box = page.mediabox  # type: ignore[attr-defined]
    return round(float(box.width)), round(float(box.height))


def test_headline_numbers_and_pages(tmp_path: Path) -> None:
    design = rail_design()
    report = fake_report(design)
    out = tmp_path / "report.pdf"
    write_pdf(out, design, report, date="2026-11-29", page_size="A4")
    pages, reader = _text(out)
    first = pages[0]
    assert design.settings.name in first
    assert "training" in first
    assert f"{report.tier.name}: {report.tier.reason}" in first
    assert f"{report.gpus:,} in {report.compute_nodes:,} compute nodes" in first
    assert f"{bandwidth(report.bisection.gbps)}, ratio 1.00" in first
    assert "exact" in first
    # the headline in three figures, as the window (issue 16 item 9)
    assert f"{usd(report.cost_usd.total)} (estimate)" in first
    assert f"{report.power_kw:,.1f} kW" in first
    assert racks_text(report, design) in first
    # drawing page landscape, table pages portrait; footer on every page
    assert _size(reader.pages[0]) == A4_PT[::-1]
    assert all(_size(p) == A4_PT for p in reader.pages[1:])
    n = len(pages)
    for i, text in enumerate(pages, start=1):
        assert f"Page {i} of {n}" in text
        assert f"{design.settings.name} · 2026-11-29" in text
    rest = " ".join(pages[1:])
    for section in ("Switch tiers", "Findings", "Bill of materials", "Cabling"):
        assert section in rest
    # BOM with unit and extended prices, sources and the analysis total
    assert "$270,000.00" in rest
    assert "$1,080,000.00" in rest
    assert "SemiAnalysis estimate" in rest
    assert f"${report.cost_usd.total:,.2f}" in rest
    assert "no-storage" in rest
    assert f"{sum(design.links.cables):,}" in rest
    # vector drawing with selectable labels
    assert "DGX 01" in first


def test_letter_and_bounds_are_marked(tmp_path: Path) -> None:
    design = rail_design()
    report = fake_report(design)
    report.bisection.exact = False
    report.bisection.lower_gbps = 3200.0
    out = tmp_path / "letter.pdf"
    write_pdf(out, design, report, page_size="Letter")
    pages, reader = _text(out)
    assert _size(reader.pages[0]) == LETTER_PT[::-1]
    assert _size(reader.pages[1]) == LETTER_PT
    assert "upper bound" in pages[0]
    assert "3,200 Gb/s" in pages[0]


@pytest.mark.slow
def test_long_tables_split_with_repeated_headers(tmp_path: Path) -> None:
    design = rail_design()
    report = fake_report(design)
    report.findings = [
        Finding(
            code=f"f-{i:04d}",
            severity=Severity.WARNING,
            message=f"finding number {i} with a message long enough to wrap " * 2,
            items=[f"dgx-{k:05d}" for k in range(40)],
        )
        for i in range(250)
    ]
    out = tmp_path / "long.pdf"
    write_pdf(out, design, report, sections=("findings",))
    pages, _ = _text(out)
    assert len(pages) >= 4
    text = " ".join(pages)
    found = re.findall(r"f-(\d{4})", text)
    assert sorted(set(found)) == [f"{i:04d}" for i in range(250)]
    assert "dgx-[00000-00039]" in text  # every item, as a host list
    for page in pages[2:]:
        assert "Findings (continued)" in page
        assert "Severity Code Message Items" in page


def test_cancel_leaves_no_file(tmp_path: Path) -> None:
    design = rail_design()
    out = tmp_path / "cancelled.pdf"
    calls: list[tuple[int, int]] = []

    def progress(done: int, total: int) -> bool:
        calls.append((done, total))
        return len(calls) < 2

    with pytest.raises(ExportCancelled):
        write_pdf(out, design, fake_report(design), progress=progress)
    assert not out.exists()
    assert not list(tmp_path.iterdir())


def test_bad_page_size_is_a_clear_error(tmp_path: Path) -> None:
    design = rail_design()
    with pytest.raises(ValueError, match="A4, Letter"):
        write_pdf(tmp_path / "x.pdf", design, fake_report(design), page_size="A3")


def test_pdf_from_analysis_report(tmp_path: Path) -> None:
    analysis = pytest.importorskip("designer.analysis")
    if not hasattr(analysis, "analyze"):
        pytest.skip("designer.analysis.analyze not available yet")
    design = rail_design()
    report = analysis.analyze(design)
    out = tmp_path / "analysed.pdf"
    write_pdf(out, design, report)
    pages, _ = _text(out)
    assert f"{report.gpus:,} in {report.compute_nodes:,} compute nodes" in pages[0]
    assert usd(report.cost_usd.total) in pages[0]
    assert bandwidth(report.bisection.gbps) in pages[0]
    assert f"${report.cost_usd.total:,.2f}" in " ".join(pages[1:])


def test_huge_cells_and_long_names_stay_on_the_page(tmp_path: Path) -> None:
    design = rail_design()
    design.settings.name = "A very long design name " * 8
    report = fake_report(design)
    report.findings = [
        Finding(
            code="huge",
            severity=Severity.ERROR,
            message="word " * 4000,
        )
    ]
    out = tmp_path / "huge.pdf"
    write_pdf(out, design, report, sections=("drawing", "findings"))
    pages, _ = _text(out)
    assert "(cut)" in " ".join(pages)
    for page in pages:
        assert re.search(r"Page \d+ of \d+", page)
    # the footer keeps the date and page number even with a long name
    assert "Page 1 of" in pages[0]


def _placed_words(path: Path) -> list[tuple[str, float, float]]:
    """Text runs of page 1 with their position in points (text matrix x CTM)."""
    out: list[tuple[str, float, float]] = []

    def visit(text: str, cm: list[float], tm: list[float], *_: object) -> None:
        if text.strip():
            x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
            y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
            out.append((text.strip(), x, y))

    PdfReader(str(path)).pages[0].extract_text(visitor_text=visit)
    return out


@pytest.mark.slow
def test_page_does_not_depend_on_the_writer_resolution(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Raising the PDF resolution keeps every text run where it was (in points)."""
    import designer.qt.export.layout as layout_mod
    import designer.qt.export.pdf as pdf_mod

    assert layout_mod.PDF_DPI >= 300  # print resolution: crisp positions
    design = rail_design()
    report = fake_report(design)
    runs = {}
    for dpi in (96, 300):
        monkeypatch.setattr(layout_mod, "PDF_DPI", dpi)
        monkeypatch.setattr(pdf_mod, "PDF_DPI", dpi)
        out = write_pdf(tmp_path / f"r{dpi}.pdf", design, report, date="2026-11-29")
        runs[dpi] = _placed_words(out)
    low, high = runs[96], runs[300]
    assert [t for t, _, _ in low] == [t for t, _, _ in high]
    assert len(high) > 20
    for (text, x0, y0), (_, x1, y1) in zip(low, high, strict=True):
        # 96 dpi snaps positions to 0.75 pt
        assert abs(x0 - x1) < 1.5 and abs(y0 - y1) < 1.5, text


def test_page_one_puts_the_headline_where_the_drawing_gets_bigger(
    tmp_path: Path,
) -> None:
    from designer.io.export.summary import headline
    from designer.qt.export.layout import PDF_DPI, Flow, page_rects
    from designer.qt.export.pdf import SIDE_BLOCK_W, _first_page_plan, _page_layouts

    design = rail_design()
    pairs = headline(design, fake_report(design))
    writer = QPdfWriter(str(tmp_path / "x.pdf"))
    writer.setResolution(PDF_DPI)  # as write_pdf does: text is measured on it
    flow = Flow(writer, page_rects(_page_layouts("A4")))
    r = flow.rects[True]
    bottom = r.bottom() - flow.footer_height
    # a square drawing sits beside the headline column, at full height
    area, width, columns, _ = _first_page_plan(flow, pairs, r, 60, bottom, 1.0)
    assert (width, columns) == (SIDE_BLOCK_W, 1)
    assert area.left() > r.left() + SIDE_BLOCK_W
    # a long flat one gets the full page width under a headline grid
    area, width, columns, size = _first_page_plan(flow, pairs, r, 60, bottom, 4.0)
    assert (width, columns) == (r.width(), 4)
    assert area.width() == r.width() and area.top() > 100
    assert size >= 7.0  # the grid text stays readable


def test_a_billion_dollar_total_stays_on_one_line(tmp_path: Path) -> None:
    """The widest BOM number (bold total of a 100K-GPU design) does not wrap."""
    design = rail_design()
    report = fake_report(design)
    cost = report.cost_usd.model_copy(update={"total": 4_046_748_800.0})
    report = report.model_copy(update={"cost_usd": cost})
    out = write_pdf(tmp_path / "r.pdf", design, report, sections=["tiers", "bom"])
    lines = [
        line
        for page in PdfReader(str(out)).pages
        for line in (page.extract_text() or "").splitlines()
    ]
    assert any("$4,046,748,800.00" in line for line in lines)
