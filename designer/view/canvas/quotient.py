"""The quotient of a design: group blocks and the trunks between them.

Semantic zoom (the overview) and collapsed groups draw a set of devices as one
block and every bundle of links between two blocks (or a block and a device) as
one trunk. In the overview, blocks are spread so none overlaps another.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from designer.catalog.schema import CatalogEntry
from designer.core.events import Event, LinksAdded, LinksRemoved
from designer.core.formatting import plural
from designer.core.model import Design, Device, Group
from designer.core.rows import with_rows, without_rows
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


def _group_chains(design: Design) -> dict[str, list[str]]:
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
        _add_trunks(q, geom)
        return q
    rep_key: list[str | None] = [None] * n
    chains = _group_chains(design)
    collapsed = {g.id for g in design.groups if g.collapsed}
    groups = design.group_map()
    cat_ids = [d.catalog_id for d in design.devices]
    for r, d in enumerate(design.devices):
        rep_key[r] = _rep_key(d, chains, collapsed, catalog, overview)
    keys = sorted({k for k in rep_key if k is not None})
    block_of = {k: i for i, k in enumerate(keys)}
    rep = np.fromiter(
        (block_of[k] if k is not None else -1 for k in rep_key), np.int64, n
    )
    blocks = [
        _block(k, groups, np.nonzero(rep == block_of[k])[0], cat_ids, catalog, geom)
        for k in keys
    ]
    if overview:
        blocks = spread(blocks)
    q = Quotient(rep=rep, blocks=blocks, spread=overview)
    _add_trunks(q, geom)
    return q


def _block(
    key: str,
    groups: Mapping[str, Group],
    rows: np.ndarray,
    cat_ids: Sequence[str] | Mapping[int, str],
    catalog: Mapping[str, CatalogEntry],
    geom: Geometry,
) -> Block:
    """The block of ``key`` drawn around device ``rows``."""
    x0, y0, x1, y1 = geom.bounds(rows)
    rect = (x0 - BLOCK_PAD, y0 - BLOCK_PAD, x1 + BLOCK_PAD, y1 + BLOCK_PAD)
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


def _rep_key(
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


def with_devices(
    q: Quotient,
    design: Design,
    geom: Geometry,
    catalog: Mapping[str, CatalogEntry],
    splices: Sequence[Event] | None = None,
) -> Quotient | None:
    """``q`` after devices were added or removed (``geom`` already synced).

    Rows are carried over, new devices join their blocks (a block of a key
    ``q`` lacks is made, in its place among the sorted keys, as
    :func:`quotient` orders them), a block that lost its last member goes, and
    only the blocks that gained or lost members are recounted. With the
    link ``splices`` of the step (:attr:`Geometry.splices`), when every device
    is in a block before and after and the blocks are the same, the trunks are
    carried over them too (:func:`_respliced`) and re-placed. Equal to
    :func:`quotient` of the edited design. None when the rows cannot be
    carried over (build the quotient afresh).
    """
    remap = geom.last_remap()
    keys = [b.key for b in q.blocks]
    if remap is None or remap.size != q.rep.size or keys != sorted(keys):
        return None
    n = len(geom.ids)
    ok = remap >= 0
    rep = np.full(n, -1, np.int64)
    rep[remap[ok]] = q.rep[ok]
    touched = set(q.rep[~ok].tolist())
    touched.discard(-1)
    fresh = np.ones(n, bool)
    fresh[remap[ok]] = False
    new_rows = np.nonzero(fresh)[0].tolist()
    joined: dict[str, list[int]] = {}
    if new_rows:
        chains = _group_chains(design)
        collapsed = {g.id for g in design.groups if g.collapsed}
        for r in new_rows:
            key = _rep_key(design.devices[r], chains, collapsed, catalog, q.spread)
            if key is not None:
                joined.setdefault(key, []).append(r)
    members = np.bincount(rep[rep >= 0], minlength=len(keys))
    kept = [k for i, k in enumerate(keys) if members[i] or k in joined]
    order = sorted({*kept, *joined})
    at = {k: i for i, k in enumerate(order)}
    # block codes renumbered for the blocks that came or went
    code = np.array([at.get(k, -1) for k in keys] + [-1], np.int64)
    rep = code[rep]  # (-1, a row drawn itself, takes the sentinel: -1)
    for key, came in joined.items():
        rep[came] = at[key]
    changed = {at[keys[i]] for i in touched if keys[i] in at} | {at[k] for k in joined}
    old = {b.key: b for b in q.blocks}
    groups = design.group_map()
    blocks: list[Block] = []
    for i, key in enumerate(order):
        if i in changed:
            rows = np.nonzero(rep == i)[0]
            cat_ids = {r: design.devices[r].catalog_id for r in rows.tolist()}
            blocks.append(_block(key, groups, rows, cat_ids, catalog, geom))
            continue
        b = old[key]
        rows = remap[b.rows]
        x0, y0, x1, y1 = geom.bounds(rows)
        rect = (x0 - BLOCK_PAD, y0 - BLOCK_PAD, x1 + BLOCK_PAD, y1 + BLOCK_PAD)
        blocks.append(Block(b.key, b.group_id, b.title, b.summary, rows, rect))
    if q.spread:
        blocks = spread(blocks)
    out = Quotient(rep=rep, blocks=blocks, spread=q.spread)
    if splices and order == keys and (rep >= 0).all() and (q.rep >= 0).all():
        # every device in a block, the same blocks: a trunk joins the same two
        # blocks as before, whatever the rows; only its links came or went
        carried = _respliced(
            Quotient(rep, blocks, q.trunks, q.link_trunk, q.direct, q.spread),
            geom,
            splices,
        )
        if carried is not None:
            carried.trunks = [
                replace(t, p0=ends[0], p1=ends[1])
                for t in carried.trunks
                for ends in (_place(carried, geom, *t.ends),)
            ]
            return carried
    _add_trunks(out, geom)
    return out


def rekinded(
    q: Quotient,
    design: Design,
    geom: Geometry,
    catalog: Mapping[str, CatalogEntry],
    rows: Sequence[int],
) -> Quotient | None:
    """``q`` after the devices of ``rows`` changed model or tier: when each is
    still in the block it was in (or still drawn itself), the same blocks and
    trunks, with the summaries of those blocks counted again. Equal to
    :func:`quotient` of the edited design; None when a device changed block
    or a block's outline moved (build the quotient afresh)."""
    chains = _group_chains(design)
    collapsed = {g.id for g in design.groups if g.collapsed}
    code = {b.key: i for i, b in enumerate(q.blocks)}
    touched: set[int] = set()
    for r in rows:
        key = _rep_key(design.devices[r], chains, collapsed, catalog, q.spread)
        now = -1 if key is None else code.get(key)
        if now is None or now != int(q.rep[r]):
            return None
        if now >= 0:
            touched.add(now)
    blocks = list(q.blocks)
    for i in touched:
        b = blocks[i]
        x0, y0, x1, y1 = geom.bounds(b.rows)
        rect = (x0 - BLOCK_PAD, y0 - BLOCK_PAD, x1 + BLOCK_PAD, y1 + BLOCK_PAD)
        if rect != b.rect:
            return None
        cat_ids = {r: design.devices[r].catalog_id for r in b.rows.tolist()}
        blocks[i] = replace(b, summary=block_summary(b.rows, cat_ids, catalog))
    return Quotient(
        rep=q.rep,
        blocks=blocks,
        trunks=q.trunks,
        link_trunk=q.link_trunk,
        direct=q.direct,
        spread=q.spread,
    )


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


def _add_trunks(q: Quotient, geom: Geometry) -> None:
    """Aggregate links with a blocked endpoint into trunks."""
    nb = len(q.blocks)
    nl = geom.la.size
    if nl == 0:
        q.direct = np.zeros(0, bool)
        q.link_trunk = np.zeros(0, np.int64)
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
        count, cables, cap, speed = _sums(geom, idx, inv, pairs.size)
        for t, (a, b) in enumerate(zip(uniq_a.tolist(), uniq_b.tolist(), strict=True)):
            pa, pb = _place(q, geom, a, b)
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


def _sums(
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


def _place(
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


def relinked(
    q: Quotient, geom: Geometry, splices: Sequence[Event] | None = None
) -> Quotient:
    """The same blocks with trunks re-aggregated after links changed.

    ``splices``: the link insertions and removals that made the geometry's
    link rows from those ``q`` was made of (:attr:`Geometry.splices`); when
    given, only the trunks they touch are summed again (:func:`_respliced`).
    """
    if splices:
        out = _respliced(q, geom, splices)
        if out is not None:
            return out
    out = Quotient(rep=q.rep, blocks=q.blocks, spread=q.spread)
    _add_trunks(out, geom)
    return out


def _respliced(
    q: Quotient, geom: Geometry, splices: Sequence[Event]
) -> Quotient | None:
    """``q``'s trunks after links were inserted or removed (the same blocks):
    the rows of each trunk carried over the splices, the new links put in the
    trunks of their ends, and the trunks that gained or lost links summed
    again over their links. Equal to :func:`relinked` afresh; None when a
    trunk would come or go (a new pair of ends, a trunk's last link removed)."""
    link_trunk, direct = q.link_trunk, q.direct
    touched: list[np.ndarray] = []
    for e in splices:
        pos = np.asarray(e.positions, np.int64)  # type: ignore[attr-defined]
        if isinstance(e, LinksRemoved):
            touched.append(link_trunk[pos])
            link_trunk = without_rows(link_trunk, pos)
            direct = without_rows(direct, pos)
        elif isinstance(e, LinksAdded):  # positions after the insertion, ascending
            at = pos - np.arange(len(pos))
            link_trunk = with_rows(link_trunk, at, -2)
            direct = with_rows(direct, at, False)
        else:
            return None
    if len(link_trunk) != geom.la.size:
        return None
    new = np.flatnonzero(link_trunk == -2)
    if len(new):
        nb = len(q.blocks)
        la, lb = geom.la[new], geom.lb[new]
        ra, rb = q.rep[la], q.rep[lb]
        direct[new] = (ra < 0) & (rb < 0)
        ka = np.where(ra >= 0, ra, nb + la)
        kb = np.where(rb >= 0, rb, nb + lb)
        lo, hi = np.minimum(ka, kb), np.maximum(ka, kb)
        trunk_of = {t.ends: k for k, t in enumerate(q.trunks)}
        codes = []
        ends = zip(lo.tolist(), hi.tolist(), direct[new].tolist(), strict=True)
        for a, b, alone in ends:
            k = -1 if alone or a == b else trunk_of.get((a, b))
            if k is None:
                return None  # a trunk of ends no trunk had
            codes.append(k)
        link_trunk[new] = codes
        touched.append(link_trunk[new])
    trunks = np.unique(np.concatenate([np.zeros(0, np.int64), *touched]))
    trunks = trunks[trunks >= 0]
    idx = np.flatnonzero(np.isin(link_trunk, trunks))
    inv = np.searchsorted(trunks, link_trunk[idx])
    count, cables, cap, speed = _sums(geom, idx, inv, len(trunks))
    if len(trunks) and not count.all():
        return None  # a trunk lost its last link
    out = Quotient(
        rep=q.rep,
        blocks=q.blocks,
        trunks=list(q.trunks),
        link_trunk=link_trunk,
        direct=direct,
        spread=q.spread,
    )
    for k, n, c, g, v in zip(
        trunks.tolist(),
        count.tolist(),
        cables.tolist(),
        cap.tolist(),
        speed.tolist(),
        strict=True,
    ):
        t = q.trunks[k]
        out.trunks[k] = replace(
            t, links=n, cables=c, capacity_gbps=g, speed_gbps=v if v >= 0 else None
        )
    return out


def recounted(q: Quotient, geom: Geometry, rows: np.ndarray | None = None) -> Quotient:
    """The same blocks and trunks with their cables, capacity and speed summed
    again, after links changed in fields other than their ends (a trunk's
    line and its links stay where they were).

    ``rows``: the links that changed (None: any may have); only the trunks
    they belong to are summed again, over their own links.
    """
    out = Quotient(
        rep=q.rep,
        blocks=q.blocks,
        link_trunk=q.link_trunk,
        direct=q.direct,
        spread=q.spread,
    )
    if rows is None:
        idx = np.nonzero(q.link_trunk >= 0)[0]
        trunks = np.arange(len(q.trunks))
        inv = q.link_trunk[idx]
    else:
        trunks = np.unique(q.link_trunk[rows])
        trunks = trunks[trunks >= 0]
        idx = np.nonzero(np.isin(q.link_trunk, trunks))[0]
        inv = np.searchsorted(trunks, q.link_trunk[idx])
    count, cables, cap, speed = _sums(geom, idx, inv, len(trunks))
    out.trunks = list(q.trunks)
    for k, n, c, g, v in zip(
        trunks.tolist(),
        count.tolist(),
        cables.tolist(),
        cap.tolist(),
        speed.tolist(),
        strict=True,
    ):
        t = q.trunks[k]
        if t.cables != c or t.capacity_gbps != g or (t.speed_gbps or -1) != v:
            out.trunks[k] = replace(
                t, links=n, cables=c, capacity_gbps=g, speed_gbps=v if v >= 0 else None
            )
    return out


def moved(q: Quotient, geom: Geometry) -> Quotient:
    """The same blocks and trunks re-placed after devices moved."""
    blocks = []
    for b in q.blocks:
        x0, y0, x1, y1 = geom.bounds(b.rows)
        rect = (x0 - BLOCK_PAD, y0 - BLOCK_PAD, x1 + BLOCK_PAD, y1 + BLOCK_PAD)
        blocks.append(Block(b.key, b.group_id, b.title, b.summary, b.rows, rect))
    if q.spread:
        blocks = spread(blocks)
    out = Quotient(
        rep=q.rep,
        blocks=blocks,
        link_trunk=q.link_trunk,
        direct=q.direct,
        spread=q.spread,
    )
    for t in q.trunks:
        p0, p1 = _place(out, geom, *t.ends)
        out.trunks.append(
            Trunk(t.ends, p0, p1, t.links, t.cables, t.capacity_gbps, t.speed_gbps)
        )
    return out


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
