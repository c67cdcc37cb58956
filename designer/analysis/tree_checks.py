"""Fat-tree wiring that the InfiniBand subnet manager would reveal at bring-up.

OpenSM's fat-tree router (``opensm -R ftree``) ranks the switches from the top
and routes up/down; at bring-up it refuses, or routes around, what these
checks find on the design first (codes stable, never renamed):

- ``SAME_TIER_SWITCH_LINK`` [warning] in a fabric of two or more switch tiers,
  a link between two switches of one tier (leaf to leaf, spine to spine).
  OpenSM's ftree takes it as a "sibling" link and routes no traffic over it,
  so it passes bring-up while the cables are miswired; items: both switches.
- ``COMPUTE_ABOVE_LEAF`` [error] a compute node cabled to a switch above the
  leaf tier (a spine). OpenSM: ``ERR AB26: CN port ... is connected to switch
  ... with rank 1, while FatTree leaf rank is 2``, and ftree falls back to
  minhop; items: the nodes and the switches.
- ``UPLINK_GROUPS_UNEVEN`` [warning] switches of one tier with up-port groups
  (the cables from a switch to one switch of the tier above) of different
  sizes. OpenSM: ``ERR AB0B: Different number of ports in an upward port
  group on switches``; route with up/down (``-R updn``) instead of ftree, or
  even the groups out; items: the switches whose groups differ from the
  tier's most common size.

The checks apply to a fat tree with a few mistakes; a mesh whose switch
links join tiers at random (a tenth or more of them miswired by these rules)
is not one, and gets none of them.

Tiers: a switch that declares its tier keeps it. Otherwise the leaf tier is
the switches that compute nodes are cabled to, except a switch with more links
to other switches than to nodes (a spine or a core with a stray node link),
unless it is cabled to exactly the switches a leaf is (a partly filled leaf:
its SU's last nodes, all its uplinks); every other switch is ranked by its
distance in switch hops from the leaf tier (leaf 1, spine 2, core 3).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from designer.analysis.context import MAX_ITEMS, Context
from designer.analysis.graph import ComputeGraph, EarlierEdges
from designer.analysis.index import BoolArray, IntArray
from designer.analysis.report import Finding, Severity
from designer.core.formatting import plural
from designer.core.rows import with_rows, without_rows

__all__ = ["check_tree", "switch_ranks"]


def switch_ranks(g: ComputeGraph, declared: IntArray | None = None) -> IntArray:
    """Tier of each local device of the compute graph: 0 for compute nodes,
    1 leaf, 2 spine, ...; -1 for a switch no leaf reaches. ``declared``: the
    tier each local device declares (1 leaf, 2 spine, 3 core; 0 none)."""
    n = g.n
    rank = np.full(n, -1, dtype=np.int64)
    rank[g.endpoint] = 0
    u, v = g.all_u, g.all_v
    if not len(u):
        return rank
    both = g.switch[u] & g.switch[v]
    at_node = g.endpoint[u] ^ g.endpoint[v]
    su, sv = u[both], v[both]
    sw_deg = np.bincount(su, minlength=n) + np.bincount(sv, minlength=n)
    nu, nv = u[at_node], v[at_node]
    node_deg = np.bincount(np.where(g.endpoint[nu], nv, nu), minlength=n)
    dec = np.zeros(n, dtype=np.int64) if declared is None else declared
    bearing = g.switch & (node_deg > 0)
    # a declared tier stands; else a switch whose links go mostly to nodes
    leaf = bearing & ((dec == 1) | ((dec == 0) & (node_deg >= sw_deg)))
    unsure = bearing & ~leaf & (dec == 0)
    if unsure.any() and leaf.any():
        # more switch links than nodes: a spine with a stray node, or a partly
        # filled leaf, cabled to the very switches a leaf of its group is
        sets = _neighbour_sets(n, su, sv, leaf | unsure)
        of_leaves = {sets[i] for i in np.flatnonzero(leaf).tolist() if i in sets}
        for i in np.flatnonzero(unsure).tolist():
            if sets.get(i) in of_leaves:
                leaf[i] = True
    rank[leaf] = 1
    frontier = leaf
    level = 1
    while frontier.any():
        level += 1
        nxt = np.zeros(n, dtype=np.bool_)
        up = frontier[su] & (rank[sv] < 0)
        nxt[sv[up]] = True
        up = frontier[sv] & (rank[su] < 0)
        nxt[su[up]] = True
        nxt &= g.switch
        rank[nxt] = level
        frontier = nxt
    return rank


def _neighbour_sets(
    n: int, su: IntArray, sv: IntArray, which: np.ndarray
) -> dict[int, tuple[int, ...]]:
    """The switches each switch of ``which`` is cabled to, sorted."""
    x = np.concatenate((su, sv))
    y = np.concatenate((sv, su))
    keep = which[x]
    x, y = x[keep], y[keep]
    order = np.lexsort((y, x))
    x, y = x[order], y[order]
    cuts = np.flatnonzero(np.diff(x)) + 1
    out: dict[int, tuple[int, ...]] = {}
    for xs, ys in zip(np.split(x, cuts), np.split(y, cuts), strict=True):
        if len(xs):
            out[int(xs[0])] = tuple(np.unique(ys).tolist())
    return out


def _names(ctx: Context, local: list[int]) -> list[str]:
    ids = ctx.index.device_ids
    dev = ctx.graph.dev
    return [str(ids[dev[i]]) for i in local]


def _listed(names: list[str], limit: int = 4) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _is_fat_tree(same: int, switch_links: int, high: int, node_links: int) -> bool:
    """Whether the ranked fabric is a fat tree with a few miswired links, which
    is what OpenSM's ftree router judges, rather than a mesh (a drawn sketch
    whose switches join at random): a mistake is the exception, so at most a
    tenth of the switch links join one tier and at most a tenth of the node
    links land above the leaves (two of each always count as mistakes)."""
    return same <= max(2, switch_links // 10) and high <= max(2, node_links // 10)


@dataclass(frozen=True)
class _Shape:
    """What the checks read of the topology alone (no capacities, no names)."""

    rank: IntArray
    same: IntArray
    """Positions in the graph's ``all_*`` edges of the links within one tier."""
    high: IntArray
    """Positions of the links from a compute node to a switch above the leaves."""
    up: IntArray
    """Positions in the graph's ``all_*`` edges of the links one tier up: those
    whose first end is the lower (``n_up_a`` of them), then the others."""
    n_up_a: int
    group: IntArray
    """Per link of ``up``: its up-port group (a (switch, upper switch) pair)."""
    keys: IntArray
    """Per group, ascending: lower switch x n + upper switch."""
    owner: IntArray
    """Per group: the lower switch."""
    counts: tuple[int, int]
    """Switch-to-switch links and node-to-switch links (for :func:`_is_fat_tree`)."""

    def ends(self, g: ComputeGraph) -> tuple[IntArray, IntArray, IntArray, IntArray]:
        """(same-tier link ends u, v; the high links' nodes and switches)."""
        u, v = g.all_u, g.all_v
        hu, hv = u[self.high], v[self.high]
        on_u = g.endpoint[hu]
        return (
            u[self.same],
            v[self.same],
            np.where(on_u, hu, hv),
            np.where(on_u, hv, hu),
        )


def _edge_kinds(
    g: ComputeGraph, rank: IntArray, u: IntArray, v: IntArray
) -> tuple[BoolArray, ...]:
    """Per edge (u, v): switch-to-switch, within a tier, node-to-switch, node
    above the leaves, one tier up from u, one tier up from v."""
    both = g.switch[u] & g.switch[v]
    same = both & (rank[u] == rank[v]) & (rank[u] > 0)
    at_node = g.endpoint[u] ^ g.endpoint[v]
    sw = np.where(g.endpoint[u], v, u)
    high = at_node & g.switch[sw] & (rank[sw] >= 2)
    up_a = both & (rank[v] == rank[u] + 1) & (rank[u] > 0)
    up_b = both & (rank[u] == rank[v] + 1) & (rank[v] > 0)
    return both, same, at_node, high, up_a, up_b


def _shape(
    g: ComputeGraph, declared: IntArray, rank: IntArray | None = None
) -> _Shape | None:
    """The ranks, miswires and up-port groups of a fat tree (None: not one)."""
    u, v = g.all_u, g.all_v
    if not len(u) or not g.switch.any():
        return None
    if rank is None:
        rank = switch_ranks(g, declared)
    if int(rank.max()) < 2:
        return None  # one switch tier: not a fat tree
    both, same, at_node, high, is_up_a, is_up_b = _edge_kinds(g, rank, u, v)
    counts = (int(both.sum()), int(at_node.sum()))
    if not _is_fat_tree(int(same.sum()), counts[0], int(high.sum()), counts[1]):
        return None
    up_a = np.flatnonzero(is_up_a)
    up_b = np.flatnonzero(is_up_b)
    lower = np.concatenate((u[up_a], v[up_b]))
    upper = np.concatenate((v[up_a], u[up_b]))
    n_local = max(1, g.n)
    keys, group = np.unique(lower * n_local + upper, return_inverse=True)
    return _Shape(
        rank=rank,
        same=np.flatnonzero(same),
        high=np.flatnonzero(high),
        up=np.concatenate((up_a, up_b)),
        n_up_a=len(up_a),
        group=group.reshape(-1),
        keys=keys,
        owner=keys // n_local,
        counts=counts,
    )


def _patched_shape(
    base: _Shape, earlier: EarlierEdges, g: ComputeGraph, declared: IntArray
) -> _Shape | None:
    """:func:`_shape` of ``g`` from the shape ``base`` of the topology before
    it, whose links line up with these as ``earlier`` says.

    The ranks are worked out again (a link can move a switch between tiers)
    and, when they are the ranks of ``base``, every other part is a filter of
    the links by their ends' ranks: the links the edit left keep their kind
    (their positions move past the run of changed links), the run's own links
    are judged afresh and put in order, and the up-port groups are numbered
    again by key when a (switch, upper switch) pair loses its last link or
    gains its first (:func:`_regrouped`)."""
    u, v = g.all_u, g.all_v
    if not len(u):
        return None  # no compute link left: no fat tree (as :func:`_shape` says)
    rank = switch_ranks(g, declared)
    if not np.array_equal(rank, base.rank):
        return _shape(g, declared, rank)
    head, tail = earlier.head, earlier.tail
    n0, n1 = len(earlier.u), len(u)
    stop0, stop1 = n0 - tail, n1 - tail
    gone = slice(head, stop0)
    come = np.arange(head, stop1)
    old = _edge_kinds(g, rank, earlier.u[gone], earlier.v[gone])
    new = _edge_kinds(g, rank, u[come], v[come])
    counts = (
        base.counts[0] - int(old[0].sum()) + int(new[0].sum()),
        base.counts[1] - int(old[2].sum()) + int(new[2].sum()),
    )

    def moved(at: IntArray, fresh: BoolArray) -> IntArray:
        """Positions ``at`` of the old links past the edit, with the run's."""
        keep = (at < head) | (at >= stop0)
        kept = np.where(at >= stop0, at + (n1 - n0), at)[keep]
        cut = int(np.searchsorted(kept, head))
        return np.concatenate((kept[:cut], come[fresh], kept[cut:]))

    same = moved(base.same, new[1])
    high = moved(base.high, new[3])
    if not _is_fat_tree(len(same), counts[0], len(high), counts[1]):
        return None
    n_local = max(1, g.n)
    parts = []
    for at, grp, fresh, lower_is_u in (
        (base.up[: base.n_up_a], base.group[: base.n_up_a], new[4], True),
        (base.up[base.n_up_a :], base.group[base.n_up_a :], new[5], False),
    ):
        keep = (at < head) | (at >= stop0)
        kept_at = np.where(at >= stop0, at + (n1 - n0), at)[keep]
        cut = int(np.searchsorted(kept_at, head))
        added = come[fresh]
        lo, hi = (u[added], v[added]) if lower_is_u else (v[added], u[added])
        parts.append((kept_at, grp[keep], cut, added, lo * n_local + hi))
    keys, renumber = _regrouped(
        base.keys,
        np.concatenate((parts[0][1], parts[1][1])),
        np.concatenate((parts[0][4], parts[1][4])),
    )
    up, group = [], []
    for kept_at, kept_grp, cut, added, key in parts:
        grp = renumber(kept_grp)
        slot = np.searchsorted(keys, key)
        up.append(np.concatenate((kept_at[:cut], added, kept_at[cut:])))
        group.append(np.concatenate((grp[:cut], slot, grp[cut:])))
    return _Shape(
        rank=rank,
        same=same,
        high=high,
        up=np.concatenate(up),
        n_up_a=len(up[0]),
        group=np.concatenate(group).astype(base.group.dtype, copy=False),
        keys=keys,
        owner=keys // n_local,
        counts=counts,
    )


def _regrouped(
    keys: IntArray, kept: IntArray, added: IntArray
) -> tuple[IntArray, Callable[[IntArray], IntArray]]:
    """The up-port groups after an edit: of the groups ``keys`` (ascending),
    those that keep a link (``kept``: the group of each link left) and the
    pairs of the links ``added``; and the new number of each kept group.

    Numbering stays by ascending key (as :func:`numpy.unique` gives it): a
    group gone moves every later one down by one, a pair new moves every
    later one up."""
    lost = np.flatnonzero(np.bincount(kept, minlength=len(keys)) == 0)
    left = without_rows(keys, lost) if len(lost) else keys
    fresh = np.unique(added)
    if len(fresh) and len(left):
        at = np.searchsorted(left, fresh)
        known = (at < len(left)) & (left[np.minimum(at, len(left) - 1)] == fresh)
        fresh, at = fresh[~known], at[~known]
    else:  # nothing new, or every old pair gone: all of them are new
        at = np.zeros(len(fresh), dtype=np.int64)
    out = with_rows(left, at, fresh) if len(fresh) else left

    def renumber(group: IntArray) -> IntArray:
        reduced = group - np.searchsorted(lost, group) if len(lost) else group
        if not len(fresh):
            return reduced
        moved: IntArray = reduced + np.searchsorted(at, reduced, side="right")
        return moved

    return out, renumber


def _shape_of(g: ComputeGraph, declared: IntArray) -> _Shape | None:
    """The shape of ``g`` for ``declared`` tiers: kept with the topology,
    patched from the last topology's when the edit was a few links (see
    :func:`_patched_shape`), else made."""
    # the topology's and the declared tiers': the same for any cables
    key = declared.tobytes()
    memo = g.memo.get("tree shape")
    if memo is not None and memo[0] == key:
        shape: _Shape | None = memo[1]
        return shape
    earlier: EarlierEdges | None = g.memo.get("earlier")
    before = earlier.memo.get("tree shape") if earlier is not None else None
    if earlier is not None and before is not None and before[0] == key and before[1]:
        shape = _patched_shape(before[1], earlier, g, declared)
    else:
        shape = _shape(g, declared)
    g.memo["tree shape"] = (key, shape)
    return shape


def check_tree(ctx: Context) -> list[Finding]:
    """The three findings of the module doc (a fabric of two or more tiers)."""
    g = ctx.graph
    shape = _shape_of(g, ctx.index.declared_rank[g.dev])
    if shape is None:
        return []
    out: list[Finding] = []
    rank = shape.rank
    same_u, same_v, high_node, high_switch = shape.ends(g)
    # leaf to leaf, spine to spine
    if len(same_u):
        pairs = sorted(
            {
                tuple(sorted(_names(ctx, [int(a), int(b)])))
                for a, b in zip(same_u.tolist(), same_v.tolist(), strict=True)
            }
        )
        tiers = sorted({int(r) for r in rank[same_u].tolist()})
        what = " and ".join(_TIER.get(t, f"tier-{t}") for t in tiers)
        text = _listed([f"{a} - {b}" for a, b in pairs])
        out.append(
            Finding(
                code="SAME_TIER_SWITCH_LINK",
                severity=Severity.WARNING,
                message=(
                    f"{plural(len(pairs), 'link')} join two {what} switches of one "
                    f"tier in a fat tree ({text}): a miswire, or a link no traffic "
                    "uses; OpenSM's fat-tree router (ftree) takes it as a sibling "
                    "link, so bring-up will not show it"
                ),
                items=sorted({x for p in pairs for x in p})[:MAX_ITEMS],
            )
        )
    # a compute node on a spine
    if len(high_node):
        node_names = _names(ctx, high_node.tolist())
        switch_names = _names(ctx, high_switch.tolist())
        nodes = sorted(set(node_names))
        switches = sorted(set(switch_names))
        pairs = sorted(set(zip(node_names, switch_names, strict=True)))
        text = _listed([f"{a} on {b}" for a, b in pairs])
        out.append(
            Finding(
                code="COMPUTE_ABOVE_LEAF",
                severity=Severity.ERROR,
                message=(
                    f"{plural(len(nodes), 'compute node')} cabled above the leaf "
                    f"tier ({text}): OpenSM's fat-tree router refuses the fabric "
                    "(ERR AB26, a compute node on a switch of a higher rank than "
                    "the leaves) and falls back to minhop; cable the node to a leaf"
                ),
                items=[*nodes, *switches][:MAX_ITEMS],
            )
        )
    out += _uneven_groups(ctx, shape)
    return out


def _uneven_groups(ctx: Context, shape: _Shape) -> list[Finding]:
    """UPLINK_GROUPS_UNEVEN: up-port groups (the cables from a switch to each
    switch one tier up) of different sizes within a tier."""
    if not len(shape.up):
        return []
    g = ctx.graph
    count = ctx.index.cables[g.all_link[shape.up]]
    # one group per (switch, upper switch): its cables, summed in C
    size = np.bincount(shape.group, weights=count, minlength=len(shape.owner))
    size = size.astype(np.int64)
    tier_of = shape.rank[shape.owner]
    odd: list[str] = []
    detail: list[str] = []
    for tier in np.flatnonzero(np.bincount(tier_of)).tolist():
        here = tier_of == tier
        freq = np.bincount(size[here])  # sizes are small counts of cables
        sizes = np.flatnonzero(freq)
        if len(sizes) < 2:
            continue
        common = int(sizes[np.argmax(freq[sizes])])
        bad = sorted(
            _names(ctx, np.unique(shape.owner[here & (size != common)]).tolist())
        )
        odd += bad
        shown = ", ".join(f"{k} cable{'s' if k != 1 else ''}" for k in sizes.tolist())
        detail.append(
            f"{_TIER.get(tier, f'tier-{tier}')} switches have groups of {shown} "
            f"(most have {common}; {_listed(bad)} differ)"
        )
    if not odd:
        return []
    return [
        Finding(
            code="UPLINK_GROUPS_UNEVEN",
            severity=Severity.WARNING,
            message=(
                "up-port groups of different sizes on switches of one tier: "
                + "; ".join(detail)
                + ". OpenSM's fat-tree router refuses such a fabric (ERR AB0B) "
                "and falls back to minhop: route it with up/down (opensm -R "
                "updn) instead of ftree, or even out the groups"
            ),
            items=odd[:MAX_ITEMS],
        )
    ]


_TIER = {1: "leaf", 2: "spine", 3: "core"}
