"""Counting and invariant checks on generated designs, read from the Design only."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from fractions import Fraction

from designer.catalog import Category, default_catalog
from designer.catalog.ports import effective_ports
from designer.core.model import Design, Fabric

TIER_ORDER = {"node": 0, "leaf": 1, "spine": 2, "core": 3}


def kinds(design: Design) -> dict[str, str]:
    """Device id -> tier name, ``node`` (compute) or ``mgmt``."""
    cat = default_catalog()
    out = {}
    for d in design.devices:
        if d.tier is not None:
            out[d.id] = d.tier.value
        elif cat[d.catalog_id].category is Category.COMPUTE:
            out[d.id] = "node"
        else:
            out[d.id] = "mgmt"
    return out


def device_counts(design: Design) -> Counter[str]:
    """Devices by tier / ``node`` / ``mgmt``, plus ``gpus``."""
    cat = default_catalog()
    counts = Counter(kinds(design).values())
    counts["gpus"] = sum(
        cat[d.catalog_id].gpus
        for d in design.devices
        if cat[d.catalog_id].category is Category.COMPUTE
    )
    return counts


def compute_cables(design: Design) -> Counter[str]:
    """Compute-fabric cables by the kinds they join (``leaf-node``, ``leaf-spine``)."""
    kind = kinds(design)
    out: Counter[str] = Counter()
    t = design.links
    for a, b, c, f in zip(t.a, t.b, t.cables, t.fabric, strict=True):
        if f == Fabric.COMPUTE:
            out["-".join(sorted((kind[a], kind[b])))] += c
    return out


def up_down(design: Design) -> tuple[dict[str, dict[str, int]], dict[str, int]]:
    """Per switch: cables to each higher neighbour, and total cables from below."""
    kind = kinds(design)
    rank = {k: TIER_ORDER.get(v, 0) for k, v in kind.items()}
    ups: dict[str, dict[str, int]] = defaultdict(dict)
    down: dict[str, int] = defaultdict(int)
    t = design.links
    for a, b, c, f in zip(t.a, t.b, t.cables, t.fabric, strict=True):
        if f != Fabric.COMPUTE:
            continue
        lo, hi = (a, b) if rank[a] < rank[b] else (b, a)
        assert rank[hi] == rank[lo] + 1 or (rank[lo] == 0 and rank[hi] == 1), (a, b)
        if rank[lo] > 0:
            ups[lo][hi] = ups[lo].get(hi, 0) + c
        down[hi] += c
    return ups, down


def check_invariants(
    design: Design, ratios: tuple[float, ...] = (1.0, 1.0), *, exact: bool = True
) -> None:
    """Fat-tree invariants that must hold on every generated design.

    * links only join adjacent tiers;
    * each switch splits its uplinks equally over the switches above it, and the
      switches below one upper switch all see the same upper set;
    * no port budget is exceeded (breakout and ``Device.ports`` included);
    * no switch is above its tier's down:up ratio, and (``exact``) the fullest
      switch of each tier realises it exactly.
    """
    cat = default_catalog()
    devices = design.device_map()
    ups, down = up_down(design)
    for lo, tops in ups.items():
        assert len(set(tops.values())) == 1, f"{lo} splits uplinks unevenly: {tops}"
    # all switches that share one upper switch reach the same upper set
    # (leaves of one pod or plane share their spines; spines of one position
    # share their core group)
    seen: dict[str, frozenset[str]] = {}
    for lo, tops in ups.items():
        key = frozenset(tops)
        for hi in tops:
            assert seen.setdefault(hi, key) == key, f"{lo} reaches a different set"
    # every fabric; a link at a breakout speed takes 1/split of a native port
    used: dict[tuple[str, str], Fraction] = defaultdict(Fraction)
    t = design.links
    for a, ap, b, bp, c, s in zip(
        t.a, t.a_port, t.b, t.b_port, t.cables, t.speed_gbps, strict=True
    ):
        for did, port in ((a, ap), (b, bp)):
            item = cat[devices[did].catalog_id]
            iface = item.interface(port)
            assert iface is not None, f"{did} has no port group {port}"
            assert iface.split(s) > 0, f"{did} {port} cannot run at {s}G"
            used[(did, port)] += Fraction(c, iface.split(s))
    for (did, port), n in used.items():
        dev = devices[did]
        budget = effective_ports(cat[dev.catalog_id], dev.ports, port)
        assert n <= budget, f"{did} {port}: {float(n)} native ports > {budget}"
    radix_full: dict[int, list[Fraction]] = {}
    for lo, tops in ups.items():
        tier = devices[lo].tier
        assert tier is not None
        up = sum(tops.values())
        dn = down[lo]
        level = 0 if tier.value == "leaf" else 1
        expected = Fraction(ratios[level]).limit_denominator(1000)
        radix_full.setdefault(level, []).append(Fraction(dn, up))
        assert Fraction(dn, up) <= expected, f"{lo}: {dn}:{up} above {expected}"
    for level, got in radix_full.items() if exact else ():
        want = Fraction(ratios[level]).limit_denominator(1000)
        assert max(got) == want, f"tier {level}: best ratio {max(got)} != {want}"


def check_rails(design: Design) -> None:
    """Rail r of every node lands on a leaf serving rail r of that node's SU."""
    devices = design.device_map()
    kind = kinds(design)
    rails_on_leaf: dict[str, set[int]] = defaultdict(set)
    leaf_of: dict[tuple[str | None, int], set[str]] = defaultdict(set)
    t = design.links
    for a, b, r, f in zip(t.a, t.b, t.rail, t.fabric, strict=True):
        if kind[a] == "node" and f == Fabric.COMPUTE:
            assert r is not None, f"compute link {a}-{b} has no rail"
            rails_on_leaf[b].add(r)
            leaf_of[(devices[a].group, r)].add(b)
            assert devices[b].group == devices[a].group, "leaf outside the node's SU"
    for leaf, rails in rails_on_leaf.items():
        first, last = min(rails), max(rails)
        assert rails == set(range(first, last + 1)), (leaf, rails)
        m = re.search(r"-r(\d+)(?:-(\d+))?[a-z]?$", leaf)
        assert m is not None, f"rail leaf {leaf} does not name its rails"
        named = (int(m.group(1)), int(m.group(2) or m.group(1)))
        assert named == (first, last), (leaf, rails)
    for (group, r), leaves in leaf_of.items():
        assert group is not None
        assert all(r in rails_on_leaf[leaf] for leaf in leaves)
