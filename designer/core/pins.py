"""Pinned ports: which port of each device every cable uses, chosen once.

A link is a bundle of ``cables`` cables between two devices' port groups; each
cable's end is *pinned* to one port (``osfp3/2``) or, on a port broken out into
several links, one lane of it (``osfp8/2:1``). The pins live in the link table
(:attr:`designer.core.link_arrays.LinkArrays.a_pins`), are chosen when a link is made
and kept through every later edit, undo, paste and save: an edit frees or takes
only its own ports, so the cabling plan of one link never changes because
another was edited.

The rule (the one the cabling plan used before ports were kept, so an old file
opened once gets the ports its plan had):

- a port carries one whole-port cable, or the lanes of one breakout (one speed);
- a cage holds one module, so all the ports of a cage run one speed;
- the cables waiting for ports are taken per port group with whole ports first,
  then lanes by split and speed; within each, in link order; each cable takes
  the first free port (lowest front-panel position) that these rules allow,
  lanes of a port already broken out at that speed before a new port;
- a cable that finds no free port is pinned to none (the cabling plan says
  why); it gets a port only when an edit of its own link asks again.

Hardware comes from a lookup (:mod:`designer.core.specs`); core does not import
the catalog.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from designer.core.link_arrays import NO_PORT, PENDING
from designer.core.link_model import PIN_PENDING_TEXT, Link
from designer.core.model import Design
from designer.core.occupancy import Kind, Kinds, Occupancy, lane_name, tolerant
from designer.core.specs import Lookup, PortGroupSpec, as_lookup

__all__ = ["choose_pins", "pin_pending", "pinned", "repin_update"]


def _mode_key(
    group: PortGroupSpec | None, speed: int, kind: Kind | None = None
) -> tuple[int, str, int, int]:
    """Order of the cables waiting on a group, as the cabling plan laid them
    out: cables with a module first (by module id), then those with their
    own ends; within each, whole ports, then lanes by split and speed."""
    if group is None:
        return 1, "", 1, 0
    split = max(1, group.split(speed))
    has, module = kind if kind is not None else group.module_kind(speed)
    return has, module, split, speed if split > 1 else 0


def choose_pins(
    design: Design, rows: Sequence[int], lookup: Any, kinds: Kinds | None = None
) -> dict[int, tuple[tuple[str, ...], tuple[str, ...]]]:
    """Ports for the cables of links ``rows`` still waiting for one (the rule
    of the module doc); every other pin on their devices is kept as it is.

    Returns, per row, both ends' pins as they should be (the pins already
    chosen unchanged).
    """
    look = as_lookup(lookup)
    table = design.links
    s = table.arrays
    rows = sorted(set(rows))
    if not rows:
        return {}
    offsets = s.pin_offsets()
    occ = Occupancy(design, look)
    touched = {s.names[s.a[i]] for i in rows} | {s.names[s.b[i]] for i in rows}
    occ.load(touched, kinds=kinds)
    names, ports = s.names, s.port_names
    current: dict[int, list[list[str]]] = {}
    asks: list[tuple[tuple[int, str, int, int], int, int, list[int]]] = []
    for i in rows:
        lo, hi = int(offsets[i]), int(offsets[i + 1])
        speed = int(s.speed[i])
        ends: list[list[str]] = []
        for end, (dev, grp, pins) in enumerate(
            ((s.a[i], s.a_port[i], s.a_pins), (s.b[i], s.b_port[i], s.b_pins))
        ):
            codes = pins[lo:hi].tolist()
            ends.append(
                [
                    s.pin_names[c] if c >= 0 else ("" if c == NO_PORT else "?")
                    for c in codes
                ]
            )
            waiting = [k for k, c in enumerate(codes) if c == PENDING]
            if waiting:
                g = occ.group(names[dev], ports[grp])
                kind = kinds[end][i] if kinds is not None else None
                key = _mode_key(g.group if g is not None else None, speed, kind)
                asks.append((key, i, end, waiting))
        current[i] = ends
    asks.sort(key=lambda a: (a[0], a[1], a[2]))
    for _, i, end, waiting in asks:
        dev = s.a[i] if end == 0 else s.b[i]
        grp = s.a_port[i] if end == 0 else s.b_port[i]
        g = occ.group(names[dev], ports[grp])
        if g is None:  # hardware the catalog does not know: left waiting
            got = [PIN_PENDING_TEXT] * len(waiting)
        else:
            kind = kinds[end][i] if kinds is not None else None
            got = g.take(int(s.speed[i]), len(waiting), str(s.ids[i]), kind)
        chosen_end = current[i][end]
        for k, name in zip(waiting, got, strict=True):
            chosen_end[k] = name
    return {i: (tuple(a), tuple(b)) for i, (a, b) in current.items()}


def _pin_fresh_groups(design: Design, look: Lookup, kinds: Kinds | None) -> None:
    """Pins for every port group whose cables all wait for a port and run one
    speed (a generated design, an old file): the rule then gives cable k of
    the group (in link order) lane ``k % split`` of port ``k // split``, so
    numpy does it for the whole table at once."""
    table = design.links
    s = table.arrays
    n = len(s)
    if not n:
        return
    owner = np.repeat(np.arange(n, dtype=np.int64), s.cables)
    groups = max(1, len(s.port_names))
    keys = np.concatenate(
        (
            s.a[owner].astype(np.int64) * groups + s.a_port[owner],
            s.b[owner].astype(np.int64) * groups + s.b_port[owner],
        )
    )
    codes = np.concatenate((s.a_pins, s.b_pins))
    speed = np.concatenate((s.speed[owner], s.speed[owner]))
    order = np.argsort(keys, kind="stable")  # a ends, then b ends, link order
    k_sorted = keys[order]
    starts = np.flatnonzero(np.r_[True, k_sorted[1:] != k_sorted[:-1]])
    ends = np.r_[starts[1:], len(k_sorted)]
    pending = codes[order] == PENDING
    sp = speed[order]
    # a group is fresh: every cable waits, one speed
    all_pending = np.logical_and.reduceat(pending, starts)
    one_speed = np.maximum.reduceat(sp, starts) == np.minimum.reduceat(sp, starts)
    fresh = all_pending & one_speed
    if kinds is not None:  # and one module kind
        table_of: dict[Kind, int] = {}
        kc = np.asarray(
            [table_of.setdefault(k, len(table_of)) for k in (*kinds[0], *kinds[1])],
            dtype=np.int64,
        )
        kc = np.concatenate((kc[: len(s)][owner], kc[len(s) :][owner]))[order]
        fresh &= np.maximum.reduceat(kc, starts) == np.minimum.reduceat(kc, starts)
    if not fresh.any():
        return
    # within a group, link order (a and b ends of different links interleave)
    row = np.concatenate((owner, owner))[order]
    local = np.lexsort((row, np.repeat(np.arange(len(starts)), ends - starts)))
    order = order[local]
    rank = np.arange(len(order), dtype=np.int64) - np.repeat(starts, ends - starts)
    devices = design.device_map()
    new = codes.copy()
    pin_names = list(s.pin_names)
    intern = {name: i for i, name in enumerate(pin_names)}
    tables: dict[tuple[int, int, int], Any] = {}
    for gi in np.flatnonzero(fresh).tolist():
        key = int(k_sorted[starts[gi]])
        dev_id = s.names[key // groups]
        group_name = s.port_names[key % groups]
        dev = devices.get(dev_id)
        spec = look(dev.catalog_id) if dev is not None else None
        g = spec.port_group(group_name) if spec is not None else None
        lo, hi = int(starts[gi]), int(ends[gi])
        at = order[lo:hi]
        if dev is None or spec is None or g is None:
            continue  # hardware the catalog does not know: left waiting
        count = g.count
        if spec.configurable and dev.ports and group_name in dev.ports:
            count = dev.ports[group_name]
        split = max(1, g.split(int(sp[lo])))
        tkey = (id(g), count, split)
        got = tables.get(tkey)
        if got is None:
            names = [
                lane_name(port, lane, split)
                for p in range(count)
                if (port := g.port_name(p)) is not None
                for lane in range(split)
            ]
            for name in names:
                if name not in intern:
                    intern[name] = len(pin_names)
                    pin_names.append(name)
            got = tables[tkey] = np.asarray([intern[x] for x in names], np.int32)
        r = rank[lo:hi]
        new[at] = np.where(r < len(got), got[np.minimum(r, max(0, len(got) - 1))], -1)
    total = len(s.a_pins)
    table.adopt_pins(new[:total], new[total:], tuple(pin_names))


def pin_pending(
    design: Design,
    lookup: Any,
    rows: Sequence[int] | None = None,
    kinds: Kinds | None = None,
) -> int:
    """Choose the ports of every cable still waiting for one (of ``rows``, or
    of the whole table); return how many links got pins.

    ``kinds``: per end (a, b), per link, the module its cables take (the
    cabling plan's, with the medium a placed design's lengths pick); None:
    each port group's module at the speed (the default medium)."""
    table = design.links
    if rows is None:
        if not table.pins_pending():
            return 0
        look = as_lookup(lookup)
        _pin_fresh_groups(design, tolerant(look), kinds)
        s = table.arrays
        waiting = (s.a_pins == PENDING) | (s.b_pins == PENDING)
        if not waiting.any():
            return len(s)
        owner = np.repeat(np.arange(len(s), dtype=np.int64), s.cables)
        rows = np.unique(owner[waiting]).tolist()
        lookup = look
    chosen = choose_pins(design, rows, lookup, kinds)
    if chosen:
        at = sorted(chosen)
        table.set_pins(at, [chosen[i][0] for i in at], [chosen[i][1] for i in at])
    return len(chosen)


def pinned(design: Design, lookup: Any, kinds: Kinds | None = None) -> Design:
    """``design`` when every cable has its port chosen, else a copy with the
    waiting ones chosen (what saving and opening the design would give)."""
    if not design.links.pins_pending():
        return design
    from designer.core.snapshot import copy

    out = copy(design)
    pin_pending(out, lookup, kinds=kinds)
    return out


def repin_update(old: Link, new: Link, fields: Iterable[str]) -> Link:
    """``new`` (an edit of ``old``) with pins that keep what the edit leaves:
    an end whose device, port group or speed changed waits for new ports;
    fewer cables keep their first pins, more cables wait for ports for the
    added ones; pins the edit names itself are kept as given."""
    given = set(fields)
    ends: dict[str, tuple[str, ...] | None] = {}
    for end in ("a", "b"):
        key = f"{end}_pins"
        if key in given:
            continue
        pins = getattr(old, key)
        moved = (
            getattr(old, end) != getattr(new, end)
            or getattr(old, f"{end}_port") != getattr(new, f"{end}_port")
            or old.speed_gbps != new.speed_gbps
        )
        if pins is None or moved:
            ends[key] = None
            continue
        c = new.cables
        kept = pins[:c]
        ends[key] = (*kept, *([PIN_PENDING_TEXT] * (c - len(kept))))
    return new.model_copy(update=ends) if ends else new
