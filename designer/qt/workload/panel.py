"""The Workload panel (a dock beside the validator): is this the right cluster
for the job?

Results (the answers first, findings, every figure with its source), inputs
(:class:`~.form.WorkloadForm`) and charts, following the design and its
workload block as they change. The estimate runs on :class:`~.runner.
EstimateRunner`'s worker, never on the GUI thread; meanwhile the panel says
"Estimating…" and keeps the figures it had.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from designer.core.document import Document
from designer.core.events import (
    DesignReplaced,
    DevicesAdded,
    DevicesChanged,
    DevicesRemoved,
    Event,
    GroupsChanged,
    LinksAdded,
    LinksChanged,
    LinksRemoved,
    PhysicalChanged,
    Reads,
    SettingsChanged,
    WorkloadChanged,
    each,
    ignore,
)
from designer.qt.workload.charts import WorkloadCharts
from designer.qt.workload.form import WorkloadForm
from designer.qt.workload.lines import fill_lines
from designer.qt.workload.results import FiguresTree, FindingsList
from designer.qt.workload.runner import EstimateRunner
from designer.qt.workload.serving import ServingView
from designer.view.workload.lines import ESTIMATE_MARK, Line
from designer.view.workload.summary import summary
from designer.workload import Estimate

NO_BLOCK = (
    "This design has no workload block. Choose a model preset under Inputs to "
    "estimate its fit, time, goodput, N-1 and cost (the block is saved in the file)."
)
LEGEND = f"{ESTIMATE_MARK} marks an estimate; hover a figure for its source."


def _scrolled(widget: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    area.setWidget(widget)
    return area


class WorkloadPanel(QWidget):
    """Inputs, live results, findings and charts of the design's workload.

    ``items_activated(ids)`` fires when a finding or figure naming devices (the
    N-1 worst switch or leaf) is clicked; ``message(text)`` for refused edits.
    """

    items_activated = Signal(list)
    message = Signal(str)

    def __init__(
        self, document: Document, runner: EstimateRunner, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.document = document
        self.runner = runner
        self.estimate: Estimate | None = None
        self.state = QLabel("")
        self.state.setObjectName("hint")
        self.state.setWordWrap(True)

        # results tab: the answers, the N-1 buttons, findings, every figure
        self.summary_box = QWidget()
        self.summary_grid = QGridLayout(self.summary_box)
        self.summary_grid.setContentsMargins(6, 4, 6, 4)
        self.summary_grid.setHorizontalSpacing(8)
        self.summary_grid.setVerticalSpacing(3)
        self.summary_grid.setColumnStretch(1, 1)
        self.summary_labels: dict[str, QLabel] = {}
        self.select_worst = QPushButton("Select worst switch")
        self.select_worst.setToolTip(
            "Select the switch whose failure costs the most bisection (N-1)"
        )
        self.select_worst.clicked.connect(lambda: self._select("worst_device"))
        self.select_leaf = QPushButton("Select worst leaf")
        self.select_leaf.setToolTip(
            "Select the leaf whose failure cuts off the most GPUs (N-1)"
        )
        self.select_leaf.clicked.connect(lambda: self._select("worst_leaf"))
        buttons = QHBoxLayout()
        buttons.setContentsMargins(6, 0, 6, 2)
        buttons.addWidget(self.select_worst)
        buttons.addWidget(self.select_leaf)
        buttons.addStretch(1)
        legend = QLabel(LEGEND)
        legend.setObjectName("hint")
        legend.setWordWrap(True)
        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.setSpacing(2)
        top_layout.addWidget(self.summary_box)
        top_layout.addWidget(legend)
        top_layout.addStretch(1)
        self.summary_area = _scrolled(top)
        head = QWidget()
        head_layout = QVBoxLayout(head)
        head_layout.setContentsMargins(0, 0, 0, 0)
        head_layout.setSpacing(2)
        head_layout.addWidget(self.summary_area, 1)
        head_layout.addLayout(buttons)
        self.findings = FindingsList()
        self.findings.setMinimumHeight(40)
        self.findings.setResizeMode(FindingsList.ResizeMode.Adjust)
        self.tree = FiguresTree()
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(head)
        self.splitter.addWidget(self.findings)
        self.splitter.addWidget(self.tree)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 0)
        self.splitter.setStretchFactor(2, 1)
        self.splitter.setChildrenCollapsible(False)
        self._user_sized = False
        self.splitter.splitterMoved.connect(self._on_splitter_moved)

        self.form = WorkloadForm(document)
        self.form.message.connect(self.message)
        self.charts = WorkloadCharts()
        # the Serving tab is built when first shown (or asked for): most
        # windows never show it, and it is a tenth of the window's build
        self._serving: ServingView | None = None
        self._serving_estimate: Estimate | None = None
        self._serving_area = _scrolled(QWidget())
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.splitter, "Results")
        self.tabs.addTab(_scrolled(self.form), "Inputs")
        self.tabs.addTab(self.charts, "Charts")
        self.tabs.addTab(self._serving_area, "Serving")
        self.tabs.currentChanged.connect(self._on_tab)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 2)
        layout.addWidget(self.state)
        layout.addWidget(self.tabs, 1)

        self.findings.items_activated.connect(self.items_activated)
        self.tree.items_activated.connect(self.items_activated)
        runner.started.connect(self._on_started)
        runner.estimate_ready.connect(self.show_estimate)
        runner.failed.connect(self._on_failed)
        runner.cleared.connect(self._on_cleared)
        self._refill = self._opened = False
        self.reads = self._reads_table()
        document.subscribe(self._on_changes)
        if document.design.workload is None:
            self._on_cleared()
        else:
            self._on_started()

    @property
    def serving(self) -> ServingView:
        """The Serving tab's view (built on first use, then kept)."""
        return self._build_serving()

    def _build_serving(self) -> ServingView:
        if self._serving is None:
            view = ServingView(self.document)
            view.message.connect(self.message)
            self._serving_area.setWidget(view)  # it reads the inputs as it is built
            view.show_estimate(self._serving_estimate)
            self._serving = view
        return self._serving

    def _on_tab(self, index: int) -> None:
        if self.tabs.widget(index) is self._serving_area:
            self._build_serving()

    def _show_serving(self, est: Estimate | None) -> None:
        self._serving_estimate = est
        if self._serving is not None:
            self._serving.show_estimate(est)

    # --- followers -------------------------------------------------------------

    def _on_changes(self, events: list[Event]) -> None:
        self._refill = self._opened = False
        self.reads(events)
        if self._refill:
            self.form.refresh()
            if self._serving is not None:
                self._serving.refresh()
        if self._opened and self.document.design.workload is not None:
            self.tabs.setCurrentIndex(0)  # a design with a workload: its answers

    def _reads_table(self) -> Reads:
        """The form shows the workload block: only its edits and a new design
        change what it shows (the estimate's figures come from the runner)."""

        def workload(_event: Event) -> None:
            self._refill = True

        def opened(_event: Event) -> None:
            self._refill = self._opened = True

        return Reads(
            "WorkloadPanel",
            {
                **each(
                    (
                        DevicesAdded,
                        DevicesRemoved,
                        DevicesChanged,
                        LinksAdded,
                        LinksRemoved,
                        LinksChanged,
                        GroupsChanged,
                        SettingsChanged,
                        PhysicalChanged,
                    ),
                    ignore,
                ),
                WorkloadChanged: workload,
                DesignReplaced: opened,
            },
        )

    def _on_started(self) -> None:
        self.state.setText("Estimating…")

    def _on_failed(self, message: str) -> None:
        self.estimate = None
        self.state.setText(f"The workload block cannot be used: {message}")
        self._clear_results()

    def _on_cleared(self) -> None:
        self.estimate = None
        self.state.setText(NO_BLOCK)
        self._clear_results()
        self.form.set_hints(None)
        self.tabs.setCurrentIndex(1)

    def _clear_results(self) -> None:
        self._fill_summary([])
        self.findings.show_estimate(None)
        self.tree.clear()
        self.charts.show_estimate(None)
        self._show_serving(None)
        self.select_worst.setEnabled(False)
        self.select_leaf.setEnabled(False)

    def show_estimate(self, est: Estimate) -> None:
        """Show ``est`` everywhere in the panel."""
        self.estimate = est
        took = self.runner.last_seconds
        self.state.setText(
            "Up to date"
            + (f" (estimated in {took * 1000:,.0f} ms)" if took is not None else "")
        )
        self._fill_summary(summary(est))
        self.findings.show_estimate(est)
        self.tree.show_estimate(est)
        self.charts.show_estimate(est)
        self._show_serving(est)
        self.form.set_hints(est)
        n1 = est.n_minus_1
        self.select_worst.setEnabled(n1.worst_device is not None)
        self.select_worst.setText(
            f"Select {n1.worst_device}" if n1.worst_device else "Select worst switch"
        )
        self.select_leaf.setVisible(
            n1.worst_leaf is not None and n1.worst_leaf != n1.worst_device
        )
        self.select_leaf.setEnabled(n1.worst_leaf is not None)
        self.select_leaf.setText(
            f"Select {n1.worst_leaf} (worst leaf)" if n1.worst_leaf else ""
        )
        n = len(est.findings)
        self.tabs.setTabText(0, f"Results ({n} finding{'s' if n != 1 else ''})")
        QTimer.singleShot(0, self, self._fit_splitter)  # dropped if the panel goes

    def _on_splitter_moved(self) -> None:
        self._user_sized = True

    def _fit_splitter(self) -> None:
        """Give the answers and the findings the height they need (up to a share
        of the panel), the figures the rest; not once the user has moved it."""
        total = self.splitter.height()
        if self._user_sized or total <= 0:
            return
        area = self.summary_area
        inner = area.widget()
        layout = inner.layout() if inner is not None else None
        width = area.viewport().width()
        need_top = -1
        if layout is not None and layout.hasHeightForWidth():
            need_top = layout.heightForWidth(width)
        if need_top <= 0 and inner is not None:
            need_top = inner.sizeHint().height()
        rows = sum(
            self.findings.sizeHintForRow(i) for i in range(self.findings.count())
        )
        need_findings = rows + 2 * self.findings.frameWidth() + 6
        need_top += self.select_worst.sizeHint().height() + 8
        top_h = min(need_top, int(total * 0.5))
        findings_h = max(48, min(need_findings, int(total * 0.25)))
        self.splitter.setSizes([top_h, findings_h, max(total - top_h - findings_h, 80)])

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Re-fit the splitter: wrapped lines change with the width."""
        super().resizeEvent(event)
        self._fit_splitter()

    def _fill_summary(self, lines: list[Line]) -> None:
        self.summary_labels = fill_lines(self.summary_grid, lines, self.estimate)

    def _select(self, which: str) -> None:
        if self.estimate is None:
            return
        device = getattr(self.estimate.n_minus_1, which)
        if device:
            self.items_activated.emit([device])
