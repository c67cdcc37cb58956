"""Colours and stacking order of the canvas (sizes: ``designer.view.canvas.sizes``)."""

from __future__ import annotations

from PySide6.QtGui import QColor

from designer.core.model import FABRICS as CORE_FABRICS

#: Pick tolerance in device pixels (click on a link / device edge).
PICK_PX = 5.0

BACKGROUND = QColor("#f7f8fa")
GRID_COLOUR = QColor("#e8eaee")
TEXT = QColor("#1d2430")
TEXT_MUTED = QColor("#5b6577")
SELECTED = QColor("#1a73e8")
FRAME = QColor("#8a94a6")
BLOCK_FILL = QColor("#dfe5f0")
MESSAGE_BG = QColor(40, 44, 52, 235)
CUT_A = QColor("#2e86de")
CUT_B = QColor("#e67e22")
CUT_LINK = QColor("#d62728")

CATEGORY_FILL: dict[str, QColor] = {
    "compute": QColor("#76b900"),  # NVIDIA green for GPU systems
    "switch": QColor("#5d6d7e"),
    "storage": QColor("#8e44ad"),
    "management": QColor("#b9770e"),
}
TIER_FILL: dict[str, QColor] = {
    "leaf": QColor("#3b7dd8"),
    "spine": QColor("#2a5caa"),
    "core": QColor("#1b3a6b"),
}
FABRIC_PEN: dict[str, QColor] = {
    "compute": QColor("#4a5a75"),
    "storage": QColor("#8e44ad"),
    "inband": QColor("#16a085"),
    "oob": QColor("#a0a6b0"),
}
FABRICS: tuple[str, ...] = tuple(f.value for f in CORE_FABRICS)
"""Fabric names in the link table's code order."""

#: Stacking order of the layers.
Z_FRAME = -20.0
Z_LINKS = -10.0
Z_TRUNK = -5.0
Z_BLOCK = 0.0
Z_DEVICE = 5.0
Z_OVERLAY = 50.0


def device_fill(category: str, tier: str | None) -> QColor:
    """Fill colour of a device: switches by tier, others by category."""
    if category == "switch" and tier in TIER_FILL:
        return TIER_FILL[tier]
    return CATEGORY_FILL.get(category, QColor("#7f8c8d"))


def text_on(fill: QColor) -> QColor:
    """Black or white, whichever reads better on ``fill``."""
    lum = 0.299 * fill.red() + 0.587 * fill.green() + 0.114 * fill.blue()
    return QColor("#10141a") if lum > 150 else QColor("#ffffff")
