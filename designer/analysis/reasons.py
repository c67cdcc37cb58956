"""The connection rules' own reasons, for findings the rules also refuse.

A port budget, speed, media or role finding quotes the reason the canvas,
bulk wiring, paste and Properties give for the same problem
(:mod:`designer.core.checks`), worded for a design that has it ("9 are in
use" where an edit says "9 would be in use"). Only a few examples are worded,
so this runs on a handful of rows whatever the design's size.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from designer.analysis.index import DesignIndex
from designer.catalog.schema import CatalogEntry
from designer.core.errors import over_budget
from designer.core.model import FABRIC_CODE, FABRICS, Device, Fabric
from designer.core.rules import media_problem, oob_problem, role_problem, speed_problem
from designer.core.specs import (
    DeviceSpec,
    PortGroupSpec,
    is_management_switch,
    spec_from_entry,
)

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
    far = np.concatenate((idx.b[rows_a], idx.a[rows_b]))
    ends: dict[str, int] = {}
    for other, n in zip(far.tolist(), cables.tolist(), strict=True):
        name = idx.device_ids[other]
        ends[name] = ends.get(name, 0) + int(n)
    return str(
        over_budget(device, group, capacity, native, total, proposed=False, ends=ends)
    )


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


def management_switches(idx: DesignIndex) -> npt.NDArray[np.bool_]:
    """Per device: a management (out-of-band) switch, as the rules define it."""
    per_cat = np.array(
        [e is not None and is_management_switch(_spec(e)) for e in idx.entries],
        dtype=np.bool_,
    )
    if not len(per_cat):
        return np.zeros(idx.n_devices, dtype=np.bool_)
    return per_cat[idx.dev_catalog]


def managed(idx: DesignIndex) -> npt.NDArray[np.bool_]:
    """Per device: an out-of-band link of its own reaches a management switch
    (the link passes the out-of-band rule; a BMC cabled to another BMC or to a
    fabric switch's mgmt port is not managed)."""
    ok = oob_links(idx)[1]
    switch = management_switches(idx)
    a, b = idx.a[ok], idx.b[ok]
    out = np.zeros(idx.n_devices, dtype=np.bool_)
    out[a[switch[b]]] = True
    out[b[switch[a]]] = True
    return out


def oob_links(
    idx: DesignIndex,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], str | None]:
    """(out-of-band links the rule refuses, those it accepts, the rules' reason
    for the first refused one prefixed by its id). One rule call per kind of
    link (catalog entries and port groups of both ends), not per link."""
    rows = np.flatnonzero(idx.fabric == FABRIC_CODE[Fabric.OOB])
    empty = np.zeros(0, dtype=np.int64)
    if not len(rows):
        return empty, empty, None
    cat = idx.dev_catalog
    keys = np.stack(
        (
            cat[idx.a[rows]],
            idx.a_port[rows],
            cat[idx.b[rows]],
            idx.b_port[rows],
        ),
        axis=1,
    ).astype(np.int64)
    kinds, first, inverse = np.unique(
        keys, axis=0, return_index=True, return_inverse=True
    )
    bad_kind = np.zeros(len(kinds), dtype=np.bool_)
    reasons: dict[int, str] = {}
    for k, at in enumerate(first.tolist()):
        link = int(rows[at])
        ea = _end(idx, int(idx.a[link]), int(idx.a_port[link]))
        eb = _end(idx, int(idx.b[link]), int(idx.b_port[link]))
        if ea is None or eb is None:
            continue  # unknown catalog ids and port groups have findings of their own
        (da, ga), (db, gb) = ea, eb
        sa = _spec(idx.entries[int(cat[idx.a[link]])])  # type: ignore[arg-type]
        sb = _spec(idx.entries[int(cat[idx.b[link]])])  # type: ignore[arg-type]
        err = oob_problem(da, sa, ga, db, sb, gb, idx.link_ids[link])
        if err is not None:
            bad_kind[k] = True
            reasons[k] = str(err)
    bad_row = bad_kind[inverse.reshape(-1)]
    bad, good = rows[bad_row], rows[~bad_row]
    reason = None
    if len(bad):
        k = int(inverse.reshape(-1)[np.flatnonzero(bad_row)[0]])
        reason = f"{idx.link_ids[int(bad[0])]}: {reasons[k]}"
    return bad, good, reason
