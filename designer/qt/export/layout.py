"""A small page-layout engine for the PDF report: headings, paragraphs and tables.

Layout runs first and records drawing operations per page, so the footer can say
"page i of n" and the writer can report progress page by page. Coordinates are
PostScript points (the painter is scaled from ``PDF_DPI``). Text is laid out with
QTextLayout (wraps at word boundaries, else anywhere), so it is never clipped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QPageLayout,
    QPaintDevice,
    QPainter,
    QPen,
    QTextLayout,
    QTextOption,
)

Op = Callable[[QPainter], None]

TEXT = QColor("#1d2430")
MUTED = QColor("#5b6577")
RULE = QColor("#c5cbd6")
HEADER_FILL = QColor("#e8ecf3")
STRIPE_FILL = QColor("#f6f7fa")
FAMILY = "DejaVu Sans"


#: Resolution of the PDF writer. Layout works in points (the painter is scaled by
#: PDF_DPI / 72 and fonts are sized to match), so the page looks the same at any
#: value; a print resolution keeps thin lines and small text positions crisp.
PDF_DPI = 300


def font(size: float, *, bold: bool = False) -> QFont:
    """The report font, ``size`` points high on the scaled PDF painter."""
    f = QFont(FAMILY)
    f.setPointSizeF(size * 72.0 / PDF_DPI)
    f.setBold(bold)
    f.setHintingPreference(QFont.HintingPreference.PreferNoHinting)
    # no "fi"/"fl" ligatures: copied or searched text must read as typed
    f.setFeature(QFont.Tag("liga"), 0)
    f.setFeature(QFont.Tag("clig"), 0)
    return f


def text_layout(
    text: str,
    fnt: QFont,
    width: float,
    device: QPaintDevice,
    align: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignLeft,
) -> tuple[QTextLayout, float]:
    """Lay ``text`` out in ``width`` points; return the layout and its height."""
    layout = QTextLayout(text, fnt, device)
    opt = QTextOption()
    opt.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    opt.setAlignment(align)
    layout.setTextOption(opt)
    layout.beginLayout()
    y = 0.0
    while True:
        line = layout.createLine()
        if not line.isValid():
            break
        line.setLineWidth(max(width, 1.0))
        line.setPosition(QPointF(0.0, y))
        y += line.height()
    layout.endLayout()
    return layout, y


@dataclass
class Column:
    """A table column: title, share of the table width, alignment."""

    title: str
    weight: float
    right: bool = False


@dataclass
class Page:
    """One page: orientation, content rectangle and recorded drawing operations."""

    landscape: bool
    rect: QRectF
    ops: list[Op] = field(default_factory=list)


def header_widths(wanted: Sequence[float], least: Sequence[float]) -> list[float]:
    """Column widths: ``wanted`` (by weight), none below ``least``, what a
    narrow column needs taken from the others in proportion to their room
    above their own least (the total stays the same when it can)."""
    out = [max(w, m) for w, m in zip(wanted, least, strict=True)]
    extra = sum(out) - sum(wanted)
    if extra <= 0:
        return out
    slack = [o - m for o, m in zip(out, least, strict=True)]
    room = sum(slack)
    if room <= 0:
        return out
    take = min(extra, room)
    return [o - take * s / room for o, s in zip(out, slack, strict=True)]


class Flow:
    """Flows blocks down pages, starting a new page when one is full."""

    def __init__(
        self,
        device: QPaintDevice,
        rects: dict[bool, QRectF],
        footer_height: float = 22.0,
    ) -> None:
        self.device = device
        self.rects = rects
        self.footer_height = footer_height
        self.pages: list[Page] = []
        self.y = 0.0
        self.section = ""
        self._pending: tuple[str, float] | None = None

    # -- pages -----------------------------------------------------------------
    @property
    def page(self) -> Page:
        """The current page."""
        return self.pages[-1]

    @property
    def bottom(self) -> float:
        """Lowest y content may reach on the current page."""
        return self.page.rect.bottom() - self.footer_height

    def new_page(self, *, landscape: bool = False) -> Page:
        """Start a page; content begins at its top."""
        page = Page(landscape, QRectF(self.rects[landscape]))
        self.pages.append(page)
        self.y = page.rect.top()
        return page

    def ensure(self, height: float) -> bool:
        """Start a new page unless ``height`` fits; True when a page was started."""
        if not self.pages or self.y + height > self.bottom:
            self.new_page(landscape=False)
            return True
        return False

    def add(self, op: Op) -> None:
        """Record a drawing operation on the current page."""
        self.page.ops.append(op)

    # -- text ------------------------------------------------------------------
    def text_at(
        self,
        text: str,
        fnt: QFont,
        rect: QRectF,
        colour: QColor = TEXT,
        align: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignLeft,
    ) -> float:
        """Record wrapped text in ``rect`` (top-left anchored); return its height."""
        layout, h = text_layout(text, fnt, rect.width(), self.device, align)
        origin = rect.topLeft()

        def op(p: QPainter) -> None:
            p.setPen(colour)
            layout.draw(p, origin)

        self.add(op)
        return h

    def heading(self, text: str, size: float = 13.0) -> None:
        """A section heading, placed with the block after it (never left alone)."""
        self.finish()
        self._pending = (text, size)

    def _place_heading(self, need_after: float) -> None:
        """Put the pending heading where ``need_after`` points also fit under it."""
        if self._pending is None:
            return
        text, size = self._pending
        self._pending = None
        fnt = font(size, bold=True)
        _, h = text_layout(text, fnt, self.page.rect.width(), self.device)
        self.ensure(h + 14 + need_after)
        if self.y > self.page.rect.top():
            self.y += 10
        self.y += self.text_at(text, fnt, self._line_rect())
        self.y += 4
        self.section = text

    def finish(self) -> None:
        """Place a heading still waiting for its block."""
        self._place_heading(0.0)

    def paragraph(
        self, text: str, size: float = 8.5, colour: QColor = TEXT, after: float = 4
    ) -> None:
        """Wrapped text across the page width."""
        fnt = font(size)
        _, h = text_layout(text, fnt, self.page.rect.width(), self.device)
        self._place_heading(h)
        self.ensure(h)
        self.y += self.text_at(text, fnt, self._line_rect(), colour) + after

    def _line_rect(self) -> QRectF:
        r = self.page.rect
        return QRectF(r.left(), self.y, r.width(), r.bottom() - self.y)

    # -- tables ----------------------------------------------------------------
    def table(
        self,
        columns: Sequence[Column],
        rows: Sequence[Sequence[str]],
        *,
        title: str = "",
        size: float = 7.5,
        bold_rows: set[int] | None = None,
        check: Callable[[], None] | None = None,
    ) -> None:
        """A table that splits across pages, repeating its header and title."""
        pad = 2.5
        hpad = 4.0  # columns: a right-aligned number never touches the next cell
        total = sum(c.weight for c in columns)
        body, strong = font(size), font(size, bold=True)
        bold_rows = bold_rows or set()

        strong_fm = QFontMetricsF(strong, self.device)
        # a header's longest word never breaks ("Estimat / e"): each column is
        # at least that wide, the room taken from the others' slack
        least = [
            max(
                (strong_fm.horizontalAdvance(word) for word in c.title.split()),
                default=0,
            )
            + 2 * hpad
            + 1.0
            for c in columns
        ]
        cache: dict[float, list[float]] = {}

        def widths() -> list[float]:
            w = self.page.rect.width()
            if w not in cache:
                cache[w] = header_widths([w * c.weight / total for c in columns], least)
            return cache[w]

        def row_height(cells: Sequence[str], fnt: QFont) -> float:
            return 2 * pad + max(
                text_layout(t, fnt, w - 2 * hpad, self.device)[1]
                for t, w in zip(cells, widths(), strict=True)
            )

        header = [c.title for c in columns]
        header_h = row_height(header, strong)

        def draw_row(cells: Sequence[str], fnt: QFont, fill: QColor | None) -> None:
            h = row_height(cells, fnt)
            x = self.page.rect.left()
            y = self.y
            full = QRectF(x, y, self.page.rect.width(), h)

            def frame(p: QPainter) -> None:
                if fill is not None:
                    p.fillRect(full, fill)
                p.setPen(QPen(RULE, 0.5))
                p.drawLine(full.bottomLeft(), full.bottomRight())

            self.add(frame)
            for text, w, col in zip(cells, widths(), columns, strict=True):
                align = (
                    Qt.AlignmentFlag.AlignRight
                    if col.right
                    else Qt.AlignmentFlag.AlignLeft
                )
                self.text_at(
                    text, fnt, QRectF(x + hpad, y + pad, w - 2 * hpad, h), TEXT, align
                )
                x += w
            self.y += h

        def start(continued: bool) -> None:
            label = title or (self.section if continued else "")
            if label:
                label += " (continued)" if continued else ""
                self.y += self.text_at(label, font(9, bold=True), self._line_rect())
                self.y += 3
            draw_row(header, strong, HEADER_FILL)

        # a row never outgrows a page: shorten its longest cell, and say so
        room = self.bottom - self.page.rect.top() - 60 - header_h
        fitted: list[Sequence[str]] = []
        for i, cells in enumerate(rows):
            fnt = strong if i in bold_rows else body
            while row_height(cells, fnt) > room:
                cells = list(cells)
                k = max(range(len(cells)), key=lambda j: len(cells[j]))
                cells[k] = cells[k][: len(cells[k]) * 2 // 3] + " … (cut)"
            fitted.append(cells)
        rows = fitted
        title_h = 16 if title else 0
        first_rows = min(sum(row_height(r, body) for r in rows[:3]), room)
        self._place_heading(title_h + header_h + first_rows)
        self.ensure(title_h + header_h + first_rows)
        if title and self.y > self.page.rect.top():
            self.y += 6
        start(False)
        for i, cells in enumerate(rows):
            fnt = strong if i in bold_rows else body
            h = row_height(cells, fnt)
            if self.y + h > self.bottom:
                self.new_page(landscape=False)
                start(True)
            draw_row(cells, fnt, STRIPE_FILL if i % 2 else None)
            if check is not None and i % 200 == 199:
                check()
        self.y += 6


def page_rects(layouts: dict[bool, QPageLayout]) -> dict[bool, QRectF]:
    """Content rectangle in points for portrait (False) and landscape (True)."""
    out: dict[bool, QRectF] = {}
    for landscape, layout in layouts.items():
        full = layout.paintRect(QPageLayout.Unit.Point)
        out[landscape] = QRectF(0, 0, full.width(), full.height())
    return out
