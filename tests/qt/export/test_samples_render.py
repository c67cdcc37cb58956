"""Every sample design renders to a PDF whose text carries the analysis numbers."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from pypdf import PdfReader

from designer.analysis import analyze
from designer.core.formatting import usd
from designer.io import load_design
from designer.io.export.summary import bandwidth
from designer.qt.export import make_renderer, write_pdf, write_svg

SAMPLES = sorted((Path(__file__).resolve().parents[3] / "samples").glob("*.json"))


@pytest.mark.slow
@pytest.mark.parametrize("path", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_sample_pdf_and_svg(path: Path, tmp_path: Path) -> None:
    design = load_design(path)
    report = analyze(design)
    renderer = make_renderer(design)
    pdf = write_pdf(tmp_path / "r.pdf", design, report, renderer=renderer)
    reader = PdfReader(str(pdf))
    pages = [" ".join((p.extract_text() or "").split()) for p in reader.pages]
    first = pages[0]
    assert f"{report.gpus:,} in {report.compute_nodes:,} compute nodes" in first
    assert usd(report.cost_usd.total) in first  # "$40.5M", the one formatter
    assert bandwidth(report.bisection.gbps) in first
    assert ("exact" if report.bisection.exact else "upper bound") in first
    assert report.tier.name in first
    assert f"${report.cost_usd.total:,.2f}" in " ".join(pages)
    for i, text in enumerate(pages, start=1):
        assert f"Page {i} of {len(pages)}" in text
    # page 1 and the drawing details are landscape, the tables portrait
    box = reader.pages[0].mediabox
    assert float(box.width) > float(box.height)
    box = reader.pages[-1].mediabox
    assert float(box.width) < float(box.height)
    svg = write_svg(tmp_path / "d.svg", design, renderer=renderer)
    assert ET.parse(svg).getroot().tag.endswith("svg")
