"""*Design > Compare with...*: the open design beside design files, or beside
variants of its own fabric (leaf uplinks 2:1, half the spines, ...), as a
table and a chart of days and dollars per run.

The figures are :mod:`designer.workload.compare`'s (the CLI's ``compare``);
every scenario is estimated on :class:`~.runner.CompareRunner`'s worker, so the
window stays responsive while the table fills column by column. The open
design is taken as it is when the dialog opens (a snapshot); *Refresh* takes
it again after edits.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import (
    QBrush,
    QCloseEvent,
    QColor,
    QGuiApplication,
    QResizeEvent,
    QStandardItemModel,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from designer.catalog.loader import Catalog
from designer.core.document import Document, Stage
from designer.core.events import Event
from designer.core.snapshot import snapshot
from designer.core.workload import Workload
from designer.qt.compare.chart import CompareChart
from designer.qt.compare.runner import CompareRunner, Outcome, Scenario
from designer.view.workload.compare_table import bars, table
from designer.workload.compare import Comparison, comparison
from designer.workload.compare_rows import unknown_lines
from designer.workload.variants import VARIANTS

FILE_FILTER = "Cluster designs (*.json);;All files (*)"
JSON_FILTER = "JSON (*.json)"
OPEN_BLOCK, OWN_BLOCKS = "open", "own"
BETTER, WORSE = "#2e7d32", "#b03a2e"


def _two_lines(title: str) -> str:
    """A column title broken before its variant, so columns stay narrow."""
    head, sep, tail = title.partition(" (")
    return f"{head}\n({tail}" if sep else title


def _heading(text: str) -> QLabel:
    label = QLabel(text)
    font = label.font()
    font.setBold(True)
    label.setFont(font)
    return label


class CompareDialog(QDialog):
    """Compare the open design with files or variants of its fabric.

    ``scenarios`` are the columns in order (the open design first);
    ``comparison`` is the latest :class:`Comparison` of the finished ones.
    """

    def __init__(
        self,
        document: Document,
        catalog: Catalog | None,
        *,
        name: Callable[[], str],
        folder: str | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setModal(False)
        self.document = document
        self._name_of = name
        self.name = name()
        self.folder = folder
        self.runner = CompareRunner(catalog, self)
        self.runner.outcome.connect(self._on_outcome)
        self.runner.idle.connect(self._show)
        self.scenarios: list[Scenario] = []
        self.outcomes: dict[int, Outcome] = {}
        self.comparison: Comparison | None = None
        self.stale = False
        """The open design changed after it was taken."""
        self._ids = itertools.count(1)

        self.list = QListWidget()
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.list.setWordWrap(True)
        self.list.itemSelectionChanged.connect(self._update_buttons)
        self.add_files_button = QPushButton("Add Files…")
        self.add_files_button.setToolTip("Compare with design files")
        self.add_files_button.clicked.connect(self._pick_files)
        self.variant_button = QToolButton()
        self.variant_button.setText("Add Variant")
        self.variant_button.setToolTip(
            "Compare with this design's fabric changed (nothing else changes)"
        )
        self.variant_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.variant_menu = QMenu(self.variant_button)
        self.variant_menu.setToolTipsVisible(True)
        for v in VARIANTS:
            action = self.variant_menu.addAction(v.label)
            action.setToolTip(v.description)
            action.setData(v.key)
            action.triggered.connect(lambda _=False, k=v.key: self.add_variant(k))
        self.variant_button.setMenu(self.variant_menu)
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(self.remove_selected)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.setToolTip(
            "Take the open design (and its variants) again as it is now"
        )
        self.refresh_button.clicked.connect(self.refresh)

        self.workload_combo = QComboBox()
        self.workload_combo.addItem("The open design's, for every design", OPEN_BLOCK)
        self.workload_combo.addItem("Each design's own block", OWN_BLOCKS)
        self.workload_combo.currentIndexChanged.connect(lambda _: self._rerun())
        self.workload_note = QLabel("")
        self.workload_note.setObjectName("hint")
        self.workload_note.setWordWrap(True)
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)
        self.progress.setMaximumWidth(120)
        self.progress.setTextVisible(False)
        self.status = QLabel("")
        self.status.setObjectName("hint")

        self.table = QTableWidget()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ContiguousSelection)
        self.table.verticalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents
        )
        self.table.verticalHeader().setDefaultSectionSize(20)
        self.table.setWordWrap(False)
        self.chart = CompareChart()
        self.chart.setMinimumHeight(170)
        self.notes = QLabel("")
        self.notes.setWordWrap(True)
        self.notes.setObjectName("hint")
        self.notes.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        notes = QScrollArea()
        notes.setWidgetResizable(True)
        notes.setFrameShape(QScrollArea.Shape.NoFrame)
        notes.setWidget(self.notes)

        self.save_button = QPushButton("Save JSON…")
        self.save_button.setToolTip(
            "The same object as 'cluster-designer compare --json'"
        )
        self.save_button.clicked.connect(self._pick_json)
        self.copy_button = QPushButton("Copy Table")
        self.copy_button.setToolTip("Copy the table as tab-separated text")
        self.copy_button.clicked.connect(self.copy_table)
        close = QPushButton("Close")
        close.clicked.connect(self.close)

        # left: what is compared, with what workload, and the notes
        side = QWidget()
        left = QVBoxLayout(side)
        left.setContentsMargins(0, 0, 4, 0)
        left.addWidget(_heading("Designs (the first is the baseline)"))
        left.addWidget(self.list, 2)
        grid = QGridLayout()
        grid.addWidget(self.add_files_button, 0, 0)
        grid.addWidget(self.variant_button, 0, 1)
        grid.addWidget(self.remove_button, 1, 0)
        grid.addWidget(self.refresh_button, 1, 1)
        self.variant_button.setSizePolicy(
            QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed
        )
        left.addLayout(grid)
        left.addWidget(_heading("Workload"))
        left.addWidget(self.workload_combo)
        left.addWidget(self.workload_note)
        left.addWidget(_heading("Notes"))
        left.addWidget(notes, 3)
        # right: the table over the chart
        results = QSplitter(Qt.Orientation.Vertical)
        results.addWidget(self.table)
        results.addWidget(self.chart)
        results.setStretchFactor(0, 3)
        results.setStretchFactor(1, 2)
        results.setChildrenCollapsible(False)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(side)
        self.splitter.addWidget(results)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setChildrenCollapsible(False)
        side.setMinimumWidth(260)
        self._results = results
        self._user_split = False
        for splitter in (self.splitter, results):
            splitter.splitterMoved.connect(self._split_moved)
        bottom = QHBoxLayout()
        bottom.addWidget(self.progress)
        bottom.addWidget(self.status, 1)
        bottom.addWidget(self.save_button)
        bottom.addWidget(self.copy_button)
        bottom.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.splitter, 1)
        layout.addLayout(bottom)

        document.subscribe(self._on_changes, Stage.WINDOW)
        self._following = True
        self._take_open_design()
        self._rerun()

    # --- scenarios -----------------------------------------------------------

    def _take_open_design(self) -> None:
        """Snapshot the open design for it and its variants."""
        self.name = self._name_of()
        self.setWindowTitle(f"Compare — {self.name}")
        light, links = snapshot(self.document.design)
        self._light, self._links = light, links
        self.stale = False
        if not self.scenarios:
            self.scenarios.append(self._open_scenario(None))
        else:
            self.scenarios = [
                self._open_scenario(s.variant, s.id) if s.path is None else s
                for s in self.scenarios
            ]
        has_block = self.document.design.workload is not None
        model = self.workload_combo.model()
        assert isinstance(model, QStandardItemModel)
        item = model.item(0)
        if item is not None:
            item.setEnabled(has_block)
        if not has_block:
            self.workload_combo.setCurrentIndex(1)

    def _open_scenario(self, variant: str | None, sid: int | None = None) -> Scenario:
        label = self.name
        if variant is not None:
            v = next(v for v in VARIANTS if v.key == variant)
            label = f"{self.name} ({v.label.lower()})"
        return Scenario(
            sid if sid is not None else next(self._ids),
            label,
            variant=variant,
            design=self._light,
            links=self._links,
        )

    def add_files(self, paths: list[str]) -> None:
        """Add design files as columns (one already there is not added again)."""
        known = {s.path for s in self.scenarios}
        new = [
            Scenario(next(self._ids), p, path=p)
            for p in dict.fromkeys(paths)
            if p not in known
        ]
        if paths and not new:
            self.status.setText("Those files are compared already.")
        self._add(new)

    def add_variant(self, key: str) -> None:
        """Add the open design with its fabric changed by variant ``key``."""
        if any(s.variant == key and s.path is None for s in self.scenarios):
            self.status.setText("That variant is compared already.")
            return
        self._add([self._open_scenario(key)])

    def _add(self, new: list[Scenario]) -> None:
        if not new:
            return
        self.scenarios.extend(new)
        self.runner.add(new)
        self._show()

    def remove_selected(self) -> None:
        """Remove the selected columns."""
        rows = sorted({self.list.row(i) for i in self.list.selectedItems()})
        for row in reversed(rows):
            s = self.scenarios.pop(row)
            self.outcomes.pop(s.id, None)
            self.runner.forget(s.id)
        self._show()

    def refresh(self) -> None:
        """Take the open design again and estimate every column anew."""
        self._take_open_design()
        self._rerun()

    def workload(self) -> Workload | None:
        """The workload every design is estimated with, instead of its own
        block (None: each design with its own)."""
        if self.workload_combo.currentData() == OPEN_BLOCK:
            return self.document.design.workload
        return None

    def _rerun(self) -> None:
        self.outcomes.clear()
        self.runner.run(list(self.scenarios), self.workload())
        self._show()

    def _on_changes(self, events: list[Event]) -> None:
        if events and not self.stale:
            self.stale = True
            self._show_state()

    def _on_outcome(self, scenario: int, outcome: Outcome) -> None:
        self.outcomes[scenario] = outcome
        if outcome.offered is not None:
            self._offer(outcome.offered)
        self._show()

    def _offer(self, applies: dict[str, str | None]) -> None:
        """Enable the variants that apply to the open design; say why not."""
        for action in self.variant_menu.actions():
            key = action.data()
            v = next(v for v in VARIANTS if v.key == key)
            why = applies.get(key)
            action.setEnabled(why is None)
            action.setToolTip(v.description if why is None else f"Not here: {why}")

    # --- showing -------------------------------------------------------------

    def _show(self) -> None:
        self._fill_list()
        done = [
            column
            for s in self.scenarios
            if s.id in self.outcomes
            and (column := self.outcomes[s.id].column) is not None
        ]
        self.comparison = (
            comparison(
                done, options_given=self.workload() is not None, command_line=False
            )
            if done
            else None
        )
        if self.comparison is not None:
            changes = [
                f"{s.label}: {self.outcomes[s.id].changed}."
                for s in self.scenarios
                if s.id in self.outcomes and self.outcomes[s.id].changed
            ]
            self.comparison.notes[:0] = changes
        self._fill_table()
        self.chart.show_bars(bars(self.comparison) if self.comparison else None)
        self._fill_notes()
        self._show_state()
        self._update_buttons()

    def _fill_list(self) -> None:
        self.list.blockSignals(True)
        selected = {self.list.row(i) for i in self.list.selectedItems()}
        self.list.clear()
        for i, s in enumerate(self.scenarios):
            outcome = self.outcomes.get(s.id)
            if outcome is None:
                state = " — estimating…"
            elif outcome.error:
                state = " — cannot be compared"
            else:
                state = ""
            item = QListWidgetItem(f"{s.label}{state}")
            where = s.path or "the open design" + (
                f" with variant {s.variant}" if s.variant else ""
            )
            took = f" (estimated in {outcome.seconds:.1f} s)" if outcome else ""
            item.setToolTip(
                outcome.error if outcome and outcome.error else where + took
            )
            if outcome is not None and outcome.error:
                item.setForeground(QBrush(QColor(WORSE)))
            self.list.addItem(item)
            item.setSelected(i in selected)
        self.list.blockSignals(False)

    def _fill_table(self) -> None:
        self.table.clear()
        comp = self.comparison
        if comp is None:
            self.table.setRowCount(0)
            self.table.setColumnCount(0)
            return
        t = table(comp)
        self.table.setColumnCount(len(t.headers))
        self.table.setRowCount(len(t.labels))
        self.table.setHorizontalHeaderLabels([_two_lines(h) for h in t.headers])
        for i, col in enumerate(comp.designs):
            head = self.table.horizontalHeaderItem(i)
            if head is not None:
                head.setToolTip(f"{col.file}\n{col.name}")
        self.table.setVerticalHeaderLabels(
            [
                label + (" *" if sized else "")
                for label, sized in zip(t.labels, t.sized, strict=True)
            ]
        )
        for r, cells in enumerate(t.cells):
            for c, cell in enumerate(cells):
                text = cell.text + (f"   {cell.change}" if cell.change else "")
                item = QTableWidgetItem(text)
                if cell.verdict:
                    item.setForeground(
                        QBrush(QColor(BETTER if cell.verdict == "better" else WORSE))
                    )
                if cell.tip:
                    item.setToolTip(cell.tip)
                self.table.setItem(r, c, item)
        if not self._user_split:
            self._lay_out()
        else:
            self._spread_columns()

    def _fill_notes(self) -> None:
        comp = self.comparison
        lines = []
        for s in self.scenarios:
            outcome = self.outcomes.get(s.id)
            if outcome is not None and outcome.error:
                lines.append(f"{s.label}: {outcome.error}")
        if comp is not None:
            lines += comp.notes
            lines += unknown_lines(comp)
            lines.append(
                "Every workload figure is an estimate (the Workload tab lists the "
                "inputs and sources); changes are against the first design, green "
                "for the better, red for the worse."
            )
        self.notes.setText("\n".join(f"• {line}" for line in lines))

    def _show_state(self) -> None:
        busy = self.runner.busy
        self.progress.setVisible(busy)
        left = len(self.runner.pending)
        if busy:
            text = f"Estimating {left} of {len(self.scenarios)} designs…"
        elif self.comparison is None:
            text = "Nothing to compare: add files or a variant."
        else:
            seconds = sum(o.seconds for o in self.outcomes.values())
            n = len(self.comparison.designs)
            text = f"{n} designs compared ({seconds:.1f} s of work)."
        if self.stale:
            text += " The open design has changed since: Refresh to take it again."
        self.status.setText(text)
        name = self.document.design.workload
        if self.workload() is not None and name is not None:
            self.workload_note.setText(
                "every design is estimated with the open design's workload block "
                "instead of its own (edit it in the Workload tab, then Refresh)"
            )
        elif self.document.design.workload is None:
            self.workload_note.setText(
                "the open design has no workload block: each design is estimated with "
                "its own (set one in the Workload tab to compare the same job)"
            )
        else:
            self.workload_note.setText("each design is estimated with its own block")

    def _update_buttons(self) -> None:
        self.remove_button.setEnabled(bool(self.list.selectedItems()))
        has = self.comparison is not None
        self.save_button.setEnabled(has)
        self.copy_button.setEnabled(has)

    # --- output --------------------------------------------------------------

    def table_text(self) -> str:
        """The table as tab-separated text (header row, one row per figure)."""
        comp = self.comparison
        if comp is None:
            return ""
        t = table(comp)
        lines = ["\t".join(["", *t.headers])]
        for label, cells in zip(t.labels, t.cells, strict=True):
            lines.append("\t".join([label, *(c.text for c in cells)]))
        return "\n".join(lines) + "\n"

    def copy_table(self) -> None:
        """Copy the table to the clipboard as tab-separated text."""
        QGuiApplication.clipboard().setText(self.table_text())
        self.status.setText("Table copied.")

    def save_json(self, path: str | Path) -> None:
        """Write the comparison as ``compare --json`` does (atomic)."""
        from designer.io.export._common import strict_json
        from designer.io.recovery import write_atomic

        assert self.comparison is not None
        data, _ = strict_json(self.comparison.model_dump(mode="json"))
        text = json.dumps(data, indent=2, allow_nan=False) + "\n"
        write_atomic(Path(path), text.encode("utf-8"))

    def _pick_files(self) -> None:
        names, _ = QFileDialog.getOpenFileNames(
            self, "Compare with designs", self.folder or "", FILE_FILTER
        )
        if names:
            self.folder = str(Path(names[0]).parent)
            self.add_files(names)

    def _pick_json(self) -> None:
        start = str(Path(self.folder or "") / "comparison.json")
        name, _ = QFileDialog.getSaveFileName(
            self, "Save comparison", start, JSON_FILTER
        )
        if not name:
            return
        try:
            self.save_json(name)
        except OSError as exc:
            QMessageBox.warning(
                self, "Save comparison", f"{name}: cannot write ({exc.strerror or exc})"
            )
            return
        self.status.setText(f"Saved {name}.")

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Keep the side column narrow and the table taller than the chart."""
        super().resizeEvent(event)
        if self._user_split:
            return
        self._lay_out()

    def _lay_out(self) -> None:
        """Side column a quarter of the width; the table as tall as its rows
        (the chart takes the rest, at least a third of the height)."""
        width, height = self.width(), self.height()
        side = max(260, min(380, width // 4))
        self.splitter.setSizes([side, max(width - side, 1)])
        total = sum(self._results.sizes()) or height
        rows = self.table.rowCount()
        head = self.table.horizontalHeader().height()
        needed = head + rows * self.table.verticalHeader().defaultSectionSize() + 24
        chart = max(200, total // 3, total - needed)
        self._results.setSizes([max(total - chart, 1), chart])
        self._spread_columns()

    def _spread_columns(self) -> None:
        """Columns of equal width across the table when their text is narrower."""
        n = self.table.columnCount()
        if not n:
            return
        self.table.resizeColumnsToContents()
        room = self.table.viewport().width()
        widths = [self.table.columnWidth(i) for i in range(n)]
        if sum(widths) < room:
            even = room // n
            for i in range(n):
                self.table.setColumnWidth(i, max(widths[i], even))

    def _split_moved(self, *_: object) -> None:
        self._user_split = True

    def closeEvent(self, event: QCloseEvent) -> None:
        """Stop the worker and stop following the document."""
        self.shutdown()
        super().closeEvent(event)

    def shutdown(self) -> None:
        """Drop queued jobs, wait for the running one, unsubscribe."""
        self.runner.shutdown()
        if self._following:
            self._following = False
            self.document.unsubscribe(self._on_changes)
