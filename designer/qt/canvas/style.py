"""Sizes, colours and level-of-detail thresholds of the canvas (one place to tune)."""

from __future__ import annotations

from PySide6.QtGui import QColor

#: Device glyph size in scene units; a device's model (x, y) is its centre.
DEVICE_W = 64.0
DEVICE_H = 32.0
#: Grid pitch used by snapping and by placement of several dropped devices.
GRID = 16.0
#: Gap between devices placed side by side (drop with a count, paste offset).
PLACE_STEP_X = DEVICE_W + GRID
PASTE_OFFSET = 2 * GRID

#: Level of detail (pixels per scene unit) below which a device is a plain fill,
#: and from which labels are drawn (the 40000-chips example uses similar steps).
LOD_FILL_ONLY = 0.12
LOD_TEXT = 0.45

#: Semantic zoom: above this many devices in view the scene shows the quotient
#: (group blocks and trunks) instead of device items and single links.
OVERVIEW_VISIBLE_DEVICES = 2500
#: The whole-design overview may stretch vertically up to this factor, so a
#: fabric laid out as long flat rows still fills the window (text is unstretched).
OVERVIEW_MAX_STRETCH = 2000.0
#: Share of the window height the stretched overview fills.
OVERVIEW_FILL = 0.6
#: Never use the quotient for designs this small, whatever the zoom.
OVERVIEW_MIN_DEVICES = 200
#: ... and when devices would be drawn narrower than this many pixels.
OVERVIEW_DEVICE_PX = 4.0
#: The link layer stops drawing single links beyond this many in view (the trunks
#: of the quotient take over long before; this is a guard, not a mode).
MAX_DRAWN_LINKS = 60_000

#: Above this many links in view, links passing through without an end in view
#: are not drawn (each costs a full-width line and says nothing at that zoom).
THROUGH_LINK_BUDGET = 4000

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
FABRICS: tuple[str, ...] = ("compute", "storage", "inband", "oob")

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


def snap(value: float, on: bool = True) -> float:
    """Round a coordinate to the grid when snapping is on."""
    return round(value / GRID) * GRID if on else value
