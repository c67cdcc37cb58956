"""The quotient of a design: group blocks and the trunks between them.

Semantic zoom (the overview) and collapsed groups draw a set of devices as one
block and every bundle of links between two blocks (or a block and a device) as
one trunk. In the overview, blocks are spread so none overlaps another.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from designer.catalog.schema import CatalogEntry
from designer.core.formatting import plural
from designer.core.model import Design, Device, Group
from designer.view.canvas.geometry import Geometry


@dataclass(frozen=True)
class Block:
    """A group (or a tier of ungrouped devices) drawn as one block (never
    changed in place: an edit makes another, the canvas keeps an unchanged
    one's item as it is)."""

    key: str
    group_id: str | None
    title: str
    summary: str
    rows: np.ndarray
    rect: tuple[float, float, float, float]  # x0, y0, x1, y1

    @property
    def centre(self) -> tuple[float, float]:
        """Centre of the block."""
        x0, y0, x1, y1 = self.rect
        return (x0 + x1) / 2, (y0 + y1) / 2


@dataclass(frozen=True)
class Trunk:
    """All links between two blocks (or a block and a device), drawn as one
    line (never changed in place, as :class:`Block`)."""

    ends: tuple[int, int]  # node codes: block index, or n_blocks + device row
    p0: tuple[float, float]
    p1: tuple[float, float]
    links: int
    cables: int
    capacity_gbps: float
    speed_gbps: int | None  # None when the bundle mixes speeds

    @property
    def label(self) -> str:
        """Short text such as "256 x 400G" or "96 cables · 28.8T"."""
        if self.speed_gbps is not None:
            return f"{self.cables:,} x {self.speed_gbps}G"
        return f"{plural(self.cables, 'cable')} · {self.capacity_gbps / 1000:,.1f}T"


@dataclass
class Quotient:
    """Which devices are shown as blocks, and the trunks between them."""

    rep: np.ndarray  # per device row: block index, or -1 when drawn itself
    blocks: list[Block] = field(default_factory=list)
    trunks: list[Trunk] = field(default_factory=list)
    link_trunk: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    direct: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    spread: bool = False  # blocks moved apart (the overview)


BLOCK_PAD = 12.0


def group_chains(design: Design) -> dict[str, list[str]]:
    """For each group id, its ancestors from the outermost down to itself."""
    parent = {g.id: g.parent for g in design.groups}
    chains: dict[str, list[str]] = {}
    for gid in parent:
        chain = [gid]
        p = parent[gid]
        while p is not None and p not in chain:
            chain.append(p)
            p = parent.get(p)
        chains[gid] = chain[::-1]
    return chains


def block_summary(
    rows: np.ndarray,
    cat_ids: Sequence[str] | Mapping[int, str],
    catalog: Mapping[str, CatalogEntry],
) -> str:
    """Counts such as "32x DGX H100 · 256 GPUs · 8 switches"."""
    counts: dict[str, int] = {}
    for r in rows.tolist():
        cid = cat_ids[r]
        counts[cid] = counts.get(cid, 0) + 1
    compute: list[str] = []
    gpus = 0
    others: dict[str, int] = {}
    for cid, n in sorted(counts.items(), key=lambda kv: -kv[1]):
        entry = catalog.get(cid)
        if entry is None:
            others["devices"] = others.get("devices", 0) + n
            continue
        cat = str(entry.category)
        if entry.gpus:
            compute.append(f"{n:,}x {entry.model}")
            gpus += n * entry.gpus
        else:
            others[cat] = others.get(cat, 0) + n
    parts = compute[:2]
    if len(compute) > 2:
        parts.append(f"+{len(compute) - 2} models")
    if gpus:
        parts.append(f"{gpus:,} GPUs")
    parts += [plural(n, name) for name, n in others.items()]
    return " · ".join(parts) if parts else "empty"


def quotient(
    design: Design,
    geom: Geometry,
    catalog: Mapping[str, CatalogEntry],
    overview: bool,
) -> Quotient:
    """Blocks for collapsed groups (and, in overview, for everything) and trunks."""
    n = len(geom.ids)
    if not overview and not any(g.collapsed for g in design.groups):
        q = Quotient(rep=np.full(n, -1, np.int64))
        add_trunks(q, geom)
        return q
    rep_key: list[str | None] = [None] * n
    chains = group_chains(design)
    collapsed = {g.id for g in design.groups if g.collapsed}
    groups = design.group_map()
    cat_ids = [d.catalog_id for d in design.devices]
    for r, d in enumerate(design.devices):
        rep_key[r] = block_key(d, chains, collapsed, catalog, overview)
    keys = sorted({k for k in rep_key if k is not None})
    block_of = {k: i for i, k in enumerate(keys)}
    rep = np.fromiter(
        (block_of[k] if k is not None else -1 for k in rep_key), np.int64, n
    )
    blocks = [
        make_block(k, groups, np.nonzero(rep == block_of[k])[0], cat_ids, catalog, geom)
        for k in keys
    ]
    if overview:
        blocks = spread(blocks)
    q = Quotient(rep=rep, blocks=blocks, spread=overview)
    add_trunks(q, geom)
    return q


def block_rect(geom: Geometry, rows: np.ndarray) -> tuple[float, float, float, float]:
    """The outline of a block drawn around device ``rows``."""
    x0, y0, x1, y1 = geom.bounds(rows)
    return (x0 - BLOCK_PAD, y0 - BLOCK_PAD, x1 + BLOCK_PAD, y1 + BLOCK_PAD)


def make_block(
    key: str,
    groups: Mapping[str, Group],
    rows: np.ndarray,
    cat_ids: Sequence[str] | Mapping[int, str],
    catalog: Mapping[str, CatalogEntry],
    geom: Geometry,
) -> Block:
    """The block of ``key`` drawn around device ``rows``."""
    rect = block_rect(geom, rows)
    g = groups.get(key)
    if g is not None:
        title = g.label or g.id
        gid: str | None = g.id
    else:
        gid = None
        kind, _, name = key.partition(":")
        title = name.capitalize() + ("" if kind == "tier" else " (ungrouped)")
    summary = block_summary(rows, cat_ids, catalog)
    return Block(key, gid, title, summary, rows, rect)


def block_key(
    d: Device,
    chains: dict[str, list[str]],
    collapsed: set[str],
    catalog: Mapping[str, CatalogEntry],
    overview: bool,
) -> str | None:
    """The block a device is drawn in (None: drawn itself)."""
    chain = chains.get(d.group) if d.group else None
    if chain:
        if overview:
            return chain[0]
        for member_of in chain:
            if member_of in collapsed:
                return member_of
        return None
    if overview:
        entry = catalog.get(d.catalog_id)
        cat = str(entry.category) if entry is not None else "other"
        tier = str(d.tier) if d.tier is not None else None
        return f"tier:{tier}" if tier else f"category:{cat}"
    return None


#: Clear space kept between blocks moved apart in the overview (scene units).
BLOCK_GAP = 48.0


def _overlap(a: tuple[float, ...], b: tuple[float, ...], gap: float) -> bool:
    return (
        a[0] < b[2] + gap
        and b[0] < a[2] + gap
        and a[1] < b[3] + gap
        and b[1] < a[3] + gap
    )


def spread(blocks: list[Block], gap: float = BLOCK_GAP) -> list[Block]:
    """The blocks with overlapping ones moved apart (the overview's layout).

    Bigger blocks keep their place; each smaller one that overlaps a placed
    block takes the nearest free position found by sliding it past the edges of
    the blocks in the way (right, left, below, above), so storage and
    management blocks at the end of a spine bar sit beside it, not on it.
    """
    order = sorted(
        range(len(blocks)),
        key=lambda i: (
            -(blocks[i].rect[2] - blocks[i].rect[0])
            * (blocks[i].rect[3] - blocks[i].rect[1])
        ),
    )
    placed: list[tuple[float, float, float, float]] = []
    out: dict[int, Block] = {}
    for i in order:
        b = blocks[i]
        rect = b.rect
        if any(_overlap(rect, p, gap) for p in placed):
            rect = _free_spot(rect, placed, gap)
        placed.append(rect)
        out[i] = (
            b
            if rect == b.rect
            else Block(b.key, b.group_id, b.title, b.summary, b.rows, rect)
        )
    return [out[i] for i in range(len(blocks))]


def _free_spot(
    rect: tuple[float, float, float, float],
    placed: list[tuple[float, float, float, float]],
    gap: float,
) -> tuple[float, float, float, float]:
    """The nearest shift of ``rect`` that overlaps none of ``placed``."""
    x0, y0, x1, y1 = rect
    p = np.asarray(placed)
    # slides past each placed block's edges, the nearest 24 on each axis
    dx = np.concatenate(([0.0], p[:, 2] + gap - x0, p[:, 0] - gap - x1))
    dy = np.concatenate(([0.0], p[:, 3] + gap - y0, p[:, 1] - gap - y1))
    dx = dx[np.argsort(np.abs(dx))][:24]
    dy = dy[np.argsort(np.abs(dy))][:24]
    # every pair (0 included on both axes: single slides are among them)
    for cand in (np.array([(a, b) for a in dx for b in dy]),):
        cx0, cy0 = x0 + cand[:, 0:1], y0 + cand[:, 1:2]
        cx1, cy1 = cx0 + (x1 - x0), cy0 + (y1 - y0)
        hit = (
            (cx0 < p[:, 2] + gap)
            & (p[:, 0] < cx1 + gap)
            & (cy0 < p[:, 3] + gap)
            & (p[:, 1] < cy1 + gap)
        ).any(axis=1)
        free = np.nonzero(~hit)[0]
        if free.size:
            cost = (cand[free] ** 2).sum(axis=1)
            k = int(free[np.argmin(cost)])
            return (
                float(x0 + cand[k, 0]),
                float(y0 + cand[k, 1]),
                float(x1 + cand[k, 0]),
                float(y1 + cand[k, 1]),
            )
    right = float(p[:, 2].max()) + gap  # beyond everything: always free
    return (right, y0, right + (x1 - x0), y1)


def add_trunks(q: Quotient, geom: Geometry) -> None:
    """Aggregate links with a blocked endpoint into trunks."""
    nb = len(q.blocks)
    nl = geom.la.size
    if nl == 0 or nb == 0:  # (no block: every link drawn itself)
        q.direct = np.ones(nl, bool)
        q.link_trunk = np.full(nl, -1, np.int64)
        return
    ra = q.rep[geom.la]
    rb = q.rep[geom.lb]
    q.direct = (ra < 0) & (rb < 0)
    ka = np.where(ra >= 0, ra, nb + geom.la)
    kb = np.where(rb >= 0, rb, nb + geom.lb)
    lo = np.minimum(ka, kb)
    hi = np.maximum(ka, kb)
    bundled = ~q.direct & (lo != hi)
    link_trunk = np.full(nl, -1, np.int64)
    idx = np.nonzero(bundled)[0]
    if idx.size:
        width = int(nb + len(geom.ids) + 1)
        lo_i, hi_i = lo[idx], hi[idx]
        # number the node codes in use densely, then count pairs (no sort)
        used = np.zeros(width, bool)
        used[lo_i] = True
        used[hi_i] = True
        nodes = np.nonzero(used)[0]
        dense = np.cumsum(used) - 1
        cw = int(nodes.size)
        if cw * cw <= 4_000_000:
            code = dense[lo_i] * cw + dense[hi_i]
            present = np.bincount(code, minlength=cw * cw) > 0
            pairs = np.nonzero(present)[0]
            inv = (np.cumsum(present) - 1)[code]
        else:
            pairs, inv = np.unique(dense[lo_i] * cw + dense[hi_i], return_inverse=True)
        uniq_a, uniq_b = nodes[pairs // cw], nodes[pairs % cw]
        link_trunk[idx] = inv
        count, cables, cap, speed = trunk_sums(geom, idx, inv, pairs.size)
        for t, (a, b) in enumerate(zip(uniq_a.tolist(), uniq_b.tolist(), strict=True)):
            pa, pb = place_trunk(q, geom, a, b)
            q.trunks.append(
                Trunk(
                    ends=(a, b),
                    p0=pa,
                    p1=pb,
                    links=int(count[t]),
                    cables=int(cables[t]),
                    capacity_gbps=float(cap[t]),
                    speed_gbps=int(speed[t]) if speed[t] >= 0 else None,
                )
            )
    q.link_trunk = link_trunk


def trunk_sums(
    geom: Geometry, idx: np.ndarray, inv: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per trunk (``inv``: trunk of each link in ``idx``): links, cables,
    capacity, and the one speed of its links (-1 when they mix speeds)."""
    speed = geom.speed[idx]
    count = np.bincount(inv, minlength=n)
    cables = np.bincount(inv, weights=geom.cables[idx], minlength=n).astype(np.int64)
    cap = np.bincount(inv, weights=geom.cables[idx] * speed, minlength=n)
    # some member's speed per trunk; its links share it when none differs
    member = np.zeros(n, np.int64)
    member[inv] = speed
    spread = np.bincount(inv, weights=np.abs(speed - member[inv]), minlength=n)
    return count, cables, cap, np.where(spread == 0, member, -1)


def place_trunk(
    q: Quotient, geom: Geometry, a: int, b: int
) -> tuple[tuple[float, float], tuple[float, float]]:
    """End points of the trunk between node codes ``a`` and ``b``."""
    ca, cb = _node_point(q, geom, a), _node_point(q, geom, b)
    if _width(q, a) <= _width(q, b):
        pa = _attach(q, a, (ca[0], cb[1]), ca)
        pb = _attach(q, b, (pa[0], ca[1]), cb)
    else:
        pb = _attach(q, b, (cb[0], ca[1]), cb)
        pa = _attach(q, a, (pb[0], cb[1]), ca)
    return pa, pb


def _node_point(q: Quotient, geom: Geometry, code: int) -> tuple[float, float]:
    nb = len(q.blocks)
    if code < nb:
        return q.blocks[code].centre
    x, y = geom.xy[code - nb]
    return float(x), float(y)


def _width(q: Quotient, code: int) -> float:
    if code >= len(q.blocks):
        return 0.0
    x0, _, x1, _ = q.blocks[code].rect
    return x1 - x0


def _attach(
    q: Quotient, code: int, towards: tuple[float, float], centre: tuple[float, float]
) -> tuple[float, float]:
    """Where a trunk meets a block: on the edge facing the other end, in line with it.

    Wide blocks (a row of switches) then take vertical trunks instead of a fan
    converging on their centre.
    """
    if code >= len(q.blocks):
        return centre
    x0, y0, x1, y1 = q.blocks[code].rect
    tx, ty = towards
    x = min(max(tx, x0), x1)
    if ty < y0:
        return x, y0
    if ty > y1:
        return x, y1
    return x, min(max(ty, y0), y1)
