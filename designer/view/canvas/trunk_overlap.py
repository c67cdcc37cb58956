"""Trunks drawn on top of one another, and which end each one's label belongs at.

In the overview, the trunks of a column of pods to the core block run up the
same vertical line: each pod's uplink covers the ones of the pods above it. A
label put anywhere on the shared part names all of them at once, so several
identical labels end up stacked in the first free gap. A trunk that shares its
line is labelled from its own end instead (the end fewer trunks meet: the pod,
not the core), at the first free spot walking away from it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from designer.view.canvas.quotient import Trunk

#: Largest number of trunks compared pair by pair (beyond it, no overlap check).
MAX_COMPARED = 4000
#: Trunks compared against all others at once (bounds the memory used).
_CHUNK = 128


def overlapped(trunks: Sequence[Trunk], tol: float = 0.5) -> np.ndarray:
    """Per trunk, whether another trunk runs along part of it (collinear within
    ``tol`` scene units, their spans overlapping by more than ``tol``)."""
    n = len(trunks)
    out = np.zeros(n, bool)
    if n < 2 or n > MAX_COMPARED:
        return out
    p0 = np.array([t.p0 for t in trunks], float)
    p1 = np.array([t.p1 for t in trunks], float)
    d = p1 - p0
    length = np.hypot(d[:, 0], d[:, 1])
    ok = length > tol
    u = np.zeros_like(d)
    u[ok] = d[ok] / length[ok, None]
    for start in range(0, n, _CHUNK):
        rows = slice(start, min(n, start + _CHUNK))
        # the other trunks' ends seen from this trunk's line (rows: these trunks)
        uu = u[rows, None, :]
        rel0 = p0[None, :, :] - p0[rows, None, :]
        rel1 = p1[None, :, :] - p0[rows, None, :]
        off0 = np.abs(rel0[..., 0] * uu[..., 1] - rel0[..., 1] * uu[..., 0])
        off1 = np.abs(rel1[..., 0] * uu[..., 1] - rel1[..., 1] * uu[..., 0])
        along0 = rel0[..., 0] * uu[..., 0] + rel0[..., 1] * uu[..., 1]
        along1 = rel1[..., 0] * uu[..., 0] + rel1[..., 1] * uu[..., 1]
        lo = np.maximum(np.minimum(along0, along1), 0.0)
        hi = np.minimum(np.maximum(along0, along1), length[rows, None])
        shared = (off0 <= tol) & (off1 <= tol) & (hi - lo > tol)
        shared &= ok[rows, None] & ok[None, :]
        idx = np.arange(rows.start, rows.stop)
        shared[idx - rows.start, idx] = False
        out[rows] = shared.any(axis=1)
    return out


def own_ends(trunks: Sequence[Trunk], tol: float = 0.5) -> list[int | None]:
    """Per trunk: None when no other trunk runs along it, else the end its label
    belongs at (0: ``p0``, 1: ``p1``), the end fewer trunks meet."""
    shared = overlapped(trunks, tol)
    degree: dict[int, int] = {}
    for t in trunks:
        for code in t.ends:
            degree[code] = degree.get(code, 0) + 1
    out: list[int | None] = []
    for t, s in zip(trunks, shared.tolist(), strict=True):
        if not s:
            out.append(None)
        else:
            a, b = t.ends
            out.append(0 if degree[a] <= degree[b] else 1)
    return out
