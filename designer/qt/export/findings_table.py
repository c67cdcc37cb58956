"""The Findings table of the PDF report: severity, code, message and items.

Every finding's items are listed (as host lists: ``dgx-[001-032], leaf-03``),
or "whole design" when it names none. A code never breaks inside a word: its
column is as wide as the longest code, and a code too long for any column
wraps at its underscores.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtGui import QFontMetricsF

from designer.analysis.report import Finding, Report
from designer.io.export import compress_hostlist
from designer.qt.export.layout import Column, Flow, font

TABLE_PT = 7.5
#: Horizontal padding of a cell on each side (as in :meth:`Flow.table`).
CELL_PAD = 4.0
#: Widest share of the table the code column may take.
MAX_CODE_SHARE = 0.3
WHOLE_DESIGN = "whole design"
#: QTextLayout breaks a line at U+2028 (and the PDF text keeps it a line break).
LINE_BREAK = "\u2028"


def items_text(items: Sequence[str]) -> str:
    """A finding's items as host lists joined by ", " ("whole design": none)."""
    if not items:
        return WHOLE_DESIGN
    return ", ".join(_top_level(compress_hostlist(items)))


def _top_level(hostlist: str) -> list[str]:
    """Split ``a[1-3,5],b`` at the commas outside brackets."""
    parts: list[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(hostlist):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(hostlist[start:i])
            start = i + 1
    parts.append(hostlist[start:])
    return [p for p in parts if p]


def wrap_code(code: str, fits: Callable[[str], bool]) -> str:
    """``code`` with line breaks after underscores so that each line ``fits``.

    A part with no underscore that still does not fit stays whole (the table
    then breaks it, as it would any word longer than its cell).
    """
    if fits(code):
        return code
    pieces = [p + "_" for p in code.split("_")]
    pieces[-1] = pieces[-1][:-1]
    lines: list[str] = []
    line = ""
    for piece in pieces:
        if line and not fits(line + piece):
            lines.append(line)
            line = piece
        else:
            line += piece
    lines.append(line)
    return LINE_BREAK.join(lines)


def finding_table_rows(
    findings: Sequence[Finding], code_fits: Callable[[str], bool]
) -> list[list[str]]:
    """Rows: severity, code (wrapped at underscores if need be), message, items."""
    return [
        [f.severity.value, wrap_code(f.code, code_fits), f.message, items_text(f.items)]
        for f in findings
    ]


def findings_section(
    flow: Flow, report: Report, check: Callable[[], None] | None = None
) -> None:
    """Lay the Findings heading and table (or "No findings.") into ``flow``."""
    flow.heading("Findings")
    if not report.findings:
        flow.paragraph("No findings.")
        return
    body = QFontMetricsF(font(TABLE_PT), flow.device)
    strong = QFontMetricsF(font(TABLE_PT, bold=True), flow.device)
    # the narrower orientation: the table may start or continue on either
    width = min(r.width() for r in flow.rects.values())

    def need(text: str, metrics: QFontMetricsF = body) -> float:
        # +1 pt: a line exactly as wide as its cell must not wrap
        return metrics.horizontalAdvance(text) + 2 * CELL_PAD + 1.0

    longest = max(need(f.code) for f in report.findings)
    code_w = min(max(longest, need("Code", strong)), MAX_CODE_SHARE * width)
    severity_w = max(
        need("Severity", strong), *(need(f.severity.value) for f in report.findings)
    )
    rest = width - code_w - severity_w
    columns = [
        Column("Severity", severity_w),
        Column("Code", code_w),
        Column("Message", rest * 0.62),
        Column("Items", rest * 0.38),
    ]
    flow.table(
        columns,
        finding_table_rows(report.findings, lambda t: need(t) <= code_w),
        size=TABLE_PT,
        check=check,
    )


__all__ = ["WHOLE_DESIGN", "findings_section", "items_text", "wrap_code"]
