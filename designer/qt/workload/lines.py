"""Summary lines (label, value, sources) laid out in a two-column grid: the
Workload panel's summary and the Serving tab show their lines this one way."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGridLayout, QLabel

from designer.view.workload.lines import Line
from designer.view.workload.summary import sources_of
from designer.workload import Estimate


def fill_lines(
    grid: QGridLayout, lines: list[Line], est: Estimate | None
) -> dict[str, QLabel]:
    """Replace the grid's widgets with one row per line (its label in the
    section-title style, its text selectable, both with the sources of the
    line's figures as tooltip); the value labels by line label."""
    while grid.count():
        item = grid.takeAt(0)
        widget = item.widget() if item is not None else None
        if widget is not None:
            widget.deleteLater()
    labels: dict[str, QLabel] = {}
    for row, line in enumerate(lines):
        name = QLabel(line.label)
        name.setObjectName("sectionTitle")
        name.setStyleSheet("padding-top: 0px;")
        name.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        value = QLabel(line.text)
        value.setWordWrap(True)
        value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        if est is not None and line.paths:
            tip = sources_of(est, line.paths)
            name.setToolTip(tip)
            value.setToolTip(tip)
        grid.addWidget(name, row, 0)
        grid.addWidget(value, row, 1)
        labels[line.label] = value
    return labels
