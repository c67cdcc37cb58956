"""Patch a :class:`DesignIndex` for device edits (used by :mod:`.incremental`).

Devices inserted (a palette drop, a paste, the undo of a delete), removed (their
links already dropped) or edited in place (model swap, regroup, retier, rack,
ports) get new per-device rows; link ends are renumbered; catalog ids and racks
are renumbered by first use, as :func:`build_index` numbers them, so the report
is the one a rebuild gives. Arrays of the old index are never written to.
(Compute nodes that come or go change the bisection's endpoints; the carried
bound handles that by the compute fingerprint, see :mod:`.incremental`.)
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from typing import Any

import numpy as np

from designer.analysis.ends import EndTable
from designer.analysis.index import (
    DesignIndex,
    PortKey,
    _endpoint_orders,
    device_columns,
)
from designer.analysis.rows import cut_rows, put_rows
from designer.core.model import Design

MAX_EDITED_DEVICES = 5_000
"""Bigger in-place device edits are rebuilt in the worker."""

_DEVICE_COLUMNS = (
    "dev_catalog",
    "kind",
    "gpus",
    "nvlink_domain",
    "power_w",
    "u_height",
    "declared_rank",
    "group",
    "rack",
    "compute_ports",
    "compute_native",
    "has_port_override",
)


def find_positions(seq: list[str], ids: Collection[str]) -> dict[str, int]:
    """Positions of ``ids`` in ``seq`` (ids are unique there; missing ones left out).

    A few ids: one C-level ``list.index`` scan each, no dict of the whole table.
    """
    if len(ids) <= 8:
        out: dict[str, int] = {}
        for x in ids:
            if x in seq:  # both scans in C; a miss is rare (stale event)
                out[x] = seq.index(x)
        return out
    want = set(ids)
    return {lid: i for i, lid in enumerate(seq) if lid in want}


def remove_devices(
    design: Design,
    index: DesignIndex,
    ids: set[str],
) -> DesignIndex | None:
    """Devices deleted (their links already gone): drop rows, renumber link ends."""
    where = find_positions(index.device_ids, ids)
    if len(where) != len(ids) or len(design.devices) != index.n_devices - len(ids):
        return None
    keep = np.ones(index.n_devices, dtype=np.bool_)
    keep[list(where.values())] = False
    if not (keep[index.a].all() and keep[index.b].all()):
        return None  # a link still touches a removed device
    renumber = np.cumsum(keep) - 1
    at = sorted(where.values())
    cols = {name: cut_rows(getattr(index, name), at) for name in _DEVICE_COLUMNS}
    device_ids = list(index.device_ids)
    ports = list(index.device_ports)
    for p in reversed(at):
        del device_ids[p]
        del ports[p]
    if device_ids != [d.id for d in design.devices]:
        return None
    return _finish(
        design,
        index,
        cols,
        catalog_ids=list(index.catalog_ids),
        entries=list(index.entries),
        rack_names=list(index.rack_names),
        device_ids=device_ids,
        device_ports=ports,
        a=renumber[index.a],
        b=renumber[index.b],
        renumber=renumber,
    )


def insert_devices(
    design: Design,
    index: DesignIndex,
    ids: set[str],
) -> DesignIndex | None:
    """Devices inserted (appended, or restored by an undo) with no links yet."""
    devices = design.devices
    n, k = len(devices), len(ids)
    if n != index.n_devices + k:
        return None
    now_ids = [d.id for d in devices]
    if set(now_ids[n - k :]) == ids:
        positions = list(range(n - k, n))
    else:
        positions = sorted(find_positions(now_ids, ids).values())
    if len(positions) != k:
        return None
    fresh = [devices[i] for i in positions]
    columns = _fresh_rows(design, index, fresh)
    if columns is None:
        return None
    rows, catalog_ids, entries, rack_names = columns
    cols: dict[str, Any] = {
        name: put_rows(getattr(index, name), positions, rows[name])
        for name in _DEVICE_COLUMNS
    }
    device_ids = list(index.device_ids)
    ports = list(index.device_ports)
    for p in positions:
        device_ids.insert(p, now_ids[p])
        ports.insert(p, devices[p].ports)
    if device_ids != now_ids:
        return None
    added = np.zeros(n, dtype=np.bool_)
    added[positions] = True
    renumber = np.flatnonzero(~added)
    return _finish(
        design,
        index,
        cols,
        catalog_ids=catalog_ids,
        entries=entries,
        rack_names=rack_names,
        device_ids=device_ids,
        device_ports=ports,
        a=renumber[index.a],
        b=renumber[index.b],
        renumber=renumber,
    )


def edit_devices(
    design: Design,
    index: DesignIndex,
    ids: set[str],
) -> DesignIndex | None:
    """Devices edited in place (model, group, tier, rack, ports): new rows."""
    if len(ids) > MAX_EDITED_DEVICES or len(design.devices) != index.n_devices:
        return None
    where = find_positions(index.device_ids, ids)
    if len(where) != len(ids):
        return None
    at = sorted(where.values())
    fresh = [design.devices[i] for i in at]
    if [d.id for d in fresh] != [index.device_ids[i] for i in at]:
        return None
    columns = _fresh_rows(design, index, fresh)
    if columns is None:
        return None
    rows, catalog_ids, entries, rack_names = columns
    pos = np.asarray(at, dtype=np.int64)
    cols: dict[str, Any] = {}
    for name in _DEVICE_COLUMNS:
        col = getattr(index, name).copy()
        col[pos] = rows[name]
        cols[name] = col
    ports = list(index.device_ports)
    for i, d in zip(at, fresh, strict=True):
        ports[i] = d.ports
    return _finish(
        design,
        index,
        cols,
        catalog_ids=catalog_ids,
        entries=entries,
        rack_names=rack_names,
        device_ids=index.device_ids,
        device_ports=ports,
        a=index.a,
        b=index.b,
        touched=pos,
    )


def _fresh_rows(
    design: Design, index: DesignIndex, fresh: list[Any]
) -> tuple[dict[str, Any], list[str], list[Any], list[str]] | None:
    """Index rows for ``fresh`` devices, extending the index's catalog ids and racks.

    Returns (rows, catalog ids, entries, rack names with new racks last), or None
    when a device names a group the design lacks (left to a full rebuild).
    """
    group_pos = {g.id: i for i, g in enumerate(design.groups)}
    if any(d.group is not None and d.group not in group_pos for d in fresh):
        return None
    catalog_ids = list(index.catalog_ids)
    entries = list(index.entries)
    rack_pos = {r: i for i, r in enumerate(index.rack_names)}
    rows = device_columns(
        fresh,
        index.catalog,
        {c: i for i, c in enumerate(catalog_ids)},
        catalog_ids,
        entries,
        group_pos,
        rack_pos,
    )
    return rows, catalog_ids, entries, list(rack_pos)


def _finish(
    design: Design,
    index: DesignIndex,
    cols: dict[str, Any],
    *,
    catalog_ids: list[str],
    entries: list[Any],
    rack_names: list[str],
    device_ids: list[str],
    device_ports: list[dict[str, int] | None],
    a: np.ndarray,
    b: np.ndarray,
    touched: np.ndarray | None = None,
    renumber: np.ndarray | None = None,
) -> DesignIndex:
    """Catalog ids and racks renumbered by first use, as in build_index."""
    order, remap = _first_seen(cols["dev_catalog"], len(catalog_ids))
    cols["dev_catalog"] = remap[cols["dev_catalog"]]
    port_keys = {
        (int(remap[c]), p): key
        for (c, p), key in index.port_keys.items()
        if c < len(remap) and remap[c] >= 0
    }
    rack = cols["rack"]
    r_order, r_remap = _first_seen(rack, len(rack_names))
    placed = rack >= 0
    rack = rack.copy()
    rack[placed] = r_remap[rack[placed]]
    cols["rack"] = rack
    new = replace(
        index,
        device_ids=device_ids,
        device_ids_arr=np.asarray(device_ids, dtype=object),
        catalog_ids=[catalog_ids[c] for c in order],
        entries=[entries[c] for c in order],
        rack_names=[rack_names[r] for r in r_order],
        device_ports=device_ports,
        port_keys=port_keys,
        a=a,
        b=b,
        **cols,
    )
    if touched is not None:  # new models: their port groups on existing links
        near = np.isin(a, touched) | np.isin(b, touched)
        for dev, port in ((a[near], new.a_port[near]), (b[near], new.b_port[near])):
            pairs = set(zip(new.dev_catalog[dev].tolist(), port.tolist(), strict=True))
            for c, code in pairs:
                if (c, code) not in port_keys:
                    entry = new.entries[c]
                    name = new.port_names[code]
                    port_keys[(c, code)] = PortKey(
                        new.catalog_ids[c],
                        name,
                        entry.interface(name) if entry else None,
                    )
    new._ends = new._ends_patch = None  # built by the first reader (the worker)
    same_catalog = order == list(range(len(index.catalog_ids)))
    if renumber is not None and same_catalog and has_ends(index):
        # the worker renumbers the old end table's devices (monotone: codes kept)
        n_ports = max(len(index.port_names), 1)
        new._ends_patch = lambda: _ends_renumbered(index.ends, renumber, n_ports)
    new.endpoint_order = _endpoint_orders(design, new)
    return new


def has_ends(index: DesignIndex) -> bool:
    return index._ends is not None or index._ends_patch is not None


def _ends_renumbered(ends: EndTable, renumber: np.ndarray, n_ports: int) -> EndTable:
    """The end table with device positions renumbered (order kept, so every code
    stays; only the keys that embed a device position change)."""
    dev_k, port_k = np.divmod(ends.group_key, n_ports)
    n_mod = max(len(ends.module_id), 1)
    rest, mod_k = np.divmod(ends.cage_key, n_mod)
    cdev, cport = np.divmod(rest, n_ports)
    return replace(
        ends,
        dev=renumber[ends.dev],
        other=renumber[ends.other],
        group_key=renumber[dev_k] * n_ports + port_k,
        cage_key=(renumber[cdev] * n_ports + cport) * n_mod + mod_k,
    )


def _first_seen(codes: np.ndarray, n_codes: int) -> tuple[list[int], np.ndarray]:
    """Used codes in order of first appearance, and old code -> new code (-1 unused)."""
    used = codes[codes >= 0]
    uniq, first = np.unique(used, return_index=True)
    order = uniq[np.argsort(first, kind="stable")].tolist()
    remap = np.full(max(n_codes, 1), -1, dtype=np.int64)
    remap[order] = np.arange(len(order), dtype=np.int64)
    return order, remap
