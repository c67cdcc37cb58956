"""The results half of the Workload panel: every figure by section, with its
source and estimate mark, the assumptions, and the estimate's findings.

Each figure row keeps its path and raw value (``PATH_ROLE``, ``VALUE_ROLE``),
so what the panel shows can be checked against ``estimate --json``; rows that
name devices (the N-1 worst switch and leaf) select them on the canvas.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFontMetrics, QResizeEvent
from PySide6.QtWidgets import (
    QHeaderView,
    QListWidget,
    QListWidgetItem,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeView,
    QTreeWidget,
    QTreeWidgetItem,
    QWidget,
)

from designer.core.formatting import plural
from designer.qt.resources import icon
from designer.view.workload.lines import ESTIMATE_MARK
from designer.view.workload.summary import assumption_texts, value_text
from designer.workload import Estimate, Row
from designer.workload.text import SECTIONS, section_of

PATH_ROLE = Qt.ItemDataRole.UserRole
VALUE_ROLE = Qt.ItemDataRole.UserRole + 1
ITEMS_ROLE = Qt.ItemDataRole.UserRole + 2
_MUTED = QBrush(QColor("#5b6670"))
ASSUMPTIONS = "Assumptions (inputs, defaults and their sources)"


def _tooltip(row: Row) -> str:
    lines = [row.label]
    if row.value is None:
        lines.append(f"Unknown: {row.why_unknown or 'not computed'}")
    lines.append(
        "An estimate"
        if row.estimate
        else "Arithmetic on the design or on published figures (not an estimate)"
    )
    lines.append(f"Source: {row.source}")
    return "\n".join(lines)


class _WrapDelegate(QStyledItemDelegate):
    """Rows as tall as their wrapped text at the column's width (QTreeView
    wraps painted text but sizes rows for one line)."""

    def sizeHint(
        self,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> QSize:
        base = super().sizeHint(option, index)
        view = self.parent()
        if not isinstance(view, QTreeView):
            return base
        depth, parent = 0, index.parent()
        while parent.isValid():
            depth += 1
            parent = parent.parent()
        width = view.columnWidth(index.column()) - 10
        if index.column() == 0:
            width -= view.indentation() * (depth + 1)
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        box = QFontMetrics(opt.font).boundingRect(
            QRect(0, 0, max(width, 20), 100_000),
            int(Qt.TextFlag.TextWordWrap),
            opt.text,
        )
        return QSize(base.width(), max(base.height(), box.height() + 4))


class FiguresTree(QTreeWidget):
    """Figures by section; ``items_activated(ids)`` when a row naming devices is
    clicked."""

    items_activated = Signal(list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("workloadFigures")
        self.setColumnCount(2)
        self.setHeaderLabels(["Figure", "Value"])
        self.setWordWrap(True)
        self.setUniformRowHeights(False)
        self.setAlternatingRowColors(True)
        self.setIndentation(12)
        self.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.setItemDelegate(_WrapDelegate(self))
        header = self.header()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        self.itemClicked.connect(self._on_clicked)
        self.itemActivated.connect(self._on_clicked)
        self.by_path: dict[str, QTreeWidgetItem] = {}

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Keep the label column at about half the width as the dock changes."""
        super().resizeEvent(event)
        width = max(120, int(self.viewport().width() * 0.56))
        if width != self.columnWidth(0):
            self.setColumnWidth(0, width)
            self.scheduleDelayedItemsLayout()  # wrapped rows change height

    def show_estimate(self, est: Estimate) -> None:
        """Fill the tree from ``est`` (sections expanded; whole-unknown
        sections folded to one line that says why)."""
        expanded: dict[str, bool] = {}
        for i in range(self.topLevelItemCount()):
            top = self.topLevelItem(i)
            if top is not None:
                expanded[str(top.data(0, PATH_ROLE))[8:]] = top.isExpanded()
        self.clear()
        self.by_path = {}
        rows = est.rows()
        n1 = est.n_minus_1
        devices = {
            "n_minus_1.worst_device": n1.worst_device,
            "n_minus_1.worst_leaf": n1.worst_leaf,
        }
        for tier, detail in n1.by_tier_detail.items():
            devices[f"n_minus_1.by_tier.{tier}"] = detail.worst_device
        for key, title in SECTIONS:
            mine = [r for r in rows if section_of(r.path) == key]
            if not mine:
                continue
            section = QTreeWidgetItem(self, [title, ""])
            section.setData(0, PATH_ROLE, f"section.{title}")
            font = section.font(0)
            font.setBold(True)
            section.setFont(0, font)
            for r in mine:
                item = QTreeWidgetItem(section, [r.label, value_text(r)])
                item.setData(0, PATH_ROLE, r.path)
                item.setData(0, VALUE_ROLE, r.value)
                tip = _tooltip(r)
                ids = devices.get(r.path)
                if ids:
                    item.setData(0, ITEMS_ROLE, [ids])
                    tip += f"\nClick to select {ids} on the canvas"
                    item.setForeground(1, QBrush(QColor("#1f4e79")))
                    f = item.font(1)
                    f.setUnderline(True)
                    item.setFont(1, f)
                item.setToolTip(0, tip)
                item.setToolTip(1, tip)
                if r.value is None:
                    item.setForeground(1, _MUTED)
                self.by_path[r.path] = item
            reasons = {r.why_unknown for r in mine}
            folded = all(r.value is None for r in mine) and len(reasons) == 1
            if folded:
                section.setText(0, f"{title}: unknown, {reasons.pop()}")
                section.setForeground(0, _MUTED)
            section.setFirstColumnSpanned(True)
            section.setExpanded(expanded.get(title, not folded))
            if key == "n_minus_1":
                method = QTreeWidgetItem(section, ["How N-1 was found", n1.method])
                method.setForeground(1, _MUTED)
                method.setToolTip(1, n1.method)
        self._add_assumptions(est, expanded.get(ASSUMPTIONS, False))

    def _add_assumptions(self, est: Estimate, expanded: bool) -> None:
        section = QTreeWidgetItem(self, [f"{ASSUMPTIONS}: {len(est.assumptions)}"])
        font = section.font(0)
        font.setBold(True)
        section.setFont(0, font)
        section.setFirstColumnSpanned(True)
        section.setData(0, PATH_ROLE, f"section.{ASSUMPTIONS}")
        for a in est.assumptions:
            label, shown = assumption_texts(a)
            mark = f"{ESTIMATE_MARK} " if a.estimate else ""
            item = QTreeWidgetItem(section, [label, f"{mark}{shown} · {a.origin}"])
            item.setData(0, PATH_ROLE, f"assumption.{a.name}")
            item.setData(0, VALUE_ROLE, a.value)
            tip = f"{label} = {shown}\nSource: {a.source}\nOrigin: {a.origin}" + (
                "\nAn estimate" if a.estimate else ""
            )
            item.setToolTip(0, tip)
            item.setToolTip(1, tip)
        section.setExpanded(expanded)

    def _on_clicked(self, item: QTreeWidgetItem, column: int = 0) -> None:
        ids = item.data(0, ITEMS_ROLE)
        if ids:
            self.items_activated.emit(list(ids))


class FindingsList(QListWidget):
    """The estimate's findings; ``items_activated(ids)`` when one naming devices
    is clicked (as the validator's)."""

    items_activated = Signal(list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("findings")
        self.setWordWrap(True)
        self.itemClicked.connect(self._on_clicked)
        self.itemActivated.connect(self._on_clicked)

    def show_estimate(self, est: Estimate | None) -> None:
        """List ``est``'s findings (a line saying there are none otherwise)."""
        self.clear()
        if est is None:
            return
        for f in est.findings:
            item = QListWidgetItem(icon(f.severity.value), f.message)
            item.setData(ITEMS_ROLE, list(f.items))
            item.setToolTip(
                f"[{f.code}] {f.message}"
                + (
                    f"\n{plural(len(f.items), 'item')}: click to select"
                    if f.items
                    else ""
                )
            )
            self.addItem(item)
        if not est.findings:
            item = QListWidgetItem(icon("ok"), "No workload findings.")
            item.setFlags(Qt.ItemFlag.ItemIsEnabled)
            self.addItem(item)

    def _on_clicked(self, item: QListWidgetItem) -> None:
        ids = item.data(ITEMS_ROLE)
        if ids:
            self.items_activated.emit(list(ids))
