"""The Workload panel's Serving tab: the request mix and latency targets of an
inference job, the serving answers (replica, requests/s, latency, memory,
disaggregated pools, the target), the throughput vs latency chart of the batch
sweep with the TPOT limit drawn, and the serving findings.

The figures are the estimate's ``inference`` object, written by
:mod:`designer.view.workload.serving` (the PDF page's words); every input edit
is one :class:`~designer.core.commands.SetWorkload`, as in the Inputs tab.
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from designer.core.document import Document
from designer.core.formatting import quantity
from designer.core.workload import Workload
from designer.qt.charts import _plot
from designer.qt.resources import icon
from designer.qt.workload.form import WorkloadInputsView
from designer.qt.workload.lines import fill_lines
from designer.view.workload.fields import (
    FieldSpec,
    Kind,
    display,
    updated,
)
from designer.view.workload.serving import NOT_INFERENCE, serving_lines, sweep_series
from designer.workload import Estimate
from designer.workload.serving_estimate import limit_text

SERVING_FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("prompt_tokens", "Prompt", Kind.WHOLE, "serving", "tokens"),
    FieldSpec("output_tokens", "Output", Kind.WHOLE, "serving", "tokens"),
    FieldSpec("ttft_ms", "TTFT limit", Kind.NUMBER, "serving", "ms"),
    FieldSpec("tpot_ms", "TPOT limit", Kind.NUMBER, "serving", "ms"),
    FieldSpec("requests_per_s", "Target", Kind.NUMBER, "serving", "requests/s"),
)
KV_CHOICES = (
    ("", "default"),
    ("bf16", "BF16"),
    ("fp8", "FP8"),
    ("fp4", "FP4"),
)
LINE = "#4a7fb5"
MISS = "#b8c1ca"
MARK = "#c0392b"


class _PlainLogAxis(pg.AxisItem):  # type: ignore[misc]
    """A log axis whose ticks read 10, 20, 50 ms rather than 2·10¹."""

    def logTickStrings(
        self, values: list[float], scale: float, spacing: float
    ) -> list[str]:
        return [f"{10**v:,.3g}" for v in values]


class ServingView(WorkloadInputsView):
    """Inputs, answers, chart and findings of an inference estimate;
    ``message(text)`` reports a refused edit."""

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(document, parent)
        self.estimate: Estimate | None = None
        self.note = QLabel(NOT_INFERENCE)
        self.note.setObjectName("hint")
        self.note.setWordWrap(True)

        box = QGroupBox("Request mix and targets")  # empty fields: the default
        form = QFormLayout(box)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setContentsMargins(6, 4, 6, 4)
        form.setVerticalSpacing(3)
        for spec in SERVING_FIELDS:
            form.addRow(f"{spec.label} ({spec.unit})", self._add_edit(spec, "serving"))
        self.kv = QComboBox()
        self.kv.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        for data, text in KV_CHOICES:
            self.kv.addItem(text, data or None)
        self.kv.currentIndexChanged.connect(self._on_kv)
        self.disaggregated = QCheckBox("Separate prefill and decode pools")
        self.disaggregated.toggled.connect(self._on_disaggregated)
        form.addRow("KV cache", self.kv)
        form.addRow(self.disaggregated)

        self.answers = QWidget()
        self.grid = QGridLayout(self.answers)
        self.grid.setContentsMargins(6, 2, 6, 2)
        self.grid.setHorizontalSpacing(8)
        self.grid.setVerticalSpacing(3)
        self.grid.setColumnStretch(1, 1)
        self.labels: dict[str, QLabel] = {}

        self.plot = _plot(
            "Throughput vs latency (batch sweep)", "output tokens/s per GPU"
        )
        self.plot.setAxisItems({"bottom": _PlainLogAxis(orientation="bottom")})
        self.plot.getAxis("bottom").setTextPen("#33414f")
        self.plot.getAxis("bottom").setPen("#9aa5b1")
        self.plot.setLabel("bottom", "TPOT, ms (log)", color="#33414f")
        self.plot.setLogMode(x=True, y=False)
        self.plot.setMinimumHeight(230)
        self.chart_note = QLabel("")
        self.chart_note.setObjectName("hint")
        self.chart_note.setWordWrap(True)
        self.findings = QListWidget()
        self.findings.setObjectName("servingFindings")
        self.findings.setWordWrap(True)
        self.findings.setMaximumHeight(110)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.setSpacing(4)
        layout.addWidget(self.note)
        layout.addWidget(box)
        layout.addWidget(self.error)
        layout.addWidget(self.answers)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.chart_note)
        layout.addWidget(self.findings)
        self.points: list[tuple[float, float, int, bool]] = []
        self.tpot_line: float | None = None
        self.refresh()

    # --- inputs ---------------------------------------------------------------

    def refresh(self) -> None:
        """Show the block's serving inputs (after an edit, undo or open)."""
        self._filling = True
        try:
            block = self.block
            self._show_values(SERVING_FIELDS, block or Workload())
            kv = block.kv_precision.value if block and block.kv_precision else None
            self.kv.setCurrentIndex(max(0, self.kv.findData(kv)))
            self.disaggregated.setChecked(bool(block and block.disaggregated))
        finally:
            self._filling = False

    def _on_edited(self, spec: FieldSpec) -> None:
        if self._filling:
            return
        parsed = self._parsed(spec)
        if parsed is None:
            return
        self.error.hide()
        self._execute(parsed[1], f"Set {spec.label.lower()}")

    def _on_kv(self) -> None:
        if self._filling:
            return
        self._execute(
            updated(self.block, kv_precision=self.kv.currentData()),
            "Set KV cache precision",
        )

    def _on_disaggregated(self, on: bool) -> None:
        if self._filling:
            return
        self._execute(
            updated(self.block, disaggregated=True if on else None),
            "Set disaggregated serving",
        )

    # --- estimate -> widgets ----------------------------------------------------

    def show_estimate(self, est: Estimate | None) -> None:
        """Show ``est``'s serving figures (or say why there are none)."""
        self.estimate = est
        serving = est is not None and est.job == "inference"
        inf = est.inference if est is not None else None
        if not serving:
            self.note.setText(NOT_INFERENCE)
        elif inf is None:
            assert est is not None
            why = est.unknown.get("inference.requests_per_s", "not computed")
            self.note.setText(f"No serving figures: {why}.")
        else:
            assert est is not None
            self.note.setText(
                f"{est.model.name} served on {est.gpus:,} x {est.gpu_model}: the best "
                "replica shape under the latency limits (docs/serving-model.md). "
                "Hover a line for its sources."
            )
        self._placeholders(est)
        self._fill(est)
        self._fill_findings(est)
        self._draw(est)

    def _placeholders(self, est: Estimate | None) -> None:
        """Each empty field shows the default the estimate used."""
        used = {a.name: a for a in est.assumptions} if est is not None else {}
        for spec in SERVING_FIELDS:
            a = used.get(spec.name)
            edit = self.edits[spec.name]
            if a is not None and a.origin == "default" and a.value is not None:
                edit.setPlaceholderText(f"{display(spec, a.value)} (default)")
                edit.setToolTip(f"Default: {a.source}")
            else:
                edit.setPlaceholderText("none" if spec.name == "requests_per_s" else "")

    def _fill(self, est: Estimate | None) -> None:
        lines = serving_lines(est) if est is not None else []
        self.labels = fill_lines(self.grid, lines, est)

    def _fill_findings(self, est: Estimate | None) -> None:
        self.findings.clear()
        mine = [
            f for f in (est.findings if est else []) if f.code.startswith("INFERENCE_")
        ]
        for f in mine:
            item = QListWidgetItem(icon(f.severity.value), f.message)
            item.setToolTip(f"[{f.code}] {f.message}")
            self.findings.addItem(item)
        self.findings.setVisible(bool(mine))

    def _draw(self, est: Estimate | None) -> None:
        plot = self.plot
        plot.clear()
        series = sweep_series(est) if est is not None else None
        self.points = series.points if series else []
        self.tpot_line = series.tpot_limit_ms if series else None
        if series is None:
            self.chart_note.setText("")
            return
        xs = [p[0] for p in series.points]
        ys = [p[1] for p in series.points]
        plot.plot(xs, ys, pen=pg.mkPen(LINE, width=2))
        ok = [p[:2] for p in series.points if p[3]]
        miss = [p[:2] for p in series.points if not p[3]]
        chosen = [series.chosen] if series.chosen is not None else []
        marks = ((ok, LINE, 6), (miss, MISS, 6), (chosen, MARK, 10))
        for pts, colour, size in marks:
            if pts:
                plot.plot(
                    [p[0] for p in pts],
                    [p[1] for p in pts],
                    pen=None,
                    symbol="o",
                    symbolSize=size,
                    symbolBrush=colour,
                    symbolPen=None,
                )
        if series.tpot_limit_ms is not None:
            plot.addItem(
                pg.InfiniteLine(
                    math.log10(series.tpot_limit_ms),
                    angle=90,
                    pen=pg.mkPen(MARK, style=pg.QtCore.Qt.PenStyle.DashLine),
                    label=f"TPOT limit {limit_text(series.tpot_limit_ms)} ms",
                    labelOpts={"position": 0.9, "color": MARK},
                )
            )
        plot.autoRange()
        inf = est.inference if est is not None else None
        assert inf is not None
        ttft = (
            f"; grey: over the {quantity(series.ttft_limit_ms)} ms TTFT or the "
            "TPOT limit"
            if series.ttft_limit_ms is not None
            else ""
        )
        self.chart_note.setText(
            f"TP {inf.replica.tp} x PP {inf.replica.pp} from batch 1 to the KV "
            f"cache's {inf.max_batch:,}; red: the chosen batch ({inf.replica.batch:,})"
            f"; dashed: the TPOT limit{ttft}. Estimate (docs/serving-model.md)."
        )
