"""Where generated devices go: scalable units wrapped into a grid of pods.

A fabric laid out as long flat rows is thousands of times wider than tall at
100,000 GPUs, so the generators place it as a grid instead:

* a scalable unit (SU) is a block: its leaves in a row, its compute nodes in a
  row below them (Qt's y grows downward, so compute has the largest y);
* a pod stacks its spines (one band, wrapped to the pod's width) above its
  SUs, which are wrapped into rows; pods are wrapped into rows too;
* the cores (three tiers) or the spines (two tiers) form a band above the
  whole grid, since they connect to every pod or SU; over pods the core band
  is at least ``TOP_SHARE`` of a pod tall, so the canvas overview shows it as
  a titled block with every pod's trunk running straight up to it;
* the number of SU columns per pod and of pod columns is chosen so that the
  whole grid is landscape, about 1.8:1 (a screen), with pods not too flat;
* storage and management blocks go beside the fabric, stacked downward, each
  in its own box (see :func:`side_slot`); once all are built,
  :func:`arrange_side` moves them as whole blocks either into a column right
  of the fabric or into a row below it, whichever keeps the whole design
  nearest a landscape screen (a 1-SU fabric is a wide strip, so its blocks go
  below it instead of into a column taller than the fabric).

Everything is plain arithmetic (no graph layout), so positions cost nothing
next to building the devices.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from math import ceil, log

from designer.core.model import Design, Device

NODE_DX = 80.0
"""Horizontal pitch of devices in a row (a device is 64 wide on the canvas)."""
BAND_DY = 80.0
"""Vertical pitch of the rows of a wrapped band of switches."""
SU_GAP = 160.0
"""Horizontal gap between scalable units of a pod."""
SU_ROW_GAP = 400.0
"""Vertical gap between a row of SUs' compute nodes and the next row's leaves."""
POD_GAP = 640.0
"""Gap between pods (both ways); larger than SU gaps so pods read as blocks."""
SIDE_GAP = 960.0
"""Gap between the fabric and the storage / management blocks beside it."""
SIDE_ROW = 40
"""Most devices in one row of a storage or management block."""
SIDE_ROW_GAP = 160.0
"""Vertical gap between the rows of different kinds in a side block."""
SIDE_WIDTH = SIDE_GAP + SIDE_ROW * NODE_DX
"""Most width the storage and management blocks add beside the fabric."""
SIDE_GROUPS = frozenset({"storage", "mgmt"})
"""Ids of the groups placed beside the fabric (storage, management)."""
TARGET_ASPECT = 1.8
"""Wanted width:height of the whole grid (a landscape screen)."""
TOP_SHARE = 0.3
"""Least height of the core band above pods, as a share of a pod's height."""
ASPECT_RANGE = (1.1, 2.4)
"""Grid aspects tried first (storage and management beside it add width)."""
POD_ASPECT = 3.0
"""Wanted width:height of one pod (wide enough for its spine band)."""
POD_WEIGHT = 0.3
"""Weight of a pod's shape against the whole grid's in the choice of columns."""
WRAP_COST = 0.15
"""Cost of wrapping a pod's SUs into several rows (its spine links then cross
the upper rows); worth it only when one row would make the grid far too wide."""


def _gap(span: float, low: float, high: float, share: float) -> float:
    """A tier gap growing with the ``span`` its links fan over, rounded to 10."""
    return float(round(min(max(span * share, low), high), -1))


def band_rows(n: int, width: float) -> int:
    """Rows a band of ``n`` devices needs at ``NODE_DX`` pitch in ``width``."""
    if n <= 0:
        return 0
    per_row = max(1, int(width // NODE_DX))
    return ceil(n / per_row)


def band(
    n: int, left: float, width: float, top: float, rows: int = 0
) -> list[tuple[float, float]]:
    """Positions of ``n`` devices spread over ``width``, in rows from ``top`` down
    (as few rows as fit, or at least ``rows``)."""
    rows = min(n, max(rows, band_rows(n, width)))
    if rows == 0:
        return []
    per_row = ceil(n / rows)
    step = width / per_row
    return [
        (left + (i % per_row + 0.5) * step, top + (i // per_row) * BAND_DY)
        for i in range(n)
    ]


@dataclass(frozen=True)
class Shape:
    """Sizes of one scalable unit block."""

    slots: int
    """Node slots per SU (the full SU size)."""
    leaves: int
    """Most leaves in one SU (all rail planes)."""

    @property
    def width(self) -> float:
        """Width of the block: nodes or leaves, whichever row is longer."""
        return max(self.slots, self.leaves, 1) * NODE_DX

    @property
    def leaf_gap(self) -> float:
        """Leaf row to compute row."""
        return _gap(self.width, 300.0, 800.0, 1 / 6)


@dataclass(frozen=True)
class GridLayout:
    """Positions of SU blocks, pod spine bands and the top band of a fabric."""

    shape: Shape
    su_left: tuple[float, ...]
    su_leaf_y: tuple[float, ...]
    pod_left: tuple[float, ...]
    pod_top: tuple[float, ...]
    pod_width: float
    top_rows: int
    width: float
    height: float

    @property
    def node_dx(self) -> float:
        """Pitch of node slots in an SU."""
        return self.shape.width / max(self.shape.slots, 1)

    def node(self, su: int, slot: int) -> tuple[float, float]:
        """Centre of node ``slot`` of SU ``su``."""
        return (
            self.su_left[su] + (slot + 0.5) * self.node_dx,
            self.su_leaf_y[su] + self.shape.leaf_gap,
        )

    def leaves(self, su: int, n: int) -> list[tuple[float, float]]:
        """Centres of the ``n`` leaves of SU ``su`` (one row over the block)."""
        step = self.shape.width / max(n, 1)
        y = self.su_leaf_y[su]
        return [(self.su_left[su] + (k + 0.5) * step, y) for k in range(n)]

    def pod_band(self, pod: int, n: int) -> list[tuple[float, float]]:
        """Centres of ``n`` spines of ``pod`` (rows above its SUs)."""
        return band(n, self.pod_left[pod], self.pod_width, self.pod_top[pod])

    def top_band(self, n: int) -> list[tuple[float, float]]:
        """Centres of ``n`` cores (or two-tier spines) above the whole grid."""
        return band(n, 0.0, self.width, 0.0, self.top_rows)


@dataclass(frozen=True)
class _Try:
    cost: float
    su_cols: int
    pod_cols: int


def _pod_size(
    shape: Shape, sus: int, su_cols: int, spines: int
) -> tuple[float, float, float, float]:
    """Width, height, spine band height and spine-to-leaf gap of one pod."""
    w = su_cols * shape.width + (su_cols - 1) * SU_GAP
    su_rows = ceil(sus / su_cols)
    ks = band_rows(spines, w)
    band_h = max(ks - 1, 0) * BAND_DY
    g1 = _gap(w, 300.0, 1600.0, 1 / 6) if spines else 0.0
    h = band_h + g1 + (su_rows - 1) * (shape.leaf_gap + SU_ROW_GAP) + shape.leaf_gap
    return w, h, band_h, g1


def _top_rows(width: float, pod_height: float, n: int, pods: int) -> int:
    """Rows of the top band over the whole ``width``: as few as fit, but over
    pods at least a ``TOP_SHARE`` of a pod's height, so the overview shows the
    cores as a block with its title (not a hairline) and every pod's trunk
    runs straight up to it."""
    rows = band_rows(n, width)
    if pods > 1:
        rows = max(rows, 1 + ceil(TOP_SHARE * pod_height / BAND_DY))
    return min(n, rows)


def _top_size(width: float, rows: int) -> tuple[float, float]:
    """Height of the top band and its gap to the grid below."""
    if rows == 0:
        return 0.0, 0.0
    return (rows - 1) * BAND_DY, _gap(width, 400.0, 3000.0, 1 / 10)


def grid_layout(
    shape: Shape,
    sus: int,
    sus_per_pod: int,
    pods: int,
    pod_spines: int,
    top: int,
    side: float = 0.0,
) -> GridLayout:
    """Lay out ``sus`` SU blocks in ``pods`` pods (``sus_per_pod`` each, the last
    may be short) with ``pod_spines`` per pod and ``top`` devices in the band
    above all; pods=1 with pod_spines=0 is a two-tier (or one-tier) grid.
    ``side`` is the width that blocks beside the grid will add (for the aspect)."""
    best: _Try | None = None
    for su_cols in range(1, sus_per_pod + 1):
        if su_cols > 1 and ceil(sus_per_pod / su_cols) == ceil(
            sus_per_pod / (su_cols - 1)
        ):
            continue  # same rows, only wider
        pw, ph, _, _ = _pod_size(shape, sus_per_pod, su_cols, pod_spines)
        for pod_cols in range(1, pods + 1):
            if pod_cols > 1 and ceil(pods / pod_cols) == ceil(pods / (pod_cols - 1)):
                continue
            rows = ceil(pods / pod_cols)
            w = pod_cols * pw + (pod_cols - 1) * POD_GAP
            top_h, g2 = _top_size(w, _top_rows(w, ph, top, pods))
            h = top_h + g2 + rows * ph + (rows - 1) * POD_GAP
            aspect = (w + side) / max(h, 1.0)
            cost = abs(log(aspect / TARGET_ASPECT))
            if not ASPECT_RANGE[0] <= aspect <= ASPECT_RANGE[1]:
                cost += 1.0
            if pods > 1:  # a pod is one block in the overview: keep it legible
                cost += POD_WEIGHT * abs(log(pw / max(ph, 1.0) / POD_ASPECT))
            if su_cols < sus_per_pod:  # spine links then cross a row of SUs
                cost += WRAP_COST
            if best is None or cost < best.cost - 1e-9:
                best = _Try(cost, su_cols, pod_cols)
    assert best is not None
    pw, ph, band_h, g1 = _pod_size(shape, sus_per_pod, best.su_cols, pod_spines)
    rows = ceil(pods / best.pod_cols)
    width = best.pod_cols * pw + (best.pod_cols - 1) * POD_GAP
    top_rows = _top_rows(width, ph, top, pods)
    top_h, g2 = _top_size(width, top_rows)
    grid_top = top_h + g2
    pod_left = [(p % best.pod_cols) * (pw + POD_GAP) for p in range(pods)]
    pod_top = [grid_top + (p // best.pod_cols) * (ph + POD_GAP) for p in range(pods)]
    su_left: list[float] = []
    su_leaf_y: list[float] = []
    for i in range(sus):
        p, j = divmod(i, sus_per_pod)
        su_left.append(pod_left[p] + (j % best.su_cols) * (shape.width + SU_GAP))
        su_leaf_y.append(
            pod_top[p]
            + band_h
            + g1
            + (j // best.su_cols) * (shape.leaf_gap + SU_ROW_GAP)
        )
    return GridLayout(
        shape=shape,
        su_left=tuple(su_left),
        su_leaf_y=tuple(su_leaf_y),
        pod_left=tuple(pod_left),
        pod_top=tuple(pod_top),
        pod_width=pw,
        top_rows=top_rows,
        width=width,
        height=grid_top + rows * ph + (rows - 1) * POD_GAP,
    )


def side_slot(devices: Iterable[Device], side: Collection[str]) -> tuple[float, float]:
    """Top-left corner for the next block beside the fabric.

    Blocks beside the fabric (devices whose group is in ``side``) are stacked
    downward to the right of everything else, so their boxes never overlap the
    fabric's or each other's (a column keeps a wide fabric from growing wider).
    """
    fab_x: list[float] = []
    fab_y: list[float] = []
    side_x: list[float] = []
    side_y: list[float] = []
    for d in devices:
        if d.group in side:
            side_x.append(d.x)
            side_y.append(d.y)
        else:
            fab_x.append(d.x)
            fab_y.append(d.y)
    top = min(fab_y, default=0.0)
    x = max(fab_x, default=0.0) + SIDE_GAP
    if not side_y:
        return x, top
    return min(side_x) - NODE_DX / 2, max(side_y) + SIDE_GAP / 2


def side_rows(
    rows: list[int], left: float, top: float, gap: float = SIDE_ROW_GAP
) -> list[list[tuple[float, float]]]:
    """Positions of a side block's rows (top row first), each wrapped at
    ``SIDE_ROW`` devices; ``gap`` separates the rows of different kinds."""
    out: list[list[tuple[float, float]]] = []
    y = top
    for n in rows:
        per = min(max(n, 1), SIDE_ROW)
        width = per * NODE_DX
        out.append(band(n, left, width, y))
        y += max(band_rows(n, width) - 1, 0) * BAND_DY + (gap if n else 0.0)
    return out


Box = tuple[float, float, float, float]
"""left, top, right, bottom of device centres."""

GLYPH = (64.0, 32.0)
"""Width and height of a device glyph on the canvas (for the aspect)."""


def _box(points: Iterable[tuple[float, float]]) -> Box | None:
    """Box of device centres, or None for no devices."""
    xs, ys = [], []
    for x, y in points:
        xs.append(x)
        ys.append(y)
    if not xs:
        return None
    return min(xs), min(ys), max(xs), max(ys)


def _cost(boxes: Sequence[Box], fabric: Box) -> float:
    """How far the union of ``boxes`` is from a landscape screen whose area the
    fabric fills (lower is better)."""
    gw, gh = GLYPH
    left = min(b[0] for b in boxes) - gw / 2
    top = min(b[1] for b in boxes) - gh / 2
    right = max(b[2] for b in boxes) + gw / 2
    bottom = max(b[3] for b in boxes) + gh / 2
    w, h = right - left, bottom - top
    aspect = w / h
    fill = (fabric[2] - fabric[0] + gw) * (fabric[3] - fabric[1] + gh) / (w * h)
    cost = abs(log(aspect / TARGET_ASPECT)) + (1.0 - fill)
    if not 1.0 <= aspect <= 2.5:
        cost += 2.0
    return cost


def side_offsets(fabric: Box, blocks: Sequence[Box]) -> list[tuple[float, float]]:
    """Shifts that move ``blocks`` (side blocks, in order) into a column right of
    ``fabric`` or a row below it, whichever :func:`_cost` prefers; the gap
    grows with the fabric's size (tight on a 1-SU design, ``SIDE_GAP`` at most).
    """
    if not blocks:
        return []
    span = max(fabric[2] - fabric[0], fabric[3] - fabric[1])
    gap = _gap(span, 200.0, SIDE_GAP, 1 / 10)
    inner = _gap(span, 200.0, SIDE_GAP / 2, 1 / 20)
    options: list[list[tuple[float, float]]] = []
    # a column beside the fabric, from its top down
    x, y, moves = fabric[2] + GLYPH[0] + gap, fabric[1], []
    for b in blocks:
        moves.append((x - b[0], y - b[1]))
        y += b[3] - b[1] + GLYPH[1] + inner
    options.append(moves)
    # a row below the fabric, from its left rightward
    x, y, moves = fabric[0], fabric[3] + GLYPH[1] + gap, []
    for b in blocks:
        moves.append((x - b[0], y - b[1]))
        x += b[2] - b[0] + GLYPH[0] + inner
    options.append(moves)

    def placed(moves: list[tuple[float, float]]) -> list[Box]:
        return [fabric] + [
            (b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy)
            for b, (dx, dy) in zip(blocks, moves, strict=True)
        ]

    return min(options, key=lambda m: _cost(placed(m), fabric))


def arrange_side(design: Design, side: Sequence[str] = ("storage", "mgmt")) -> Design:
    """``design`` with its side blocks (devices of the groups ``side``, in that
    order) moved as whole blocks beside or below the fabric (see
    :func:`side_offsets`); the fabric itself stays where it is."""
    fabric = _box((d.x, d.y) for d in design.devices if d.group not in side)
    present = [g for g in side if any(d.group == g for d in design.devices)]
    if fabric is None or not present:
        return design
    boxes = [_box((d.x, d.y) for d in design.devices if d.group == g) for g in present]
    shift = dict(
        zip(present, side_offsets(fabric, [b for b in boxes if b]), strict=True)
    )
    devices = [
        d.model_copy(
            update={"x": d.x + shift[d.group][0], "y": d.y + shift[d.group][1]}
        )
        if d.group in shift
        else d
        for d in design.devices
    ]
    return Design(
        settings=design.settings,
        groups=design.groups,
        devices=devices,
        links=design.links,
    )
