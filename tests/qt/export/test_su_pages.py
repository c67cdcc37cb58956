"""PDF detail pages: one per scalable unit, every label whole and at least 6 pt."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from pypdf import PdfReader

from designer.analysis import analyze
from designer.catalog import default_catalog
from designer.core.names import device_name
from designer.io import load_design
from designer.qt.export import write_pdf
from designer.qt.export.pdf import SECTIONS
from designer.qt.export.su_pages import unit_key

SAMPLES = Path(__file__).resolve().parents[3] / "samples"


def _runs(page: object) -> list[tuple[str, float]]:
    """Text runs of a page with their size in points (font size x matrices)."""
    out: list[tuple[str, float]] = []

    def visit(text: str, cm: list[float], tm: list[float], _f: object, size: float):
        if text.strip():
            scale = math.hypot(tm[2], tm[3]) * math.hypot(cm[2], cm[3])
            out.append((" ".join(text.split()), size * scale))

    page.extract_text(visitor_text=visit)  # type: ignore[attr-defined]
    return out


@pytest.fixture(scope="module")
def report_4su(tmp_path_factory: pytest.TempPathFactory) -> tuple[list, object]:
    design = load_design(SAMPLES / "dgx-h100-superpod-4su.json")
    out = tmp_path_factory.mktemp("su") / "r.pdf"
    sections = [s for s in SECTIONS if s != "workload"]
    write_pdf(out, design, analyze(design), date="2026-11-29", sections=sections)
    return list(PdfReader(str(out)).pages), design


@pytest.mark.slow
def test_one_landscape_page_per_scalable_unit(report_4su) -> None:
    pages, _ = report_4su
    texts = [" ".join((p.extract_text() or "").split()) for p in pages]
    for k in range(1, 5):
        page = texts[k]
        assert page.startswith(f"Detail {k} of 4: SU {k}"), page[:60]
        box = pages[k].mediabox
        assert float(box.width) > float(box.height)
    assert texts[5].startswith("Switch tiers")


@pytest.mark.slow
def test_no_label_on_a_drawing_page_is_cut_or_below_6_pt(report_4su) -> None:
    pages, _ = report_4su
    drawing_pages = pages[:5]
    for page in drawing_pages:
        text = page.extract_text() or ""
        assert "…" not in text and "..." not in text
    for page in pages[1:5]:
        runs = _runs(page)
        assert len(runs) > 40
        small = [(t, round(s, 2)) for t, s in runs if s < 6.0 - 1e-6]
        assert not small, small[:5]


@pytest.mark.slow
def test_every_node_of_the_unit_is_named_on_its_page(report_4su) -> None:
    """Each SU page shows each of its DGX boxes with its number, and the key
    under the drawing gives the names those numbers stand for."""
    pages, design = report_4su
    catalog = default_catalog()
    for k in range(1, 5):
        gid = f"su0{k}"
        nodes = [
            d for d in design.devices if d.group == gid and d.catalog_id == "dgx-h100"
        ]
        words = {t for t, _ in _runs(pages[k])}
        for d in nodes:
            # one naming rule (issue 16 item 11): "DGX H100 #4" only repeats
            # the model and the id's number, so the node is called dgx-0004
            name = device_name(d.label, d.id, "DGX H100")
            assert name == d.id
            number = re.search(r"\d+$", name)
            assert number is not None
            assert name in words or number.group(0) in words, name
        members = {d.id for d in design.devices if d.group == gid}
        key = unit_key(design, members, catalog)
        text = " ".join((pages[k].extract_text() or "").split())
        assert key in text
        assert f"{len(nodes)}x DGX H100: {nodes[0].id} – " in key


@pytest.mark.slow
def test_unit_key_lists_models_in_model_order() -> None:
    design = load_design(SAMPLES / "dgx-h100-superpod-4su.json")
    ids = {d.id for d in design.devices if d.group == "su01"}
    key = unit_key(design, ids, default_catalog())
    assert key == (
        "8x Quantum-2 QM9700: Leaf SU1 rail 0 – 7 · "
        "31x DGX H100: dgx-0001 – 0031 · "
        "4x UFM Appliance 3.1 (Enterprise): UFM appliance 1 – 4"
    )
