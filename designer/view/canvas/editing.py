"""Pure builders of the canvas's edits: each returns a core command (no Qt).

The view turns gestures into calls of these functions and runs the result with
``document.execute``; a refusal raises :class:`ConnectionRefused` (or
:class:`EditRefused`) with a message for the user.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping

from designer.catalog.schema import CatalogEntry
from designer.core.commands import Command, Macro, SetGroups
from designer.core.device_commands import AddDevices, UpdateDevices
from designer.core.formatting import plural
from designer.core.model import Design, Device, Group, GroupKind, Tier
from designer.view.canvas.sizes import GRID, PLACE_STEP_X, snap

TIER_RANK = {t: t.rank for t in Tier}
RANK_TIER = {v: k for k, v in TIER_RANK.items()}
ROW_PITCH = 240.0


class EditRefused(Exception):
    """An edit cannot be made; ``str(exc)`` says why."""


def fresh_ids(used: Iterable[str], prefix: str, n: int) -> list[str]:
    """``n`` ids ``prefix-<k>`` not in ``used`` (k continues after the highest)."""
    taken = set(used)
    pattern = re.compile(re.escape(prefix) + r"-(\d+)$")
    top = 0
    for i in taken:
        m = pattern.match(i)
        if m:
            top = max(top, int(m.group(1)))
    out: list[str] = []
    for k in itertools.count(top + 1):
        cand = f"{prefix}-{k}"
        if cand not in taken:
            out.append(cand)
            if len(out) == n:
                break
    return out


def place_devices(
    design: Design,
    catalog: Mapping[str, CatalogEntry],
    catalog_id: str,
    count: int,
    x: float,
    y: float,
    snap_on: bool = True,
) -> AddDevices:
    """``count`` new devices of one catalog entry in a row starting at (x, y)."""
    entry = catalog.get(catalog_id)
    if entry is None:
        raise EditRefused(f"unknown catalog item {catalog_id!r}")
    if not 1 <= count <= 10_000:
        raise EditRefused(f"count must be between 1 and 10000, not {count}")
    ids = fresh_ids((d.id for d in design.devices), catalog_id, count)
    x0, y0 = snap(x, snap_on), snap(y, snap_on)
    devices = [
        Device(
            id=did,
            catalog_id=catalog_id,
            label="",  # named by its id (designer.core.names), the model beside it
            x=x0 + k * PLACE_STEP_X,
            y=y0,
        )
        for k, did in enumerate(ids)
    ]
    label = f"Add {entry.model}" if count == 1 else f"Add {count}x {entry.model}"
    return AddDevices(devices, label=label)


# --- groups -------------------------------------------------------------------


def group_devices(design: Design, ids: Iterable[str], kind: str) -> Command:
    """Put the devices into a new group of ``kind`` (one step).

    Linear in the design: one map of the devices, set lookups per member (2,000
    of the 100K design's devices: ``bench/bench_grouping.py``)."""
    devices = design.device_map()
    members = list(dict.fromkeys(i for i in ids if i in devices))
    if not members:
        raise EditRefused("select devices to group")
    try:
        gkind = GroupKind(kind)
    except ValueError:
        raise EditRefused(f"unknown group kind {kind!r}") from None
    (gid,) = fresh_ids((g.id for g in design.groups), gkind.value, 1)
    number = gid.rsplit("-", 1)[1]
    name = {"su": "SU", "pod": "Pod"}.get(gkind.value, gkind.value.capitalize())
    groups = design.group_map()
    old_parents = {
        g for i in members if (g := devices[i].group) is not None and g in groups
    }
    parent = None
    if gkind is GroupKind.POD:
        # a pod adopts the SU groups of its members instead of stealing devices
        new_group = Group(id=gid, label=f"{name} {number}", kind=gkind)
        new_groups = [
            g.model_copy(update={"parent": gid}) if g.id in old_parents else g
            for g in design.groups
        ] + [new_group]
        loose = [i for i in members if devices[i].group is None]
        cmds: list[Command] = [SetGroups(new_groups)]
        if loose:
            cmds.append(UpdateDevices({i: {"group": gid} for i in loose}))
        return Macro(f"Group {plural(len(members), 'device')} as {name}", cmds)
    if len(old_parents) == 1:
        parent = groups[next(iter(old_parents))].parent
    new_group = Group(id=gid, label=f"{name} {number}", kind=gkind, parent=parent)
    return Macro(
        f"Group {plural(len(members), 'device')} as {name}",
        [
            SetGroups([*design.groups, new_group]),
            UpdateDevices({i: {"group": gid} for i in members}),
        ],
    )


# --- tiers and layout -----------------------------------------------------------


def tier_ranks(design: Design, catalog: Mapping[str, CatalogEntry]) -> dict[str, int]:
    """Rank per device: 0 end point, 1 leaf, 2 spine, 3 core (declared or inferred)."""
    rank: dict[str, int] = {}
    switches: list[str] = []
    for d in design.devices:
        entry = catalog.get(d.catalog_id)
        is_switch = entry is not None and entry.category == "switch"
        if not is_switch:
            rank[d.id] = 0
        elif d.tier is not None:
            rank[d.id] = TIER_RANK[d.tier]
        else:
            switches.append(d.id)
    if switches:
        neighbours: dict[str, set[str]] = {s: set() for s in switches}
        for a, b in zip(design.links.a, design.links.b, strict=True):
            if a in neighbours:
                neighbours[a].add(b)
            if b in neighbours:
                neighbours[b].add(a)
        pending = set(switches)
        level = 0
        while pending:
            ready = {
                s
                for s in pending
                if any(rank.get(n, 99) == level for n in neighbours[s])
            }
            if not ready:
                for s in pending:
                    rank[s] = max(level, 1) if level else 1
                break
            for s in ready:
                rank[s] = min(level + 1, 3)
            pending -= ready
            level += 1
    return rank


def split_tiers(
    design: Design, catalog: Mapping[str, CatalogEntry], ids: Iterable[str]
) -> tuple[list[str], list[str]]:
    """Selected switches of the lowest tier and of the tier above it."""
    ranks = tier_ranks(design, catalog)
    chosen = [i for i in ids if ranks.get(i, 0) > 0]
    levels = sorted({ranks[i] for i in chosen})
    if len(levels) < 2:
        found = ", ".join(RANK_TIER[x].value for x in levels) or "no switches"
        raise EditRefused(
            "select switches of two tiers (e.g. leaves and spines); the selection "
            f"has {found}"
        )
    lower = [i for i in chosen if ranks[i] == levels[0]]
    upper = [i for i in chosen if ranks[i] == levels[1]]
    return lower, upper


def auto_layout(design: Design, catalog: Mapping[str, CatalogEntry]) -> UpdateDevices:
    """Rows by tier: compute at the bottom, then leaf, spine and core."""
    ranks = tier_ranks(design, catalog)
    top = max(ranks.values(), default=0)
    order = {g.id: i for i, g in enumerate(design.groups)}
    rows: dict[int, list[Device]] = {}
    for d in design.devices:
        rows.setdefault(ranks[d.id], []).append(d)
    updates: dict[str, dict[str, object]] = {}
    for rank, devs in rows.items():
        devs.sort(key=lambda d: (order.get(d.group or "", -1), d.x))
        xs: list[float] = []
        x = 0.0
        prev: str | None = devs[0].group if devs else None
        for d in devs:
            if d.group != prev:
                x += 2 * GRID
                prev = d.group
            xs.append(x)
            x += PLACE_STEP_X
        shift = snap(xs[-1] / 2) if xs else 0.0
        y = (top - rank) * ROW_PITCH
        for d, xx in zip(devs, xs, strict=True):
            updates[d.id] = {"x": xx - shift, "y": y}
    return UpdateDevices(updates, label="Auto layout")
