"""A certified bisection lower bound, carried to later states of the same design.

Proving a lower bound can be the expensive part of the bisection (an uneven
fabric fails the hose certificate). The ledger keeps the last few bounds that
were proven, each with the link arrays it was proven on, and carries them to a
later state of the design (why it is sound):

Let B(G) be the bisection of the compute fabric G: the minimum, over balanced
splits of the compute nodes (balance set by the compute nodes and their GPU
counts) and over placements of every other node, of the capacity crossing.

1. adding a link, a node, or capacity never lowers B: every cut of the larger
   graph, restricted to the old nodes, is a cut of the old graph with the same
   compute split and no more crossing capacity;
2. lowering capacities by D in total (a removed link lowers its own capacity to
   0) lowers every cut by at most D, hence B by at most D;
3. removing a switch, storage or management device with its links is 2 for its
   links followed by dropping an isolated node, which leaves every cut as it
   was; a compute node that comes or goes changes the splits themselves, so a
   bound holds only while the compute nodes are the ones it was proven for.

So if B(G_ref) >= L was proven and G has the same compute nodes and GPU counts,
take G_min with, per link of G_ref, capacity min(ref, now) (0 when the link is
gone, left the compute fabric or changed ends): G contains G_min plus extra
capacity and G_min is G_ref minus D = sum(ref - min(ref, now)), so
B(G) >= L - D. Links are matched by their serial in the design's column store
(stable across edits and undo; :mod:`designer.core.links`), so no edit has to be
reported: the ledger compares two states of the arrays.

The ledger also keeps the best cut found for the last state (its side per
node of the compute graph, :meth:`BoundLedger.record_cut`). Any balanced split
is an upper bound, so the next state's first result evaluates that side on
its own graph when the graph has the very same nodes, kinds and GPU counts
(:meth:`BoundLedger.side_for`): an edit that leaves the cut's links as they
were starts with the upper bound the refinement found, and with the carried
lower bound the two usually meet at once.

The ledger belongs to whoever runs the analysis (the GUI's worker thread and
its refinement); it only ever reads the arrays it is given.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from designer.analysis.graph import changed_run
from designer.analysis.index import KIND_COMPUTE, DesignIndex
from designer.core.link_arrays import LinkArrays, rows_run
from designer.core.link_model import FABRIC_CODE, Fabric

MAX_REFERENCES = 4
"""Bounds kept, each for its own compute nodes (so that deleting a compute node
and undoing it finds its bound again)."""

_COMPUTE = FABRIC_CODE[Fabric.COMPUTE]


def _fingerprint(index: DesignIndex) -> tuple[tuple[str, ...], bytes]:
    """Compute nodes and their GPU counts: what every bisection split depends on."""
    comp = np.flatnonzero(index.kind == KIND_COMPUTE)
    ids = tuple(index.device_ids_arr[comp].tolist())  # one gather, not a loop
    return ids, index.gpus[comp].tobytes()


def _compute_capacity(
    links: LinkArrays, rows: np.ndarray | slice = slice(None)
) -> np.ndarray:
    """Gb/s of each link (of ``rows``) on the compute fabric (0 on the others)."""
    cap = links.cables[rows].astype(np.int64) * links.speed[rows]
    return np.where(links.fabric[rows] == _COMPUTE, cap, 0)


@dataclass(frozen=True)
class _Reference:
    lower: float
    fingerprint: tuple[tuple[str, ...], bytes]
    table: int
    links: LinkArrays
    capacity: np.ndarray

    def carried(
        self, now: LinkArrays, capacity: Callable[[], np.ndarray] | None = None
    ) -> float:
        """L - D for the state ``now`` of the same table (see module doc);
        ``capacity()``: :func:`_compute_capacity` of ``now``, when it is
        asked for (kept by the ledger for the state)."""
        if now is self.links:
            return self.lower
        ref = self.links
        run = rows_run(ref, now)
        if run is not None:
            return max(0.0, self.lower - self._deficit_in_run(now, *run))
        cap_now = _compute_capacity(now) if capacity is None else capacity()
        if len(now) == len(ref) and _equal(now.serial, ref.serial):
            # the same links in the same rows (a cable or speed edit): no search
            same_ends = _equal(now.a, ref.a) and _equal(now.b, ref.b)
            kept = cap_now if same_ends else np.where(_ends_match(now, ref), cap_now, 0)
        elif len(now):
            at = np.minimum(_rows_of(now.serial, ref.serial), len(now) - 1)
            same = (now.serial[at] == ref.serial) & _ends_match(now, ref, at)
            kept = np.where(same, cap_now[at], 0)
        else:
            kept = np.zeros(len(ref), dtype=np.int64)
        deficit = np.maximum(self.capacity - kept, 0).sum()
        return max(0.0, self.lower - float(deficit))

    def _deficit_in_run(self, now: LinkArrays, head: int, tail: int) -> float:
        """D when the states' first ``head`` and last ``tail`` rows are the
        same rows (:func:`~designer.core.link_arrays.rows_run`): they lose
        nothing, so only the rows between are matched by serial."""
        ref = self.links
        r0, r1 = head, len(ref) - tail
        n0, n1 = head, len(now) - tail
        if r1 <= r0:
            return 0.0
        lost = self.capacity[r0:r1]
        if n1 <= n0:
            return float(lost.sum())
        serial = ref.serial[r0:r1]
        at = n0 + np.minimum(np.searchsorted(now.serial[n0:n1], serial), n1 - n0 - 1)
        same = (now.serial[at] == serial) & _ends_match(now, ref, at, slice(r0, r1))
        kept = np.where(same, _compute_capacity(now, at), 0)
        return float(np.maximum(lost - kept, 0).sum())


def _rows_of(now: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """``np.searchsorted(now, ref)`` of two ascending serial columns, searched
    only between their common first and last rows (an edit adds or removes a
    few rows: the rows before and after match one to one)."""
    run = changed_run((ref,), (now,), len(ref) + len(now))
    assert run is not None  # (no limit)
    head, tail = run
    at = np.empty(len(ref), dtype=np.int64)
    at[:head] = np.arange(head)
    stop_ref, stop_now = len(ref) - tail, len(now) - tail
    at[stop_ref:] = np.arange(stop_now, len(now))
    at[head:stop_ref] = head + np.searchsorted(now[head:stop_now], ref[head:stop_ref])
    return at


def _equal(x: np.ndarray, y: np.ndarray) -> bool:
    return x is y or (x.shape == y.shape and bool(np.array_equal(x, y)))


def _ends_match(
    now: LinkArrays,
    ref: LinkArrays,
    at: np.ndarray | slice = slice(None),
    ref_rows: slice = slice(None),
) -> np.ndarray:
    """Per link of ``ref`` (of ``ref_rows``): the row ``at`` of ``now`` joins
    the same two devices."""
    a, b = now.a[at], now.b[at]
    ra, rb = ref.a[ref_rows], ref.b[ref_rows]
    out: np.ndarray = ((a == ra) & (b == rb)) | ((a == rb) & (b == ra))
    return out


class BoundLedger:
    """Proven bisection lower bounds and the states they were proven on."""

    def __init__(self) -> None:
        self._refs: list[_Reference] = []
        self._lock = threading.Lock()  # the analysis and its refinement may share it
        self._last_fp: tuple[DesignIndex, tuple[tuple[str, ...], bytes]] | None = None
        self._last_capacity: tuple[LinkArrays, np.ndarray] | None = None
        self._carried: tuple[LinkArrays | None, list[tuple[int, float]]] = (
            None,
            [],
        )
        self._cut: _Cut | None = None

    def lower_bound(self, index: DesignIndex) -> float | None:
        """The best bound carried to the state ``index`` shows (None: none)."""
        fp = self._fingerprint(index)
        with self._lock:
            refs = list(self._refs)
        links = index.links
        same = [r for r in refs if r.table == links.table and r.fingerprint == fp]
        if not same:
            return None

        def carried(r: _Reference) -> float:
            if r.links is links:
                return r.lower
            return r.carried(links, lambda: self._capacity(links))

        # a bound carries at most what was proven: once one carries more than
        # another reference's proof, that reference cannot beat it
        best: float | None = None
        known: list[tuple[int, float]] = []
        for r in sorted(same, key=lambda r: r.lower, reverse=True):
            if best is not None and r.lower <= best:
                break
            value = carried(r)
            known.append((id(r), value))
            best = value if best is None else max(best, value)
        self._carried = (links, known)
        return best

    def record(self, lower: float, index: DesignIndex) -> None:
        """``lower`` was proven for the state ``index`` shows; keep the best."""
        fp = self._fingerprint(index)
        table, links = index.links.table, index.links
        known = dict(self._carried[1]) if self._carried[0] is links else {}
        with self._lock:
            same = [r for r in self._refs if r.table == table and r.fingerprint == fp]
            if any(
                known[id(r)] >= lower
                if id(r) in known
                else r.lower >= lower
                and r.carried(links, lambda: self._capacity(links)) >= lower
                for r in same
            ):  # (a bound carries at most what was proven)
                return
            self._refs = [r for r in self._refs if r not in same]
            self._refs.append(
                _Reference(float(lower), fp, table, links, self._capacity(links))
            )
            del self._refs[:-MAX_REFERENCES]

    def _capacity(self, links: LinkArrays) -> np.ndarray:
        """:func:`_compute_capacity` of ``links``, kept for the last state
        (asked when a bound is carried to it and again when one is recorded)."""
        last = self._last_capacity
        if last is not None and last[0] is links:
            return last[1]
        capacity = _compute_capacity(links)
        self._last_capacity = (links, capacity)
        return capacity

    def _fingerprint(self, index: DesignIndex) -> tuple[tuple[str, ...], bytes]:
        """:func:`_fingerprint`, kept for the last index (asked twice per state)
        and for the next while its device columns are the same arrays (an
        index's arrays are never written: :mod:`designer.analysis.reuse`)."""
        last = self._last_fp
        if last is not None and (
            last[0] is index
            or (
                last[0].device_ids is index.device_ids
                and last[0].kind is index.kind
                and last[0].gpus is index.gpus
            )
        ):  # the same index, or another of the same device columns
            return last[1]
        fp = _fingerprint(index)
        self._last_fp = (index, fp)
        return fp

    def record_cut(
        self,
        names: np.ndarray,
        endpoint: np.ndarray,
        weight: np.ndarray,
        side: np.ndarray,
    ) -> None:
        """``side`` (per node of a compute graph: on side A) is the best cut
        found for a state whose graph has the nodes ``names`` (device ids),
        of which ``endpoint`` are compute nodes of ``weight`` GPUs."""
        self._cut = _Cut(names, endpoint, weight, side.copy())

    def side_for(
        self, names: np.ndarray, endpoint: np.ndarray, weight: np.ndarray
    ) -> np.ndarray | None:
        """The side of the last cut recorded when it is of a graph of the same
        nodes, compute nodes and GPUs (so a balanced split of this one too);
        None otherwise. The caller evaluates it on its own links."""
        cut = self._cut
        if cut is None or not (
            _equal(cut.names, names)
            and _equal(cut.endpoint, endpoint)
            and _equal(cut.weight, weight)
        ):
            return None
        return cut.side

    def clear(self) -> None:
        """Forget every bound and cut (a new document)."""
        with self._lock:
            self._refs.clear()
            self._cut = None


@dataclass(frozen=True)
class _Cut:
    """A best cut of one state (:meth:`BoundLedger.record_cut`)."""

    names: np.ndarray
    endpoint: np.ndarray
    weight: np.ndarray
    side: np.ndarray


__all__ = ["MAX_REFERENCES", "BoundLedger"]
