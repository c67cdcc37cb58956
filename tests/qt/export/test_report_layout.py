"""Issue 16 item 12: the 4-SU report's layout: table headers never break a
word, N-1's method and unknown figures' reasons sit in the Source column, a
unit's strips keep their links inside their frames and use the page's width
(the key beside them), and row names stay clear of the hall's outline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPainter

from designer.analysis import analyze
from designer.io import load_design
from designer.qt.export import write_pdf
from designer.qt.export.drawing import make_renderer, render_design
from designer.qt.export.layout import Flow, header_widths
from designer.qt.physical.paint import row_label_spot

SAMPLE = Path(__file__).resolve().parents[3] / "samples" / "dgx-h100-superpod-4su.json"


def test_a_narrow_column_gets_its_headers_longest_word() -> None:
    out = header_widths([40.0, 30.0, 20.0, 10.0], [10.0, 10.0, 10.0, 25.0])
    assert out[3] == 25.0  # "Estimate" whole
    assert sum(out) == 100.0  # taken from the others' room
    assert out[0] < 40.0 and out[1] < 30.0 and out[2] < 20.0


@pytest.mark.slow
def test_table_headers_and_n1_method_in_the_4su_report(
    qapp: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    tables: list[tuple[list[str], list[list[str]], list[float]]] = []
    real = Flow.table

    def spy(self: Flow, columns: Any, rows: Any, **kw: Any) -> None:
        tables.append(([c.title for c in columns], [list(r) for r in rows], []))
        real(self, columns, rows, **kw)

    monkeypatch.setattr(Flow, "table", spy)
    design = load_design(SAMPLE)
    write_pdf(tmp_path / "r.pdf", design, analyze(design), date="2026-12-02")
    figures = next(t for t in tables if t[0][:2] == ["Figure", "Value"])
    n1 = next(r for r in figures[1] if r[0] == "How N-1 was found")
    assert n1[1] == "" and len(n1[3]) > 40  # in the wide Source column
    for row in figures[1]:
        if row[1] == "unknown":
            assert row[3].startswith("unknown: ")  # why, beside the source
        assert not row[1].startswith("unknown:")
    from pypdf import PdfReader

    text = " ".join(
        " ".join((p.extract_text() or "").split())
        for p in PdfReader(str(tmp_path / "r.pdf")).pages
    )
    assert "Estimat e" not in text and "Estima te" not in text


def test_a_strips_links_end_at_its_frame(qapp: Any) -> None:
    design = load_design(SAMPLE)
    renderer = make_renderer(design)
    try:
        ids = {d.id for d in design.devices if d.group == "su01"}
        xs = [d.x for d in design.devices if d.id in ids]
        ys = [d.y for d in design.devices if d.id in ids]
        # the left third of the unit: its links run on to the other two
        source = QRectF(
            QPointF(min(xs) - 60, min(ys) - 60),
            QPointF(min(xs) + (max(xs) - min(xs)) / 3, max(ys) + 60),
        )
        image = QImage(900, 500, QImage.Format.Format_RGB32)
        image.fill(QColor("white"))
        target = QRectF(50, 50, 400, 400 * source.height() / source.width())
        p = QPainter(image)
        render_design(p, target, renderer, ids=ids, source=source)
        p.end()
        outside = [
            (x, y)
            for x in range(int(target.right()) + 3, 900, 7)
            for y in range(0, 500, 7)
            if image.pixelColor(x, y) != QColor("white")
        ]
        assert outside == []
    finally:
        renderer.close()


def test_a_row_name_stays_clear_of_the_halls_wall(qapp: Any) -> None:
    image = QImage(10, 10, QImage.Format.Format_RGB32)
    font = QFont("Sans Serif")
    font.setPointSizeF(6.5)
    fm = QFontMetricsF(font, image)
    text = "spines and cores"
    wall, row = 100.0, 130.0
    right, width = row_label_spot(fm, text, row - 2, wall, 67.0, 67.0, 1)
    left = right - max(fm.horizontalAdvance(w) for w in text.split())
    # inside: between the wall and the row; else wholly outside the wall
    assert (right <= row and right - width >= wall) or right <= wall
    assert not (left < wall < right)
    wide = row_label_spot(fm, "su01", 300.0, 100.0, 67.0, 67.0, 1)
    assert wide == (300.0, 67.0)
