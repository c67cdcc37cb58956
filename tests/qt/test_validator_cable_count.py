"""The validator's Cables row says what it counts (lanes), as the BOM and CLI do."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel

from designer.core.formatting import CABLE_LANES_NOTE
from designer.qt.validator import ValidatorPanel


def test_cables_row_says_it_counts_lanes(qtbot: object) -> None:
    panel = ValidatorPanel()
    qtbot.addWidget(panel)  # type: ignore[attr-defined]
    (name,) = [w for w in panel.findChildren(QLabel) if w.text() == "Cables"]
    tip = name.toolTip()
    assert CABLE_LANES_NOTE[1:] in tip and "NetBox export counts physical" in tip
