"""Bisection bandwidth of the compute fabric: an explicit cut (upper bound) and a
sound lower bound, ``exact`` when they meet.

Definition: the minimum, over the most balanced splits of the compute nodes in
GPUs (:mod:`designer.analysis.balance`: |GPUs(A) - GPUs(B)| as small as any
split allows; with equal GPUs per node, node counts differing by at most one),
of the capacity of the links crossing, every switch placed on whichever side
makes it smallest. Minimum bisection is NP-hard, so the result is a pair of
bounds, in two steps:

**First result** (:func:`bisect`, what the live panel shows at once):

* a fabric in several parts whose parts can be split balanced: 0, exact;
* upper bound: candidate splits (halves of the group hierarchy - pods, SUs -,
  of the fabric's own block hierarchy, of the device order), each solved
  exactly for the switch placement by max-flow on an equitable quotient
  (performance.md §1.4-1.5); and, for small fabrics (up to
  :data:`EXACT_LIVE_COMPUTE` compute nodes), an exact method: every placement
  of the few devices that are not free compute nodes enumerated
  (:mod:`designer.analysis.placement`, also for fabrics of any size with at
  most :data:`PLACEMENT_LIVE_DEVICES` other devices), else the integer program
  of :mod:`designer.analysis.exact` within :data:`EXACT_LIVE_SECONDS`;
* lower bound: the exact method's proof, else the best of a bound carried
  across edits, the hose certificate and its levelled form
  (:mod:`designer.analysis.levels`), the certificate on a regular fabric near
  this one minus what that adds (:mod:`designer.analysis.completion`, up to
  :data:`REGULAR_LIVE_LINKS` links) and the pair max-flow bound.

Without a carried bound the certificate runs before the candidate splits,
which stop at the first cut that meets it (a regular fabric needs one split,
solved on its seed quotient); with one, the splits stop at a cut that meets the
carried bound and the certificates run only when none does.
Above :data:`LIVE_MAXFLOW_LINKS` links without symmetry the first result
keeps a coarse quotient's cut instead of a whole-graph max-flow.

**Refinement** (:mod:`designer.analysis.refine`): stages with a deadline that
improve either bound; every bound is sound on its own. The bounds so far and
the result they give are :mod:`designer.analysis.bounds`.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from designer.analysis import completion, exact, partition, placement
from designer.analysis.balance import (
    Balance,
    balance,
    min_side_injection,
    pick_parts,
)
from designer.analysis.bounds import (
    REL,
    BisectionResult,
    CutState,
    Wired,
    finish,
    lift_lower,
    short,
    take_upper,
    whole_capacities,
)
from designer.analysis.candidates import (
    LIVE_MAXFLOW_LINKS,
    candidate_splits,
    pair_bound,
    split_cut,
)
from designer.analysis.graph import ComputeGraph, components, switch_planes
from designer.analysis.index import BoolArray, FloatArray, IntArray
from designer.analysis.levels import (
    Hierarchy,
    certificate,
    hierarchy,
    levelled_bound,
)
from designer.core.formatting import plural

EXACT_LIVE_COMPUTE = 64
"""Compute nodes up to which the first result runs the integer program."""
EXACT_LIVE_SECONDS = 0.3
"""Time limit of that first solve (the live panel's budget)."""
EXACT_LIVE_LOCAL = 0
"""...or fabrics of at most this many devices, whatever their compute nodes
(0: by compute nodes alone; larger fabrics get the solver in the refinement)."""
PLACEMENT_LIVE_DEVICES = 24
"""...or fabrics with at most this many devices besides the compute nodes,
whatever their compute nodes: the placements of so few devices can be
enumerated (:mod:`designer.analysis.placement`) when twins merge enough."""
REGULAR_LIVE_LINKS = 60_000
"""Links up to which the first result tries the regular-fabric bound
(:mod:`designer.analysis.completion`); larger fabrics get it in refinement."""


def fabric_parts(g: ComputeGraph, h: Hierarchy | None = None) -> list[IntArray]:
    """Local ids of each part of the fabric holding compute nodes, largest first.

    Parts are components through every compute link, pruned devices included.
    With a hierarchy that joins every compute node and reaches every device,
    there is one part holding everything (no component search needed).
    """
    if h is not None and h.top is not None and g.n and bool((h.level >= 0).all()):
        return [np.arange(g.n)]
    _, lab = components(g.n, g.all_u, g.all_v)
    ep_lab = np.unique(lab[g.endpoint])
    out = [np.flatnonzero(lab == x) for x in ep_lab.tolist()]
    out.sort(key=lambda p: (-int(g.endpoint[p].sum()), int(p[0])))
    return out


def _split_by_parts(
    g: ComputeGraph, parts: list[IntArray], bal: Balance
) -> BoolArray | None:
    """Side A made of whole parts weighing ``bal.light`` GPUs, or None."""
    weights = np.array([int(g.weight[p[g.endpoint[p]]].sum()) for p in parts])
    pick = pick_parts(weights, bal.light)
    if pick is None:
        return None
    side = np.zeros(g.n, dtype=np.bool_)
    for p, take in zip(parts, pick.tolist(), strict=True):
        if take:
            side[p] = True
    a_nodes = side & g.endpoint
    if not a_nodes.any() or a_nodes.sum() == g.endpoint.sum():
        return None
    return side


_LAST_CUT = "the best cut found for an earlier state of these nodes"


def _known_cut(
    g: ComputeGraph, bal: Balance, side: BoolArray | None
) -> tuple[float, BoolArray] | None:
    """The cut of ``side`` (a split of ``g``'s nodes) on ``g``'s links, when
    it is a balanced split of ``g``'s compute nodes."""
    if side is None or len(side) != g.n:
        return None
    if not bal.ok(int(g.weight[side & g.endpoint].sum())):
        return None
    side = side.copy()
    return float(g.c[side[g.u] != side[g.v]].sum()), side


_CARRIED = (
    "carried across edits: the last certified lower bound minus the compute "
    "capacity removed since (adding capacity never lowers it)"
)


def _canonical(
    g: ComputeGraph, names: np.ndarray | None
) -> tuple[ComputeGraph, IntArray]:
    """``g`` renumbered in the order of ``names`` (device ids), and the map from
    new to old local ids: the solver then sees the same model, and returns
    the same cut, however the design index happens to order its devices."""
    if names is None:
        return g, np.arange(g.n)
    perm = np.argsort(names, kind="stable")
    pos = np.empty(g.n, dtype=np.int64)
    pos[perm] = np.arange(g.n)
    return (
        replace(
            g,
            dev=g.dev[perm],
            endpoint=g.endpoint[perm],
            switch=g.switch[perm],
            u=pos[g.u],
            v=pos[g.v],
            injection=g.injection[perm],
            weight=g.weight[perm],
            pruned=[],
            all_u=pos[g.all_u],
            all_v=pos[g.all_v],
        ),
        perm,
    )


def exact_stage(
    g: ComputeGraph,
    bal: Balance,
    st: CutState,
    seconds: float,
    names: np.ndarray | None = None,
    *,
    milp: bool = True,
) -> bool:
    """Enumerate the placements when few devices need one, else run the integer
    program (if ``milp``); True when a bound improved."""
    gc, perm = _canonical(g, names)
    reduced = exact.reduce(gc)

    def back(side: BoolArray) -> BoolArray:
        out = np.empty(g.n, dtype=np.bool_)
        out[perm] = side
        return out

    pl = placement.solve(gc, bal, reduced=reduced)
    if pl is not None:
        how = f"every placement of the devices enumerated, proven optimal ({pl.size})"
        changed = take_upper(st, pl.value, back(pl.side), how)
        return lift_lower(st, pl.value, how) or changed
    if not milp:
        return False
    ex = exact.solve(gc, bal, time_limit=seconds, reduced=reduced)
    if ex is None:
        return False
    if ex.side is not None:
        ex = replace(ex, side=back(ex.side))
    changed = False
    if ex.side is not None:
        changed |= take_upper(
            st, ex.upper, ex.side, f"integer program over the cut ({ex.size})"
        )
    how = (
        f"integer program over the cut, proven optimal ({ex.size})"
        if ex.optimal
        else f"integer program's dual bound at its time limit ({ex.size})"
    )
    changed |= lift_lower(st, ex.lower, how)
    return changed


def _exact_applies(g: ComputeGraph, endpoints: int) -> bool:
    """Whether the first result runs an exact method on ``g``: few compute
    nodes (the integer program) or few other devices (every placement)."""
    small = endpoints <= EXACT_LIVE_COMPUTE or g.n <= EXACT_LIVE_LOCAL
    return small or g.n - endpoints <= PLACEMENT_LIVE_DEVICES


def _unwired_nodes(g: ComputeGraph) -> IntArray:
    """Local ids of the compute nodes with no compute link at all."""
    deg = np.bincount(g.all_u, minlength=g.n) + np.bincount(g.all_v, minlength=g.n)
    return np.flatnonzero(g.endpoint & (deg == 0))


def kept_endpoints(g: ComputeGraph, keep: IntArray) -> BoolArray:
    """Which of ``g``'s endpoints (in order) the subgraph on ``keep`` has."""
    kept = np.zeros(g.n, dtype=np.bool_)
    kept[keep] = True
    return kept[g.endpoints]


def _wired_part(g: ComputeGraph, unwired: IntArray) -> Wired:
    """``g`` without the ``unwired`` nodes (they have no edge), renumbered."""
    mask = np.ones(g.n, dtype=np.bool_)
    mask[unwired] = False
    keep = np.flatnonzero(mask)
    new = np.full(g.n, -1, dtype=np.int64)
    new[keep] = np.arange(len(keep))
    sub = ComputeGraph(
        dev=g.dev[keep],
        endpoint=g.endpoint[keep],
        switch=g.switch[keep],
        u=new[g.u],
        v=new[g.v],
        c=g.c,
        link=g.link,
        injection=g.injection[keep],
        weight=g.weight[keep],
        pruned=[(new[nodes], new[anchors]) for nodes, anchors in g.pruned],
        all_u=new[g.all_u],
        all_v=new[g.all_v],
        all_link=g.all_link,
        all_c=g.all_c,
    )
    h = hierarchy(sub)
    h.plane = switch_planes(sub)
    placeholder = BisectionResult(0.0, 0.0, 0.0, False, "")
    return Wired(sub, h, keep, placeholder)


def _unwired_slack(n: int, k: int, inj: FloatArray) -> tuple[int, float]:
    """(nodes d, capacity) a balanced split of n + k equal nodes can be short of
    a balanced split of the n wired ones, and what moving them may change.

    A balanced split of all N = n + k nodes puts between floor(N/2) - k and
    ceil(N/2) wired nodes on a side (the k unwired ones go anywhere); moving
    d wired nodes across makes the wired split balanced, and moving one node
    changes a cut by at most the capacity of its links (switches stay put).
    So every balanced cut of the whole is at least the wired part's balanced
    minimum less the d largest node capacities.
    """
    big = n + k
    low = max(0, big // 2 - k)
    high = min(n, -(-big // 2))
    d = max(high - -(-n // 2), n // 2 - low, 0)
    return d, float(np.sort(inj)[::-1][:d].sum())


def with_unwired(
    g: ComputeGraph,
    nominal: FloatArray,
    bal: Balance,
    parts: list[IntArray],
    wired: Wired,
    stage: str,
) -> BisectionResult:
    """The whole fabric's bounds from the wired part's result (unwired compute
    nodes, equal GPUs per node): the wired cut with the unwired nodes placed
    for balance, or the cut of the smaller side's links holding every unwired
    node, whichever is smaller; the wired lower bound less
    :func:`_unwired_slack`."""
    sub, keep = wired.result, wired.keep
    ep = g.endpoints
    unwired = np.setdiff1d(ep, keep)
    n, k = len(ep) - len(unwired), len(unwired)
    big = n + k
    # the wired part's cut, unwired nodes added to balance the node counts
    side = np.zeros(g.n, dtype=np.bool_)
    assert sub.side is not None
    side[keep] = sub.side
    a_w = int(side[ep].sum())
    t = big // 2 - a_w
    if not 0 <= t <= k:
        t = -(-big // 2) - a_w
    t = min(max(t, 0), k)
    side[unwired[:t]] = True
    upper, upper_how = (
        sub.upper,
        (
            f"{sub.upper_how}, on the {n:,} wired compute nodes; the "
            f"{plural(k, 'unwired node')} placed for balance"
        ),
    )
    # the smaller side: every unwired node and the wired nodes of least capacity
    small = big // 2
    inj = g.injection[ep]
    wired_ep = np.flatnonzero(np.isin(ep, unwired, invert=True))
    if k <= small:
        cheap = wired_ep[np.argsort(inj[wired_ep], kind="stable")[: small - k]]
        alone = np.zeros(g.n, dtype=np.bool_)
        alone[unwired] = True
        alone[ep[cheap]] = True
        value = float(g.c[alone[g.u] != alone[g.v]].sum())
        if value < upper - REL * max(upper, 1.0):
            upper, side = value, alone
            upper_how = (
                f"the smaller side's links cut: its {plural(k, 'unwired node')} "
                f"and the {small - k:,} wired nodes of least capacity"
            )
    d, slack = _unwired_slack(n, k, inj[wired_ep])
    lower = max(0.0, sub.lower - slack)
    lower_how = (
        f"{sub.lower_how}, on the {n:,} wired compute nodes, less what the "
        f"{plural(k, 'unwired node')} can change: a balanced split of all "
        f"nodes is at most {plural(d, 'node')} off a balanced split of the "
        f"wired ones, and moving a node changes a cut by at most its links "
        f"({slack:,.0f} Gb/s)"
    )
    st = CutState(
        upper,
        side,
        upper_how,
        lower,
        lower_how,
        list(sub.candidates),
        whole=whole_capacities(g),
    )
    out = finish(g, st, nominal, bal, parts, stage)
    out.wired = wired
    return out


def bisect(
    g: ComputeGraph,
    h: Hierarchy,
    nominal: FloatArray,
    dev_orders: dict[str, IntArray],
    known_lower: float | None = None,
    *,
    exact_seconds: float = EXACT_LIVE_SECONDS,
    names: np.ndarray | None = None,
    known_side: BoolArray | None = None,
) -> BisectionResult:
    """The first result: bounds and best cut of the compute fabric (module doc).

    ``known_lower`` is a lower bound the caller has proven for this very graph
    (:mod:`designer.analysis.ledger` carries one across edits); it is
    trusted as is, and spares the slower bounds when it meets the upper bound.
    ``known_side`` is a split of this graph's nodes (the best cut of an
    earlier state of the same nodes, the ledger's): its cut on these links is
    an upper bound, tried first; when it meets the lower bound the candidate
    splits are not needed.
    ``names`` (device id per local node) makes the solver's choice among
    equal cuts independent of the index's device order.
    """
    ep = g.endpoints
    w = g.weight[ep]
    bal = balance(w)
    parts = fabric_parts(g, h)
    if len(ep) < 2:
        return BisectionResult(
            0.0,
            0.0,
            0.0,
            True,
            "fewer than two compute nodes: no bisection",
            parts=[g.dev[p] for p in parts],
            parts_compute=[g.dev[p[g.endpoint[p]]] for p in parts],
            defined=False,
            balance=bal,
        )
    seed: BisectionResult | None = None
    if len(parts) > 1:
        side = _split_by_parts(g, parts, bal)
        if side is not None:
            how = (
                f"the compute fabric is in {len(parts)} parts and a balanced "
                "split follows them: nothing crosses"
            )
            st = CutState(0.0, side, how, 0.0, how, [("parts", 0.0)])
            return finish(g, st, nominal, bal, parts, "first result")
        unwired = _unwired_nodes(g)
        if len(unwired) and bal.homogeneous and len(ep) - len(unwired) >= 2:
            wired = _wired_part(g, unwired)
            sub = bisect(
                wired.g,
                wired.h,
                nominal[kept_endpoints(g, wired.keep)],
                dev_orders,
                exact_seconds=exact_seconds,
                names=None if names is None else names[wired.keep],
            )
            wired.result = sub
            combined = with_unwired(g, nominal, bal, parts, wired, "first result")
            if combined.exact or not _exact_applies(g, len(ep)):
                return combined
            # small enough for the exact methods: they start from these bounds
            seed = combined
    # bounds that need no cut come first: the candidate splits then stop at
    # the first cut that meets them (a regular fabric needs one). With a
    # carried bound the certificates wait: a cut that meets it needs none
    # (an edit's state usually keeps its bisection, or loses what it removed)
    found: list[tuple[float, str]] = []
    if seed is not None:
        found.append((seed.lower, seed.lower_how))
    if known_lower is not None:
        found.append((known_lower, _CARRIED))
    certified = known_lower is None
    theta, why = None, ""
    if certified:
        theta, why = certificate(g, h)
        found += _certified_bounds(g, h, bal, theta)
    floor = max((v for v, _ in found), default=0.0)
    tried: list[tuple[str, float]] = []
    best: tuple[float, BoolArray] | None = None
    placed: set[str] = set()
    large = len(g.u) > LIVE_MAXFLOW_LINKS
    last = _known_cut(g, bal, known_side)
    if last is not None and last[0] <= floor + REL * max(floor, 1.0):
        tried.append((_LAST_CUT, last[0]))
        best = last
        placed.add(_LAST_CUT)
    for name, in_a in (
        () if best is not None else candidate_splits(g, h, dev_orders, bal)
    ):
        value, side, how_placed = split_cut(g, in_a, h, floor, live=True)
        placed.add(how_placed)
        tried.append((name, value))
        if best is None or value < best[0]:
            best = (value, side)
        if best[0] <= floor + REL * max(best[0], 1.0):
            break
        if large and how_placed == "seed quotient":
            break  # no symmetry to use: the refinement tries the other splits
    if best is None:  # no candidate order covered the compute nodes
        in_a = partition.balanced_from(g, bal, np.arange(g.n) < g.n // 2)
        value, side, how_placed = split_cut(g, in_a, h, live=True)
        placed.add(how_placed)
        tried.append(("local order", value))
        best = (value, side)
    solver = (
        "max-flow on an equitable quotient"
        if placed == {"equitable quotient"}
        else "a cut keeping each class of a coarse quotient on one side"
        if "seed quotient" in placed
        else "max-flow"
    )
    how = "best of candidate splits by {} ({})".format(
        solver, "; ".join(f"{n}: {v:,.0f}" for n, v in tried)
    )
    if placed == {_LAST_CUT}:
        how = f"{_LAST_CUT}, on this state's links ({best[0]:,.0f})"
    st = CutState(
        best[0], best[1], how, 0.0, "none found", tried, whole=whole_capacities(g)
    )
    if seed is not None and seed.side is not None:
        take_upper(st, seed.upper, seed.side, seed.upper_how)
    if last is not None and best is not last:
        take_upper(st, last[0], last[1], f"{_LAST_CUT}, on this state's links")
    for value, why_lb in found:
        lift_lower(st, value, why_lb)
    if not certified and (short(st) or st.lower <= 0):
        # the carried bound falls short of the cut (or is none): certify
        theta, why = certificate(g, h)
        for value, why_lb in _certified_bounds(g, h, bal, theta):
            lift_lower(st, value, why_lb)
        certified = True
    if st.lower <= 0 and theta is None:
        st.lower_how = f"no certificate ({why})"
    small = len(ep) <= EXACT_LIVE_COMPUTE or g.n <= EXACT_LIVE_LOCAL
    if short(st) and _exact_applies(g, len(ep)):
        exact_stage(g, bal, st, exact_seconds, names, milp=small)
    if short(st) and theta is not None:
        lb = levelled_bound(g, h, bal)
        if lb is not None:
            lift_lower(st, lb[0], lb[1])
    if short(st) and theta is None:
        pb = pair_bound(g, bal)
        if pb is not None:
            lift_lower(st, pb, f"pair max-flow bound ({why})")
    return finish(g, st, nominal, bal, parts, "first result")


def _certified_bounds(
    g: ComputeGraph, h: Hierarchy, bal: Balance, theta: float | None
) -> list[tuple[float, str]]:
    """Lower bounds that need no cut: the hose certificate (``theta``, of
    :func:`certificate`), else the levelled and regular bounds."""
    ep = g.endpoints
    if theta is not None:
        value = theta * min_side_injection(g.injection[ep], g.weight[ep], bal)
        how = f"hose-routing certificate (theta = {theta:.4g}, uniform Clos checked)"
        return [(value, how)]
    out: list[tuple[float, str]] = []
    lb = levelled_bound(g, h, bal)
    if lb is not None:
        out.append(lb)
    if len(g.u) <= REGULAR_LIVE_LINKS:
        rb = completion.regular_bound(g, bal)
        if rb is not None:
            out.append(rb)
    return out


__all__ = [
    "bisect",
    "exact_stage",
    "fabric_parts",
    "kept_endpoints",
    "with_unwired",
]
