"""Positions and link endpoints of a design for the canvas, as numpy arrays.

The canvas never asks Qt to hit-test or cull hundreds of thousands of links: it
answers "what is under the mouse", "what is in this rectangle" and "which links
cross the view" with vectorised queries here.

Only the device rows are kept here (ids, positions, groups), and they follow the
document's events through :func:`designer.core.events.splice`. Links are not
copied: their fabric, cables and speed are the design's own column store
(:class:`~designer.core.link_arrays.LinkArrays`), and their endpoint rows are derived
from it (two array gathers) whenever links or device rows change.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from operator import attrgetter

import numpy as np
import numpy.typing as npt

from designer.core.events import (
    DesignReplaced,
    DevicesAdded,
    DevicesChanged,
    DevicesRemoved,
    Event,
    GroupsChanged,
    LinksAdded,
    LinksChanged,
    LinksRemoved,
    PhysicalChanged,
    Reads,
    SettingsChanged,
    WorkloadChanged,
    ignore,
    splice,
)
from designer.core.model import Design, Device, LinkArrays
from designer.core.rows import with_rows, without_rows
from designer.view.canvas.sizes import DEVICE_H, DEVICE_W

LINK_ENDS = frozenset({"a", "b"})
"""Link fields that name the devices a link joins (a change moves its line)."""
LINE_LOOK = frozenset({"a", "b", "fabric"})
"""Link fields a line is drawn by (its ends, and its pen by the fabric); the
others (cables, speed, rail, ports) only change what its badge says."""


def keeps_ends(event: Event) -> bool:
    """Whether ``event`` changes links in place without touching their ends."""
    return (
        isinstance(event, LinksChanged)
        and bool(event.fields)
        and not event.fields & LINK_ENDS
    )


def same_ends(events: Sequence[Event]) -> bool:
    """Whether every link change in ``events`` leaves the links' ends alone
    (no link added or removed, none re-ended)."""
    return all(
        keeps_ends(e)
        for e in events
        if isinstance(e, LinksAdded | LinksRemoved | LinksChanged)
    )


_EMPTY = np.zeros(0, np.int64)


class Geometry:
    """Device rows and positions of a design, and its links' endpoint rows."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.row_of: dict[str, int] = {}
        self.xy = np.zeros((0, 2))
        self.groups: list[str | None] = []
        self.links = LinkArrays.empty()
        self.la = _EMPTY
        self.lb = _EMPTY
        self.version = 0
        self._design: Design | None = None
        self._code_rows = _EMPTY
        self.reads = Reads(
            "Geometry",
            {
                DevicesAdded: self._on_devices_added,
                DevicesRemoved: self._on_devices_removed,
                DevicesChanged: self._on_devices_changed,
                LinksAdded: self._on_links,
                LinksRemoved: self._on_links,
                LinksChanged: self._on_links,
                # nothing the geometry holds
                GroupsChanged: ignore,
                SettingsChanged: ignore,
                WorkloadChanged: ignore,
                PhysicalChanged: ignore,
                DesignReplaced: self._on_replaced,
            },
        )
        self._remap: np.ndarray | None = None
        self._boxes: np.ndarray | None = None  # per link: x0, x1, y0, y1
        self._links_dirty = False
        self._links_refresh = False
        self._box_splices: list[Event] | None = []
        self._rows_renumbered = False
        self._moved: list[int] = []
        self._kept_rows: list[int] = []
        self._dirty: list[np.ndarray] | None = None
        self.dirty: np.ndarray | None = None
        """Boxes (x0, x1, y0, y1 per row) of the link lines the last
        :meth:`apply` took away or drew: the removed links' old lines, the new
        and re-styled links' lines, the moved devices' links before and after.
        None: not known (the boxes were not kept, or the links were re-read),
        so any line may have changed."""
        self.restyled: np.ndarray | None = None
        """Rows (ascending) of the links the last :meth:`apply` changed in
        place without moving their ends (a cable count, a speed, a fabric);
        None when links were also added, removed or re-ended."""
        self.splices: list[Event] | None = []
        """The link insertions and removals of the last :meth:`apply`, in
        order (their positions take the link rows before it to those after);
        None when links were also re-ended or re-read."""
        self.lines_kept = False
        """Whether the last :meth:`apply` left every line as it was drawn
        (its ends where they were, its fabric): a cable count or a speed, say,
        changes a badge at most (see :data:`LINE_LOOK`)."""

    # --- the link columns, read from the design's column store ------------------

    @property
    def link_ids(self) -> npt.NDArray[np.object_]:
        """Link id per link row."""
        return self.links.ids

    @property
    def fabric(self) -> npt.NDArray[np.int8]:
        """Fabric code per link row (:data:`designer.core.model.FABRICS` order)."""
        return self.links.fabric

    @property
    def cables(self) -> npt.NDArray[np.int32]:
        """Cables per link row."""
        return self.links.cables

    @property
    def speed(self) -> npt.NDArray[np.int32]:
        """Speed per link row, Gb/s."""
        return self.links.speed

    # --- building and following edits -------------------------------------------

    def _on_replaced(self, _event: Event) -> None:
        assert self._design is not None
        self.rebuild(self._design)

    def rebuild(self, design: Design) -> None:
        """Re-read devices and links."""
        self._design = design
        devs = design.devices
        n = len(devs)
        self.ids = list(map(attrgetter("id"), devs))
        self.row_of = dict(zip(self.ids, range(n), strict=True))
        self.groups = list(map(attrgetter("group"), devs))
        self.xy = _positions(devs)
        self._remap = None
        self._code_rows = _EMPTY
        self._rows_renumbered = False
        self._boxes = None
        self._box_splices = self.splices = None  # (every link re-read)
        self._relink(design)
        self.dirty = None
        self.lines_kept = False

    def apply(self, design: Design, events: Sequence[Event]) -> None:
        """Follow one step's events (or several steps' in order)."""
        self._design = design
        self._remap = np.arange(len(self.ids), dtype=np.int64)
        self._links_dirty = False
        self._links_refresh = False
        self._box_splices = []
        self._rows_renumbered = False
        self._moved = []
        self._kept_rows = []
        self._dirty = [] if self._boxes is not None else None
        self.lines_kept = True
        self.reads(events)
        self.splices = self._box_splices
        self.restyled = (
            np.unique(np.asarray(self._kept_rows, np.int64))
            if not self._links_dirty
            else None
        )
        self._follow_links(design)
        dirty, self._dirty = self._dirty, None
        self.dirty = (
            np.concatenate([np.zeros((0, 4)), *dirty])
            if dirty is not None and self._boxes is not None
            else None
        )

    def _follow_links(self, design: Design) -> None:
        if self._links_dirty:
            renumbered = self._rows_renumbered
            self._relink(design)
            if self._kept_rows:  # rows named before the splices
                self._dirty = None
            if not self._moved:
                return
            if renumbered:  # moved rows named before the renumbering
                self._boxes = None
                return
        elif self._links_refresh:
            self.links = design.links.arrays
            self.version += 1
        if self._kept_rows and self._dirty is not None and self._boxes is not None:
            rows = np.asarray(self._kept_rows, np.int64)
            self._dirty.append(self._boxes[rows])  # re-styled lines (fabric, count)
        if self._moved:
            self.version += 1
            self.rows_moved(np.unique(np.asarray(self._moved, np.int64)))

    def _on_devices_added(self, event: Event) -> None:
        assert isinstance(event, DevicesAdded)
        new = event.devices
        self.ids = splice(self.ids, added=event.positions, values=[d.id for d in new])
        self.groups = splice(
            self.groups, added=event.positions, values=[d.group for d in new]
        )
        self.xy = splice(self.xy, added=event.positions, values=_positions(new))
        self._after_rows_moved(added=event.positions)

    def _on_devices_removed(self, event: Event) -> None:
        assert isinstance(event, DevicesRemoved)
        self.ids = splice(self.ids, removed=event.positions)
        self.groups = splice(self.groups, removed=event.positions)
        self.xy = splice(self.xy, removed=event.positions)
        self._after_rows_moved(removed=event.positions)

    def _after_rows_moved(
        self, *, added: Sequence[int] = (), removed: Sequence[int] = ()
    ) -> None:
        """Device rows were inserted or deleted: renumber, note the remap, relink.

        ``_remap`` maps each row before :meth:`apply` to its row now (-1: gone).
        """
        self.row_of = dict(zip(self.ids, range(len(self.ids)), strict=True))
        remap = self._remap if self._remap is not None else _EMPTY
        alive = remap >= 0
        if removed:
            pos = np.asarray(removed, np.int64)
            alive &= ~np.isin(remap, pos)
            # a surviving row moves down by the rows removed before it
            remap = np.where(alive, remap - np.searchsorted(pos, remap), -1)
        if added:
            at = np.asarray(added, np.int64) - np.arange(len(added))
            # ... and up by the rows inserted at or before it
            remap = np.where(alive, remap + np.searchsorted(at, remap, "right"), -1)
        self._remap = remap
        self._rows_renumbered = True
        self._links_dirty = True
        self.lines_kept = False

    def _on_devices_changed(self, event: Event) -> None:
        assert isinstance(event, DevicesChanged)
        for p, d in zip(event.positions, event.devices, strict=True):
            self.xy[p] = (d.x, d.y)
            self.groups[p] = d.group
        self._moved.extend(event.positions)

    def _on_links(self, event: Event) -> None:
        if keeps_ends(event):
            self._links_refresh = True  # same ends: rows and boxes stay
            assert isinstance(event, LinksChanged)
            self._kept_rows.extend(event.positions)
            if event.fields & LINE_LOOK:
                self.lines_kept = False
            return
        self.lines_kept = False
        if self._box_splices is not None:
            if isinstance(event, LinksAdded | LinksRemoved):
                self._box_splices.append(event)
            else:
                self._box_splices = None  # re-ended links: boxes made afresh
        self._links_dirty = True

    def _relink(self, design: Design) -> None:
        """Endpoint rows of every link, from the column store's device codes."""
        table = design.links
        self.links = links = table.arrays
        if (
            self._rows_renumbered
            and self._remap is not None
            and 0 < len(self._code_rows) <= len(links.names)
        ):
            self._code_rows = self._renumbered_code_rows(table.device_code, links)
        elif len(self._code_rows) != len(links.names):
            rows = np.full(len(links.names) + 1, -1, np.int64)
            codes = np.fromiter(
                (
                    c if (c := table.device_code(i)) is not None else len(links.names)
                    for i in self.ids
                ),
                np.int64,
                len(self.ids),
            )
            rows[codes] = np.arange(len(self.ids))
            self._code_rows = rows[:-1]
        self.la = self._code_rows[links.a].astype(np.int64, copy=False)
        self.lb = self._code_rows[links.b].astype(np.int64, copy=False)
        self.version += 1
        self._rows_renumbered = False
        self._boxes = self._spliced_boxes(len(links.ids))

    def _spliced_boxes(self, n_links: int) -> np.ndarray | None:
        """The link boxes carried over the step's link insertions and removals
        (device rows renumbered move no line), the new links' boxes computed;
        None (made afresh on the next query) when that cannot be done."""
        boxes, splices = self._boxes, self._box_splices
        if boxes is None or splices is None:
            return None
        dirty = self._dirty
        for e in splices:
            pos = np.asarray(e.positions, np.int64)  # type: ignore[attr-defined]
            if isinstance(e, LinksRemoved):
                if dirty is not None:  # the lines taken away (NaN: added, gone)
                    gone = boxes[pos]
                    dirty.append(gone[~np.isnan(gone[:, 0])])
                boxes = without_rows(boxes, pos)
            else:  # positions in the table after the insertion, ascending
                boxes = with_rows(boxes, pos - np.arange(len(pos)), np.nan)
        if len(boxes) != n_links:
            return None
        new = np.flatnonzero(np.isnan(boxes[:, 0]))
        if len(new):
            boxes[new] = self._boxes_of(new)
            if dirty is not None:
                dirty.append(boxes[new])
        return boxes

    def _renumbered_code_rows(
        self, device_code: Callable[[str], int | None], links: LinkArrays
    ) -> np.ndarray:
        """The code -> row map after devices were added or removed: the old rows
        moved by ``_remap``, the new devices' codes, and names coded since."""
        old, remap = self._code_rows, self._remap
        assert remap is not None
        rows = np.full(len(links.names), -1, np.int64)
        kept = old >= 0
        rows[: len(old)] = np.where(kept, remap[np.where(kept, old, 0)], -1)
        fresh = np.ones(len(self.ids), bool)
        fresh[remap[remap >= 0]] = False
        for r in np.flatnonzero(fresh).tolist():
            code = device_code(self.ids[r])
            if code is not None and code < len(rows):
                rows[code] = r
        for code in range(len(old), len(rows)):
            row = self.row_of.get(links.names[code])
            if row is not None:
                rows[code] = row
        return rows

    def dirty_bounds(self) -> tuple[float, float, float, float] | None:
        """Bounding box (x0, y0, x1, y1) of :attr:`dirty`, or None when no line
        changed or which did is not known (see :attr:`dirty` for which)."""
        d = self.dirty
        if d is None or d.size == 0:
            return None
        return (
            float(d[:, 0].min()),
            float(d[:, 2].min()),
            float(d[:, 1].max()),
            float(d[:, 3].max()),
        )

    def last_remap(self) -> np.ndarray | None:
        """Old row -> new row (-1: removed) over the last :meth:`apply`, when it
        added or removed devices (None otherwise)."""
        remap = self._remap
        if remap is None or (
            len(remap) == len(self.ids) and bool((remap == np.arange(len(remap))).all())
        ):
            return None
        return remap

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

    def rows_moved(self, rows: np.ndarray) -> None:
        """Devices at ``rows`` changed position in ``xy``: refresh their links."""
        if rows.size == 0:
            return
        if self._boxes is None or rows.size > 256:
            self._boxes = None
            self.lines_kept = False
            return
        touching = np.nonzero(np.isin(self.la, rows) | np.isin(self.lb, rows))[0]
        before = self._boxes[touching]
        after = self._boxes_of(touching)
        self._boxes[touching] = after
        if not np.array_equal(before, after):
            self.lines_kept = False
        if self._dirty is not None:  # the lines before and after the move
            self._dirty.extend((before, after))

    def _boxes_of(self, links: np.ndarray | slice) -> np.ndarray:
        pa = self.xy[self.la[links]]
        pb = self.xy[self.lb[links]]
        out = np.empty((pa.shape[0], 4))
        np.minimum(pa[:, 0], pb[:, 0], out=out[:, 0])
        np.maximum(pa[:, 0], pb[:, 0], out=out[:, 1])
        np.minimum(pa[:, 1], pb[:, 1], out=out[:, 2])
        np.maximum(pa[:, 1], pb[:, 1], out=out[:, 3])
        return out

    # --- queries ----------------------------------------------------------------

    def link_id_set(self) -> Container[str]:
        """The design's link ids, for membership tests."""
        assert self._design is not None
        return self._design.links.id_set()

    def link_rows(self, link_ids: Sequence[str]) -> np.ndarray:
        """Rows of these links (unknown ids left out), ascending."""
        assert self._design is not None
        table = self._design.links
        found = table.positions(link_ids)
        return np.asarray(sorted(found.values()), np.int64)

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


def _positions(devices: Sequence[Device]) -> np.ndarray:
    n = len(devices)
    xy = np.empty((n, 2))
    xy[:, 0] = np.fromiter(map(attrgetter("x"), devices), float, n)
    xy[:, 1] = np.fromiter(map(attrgetter("y"), devices), float, n)
    return xy
