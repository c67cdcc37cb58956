"""Group frames: dashed outlines around expanded groups.

:class:`FrameLayout` computes the frames with numpy per group, remembers which
devices each holds, and re-fits them in place when members move.
"""

from __future__ import annotations

from itertools import repeat
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QPointF, QRectF

from designer.qt.canvas.items import FrameItem
from designer.view.canvas import sizes as sz
from designer.view.canvas.quotient import BLOCK_PAD

if TYPE_CHECKING:
    from designer.core.model import Design
    from designer.view.canvas.geometry import Geometry

_NO_MEMBERS = (np.zeros(0, np.int64),) * 3


class FrameLayout:
    """The frames of expanded groups and the member rows of each."""

    def __init__(self) -> None:
        self._frame_members: tuple[np.ndarray, np.ndarray, np.ndarray] = _NO_MEMBERS
        self._frame_of: dict[int, FrameItem] = {}

    def clear(self) -> None:
        """No frames (the overview draws none)."""
        self._frame_members, self._frame_of = _NO_MEMBERS, {}

    def build(
        self, design: Design, geom: Geometry, reuse: dict[str, FrameItem]
    ) -> list[FrameItem]:
        """Frames of expanded groups around their members (numpy bounds per group).

        Items in ``reuse`` (by group id) are updated and taken out of it.
        """
        self._geom = geom
        if not design.groups:
            self._frame_members, self._frame_of = _NO_MEMBERS, {}
            return []
        gids = [g.id for g in design.groups]
        gi: dict[str | None, int] = {g: i for i, g in enumerate(gids)}
        par = np.array(
            [gi.get(g.parent, -1) if g.parent else -1 for g in design.groups]
        )
        ng = len(gids)
        lo = np.full((ng, 2), np.inf)
        hi = np.full((ng, 2), -np.inf)
        xy = self._geom.xy
        n = len(self._geom.groups)
        cur = np.fromiter(map(gi.get, self._geom.groups, repeat(-1, n)), np.int64, n)
        level = 0
        all_rows = np.arange(n)
        pairs_g: list[np.ndarray] = []
        pairs_r: list[np.ndarray] = []
        while level < 50:
            m = cur >= 0
            if not m.any():
                break
            pairs_g.append(cur[m])
            pairs_r.append(all_rows[m])
            cur = np.where(m, par[np.maximum(cur, 0)], -1)
            level += 1
        # a group's depth above its deepest member group, for nested padding
        depth = np.zeros(ng, np.int64)
        for i in range(ng):
            p, h = par[i], 0
            while p >= 0 and h < 50:
                h += 1
                depth[p] = max(depth[p], h)
                p = par[p]
        collapsed = np.array([g.collapsed for g in design.groups])
        hidden = collapsed.copy()
        for i in range(ng):
            p, n = par[i], 0
            while p >= 0 and n < 50 and not hidden[i]:
                hidden[i] = collapsed[p]
                p, n = par[p], n + 1
        # (group, member row) pairs sorted by group: a move re-fits only the
        # frames around the moved devices
        pg = np.concatenate(pairs_g) if pairs_g else np.zeros(0, np.int64)
        pr = np.concatenate(pairs_r) if pairs_r else np.zeros(0, np.int64)
        order = np.argsort(pg, kind="stable")
        pg, pr = pg[order], pr[order]
        # per-group bounds by segments of the sorted pairs (no ufunc.at)
        starts = np.searchsorted(pg, np.arange(ng + 1))
        filled = np.nonzero(starts[1:] > starts[:-1])[0]
        if pr.size:
            pts = xy[pr]
            lo[filled] = np.minimum.reduceat(pts, starts[filled], axis=0)
            hi[filled] = np.maximum.reduceat(pts, starts[filled], axis=0)
        self._frame_members = (pg, pr, starts)
        self._frame_of = {}
        frames = []
        hw, hh = sz.DEVICE_W / 2, sz.DEVICE_H / 2
        for i, g in enumerate(design.groups):
            if hidden[i] or not np.isfinite(lo[i, 0]):
                continue
            pad = BLOCK_PAD + 14.0 * depth[i]
            rect = QRectF(
                QPointF(lo[i, 0] - hw - pad, lo[i, 1] - hh - pad - FrameItem.HEADER),
                QPointF(hi[i, 0] + hw + pad, hi[i, 1] + hh + pad),
            )
            frame = reuse.pop(g.id, None)
            if frame is None:
                frame = FrameItem(g.id, rect, g.label or g.id, int(depth[i]))
            else:
                frame.restyle(rect, g.label or g.id, int(depth[i]))
            self._frame_of[i] = frame
            frames.append(frame)
        return frames

    def renumbered(self, remap: np.ndarray) -> bool:
        """Carry the frames over device rows renumbered by ``remap`` (row
        before -> row now, -1 gone; :meth:`Geometry.last_remap`) when no group
        member came or went: the frames stay as they are. False (build them
        again) when a member is gone."""
        pg, pr, starts = self._frame_members
        if len(pr) and int(pr.max()) >= len(remap):
            return False
        rows = remap[pr]
        if len(rows) and int(rows.min()) < 0:
            return False
        self._frame_members = (pg, rows, starts)
        return True

    def refit(self, geom: Geometry, device_ids: set[str]) -> None:
        """Re-fit the frames of the groups holding these (moved) devices."""
        self._geom = geom
        pg, pr, starts = self._frame_members
        moved_rows = [
            self._geom.row_of[d] for d in device_ids if d in self._geom.row_of
        ]
        if not moved_rows or not self._frame_of:
            return
        hit = np.unique(pg[np.isin(pr, moved_rows)])
        for i in hit.tolist():
            frame = self._frame_of.get(i)
            if frame is None:
                continue
            x0, y0, x1, y1 = self._geom.bounds(pr[starts[i] : starts[i + 1]])
            pad = BLOCK_PAD + 14.0 * frame.depth
            frame.set_rect(
                QRectF(
                    QPointF(x0 - pad, y0 - pad - FrameItem.HEADER),
                    QPointF(x1 + pad, y1 + pad),
                )
            )
