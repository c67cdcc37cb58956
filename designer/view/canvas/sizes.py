"""Sizes, grid and level-of-detail thresholds of the canvas (one place to tune).

Scene units; a device's model ``(x, y)`` is the centre of its glyph. Colours
and fonts live with the Qt painting code (``designer.qt.canvas.style``).
"""

from __future__ import annotations

#: Device glyph size in scene units.
DEVICE_W = 64.0
DEVICE_H = 32.0
#: Grid pitch used by snapping and by placement of several dropped devices.
GRID = 16.0
#: Gap between devices placed side by side (drop with a count, paste offset).
PLACE_STEP_X = DEVICE_W + GRID
PASTE_OFFSET = 2 * GRID

#: Level of detail (pixels per scene unit) below which a device is a plain fill,
#: and from which labels may be drawn (the 40000-chips example uses similar
#: steps). Whether one is drawn is the label fit's answer
#: (designer.view.canvas.device_labels): from about 0.39, a 7 px number fits the box.
LOD_FILL_ONLY = 0.12
LOD_TEXT = 0.35

#: Zoom (pixels per scene unit) from which bundles of more than one cable show
#: their cable count ("×8") at the link's midpoint, and how many at most.
LOD_CABLE_LABELS = 0.5
MAX_CABLE_LABELS = 300

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


def snap(value: float, on: bool = True) -> float:
    """Round a coordinate to the grid when snapping is on."""
    return round(value / GRID) * GRID if on else value
