"""Numpy mirror of a design for the canvas: positions and link endpoints.

The canvas never asks Qt to hit-test or cull hundreds of thousands of links: it
keeps device positions and link endpoint rows in arrays and answers "what is
under the mouse", "what is in this rectangle" and "which links cross the view"
with vectorised queries, and follows edits by splicing the arrays. The quotient
(group blocks and trunks) lives in :mod:`designer.qt.canvas.quotient`.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat
from operator import attrgetter

import numpy as np

from designer.analysis.rows import SPLICE_ROWS, cut_rows, put_rows
from designer.core.model import Design
from designer.core.specs import rows_touching
from designer.qt.canvas.style import DEVICE_H, DEVICE_W, FABRICS

FABRIC_CODE = {name: i for i, name in enumerate(FABRICS)}


class Geometry:
    """Arrays of a design: device rows and positions, link endpoint rows."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.row_of: dict[str, int] = {}
        self.xy = np.zeros((0, 2))
        self.la = np.zeros(0, np.int64)
        self.lb = np.zeros(0, np.int64)
        self.fabric = np.zeros(0, np.int8)
        self.cables = np.zeros(0, np.int64)
        self.speed = np.zeros(0, np.int64)
        self.link_ids: list[str] = []
        self.groups: list[str | None] = []
        self.version = 0
        self._remap: np.ndarray | None = None
        self._boxes: np.ndarray | None = None  # per link: x0, x1, y0, y1

    # --- building -----------------------------------------------------------

    def rebuild(self, design: Design) -> None:
        """Re-read devices and links."""
        self.rebuild_devices(design)
        self.rebuild_links(design)

    def rebuild_devices(self, design: Design) -> None:
        """Re-read device ids and positions."""
        devs = design.devices
        n = len(devs)
        self.ids = list(map(attrgetter("id"), devs))
        self.row_of = dict(zip(self.ids, range(n), strict=True))
        self.groups = list(map(attrgetter("group"), devs))
        xy = np.empty((n, 2))
        xy[:, 0] = np.fromiter(map(attrgetter("x"), devs), float, n)
        xy[:, 1] = np.fromiter(map(attrgetter("y"), devs), float, n)
        self.xy = xy
        self._remap = None
        self.version += 1
        self._boxes = None

    def rebuild_links(self, design: Design) -> None:
        """Re-read link endpoints, fabrics and capacities."""
        t = design.links
        row = self.row_of
        n = len(t)
        self.la = np.fromiter((row[a] for a in t.a), np.int64, n)
        self.lb = np.fromiter((row[b] for b in t.b), np.int64, n)
        self.fabric = np.fromiter((FABRIC_CODE[str(f)] for f in t.fabric), np.int8, n)
        self.cables = np.asarray(t.cables, np.int64)
        self.speed = np.asarray(t.speed_gbps, np.int64)
        self.link_ids = list(t.id)
        self.version += 1
        self._boxes = None

    def _link_rows(
        self, design: Design, positions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Endpoint rows, fabric, cables and speed of the links at ``positions``."""
        t = design.links
        row = self.row_of
        pos = positions.tolist()
        k = len(pos)
        return (
            np.fromiter((row[t.a[i]] for i in pos), np.int64, k),
            np.fromiter((row[t.b[i]] for i in pos), np.int64, k),
            np.fromiter((FABRIC_CODE[str(t.fabric[i])] for i in pos), np.int8, k),
            np.fromiter((t.cables[i] for i in pos), np.int64, k),
            np.fromiter((t.speed_gbps[i] for i in pos), np.int64, k),
        )

    def sync(
        self,
        design: Design,
        *,
        devices_added: set[str] | frozenset[str] = frozenset(),
        devices_removed: set[str] | frozenset[str] = frozenset(),
        links_removed: set[str] | frozenset[str] = frozenset(),
        links_added: set[str] | frozenset[str] = frozenset(),
        links_changed: set[str] | frozenset[str] = frozenset(),
        moved: set[str] | frozenset[str] = frozenset(),
        removed_at: Sequence[int] | None = None,
        added_at: Sequence[int] | None = None,
    ) -> None:
        """Catch up with a design after edits, touching only what they name.

        ``removed_at`` / ``added_at`` are where the removed links were (old
        order) / the added ones are (new order), as the edit reported them: a
        hint, checked before use.

        When devices were added or removed their rows are re-read (cheap);
        links are spliced: removed ids are found in the old order, added ids in
        the new one (through their devices' rows when a device edit brought
        them), everything else keeps its arrays. A batch that does not add up
        (ids unknown, counts off) falls back to a full re-read.
        """
        devices = bool(devices_added or devices_removed)
        if not (links_removed or links_added or links_changed):
            if devices:
                self._resync_devices(design)
                if moved:  # after the rows are renumbered
                    self.update_positions(design, tuple(moved))
            elif moved:
                self.update_positions(design, tuple(moved))
            return
        old_ids = self.link_ids
        new_ids = design.links.id
        old_boxes = self._boxes
        gone = _EMPTY
        if links_removed:
            found = _hinted(old_ids, removed_at, links_removed)
            if found is None and devices_removed and len(devices_removed) <= 64:
                rows = [self.row_of[d] for d in devices_removed if d in self.row_of]
                touching = np.isin(self.la, rows) | np.isin(self.lb, rows)
                found = _checked(old_ids, np.nonzero(touching)[0], links_removed)
            gone = found if found is not None else _positions_of(old_ids, links_removed)
        la, lb, fabric, cables, speed = (
            cut_rows(a, gone.tolist())
            for a in (self.la, self.lb, self.fabric, self.cables, self.speed)
        )
        spliced_ids = gone.size > 0
        if devices:
            remap = self._remap_devices(design)
            la, lb = remap[la], remap[lb]
            if la.size and (la.min() < 0 or lb.min() < 0):
                self.rebuild(design)
                return
            if moved:  # link boxes follow once the link arrays are spliced
                self.update_positions(design, tuple(moved), boxes=False)
        elif moved:
            self.update_positions(design, tuple(moved))
            old_boxes = self._boxes
        boxes = (
            cut_rows(old_boxes, gone.tolist())
            if old_boxes is not None and old_boxes.shape[0] == len(old_ids)
            else None
        )
        added = _EMPTY
        if links_added:
            found = _hinted(new_ids, added_at, links_added)
            if found is None and devices_added and len(devices_added) <= 4:
                at = np.asarray(rows_touching(design, devices_added), np.int64)
                found = _checked(new_ids, at, links_added)
            added = found if found is not None else _positions_of(new_ids, links_added)
        n = len(new_ids)
        if la.size + added.size != n:
            self.rebuild(design)
            return
        if added.size:
            cols = self._link_rows(design, added)
            la, lb, fabric, cables, speed = (
                put_rows(old, added.tolist(), new)
                for old, new in zip((la, lb, fabric, cables, speed), cols, strict=True)
            )
            if boxes is not None:
                boxes = put_rows(boxes, added.tolist(), np.zeros((added.size, 4)))
        at_changed = _EMPTY
        if links_changed:
            # the table's id index finds them without a scan of every id
            where = design.links.positions(links_changed)
            at_changed = np.asarray(sorted(where.values()), np.int64)
            at = at_changed
            la[at], lb[at], fabric[at], cables[at], speed[at] = self._link_rows(
                design, at
            )
        self.la, self.lb, self.fabric, self.cables, self.speed = (
            la,
            lb,
            fabric,
            cables,
            speed,
        )
        if spliced_ids or added.size:
            self.link_ids = _spliced(self.link_ids, gone, added, new_ids)
            if not _agrees(self.link_ids, new_ids, gone, added):
                self.rebuild_links(design)  # an edit nobody reported
                return
        for p in at_changed.tolist():
            if self.link_ids[p] != new_ids[p]:
                self.link_ids[p] = new_ids[p]
        self.version += 1
        self._boxes = boxes
        if boxes is not None:
            for at in (added, at_changed):
                if at.size:
                    boxes[at] = self._boxes_of(at)
            if devices and moved:
                self.rows_moved(
                    np.asarray([self.row_of[i] for i in moved if i in self.row_of])
                )

    def _remap_devices(self, design: Design) -> np.ndarray:
        """Re-read devices; return old row -> new row (-1 for removed devices)."""
        old_ids, old_xy, old_groups = self.ids, self.xy, self.groups
        devs = design.devices
        n, m = len(devs), len(old_ids)
        self.ids = list(map(attrgetter("id"), devs))
        self.row_of = dict(zip(self.ids, range(n), strict=True))
        remap = np.fromiter(map(self.row_of.get, old_ids, repeat(-1, m)), np.int64, m)
        # survivors keep their positions and groups; only new rows are read
        ok = remap >= 0
        to = remap[ok]
        xy = np.empty((n, 2))
        xy[to] = old_xy[ok]
        groups = np.empty(n, object)
        groups[to] = np.fromiter(old_groups, object, m)[ok]
        fresh = np.ones(n, bool)
        fresh[to] = False
        for r in np.nonzero(fresh)[0].tolist():
            d = devs[r]
            xy[r] = (d.x, d.y)
            groups[r] = d.group
        self.xy = xy
        self.groups = groups.tolist()
        self.version += 1
        self._remap = remap
        return np.append(remap, -1)  # so an empty link list indexes safely

    def last_remap(self) -> np.ndarray | None:
        """Old row -> new row (-1: removed) of the last device add/remove."""
        return self._remap

    def carry_over(self, old: np.ndarray, fallback: np.ndarray) -> np.ndarray:
        """A per-device flag array of the rows before the last device change, moved
        to the current rows (False for new devices); ``fallback`` when unknown."""
        remap = self._remap
        if remap is None or remap.size != old.size:
            return fallback
        out = np.zeros(len(self.ids), bool)
        ok = remap >= 0
        out[remap[ok]] = old[ok]
        return out

    def _resync_devices(self, design: Design) -> None:
        """Devices added or removed without any link change."""
        remap = self._remap_devices(design)
        la, lb = remap[self.la], remap[self.lb]
        if la.size and (la.min() < 0 or lb.min() < 0):
            self.rebuild_links(design)
            return
        self.la, self.lb = la, lb  # positions unchanged: link boxes stay valid
        self.version += 1

    def update_positions(
        self, design: Design, ids: tuple[str, ...], boxes: bool = True
    ) -> None:
        """Refresh the positions (and groups) of some devices."""
        devs = design.device_map() if len(ids) > 64 else None
        for did in ids:
            r = self.row_of.get(did)
            if r is None:
                continue
            d = devs[did] if devs is not None else design.devices[r]
            self.xy[r] = (d.x, d.y)
            self.groups[r] = d.group
        self.version += 1
        if boxes:
            self.rows_moved(
                np.asarray([self.row_of[i] for i in ids if i in self.row_of])
            )

    def rows_moved(self, rows: np.ndarray) -> None:
        """Devices at ``rows`` changed position in ``xy``: refresh their links."""
        if self._boxes is None or rows.size == 0:
            return
        if rows.size > 256:
            self._boxes = None
            return
        touching = np.nonzero(np.isin(self.la, rows) | np.isin(self.lb, rows))[0]
        self._boxes[touching] = self._boxes_of(touching)

    def _boxes_of(self, links: np.ndarray | slice) -> np.ndarray:
        pa = self.xy[self.la[links]]
        pb = self.xy[self.lb[links]]
        out = np.empty((pa.shape[0], 4))
        np.minimum(pa[:, 0], pb[:, 0], out=out[:, 0])
        np.maximum(pa[:, 0], pb[:, 0], out=out[:, 1])
        np.minimum(pa[:, 1], pb[:, 1], out=out[:, 2])
        np.maximum(pa[:, 1], pb[:, 1], out=out[:, 3])
        return out

    # --- queries ------------------------------------------------------------

    def rows_in_rect(self, x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
        """Rows of devices whose centre lies in the rectangle."""
        x, y = self.xy[:, 0], self.xy[:, 1]
        return np.nonzero((x >= x0) & (x <= x1) & (y >= y0) & (y <= y1))[0]

    def count_in_rect(self, x0: float, y0: float, x1: float, y1: float) -> int:
        """How many device centres lie in the rectangle."""
        return int(self.rows_in_rect(x0, y0, x1, y1).size)

    def device_at(
        self, x: float, y: float, tol: float, hidden: np.ndarray | None = None
    ) -> int:
        """Row of the topmost shown device under (x, y), or -1."""
        if not self.ids:
            return -1
        dx = np.abs(self.xy[:, 0] - x)
        dy = np.abs(self.xy[:, 1] - y)
        hit = (dx <= DEVICE_W / 2 + tol) & (dy <= DEVICE_H / 2 + tol)
        if hidden is not None and hidden.size:
            hit &= ~hidden
        rows = np.nonzero(hit)[0]
        return int(rows[-1]) if rows.size else -1

    def link_at(self, x: float, y: float, tol: float, mask: np.ndarray) -> int:
        """Index of the nearest drawn link within ``tol`` of (x, y), or -1."""
        idx = np.nonzero(mask)[0]
        if idx.size == 0:
            return -1
        p = self.xy[self.la[idx]]
        q = self.xy[self.lb[idx]]
        d = q - p
        length2 = np.einsum("ij,ij->i", d, d)
        length2[length2 == 0] = 1.0
        t = np.clip(((x - p[:, 0]) * d[:, 0] + (y - p[:, 1]) * d[:, 1]) / length2, 0, 1)
        cx = p[:, 0] + t * d[:, 0] - x
        cy = p[:, 1] + t * d[:, 1] - y
        dist2 = cx * cx + cy * cy
        best = int(np.argmin(dist2))
        return int(idx[best]) if dist2[best] <= tol * tol else -1

    def segments_in_rect(
        self, mask: np.ndarray, rect: tuple[float, float, float, float]
    ) -> np.ndarray:
        """Indices of masked links whose bounding box meets the rectangle."""
        x0, y0, x1, y1 = rect
        if self._boxes is None or self._boxes.shape[0] != self.la.size:
            # cached between paints; a move refreshes only its devices' links
            self._boxes = self._boxes_of(slice(None))
        b = self._boxes
        hit = (
            mask & (b[:, 0] <= x1) & (b[:, 1] >= x0) & (b[:, 2] <= y1) & (b[:, 3] >= y0)
        )
        return np.nonzero(hit)[0]

    def bounds(
        self, rows: np.ndarray | None = None
    ) -> tuple[float, float, float, float]:
        """Bounding box of device glyphs (all, or some rows)."""
        xy = self.xy if rows is None else self.xy[rows]
        if xy.size == 0:
            return (-DEVICE_W, -DEVICE_H, DEVICE_W, DEVICE_H)
        return (
            float(xy[:, 0].min()) - DEVICE_W / 2,
            float(xy[:, 1].min()) - DEVICE_H / 2,
            float(xy[:, 0].max()) + DEVICE_W / 2,
            float(xy[:, 1].max()) + DEVICE_H / 2,
        )


_EMPTY = np.zeros(0, np.int64)


def _hinted(
    ids: list[str], at: Sequence[int] | None, wanted: set[str] | frozenset[str]
) -> np.ndarray | None:
    """Sorted ``at`` if those positions hold exactly the ``wanted`` ids."""
    if at is None or len(at) != len(wanted):
        return None
    pos = sorted(at)
    n = len(ids)
    if any(not 0 <= p < n for p in pos) or {ids[p] for p in pos} != wanted:
        return None
    return np.asarray(pos, np.int64)


def _agrees(
    ids: list[str], new_ids: list[str], gone: np.ndarray, added: np.ndarray
) -> bool:
    """Spot check of a splice: the ids at and beside each splice point and at
    both ends are the table's (a batch that misses an edit fails it)."""
    n = len(new_ids)
    if len(ids) != n:
        return False
    spots = {0, n - 1, *added.tolist()}
    for j, p in enumerate(gone.tolist()):
        spots.update((p - j - 1, p - j))
    return all(ids[p] == new_ids[p] for p in spots if 0 <= p < n)


def _spliced(
    ids: list[str], gone: np.ndarray, added: np.ndarray, new_ids: list[str]
) -> list[str]:
    """The id list after removing ``gone`` and inserting ``added`` (new order)."""
    if gone.size + added.size > SPLICE_ROWS:
        return list(new_ids)
    out = ids  # spliced in place: a few memmoves, not a copy of 300,000 ids
    for p in reversed(gone.tolist()):
        del out[p]
    for p in added.tolist():
        out.insert(p, new_ids[p])
    return out


def _checked(
    ids: list[str], positions: np.ndarray, wanted: set[str] | frozenset[str]
) -> np.ndarray | None:
    """``positions`` if they hold exactly the ``wanted`` ids, else None."""
    if positions.size != len(wanted):
        return None
    if not all(ids[p] in wanted for p in positions.tolist()):
        return None
    return positions


def _positions_of(ids: list[str], wanted: set[str] | frozenset[str]) -> np.ndarray:
    """Sorted positions of ``wanted`` ids in ``ids`` (C-speed scans when few)."""
    k = len(wanted)
    if 0 < k <= len(ids) and wanted.issuperset(ids[len(ids) - k :]):
        # a run at the end (append / truncate) is found without scanning
        return np.arange(len(ids) - k, len(ids), dtype=np.int64)
    if k <= 4:
        out = []
        for w in wanted:
            try:
                out.append(ids.index(w))
            except ValueError:
                continue
        return np.asarray(sorted(out), np.int64)
    return np.fromiter((i for i, x in enumerate(ids) if x in wanted), np.int64)
