"""The report's "Workload fit" pages: the answers, both charts, the findings,
every figure with its source and estimate mark, and the assumptions.

Everything comes from one :class:`~designer.workload.Estimate`, the object
``cluster-designer estimate --json`` prints, and is written by the same
formatting as the CLI and the Workload panel.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtGui import QPainter

from designer.qt.export.layout import MUTED, Column, Flow
from designer.qt.export.serving_chart import serving_chart
from designer.qt.export.workload_charts import (
    Chart,
    cost_chart,
    days_chart,
    paint_chart,
)
from designer.view.workload.lines import ESTIMATE_MARK
from designer.view.workload.summary import (
    assumption_texts,
    summary,
    value_text,
)
from designer.workload import Estimate
from designer.workload.result import Assumption
from designer.workload.text import SECTIONS, section_of

TITLE = "Workload fit"
CHART_H = 190.0


def workload_pages(flow: Flow, est: Estimate | None, error: str | None = None) -> None:
    """Lay the workload pages out (``error``: why there is no estimate)."""
    flow.new_page(landscape=False)
    flow.heading(TITLE)
    if est is None:
        flow.paragraph(
            f"The design's workload block cannot be used: {error or 'no estimate'}."
        )
        return
    flow.paragraph(
        "Computed from this design (GPUs, NVLink domains, NICs, oversubscription, "
        "bisection, storage, power and capex) by the estimate behind "
        "`cluster-designer estimate`, with the inputs of the design's workload "
        f"block. {ESTIMATE_MARK} and 'estimate' mark estimates; the source of every "
        "figure and input is listed.",
        7.5,
        MUTED,
    )
    flow.table(
        [Column("", 1.1), Column("Answer", 5.0)],
        [[line.label, line.text] for line in summary(est)],
        size=8,
    )
    _charts(flow, est)
    if est.findings:
        flow.heading("Workload findings", 11)
        flow.table(
            [Column("Severity", 0.9), Column("Code", 2.5), Column("Message", 5.5)],
            [[f.severity.value, f.code, f.message] for f in est.findings],
        )
    flow.heading("Workload figures", 11)
    rows = est.rows()
    table: list[list[str]] = []
    bold: set[int] = set()
    for key, title in SECTIONS:
        mine = [r for r in rows if section_of(r.path) == key]
        if not mine:
            continue
        bold.add(len(table))
        table.append([title, "", "", ""])
        for r in mine:
            # a figure's words go to the wide Source column, not the Value one
            unknown = r.value is None and bool(r.why_unknown)
            table.append(
                [
                    r.label,
                    "unknown" if unknown else value_text(r, mark=False),
                    "estimate" if r.estimate and r.value is not None else "",
                    f"unknown: {r.why_unknown}. Source: {r.source}"
                    if unknown
                    else r.source,
                ]
            )
        if key == "n_minus_1":
            table.append(["How N-1 was found", "", "", est.n_minus_1.method])
    flow.table(
        [
            Column("Figure", 2.3),
            Column("Value", 2.0, right=True),
            Column("Estimate", 0.9),
            Column("Source", 4.2),
        ],
        table,
        bold_rows=bold,
        size=7,
    )
    flow.heading("Workload assumptions", 11)
    flow.table(
        [
            Column("Input", 1.8),
            Column("Value", 1.5, right=True),
            Column("Origin", 1.1),
            Column("Estimate", 0.9),
            Column("Source", 4.6),
        ],
        [_assumption(a) for a in est.assumptions],
        size=7,
    )
    thumb = est.rule_of_thumb
    if thumb is not None:
        flow.paragraph(
            f"Rule of thumb for comparison (not checked): {thumb.workload}: "
            f"{thumb.gpus}; {thumb.source}.",
            7.5,
            MUTED,
        )


def _assumption(a: Assumption) -> list[str]:
    label, shown = assumption_texts(a)
    return [label, shown, a.origin, "estimate" if a.estimate else "", a.source]


def _charts(flow: Flow, est: Estimate) -> None:
    charts = [
        c
        for c in (days_chart(est), serving_chart(est), cost_chart(est))
        if c is not None
    ][:2]
    if not charts:
        return
    flow.finish()
    flow.ensure(CHART_H + 10)
    r = flow.page.rect
    gap = 18.0
    width = (r.width() - gap) / 2
    top = flow.y + 6
    for i, chart in enumerate(charts):
        rect = QRectF(r.left() + i * (width + gap), top, width, CHART_H)

        def draw(p: QPainter, rect: QRectF = rect, chart: Chart = chart) -> None:
            paint_chart(p, rect, chart)

        flow.add(draw)
    flow.y = top + CHART_H + 6
    notes = []
    if est.days is not None:
        notes.append("days scale as 1 / GPUs at the same MFU")
    if est.inference is not None and est.inference.sweep:
        notes.append(
            "throughput vs latency: the chosen replica from batch 1 to the batch "
            "its KV cache holds, grey points over a latency limit"
        )
    if est.tco.owned_usd_per_gpu_hour is not None:
        notes.append(
            "owning costs the same every hour, so per busy hour it is the owned cost "
            "at full use / utilisation; the cloud bills busy hours only"
        )
    if notes:
        flow.paragraph("Charts: " + "; ".join(notes) + ".", 7, MUTED)
