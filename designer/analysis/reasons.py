"""The connection rules' own reasons, for findings the rules also refuse.

A port budget, speed, media or role finding quotes the reason the canvas,
bulk wiring, paste and Properties give for the same problem
(:mod:`designer.core.checks`), worded for a design that has it ("9 are in
use" where an edit says "9 would be in use"). Only a few examples are worded,
so this runs on a handful of rows whatever the design's size.
"""

from __future__ import annotations

import numpy as np

from designer.analysis.index import DesignIndex
from designer.catalog.schema import CatalogEntry
from designer.core.checks import media_problem, role_problem, speed_problem
from designer.core.errors import over_budget
from designer.core.model import FABRICS, Device, Fabric
from designer.core.specs import DeviceSpec, PortGroupSpec, spec_from_entry

_SPECS: dict[str, tuple[CatalogEntry, DeviceSpec]] = {}


def _spec(entry: CatalogEntry) -> DeviceSpec:
    """The rules' spec of a catalog entry (kept per entry; entries are frozen)."""
    held = _SPECS.get(entry.slug)
    if held is None or held[0] is not entry:
        held = _SPECS[entry.slug] = (entry, spec_from_entry(entry))
    return held[1]


def _end(idx: DesignIndex, dev: int, port: int) -> tuple[Device, PortGroupSpec] | None:
    """The rules' view of one link end (None when the catalog lacks it)."""
    entry = idx.entries[int(idx.dev_catalog[dev])]
    if entry is None:
        return None
    group = _spec(entry).port_group(idx.port_names[port])
    if group is None:
        return None
    device = Device.model_construct(
        id=idx.device_ids[dev], catalog_id=idx.catalog_ids[idx.dev_catalog[dev]]
    )
    return device, group


def budget_reason(idx: DesignIndex, dev: int, port: int, capacity: int) -> str | None:
    """'dgx-h100 dgx-1: port group 'compute' has 8 ports ... but 9 are in use ...'.

    Native ports are counted as the rules count them: per speed, links over
    the breakout split, rounded up.
    """
    end = _end(idx, dev, port)
    if end is None:
        return None
    device, group = end
    rows_a = (idx.a == dev) & (idx.a_port == port)
    rows_b = (idx.b == dev) & (idx.b_port == port)
    speeds = np.concatenate((idx.speed[rows_a], idx.speed[rows_b]))
    cables = np.concatenate((idx.cables[rows_a], idx.cables[rows_b]))
    native, total = 0, int(cables.sum())
    for speed in np.unique(speeds).tolist():
        n = int(cables[speeds == speed].sum())
        native += -(-n // max(group.split(speed), 1))
    if native <= capacity:
        return None
    return str(over_budget(device, group, capacity, native, total, proposed=False))


def pair_reason(idx: DesignIndex, link: int, what: str) -> str | None:
    """The rules' reason ``what`` (speed, media, role) for one link, or None."""
    ea = _end(idx, int(idx.a[link]), int(idx.a_port[link]))
    eb = _end(idx, int(idx.b[link]), int(idx.b_port[link]))
    if ea is None or eb is None:
        return None
    (da, ga), (db, gb) = ea, eb
    lid = idx.link_ids[link]
    if what == "speed":
        err = speed_problem(da, ga, db, gb, int(idx.speed[link]), lid)
    elif what == "media":
        err = media_problem(da, ga, db, gb, lid)
    else:
        fabric: Fabric = FABRICS[int(idx.fabric[link])]
        err = role_problem(da, ga, db, gb, fabric, lid)
    return None if err is None else str(err)
