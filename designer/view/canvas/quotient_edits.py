"""The quotient carried over an edit, instead of made afresh.

Each function takes the quotient before a step and the geometry after it, and
gives what :func:`~designer.view.canvas.quotient.quotient` would make of the
edited design, or None where it cannot tell (the caller makes it afresh):
``tests/view/canvas/test_quotient_patch.py`` checks each against the quotient
made afresh over random edits, ``tests/qt/canvas/test_scene_equivalence.py``
the scene they draw.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from designer.catalog.schema import CatalogEntry
from designer.core.events import Event, LinksAdded, LinksRemoved
from designer.core.model import Design
from designer.core.rows import with_rows, without_rows
from designer.view.canvas.geometry import Geometry
from designer.view.canvas.quotient import (
    Block,
    Quotient,
    Trunk,
    add_trunks,
    block_key,
    block_rect,
    block_summary,
    group_chains,
    make_block,
    place_trunk,
    spread,
    trunk_sums,
)

__all__ = ["moved", "recounted", "rekinded", "relinked", "with_devices"]


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
        chains = group_chains(design)
        collapsed = {g.id for g in design.groups if g.collapsed}
        for r in new_rows:
            key = block_key(design.devices[r], chains, collapsed, catalog, q.spread)
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
            blocks.append(make_block(key, groups, rows, cat_ids, catalog, geom))
            continue
        b = old[key]
        rows = remap[b.rows]
        rect = block_rect(geom, rows)
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
                for ends in (place_trunk(carried, geom, *t.ends),)
            ]
            return carried
    add_trunks(out, geom)
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
    chains = group_chains(design)
    collapsed = {g.id for g in design.groups if g.collapsed}
    code = {b.key: i for i, b in enumerate(q.blocks)}
    touched: set[int] = set()
    for r in rows:
        key = block_key(design.devices[r], chains, collapsed, catalog, q.spread)
        now = -1 if key is None else code.get(key)
        if now is None or now != int(q.rep[r]):
            return None
        if now >= 0:
            touched.add(now)
    blocks = list(q.blocks)
    for i in touched:
        b = blocks[i]
        rect = block_rect(geom, b.rows)
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
    add_trunks(out, geom)
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
    sums = trunk_sums(geom, idx, inv, len(trunks))
    if len(trunks) and not sums[0].all():
        return None  # a trunk lost its last link
    return Quotient(
        rep=q.rep,
        blocks=q.blocks,
        trunks=_summed(q.trunks, trunks, sums),
        link_trunk=link_trunk,
        direct=direct,
        spread=q.spread,
    )


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
    out.trunks = _summed(q.trunks, trunks, trunk_sums(geom, idx, inv, len(trunks)))
    return out


def moved(q: Quotient, geom: Geometry) -> Quotient:
    """The same blocks and trunks re-placed after devices moved."""
    blocks = []
    for b in q.blocks:
        rect = block_rect(geom, b.rows)
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
        p0, p1 = place_trunk(out, geom, *t.ends)
        out.trunks.append(
            Trunk(t.ends, p0, p1, t.links, t.cables, t.capacity_gbps, t.speed_gbps)
        )
    return out


def _summed(
    trunks: list[Trunk],
    which: np.ndarray,
    sums: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
) -> list[Trunk]:
    """``trunks`` with those of ``which`` given their links, cables, capacity
    and speed (:func:`trunk_sums`); a trunk whose figures are the same stays
    the very same object (its item is left as it is)."""
    out = list(trunks)
    count, cables, cap, speed = (x.tolist() for x in sums)
    for k, n, c, g, v in zip(which.tolist(), count, cables, cap, speed, strict=True):
        t, one = trunks[k], v if v >= 0 else None
        if (t.links, t.cables, t.capacity_gbps, t.speed_gbps) != (n, c, g, one):
            out[k] = replace(t, links=n, cables=c, capacity_gbps=g, speed_gbps=one)
    return out
