"""Geometry checks on laid-out designs, read from the Design only (no Qt).

Boxes use the canvas glyph size (a device is 64 x 32 scene units around its
centre, ``designer.qt.canvas.style``), repeated here so these tests stay pure.
"""

from __future__ import annotations

import itertools
from collections import defaultdict

from designer.core.model import Design, Tier

DEVICE_W = 64.0
DEVICE_H = 32.0
Box = tuple[float, float, float, float]


def top_level(design: Design) -> dict[str, str]:
    """Group id -> id of its outermost ancestor."""
    parent = {g.id: g.parent for g in design.groups}
    out = {}
    for gid in parent:
        seen, g = [gid], gid
        while parent.get(g) is not None and parent[g] not in seen:
            g = parent[g]  # type: ignore[assignment]
            seen.append(g)
        out[gid] = g
    return out


def box_of(points: list[tuple[float, float]]) -> Box:
    """Bounding box of device glyphs centred on ``points``."""
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return (
        min(xs) - DEVICE_W / 2,
        min(ys) - DEVICE_H / 2,
        max(xs) + DEVICE_W / 2,
        max(ys) + DEVICE_H / 2,
    )


def overlap(a: Box, b: Box) -> bool:
    """True when two boxes share area (touching edges do not count)."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def blocks(design: Design, *, ungrouped: bool) -> dict[str, Box]:
    """Boxes of the top-level groups (what the overview draws as blocks), plus,
    when ``ungrouped``, one box per tier / kind of device outside any group."""
    top = top_level(design)
    pts: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for d in design.devices:
        if d.group is not None:
            pts[top[d.group]].append((d.x, d.y))
        elif ungrouped:
            key = f"tier:{d.tier.value}" if d.tier is not None else "other"
            pts[key].append((d.x, d.y))
    return {k: box_of(v) for k, v in pts.items()}


def overlapping_blocks(design: Design, *, ungrouped: bool) -> list[tuple[str, str]]:
    """Pairs of different blocks whose boxes overlap."""
    b = blocks(design, ungrouped=ungrouped)
    return [
        (i, j) for i, j in itertools.combinations(sorted(b), 2) if overlap(b[i], b[j])
    ]


def overlapping_devices(design: Design) -> list[tuple[str, str]]:
    """Pairs of devices whose glyphs overlap (bucketed, so fast at 100K GPUs)."""
    cells: dict[tuple[int, int], list[int]] = defaultdict(list)
    devs = design.devices
    for k, d in enumerate(devs):
        cells[(int(d.x // DEVICE_W), int(d.y // DEVICE_H))].append(k)
    out = []
    for (cx, cy), members in cells.items():
        near = [
            m
            for dx in (-1, 0, 1)
            for dy in (-1, 0, 1)
            for m in cells.get((cx + dx, cy + dy), [])
        ]
        for a in members:
            for b in near:
                if b > a and (
                    abs(devs[a].x - devs[b].x) < DEVICE_W
                    and abs(devs[a].y - devs[b].y) < DEVICE_H
                ):
                    out.append((devs[a].id, devs[b].id))
    return out


def aspect(design: Design) -> float:
    """Width : height of the whole design's bounding box."""
    x0, y0, x1, y1 = box_of([(d.x, d.y) for d in design.devices])
    return (x1 - x0) / (y1 - y0)


def tier_order_problems(design: Design) -> list[str]:
    """Where compute is not the lowest of its SU, a leaf is outside its SU's
    span, a pod's spines are not above its leaves, or the top band (cores, or
    spines of two tiers) is not above everything it connects to."""
    groups = design.group_map()
    by_group: dict[str, list[int]] = defaultdict(list)
    devs = design.devices
    for k, d in enumerate(devs):
        if d.group is not None:
            by_group[d.group].append(k)
    problems: list[str] = []
    pod_leaves: dict[str, list[float]] = defaultdict(list)
    pod_x: dict[str, list[float]] = defaultdict(list)
    all_leaf_top = min((d.y for d in devs if d.tier is Tier.LEAF), default=0.0)
    for gid, members in by_group.items():
        g = groups[gid]
        if g.kind.value != "su":
            continue
        nodes = [devs[k] for k in members if devs[k].tier is None]
        leaves = [devs[k] for k in members if devs[k].tier is Tier.LEAF]
        if not nodes:
            continue
        low = max(n.y for n in nodes)
        if any(n.y > low for n in leaves) or max(d.y for d in (nodes + leaves)) > low:
            problems.append(f"{gid}: compute is not the lowest row")
        if leaves and max(x.y for x in leaves) >= min(n.y for n in nodes):
            problems.append(f"{gid}: a leaf is not above every compute node")
        left = min(d.x for d in nodes + leaves)
        right = max(d.x for d in nodes + leaves)
        if leaves and any(not left <= x.x <= right for x in leaves):
            problems.append(f"{gid}: a leaf outside the SU")
        if g.parent is not None:
            pod_leaves[g.parent] += [x.y for x in leaves]
            pod_x[g.parent] += [left, right]
    for gid, ys in pod_leaves.items():
        spines = [devs[k] for k in by_group[gid] if devs[k].tier is Tier.SPINE]
        if spines and max(s.y for s in spines) >= min(ys):
            problems.append(f"{gid}: a spine is not above the pod's leaves")
        if any(not min(pod_x[gid]) <= s.x <= max(pod_x[gid]) for s in spines):
            problems.append(f"{gid}: a spine outside the pod's span")
    band = [d for d in devs if d.group is None and d.tier is not None]
    grouped_switch = [d.y for d in devs if d.group is not None and d.tier is not None]
    if band and grouped_switch and max(d.y for d in band) >= min(grouped_switch):
        problems.append("the top band is not above every grouped switch")
    if band and max(d.y for d in band) >= all_leaf_top and len(band) > 1:
        problems.append("the top band is not above the leaves")
    return problems
