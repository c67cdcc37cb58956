"""The PDF report: headline and drawing on a landscape first page, then tables.

Vector output through QPdfWriter (text stays selectable). Every number comes
from the one analysis :class:`Report`; the BOM reuses its cost lines.
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QFontMetricsF, QPainter, QPdfWriter, QPen

from designer.analysis.report import Report
from designer.core.formatting import CABLE_LANES_NOTE, plural
from designer.core.model import Design
from designer.io.export import ExportCancelled
from designer.io.export.summary import (
    bom_table,
    cabling_table,
    headline,
    tier_rows,
)
from designer.qt.canvas.offscreen import OffscreenRenderer
from designer.qt.export.drawing import (
    Catalog,
    detail_views,
    drawing_aspect,
    fit_rect,
    legend,
    make_renderer,
    render_design,
)
from designer.qt.export.findings_table import findings_section
from designer.qt.export.layout import (
    MUTED,
    PDF_DPI,
    RULE,
    Column,
    Flow,
    font,
    page_rects,
    text_layout,
)
from designer.qt.export.page_size import locale_page_size
from designer.qt.export.page_size import page_layouts as _page_layouts
from designer.qt.export.physical_pages import physical_pages
from designer.qt.export.su_pages import su_detail_pages
from designer.qt.export.workload_page import workload_pages
from designer.view.canvas.sizes import DEVICE_H, DEVICE_W
from designer.workload import Estimate

#: Sections of the report, in order; the drawing sits on page 1. "workload" is
#: laid out only for a design with a workload block, "racks" (floor plan and rack
#: elevations) only for a placed one.
SECTIONS: tuple[str, ...] = (
    "drawing",
    "tiers",
    "findings",
    "workload",
    "bom",
    "cabling",
    "racks",
)
#: Device box height (pt) on page 1 below which detail drawings are added.
READABLE_BOX_PT = 14.0

Progress = Callable[[int, int], bool]


def _headline_block(
    flow: Flow,
    pairs: list[tuple[str, str]],
    left: float,
    top: float,
    width: float,
    columns: int,
    size: float,
    record: bool,
) -> float:
    """Lay the headline pairs out in ``columns`` columns (row by row); return height."""
    gap = 14.0
    col_w = (width - gap * (columns - 1)) / columns
    y = top
    for start in range(0, len(pairs), columns):
        row_h = 0.0
        for k, (label, value) in enumerate(pairs[start : start + columns]):
            x = left + k * (col_w + gap)
            lf, vf = font(size - 2, bold=True), font(size)
            if record:
                h = flow.text_at(label, lf, QRectF(x, y, col_w, 40), MUTED)
                h += flow.text_at(value, vf, QRectF(x, y + h, col_w, 400))
            else:
                h = text_layout(label, lf, col_w, flow.device)[1]
                h += text_layout(value, vf, col_w, flow.device)[1]
            row_h = max(row_h, h)
        y += row_h + size * 0.55
    return y - top


def _fit_headline(
    flow: Flow, pairs: list[tuple[str, str]], width: float, columns: int, room: float
) -> tuple[float, float]:
    """Largest headline text size that fits ``room`` (never clip); size, height."""
    for size in (9.0, 8.0, 7.0, 6.0, 5.0):
        need = _headline_block(flow, pairs, 0, 0, width, columns, size, False)
        if need <= room:
            break
    return size, need


#: Width (pt) of the headline column beside the drawing.
SIDE_BLOCK_W = 232.0


def _first_page_plan(
    flow: Flow,
    pairs: list[tuple[str, str]],
    r: QRectF,
    y: float,
    bottom: float,
    aspect: float,
) -> tuple[QRectF, float, int, float]:
    """Drawing area, headline width, columns and text size for page 1.

    The headline goes beside the drawing or as a grid above it, whichever
    leaves the larger drawing (of ``aspect``) on the page.
    """
    size, _ = _fit_headline(flow, pairs, SIDE_BLOCK_W, 1, bottom - y)
    side = QRectF(
        r.left() + SIDE_BLOCK_W + 14,
        y,
        r.width() - SIDE_BLOCK_W - 14,
        bottom - y - 16,
    )
    grid_size, used = _fit_headline(flow, pairs, r.width(), 4, bottom - y - 200)
    above = QRectF(r.left(), y + used + 4, r.width(), bottom - y - used - 20)

    def drawn(area: QRectF) -> float:
        fitted = fit_rect(area.adjusted(6, 6, -6, -6), aspect)
        return fitted.width() * fitted.height()

    if drawn(above) > 1.05 * drawn(side):
        return above, r.width(), 4, grid_size
    return side, SIDE_BLOCK_W, 1, size


def _first_page(
    flow: Flow,
    design: Design,
    report: Report,
    date: str,
    draw: Callable[[QPainter, QRectF], None] | None,
    scope_note: str,
    aspect: float = 1.0,
    catalog: Catalog | None = None,
) -> None:
    page = flow.new_page(landscape=True)
    r = page.rect
    y = r.top()
    y += flow.text_at(
        design.settings.name, font(18, bold=True), QRectF(r.left(), y, r.width(), 60)
    )
    y += flow.text_at(
        f"GPU cluster design report · {date}",
        font(8.5),
        QRectF(r.left(), y + 1, r.width(), 20),
        MUTED,
    )
    y += 8
    bottom = r.bottom() - flow.footer_height
    pairs = headline(design, report, catalog)
    if draw is None:
        size, _ = _fit_headline(flow, pairs, r.width(), 1, bottom - y)
        used = _headline_block(flow, pairs, r.left(), y, r.width(), 1, size, True)
        flow.y = y + used
        return
    area, block_w, columns, size = _first_page_plan(flow, pairs, r, y, bottom, aspect)
    _headline_block(flow, pairs, r.left(), y, block_w, columns, size, True)

    def frame(p: QPainter) -> None:
        p.setPen(QPen(RULE, 0.6))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(area)

    flow.add(frame)
    inner = area.adjusted(6, 6, -6, -6)
    flow.add(lambda p: draw(p, inner))
    flow.add(lambda p: _legend(p, area))
    flow.text_at(
        scope_note,
        font(6.5),
        QRectF(area.left() + 300, area.bottom() + 4, area.width() - 300, 12),
        MUTED,
        Qt.AlignmentFlag.AlignRight,
    )
    flow.y = bottom


def _legend(p: QPainter, area: QRectF) -> None:
    legend(p, QPointF(area.left(), area.bottom() + 9))


def _labels_too_small(design: Design, flow: Flow, aspect: float) -> bool:
    """Whether page 1 draws device boxes too small to read their labels."""
    r = flow.rects[True]
    xs = [d.x for d in design.devices] or [0.0]
    source_w = max(xs) - min(xs) + DEVICE_W + 40
    fitted_w = min(r.width(), (r.height() - 120) * aspect)
    return DEVICE_H * fitted_w / source_w < READABLE_BOX_PT


def build_pages(
    flow: Flow,
    design: Design,
    report: Report,
    catalog: Catalog | None,
    sections: Iterable[str],
    date: str,
    draw: Callable[[QPainter, QRectF], None] | None,
    scope_note: str = "",
    check: Callable[[], None] | None = None,
    aspect: float = 1.0,
    *,
    details: Sequence[tuple[str, set[str], float]] = (),
    details_of: int = 0,
    workload: tuple[Estimate | None, str | None] | None = None,
) -> None:
    """Lay the whole report out into ``flow.pages`` (``workload``: the estimate,
    or why there is none, for the "Workload fit" pages)."""
    wanted = [s for s in SECTIONS if s in set(sections)]
    drawing = draw if "drawing" in wanted else None
    _first_page(flow, design, report, date, drawing, scope_note, aspect, catalog)
    if drawing is not None:
        su_detail_pages(flow, design, drawing, details, details_of, catalog)
    if "tiers" in wanted:
        flow.new_page(landscape=False)
        flow.heading("Switch tiers (compute fabric)")
        rows = tier_rows(report)
        if rows:
            flow.table(
                [
                    Column("Tier", 1.0),
                    Column("Switches", 1.0, right=True),
                    Column("Ports used / total", 1.6, right=True),
                    Column("Down", 1.2, right=True),
                    Column("Up", 1.2, right=True),
                    Column("Oversubscription", 1.4, right=True),
                    Column("Worst switch", 1.2, right=True),
                ],
                rows,
            )
            flow.paragraph(
                "Oversubscription is down/up capacity; the top tier has no "
                "uplinks (–).",
                7.5,
                MUTED,
            )
        else:
            flow.paragraph(
                "No switch tiers: the design has no compute fabric switches."
            )
    if "findings" in wanted:
        findings_section(flow, report, check)
    if "workload" in wanted and workload is not None:
        workload_pages(flow, *workload)
    if "bom" in wanted:
        flow.heading("Bill of materials")
        rows = bom_table(report, catalog)
        flow.table(
            [
                Column("Category", 1.35),
                Column("Item", 2.1),
                Column("Qty", 0.95, right=True),
                Column("Unit price", 1.5, right=True),
                Column("Extended", 2.0, right=True),
                Column("Estimate", 1.1),
                Column("Source", 2.3),
            ],
            rows,
            bold_rows={len(rows) - 1},
            check=check,
        )
        flow.paragraph(
            "Prices marked estimate are estimates (NVIDIA publishes no list prices); "
            "the source of each price is in the last column. The total is the "
            "analysis cost total.",
            7.5,
            MUTED,
        )
    if "cabling" in wanted:
        flow.heading("Cabling summary")
        rows = cabling_table(design, report, catalog)
        flow.table(
            [
                Column("Fabric", 1.0),
                Column("Cable type", 4.0),
                Column("Speed", 0.9, right=True),
                Column("Cables", 1.1, right=True),
            ],
            rows,
            bold_rows={len(rows) - 1},
        )
        flow.paragraph(
            f"{plural(report.transceivers, 'pluggable transceiver')}. "
            f"{CABLE_LANES_NOTE.capitalize()} (the NetBox export counts "
            "physical cables). The "
            "per-cable plan (device/port to device/port) is the cabling CSV export.",
            7.5,
            MUTED,
        )
    if "racks" in wanted:
        physical_pages(flow, design, catalog)
    flow.finish()


def _footer(p: QPainter, page_rect: QRectF, name: str, date: str, right: str) -> None:
    y = page_rect.bottom() - 12
    p.setPen(QPen(RULE, 0.5))
    p.drawLine(QPointF(page_rect.left(), y - 3), QPointF(page_rect.right(), y - 3))
    f = font(7)
    p.setFont(f)
    p.setPen(MUTED)
    fm = QFontMetricsF(f, p.device())
    right_w = fm.horizontalAdvance(right) + 2
    left_w = page_rect.width() - right_w - 16
    suffix = f" · {date}"
    shown = fm.elidedText(
        name, Qt.TextElideMode.ElideRight, left_w - fm.horizontalAdvance(suffix)
    )
    p.drawText(
        QRectF(page_rect.left(), y, left_w, 12),
        int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop),
        shown + suffix,
    )
    p.drawText(
        QRectF(page_rect.right() - right_w, y, right_w, 12),
        int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop),
        right,
    )


def _workload_estimate(
    design: Design, catalog: Catalog | None, given: Estimate | None
) -> tuple[Estimate | None, str | None]:
    """The estimate for the workload pages, or why the block cannot be used."""
    if given is not None:
        return given, None
    from designer.catalog.loader import Catalog as LoadedCatalog
    from designer.workload import EstimateInputError
    from designer.workload import estimate as run_estimate

    loaded = catalog if isinstance(catalog, LoadedCatalog) else None
    try:
        return run_estimate(design, loaded), None
    except EstimateInputError as exc:
        return None, str(exc)


def write_pdf(
    path: str | os.PathLike[str],
    design: Design,
    report: Report,
    catalog: Catalog | None = None,
    *,
    page_size: str | None = None,
    sections: Iterable[str] = SECTIONS,
    renderer: OffscreenRenderer | None = None,
    selection_only: bool = False,
    ids: set[str] | None = None,
    progress: Progress | None = None,
    date: str | None = None,
    estimate: Estimate | None = None,
) -> Path:
    """Write the PDF report to ``path``; raise :class:`ExportCancelled` if cancelled.

    ``progress(done, total)`` is called after each step (layout, drawing, each
    page); returning False cancels and removes the partial file. A design with
    a workload block gets the "Workload fit" pages from ``estimate`` (computed
    here when not given). ``page_size`` None: the paper of the locale (Letter in
    the US, Canada, Mexico..., A4 elsewhere; :mod:`designer.view.pages.paper`).
    """
    out = Path(path)
    layouts = _page_layouts(page_size or locale_page_size())
    date = date or _dt.date.today().isoformat()
    if ids is None and selection_only and renderer is not None:
        ids = set(renderer.selected_ids())
    if renderer is None and "drawing" in set(sections):
        renderer = make_renderer(design, catalog)
    tmp = out.with_name(out.name + ".part")
    writer = QPdfWriter(str(tmp))
    writer.setResolution(PDF_DPI)
    writer.setPageLayout(layouts[True])
    writer.setTitle(design.settings.name)
    writer.setCreator("GPU Cluster Designer")

    def check() -> None:
        if progress is not None and not progress(0, 0):
            raise ExportCancelled("PDF export cancelled")

    def draw(
        p: QPainter,
        target: QRectF,
        only: set[str] | None = None,
        source: QRectF | None = None,
    ) -> None:
        assert renderer is not None  # made above when the drawing is asked for
        render_design(
            p,
            target,
            renderer,
            selection_only=selection_only and only is None,
            ids=ids if only is None else only,
            source=source,
        )

    def aspect_of(scope: set[str] | None) -> float:
        return drawing_aspect(renderer, scope) if renderer is not None else 1.0

    if ids is not None:
        note = f"Selection: {len(ids):,} of {plural(len(design.devices), 'device')}"
    else:
        note = (
            f"Whole design: {plural(len(design.devices), 'device')}, "
            f"{plural(len(design.links), 'link')}"
        )
    workload = None
    if "workload" in set(sections) and design.workload is not None:
        workload = _workload_estimate(design, catalog, estimate)
    flow = Flow(writer, page_rects(layouts))
    aspect = aspect_of(ids)
    details: list[tuple[str, set[str]]] = []
    n_groups = 0
    if ids is None and not selection_only and _labels_too_small(design, flow, aspect):
        details, n_groups = detail_views(design)
    build_pages(
        flow,
        design,
        report,
        catalog,
        sections,
        date,
        draw,
        note,
        check,
        aspect,
        details=[(t, v, aspect_of(v)) for t, v in details],
        details_of=n_groups,
        workload=workload,
    )
    total = len(flow.pages) + 1
    if progress is not None and not progress(1, total):
        raise ExportCancelled("PDF export cancelled")
    painter = QPainter()
    ok = False
    try:
        if not painter.begin(writer):
            raise OSError(f"{out}: cannot write the PDF file")
        for i, page in enumerate(flow.pages):
            if i:
                writer.setPageLayout(layouts[page.landscape])
                writer.newPage()
            painter.resetTransform()
            painter.scale(PDF_DPI / 72.0, PDF_DPI / 72.0)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            for op in page.ops:
                painter.save()
                op(painter)
                painter.restore()
            _footer(
                painter,
                page.rect.adjusted(0, 0, 0, 0),
                design.settings.name,
                date,
                f"Page {i + 1} of {len(flow.pages)}",
            )
            if progress is not None and not progress(i + 2, total):
                raise ExportCancelled("PDF export cancelled")
        ok = True
    finally:
        if painter.isActive():
            painter.end()
        del writer
        if ok:
            os.replace(tmp, out)
        elif tmp.exists():
            tmp.unlink()
    return out
