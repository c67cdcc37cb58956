"""Max-flow helpers on arrays: s-t min cuts, equitable quotients, colour refinement.

A candidate split (A, B) of the compute nodes is solved as a max-flow from a
super-source feeding A to a super-sink fed by B (arc capacity = injection), so
every placement of the switches is considered at once (performance.md §1.4a).
The graph is first contracted to an equitable partition (colour refinement with
integer multiset hashes), whose max-flow equals the full graph's (§1.5). Either
way the returned cut is an explicit cut of the full graph, so its crossing
capacity is always a valid upper bound.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import breadth_first_order, maximum_flow

from designer.analysis.index import BoolArray, FloatArray, IntArray

_I32 = np.iinfo(np.int32).max
_MIX = np.int64(0x9E3779B97F4A7C15 - (1 << 64))


def _hash_values(k: int, bits: int) -> FloatArray:
    """``k`` random integers in [1, 2**bits) as floats (the same for every call)."""
    rng = np.random.default_rng(20260601 + bits)
    return rng.integers(1, 1 << bits, size=k, dtype=np.int64).astype(np.float64)


def refine(
    n: int,
    u: IntArray,
    v: IntArray,
    c: IntArray,
    seed: IntArray,
    *,
    max_classes: int,
    max_rounds: int = 30,
) -> IntArray | None:
    """Coarsest equitable refinement of ``seed`` (capacity-weighted), or None.

    Returns dense class ids, or None when more than ``max_classes`` classes
    appear (no useful symmetry) or the rounds run out. Each round hashes a
    node's (neighbour class, capacity) multiset as a sum of random integers
    times capacities, small enough that every sum is exact in float64 (so
    ``np.bincount`` does it); two different multisets may still collide, which
    only leaves two classes merged: the quotient's cut is then still a real cut
    of the graph (an upper bound), it is merely not proven the cheapest.
    """
    _, label = np.unique(seed, return_inverse=True)
    label = label.astype(np.int64)
    k = int(label.max()) + 1 if n else 0
    if k > max_classes:
        return None
    cf = c.astype(np.float64)
    tot = np.bincount(u, weights=cf, minlength=n) + np.bincount(
        v, weights=cf, minlength=n
    )
    peak = float(tot.max()) if n else 1.0
    bits = int(min(40, max(8, 52 - int(np.ceil(np.log2(peak + 2.0))))))
    for _ in range(max_rounds):
        r = _hash_values(k, bits)
        h = np.bincount(u, weights=cf * r[label[v]], minlength=n)
        h += np.bincount(v, weights=cf * r[label[u]], minlength=n)
        key = h.astype(np.int64) * _MIX + label
        _, new = np.unique(key, return_inverse=True)
        k_new = int(new.max()) + 1
        if k_new == k:
            return label
        label, k = new.astype(np.int64), k_new
        if k > max_classes:
            return None
    return None


def st_cut(
    n: int,
    u: IntArray,
    v: IntArray,
    c: IntArray,
    source_cap: IntArray,
    sink_cap: IntArray,
) -> tuple[int, BoolArray]:
    """Max-flow from a super-source to a super-sink; value and source side.

    ``source_cap[i]``/``sink_cap[i]`` are the arc capacities S->i and i->T
    (0: no arc). Links are undirected: each becomes two arcs of capacity c.
    """
    s, t = n, n + 1
    src = np.flatnonzero(source_cap > 0)
    snk = np.flatnonzero(sink_cap > 0)
    rows = np.concatenate((u, v, np.full(len(src), s), snk))
    cols = np.concatenate((v, u, src, np.full(len(snk), t)))
    data = np.concatenate((c, c, source_cap[src], sink_cap[snk]))
    cap = _capacities(n + 2, rows, cols, data)
    res = maximum_flow(cap, s, t, method="dinic")
    residual = (cap - res.flow).tocsr()
    residual.data[residual.data < 0] = 0
    residual.eliminate_zeros()
    reach = breadth_first_order(residual, s, directed=True, return_predecessors=False)
    side = np.zeros(n + 2, dtype=np.bool_)
    side[reach] = True
    return int(res.flow_value), side[:n]


def _capacities(n: int, rows: IntArray, cols: IntArray, data: np.ndarray) -> csr_matrix:
    """The arcs as scipy max-flow's int32 capacity matrix, parallel arcs
    summed; OverflowError when a sum leaves the int32 range."""
    data = np.minimum(data, _I32).astype(np.int32)
    cap = csr_matrix((data, (rows, cols)), shape=(n, n))
    cap.sum_duplicates()
    if cap.nnz and cap.data.min() < 0:  # int32 overflow while summing
        raise OverflowError("capacities exceed the int32 range of scipy max-flow")
    return cap


def flows_from(
    n: int, u: IntArray, v: IntArray, c: IntArray, source: int, sinks: IntArray
) -> IntArray:
    """Max-flow value from node ``source`` to each of ``sinks`` in the
    undirected graph ``u``-``v`` of capacities ``c``: the capacity matrix is
    made once and each flow runs on it (no super-source or super-sink, no
    residual graph: values only). A link joining a node to itself carries
    nothing."""
    rows = np.concatenate((u, v))
    cols = np.concatenate((v, u))
    keep = rows != cols
    data = np.concatenate((c, c))[keep]
    cap = _capacities(n, rows[keep], cols[keep], data)
    out = np.zeros(len(sinks), dtype=np.int64)
    for i, t in enumerate(sinks.tolist()):
        if t != source:
            out[i] = maximum_flow(cap, source, t, method="dinic").flow_value
    return out


def quotient_cut(
    n: int,
    u: IntArray,
    v: IntArray,
    c: IntArray,
    classes: IntArray,
    source_cap: IntArray,
    sink_cap: IntArray,
) -> BoolArray:
    """Min cut on the quotient by ``classes``, lifted to the nodes (source side)."""
    k = int(classes.max()) + 1
    if k * k <= min(4_000_000, max(4 * len(u), 4096)):
        # directed class pairs, then both directions summed: no edge filtering
        agg = np.bincount(
            classes[u] * k + classes[v], weights=c, minlength=k * k
        ).reshape(k, k)
        agg = np.triu(agg + agg.T, 1)
        nz = np.flatnonzero(agg)
        total = agg.ravel()[nz]
    else:
        cu, cv = classes[u], classes[v]
        keep = cu != cv
        key = np.minimum(cu, cv)[keep] * k + np.maximum(cu, cv)[keep]
        nz, inv = np.unique(key, return_inverse=True)
        total = np.bincount(inv, weights=c[keep])
    a, b = np.divmod(nz, k)
    cap = np.rint(total).astype(np.int64)
    qs = np.rint(np.bincount(classes, weights=source_cap, minlength=k)).astype(np.int64)
    qt = np.rint(np.bincount(classes, weights=sink_cap, minlength=k)).astype(np.int64)
    _, side = st_cut(k, a, b, cap, qs, qt)
    return side[classes]
