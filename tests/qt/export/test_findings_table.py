"""The PDF Findings table: every finding's items, codes never broken mid-word,
and the page size from the locale."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader
from PySide6.QtCore import QLocale

from designer.analysis import analyze
from designer.analysis.report import Finding, Severity
from designer.catalog.loader import default_catalog
from designer.io import load_design
from designer.qt.export import write_pdf
from designer.qt.export.findings_table import (
    LINE_BREAK,
    WHOLE_DESIGN,
    items_text,
    wrap_code,
)
from designer.qt.export.page_size import locale_page_size
from tests.io.export.designs import fake_report, rail_design
from tests.io.export.test_slurm import expand_hostlist

SAMPLES = Path(__file__).resolve().parents[3] / "samples"
A4_PT, LETTER_PT = (595, 842), (612, 792)
LONG_CODE = "PLANE_PORTS_OUTSIDE_EVERY_SWITCH_RADIX_OF_THE_TIER_BUDGET_CHECK_TWO"


def _lines(path: Path) -> list[str]:
    """Every text line of the PDF's pages (pypdf keeps the table's lines)."""
    out: list[str] = []
    for page in PdfReader(str(path)).pages:
        text = page.extract_text() or ""
        out += [re.sub(r"[ \t]+", " ", line) for line in text.splitlines()]
    return out


def _squeezed(path: Path) -> str:
    return re.sub(r"\s+", "", "".join(_lines(path)))


def test_items_text_lists_every_item() -> None:
    items = [f"dgx-{i:03d}" for i in (1, 2, 3, 7)] + ["leaf-1", "l-77", "head"]
    text = items_text(items)
    assert text == "dgx-[001-003,007], head, l-77, leaf-1"
    assert sorted(expand_hostlist(text.replace(", ", ","))) == sorted(items)
    assert items_text([]) == WHOLE_DESIGN


def test_wrap_code_breaks_only_at_underscores() -> None:
    def fits(t: str) -> bool:
        return len(t) <= 12

    assert wrap_code("SWITCH_FLOOR", fits) == "SWITCH_FLOOR"
    wrapped = wrap_code("COST_OUTSIDE_TIER_RANGE", fits)
    assert wrapped.split(LINE_BREAK) == ["COST_", "OUTSIDE_", "TIER_RANGE"]
    assert wrapped.replace(LINE_BREAK, "") == "COST_OUTSIDE_TIER_RANGE"
    assert wrap_code("ABCDEFGHIJKLMNOP", fits) == "ABCDEFGHIJKLMNOP"


@pytest.mark.parametrize(
    "sample", ["dgx-h100-superpod-4su.json", "minimum-viable-enterprise.json"]
)
def test_sample_findings_show_items_and_whole_codes(
    tmp_path: Path, sample: str
) -> None:
    catalog = default_catalog()
    design = load_design(SAMPLES / sample, catalog=catalog)
    report = analyze(design, catalog)
    assert report.findings
    out = tmp_path / "report.pdf"
    write_pdf(out, design, report, catalog, sections=("findings",), page_size="A4")
    lines = _lines(out)
    squeezed = _squeezed(out)
    for f in report.findings:
        # the code is whole on one line: never "COST_OUTSIDE_TIER_RANG / E"
        assert any(f.code in line for line in lines), f.code
        assert re.sub(r"\s+", "", items_text(f.items)) in squeezed, f.code
    if any(not f.items for f in report.findings):
        assert any(WHOLE_DESIGN in line for line in lines)


def test_every_item_and_a_code_too_long_for_any_column(tmp_path: Path) -> None:
    design = rail_design()
    report = fake_report(design)
    report.findings = [
        Finding(
            code="UNWIRED_DEVICE",
            severity=Severity.WARNING,
            message="three nodes and a leaf are drawn but never wired",
            items=["dgx-01", "dgx-02", "dgx-03", "leaf-1"],
        ),
        Finding(
            code=LONG_CODE,
            severity=Severity.ERROR,
            message="a code longer than the widest code column",
            items=[f"l-{k}" for k in range(0, 100, 3)],
        ),
        Finding(code="SWITCH_FLOOR", severity=Severity.INFO, message="floor"),
    ]
    out = tmp_path / "findings.pdf"
    write_pdf(out, design, report, sections=("findings",), page_size="A4")
    lines = _lines(out)
    squeezed = _squeezed(out)
    for f in report.findings:
        text = items_text(f.items)
        assert re.sub(r"\s+", "", text) in squeezed
        if f.items:
            assert sorted(expand_hostlist(text.replace(", ", ","))) == sorted(f.items)
    assert "dgx-[01-03], leaf-1" in " ".join(lines)
    # the long code wraps, but only after underscores
    pieces = [p for line in lines for p in re.findall(r"[A-Z][A-Z_]{3,}", line)]
    start = next(i for i, p in enumerate(pieces) if LONG_CODE.startswith(p))
    joined, k = "", start
    while joined != LONG_CODE:
        assert LONG_CODE.startswith(joined + pieces[k]), pieces[k]
        joined += pieces[k]
        if joined != LONG_CODE:
            assert pieces[k].endswith("_"), pieces[k]
        k += 1
    assert k - start >= 2  # it did wrap


def _page(path: Path) -> tuple[int, int]:
    """The paper (portrait width, height) of every page; one size throughout."""
    sizes = {
        tuple(sorted((round(float(p.mediabox.width)), round(float(p.mediabox.height)))))
        for p in PdfReader(str(path)).pages
    }
    assert len(sizes) == 1
    (size,) = sizes
    return size  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("locale", "size"),
    [
        ("en_US", LETTER_PT),
        ("fr_CA", LETTER_PT),
        ("es_MX", LETTER_PT),
        ("en_GB", A4_PT),
        ("de_DE", A4_PT),
        ("ja_JP", A4_PT),
    ],
)
def test_page_size_follows_the_locale(
    tmp_path: Path, locale: str, size: tuple[int, int]
) -> None:
    old = QLocale()
    QLocale.setDefault(QLocale(locale))
    try:
        assert locale_page_size() == ("Letter" if size == LETTER_PT else "A4")
        design = rail_design()
        out = tmp_path / "p.pdf"
        write_pdf(out, design, fake_report(design), sections=("findings",))
        assert _page(out) == size
    finally:
        QLocale.setDefault(old)


def test_export_dialog_page_size_default_and_memory(qtbot: Any, tmp_path: Path) -> None:
    from designer.qt.export.dialog import ExportDialog

    old = QLocale()
    QLocale.setDefault(QLocale("en_US"))
    try:
        design = rail_design()

        def make() -> ExportDialog:
            dialog = ExportDialog(
                None,
                design,
                None,
                [],
                report=fake_report(design),
                directory=str(tmp_path),
            )
            qtbot.addWidget(dialog)
            return dialog

        first = make()
        assert first.page_size.currentText() == "Letter"  # the locale's paper
        first.set_format("pdf")
        first.page_size.setCurrentText("A4")
        first.sections["drawing"].setChecked(False)
        assert first.export()
        assert _page(first.written) == A4_PT
        second = make()  # the choice is remembered
        assert second.page_size.currentText() == "A4"
    finally:
        QLocale.setDefault(old)
