"""The report's ``physical`` block and the findings of the physical layer.

Codes (severity in brackets; never renamed, only added to). Items are the
devices involved (the racks are named in the message), or the links for
cable findings:

- ``RACK_POWER_EXCEEDED`` [error] a rack's IT load (device maximum power) is
  above what its rack type's feeds deliver (``RackType.max_kw``).
- ``RACK_COOLING_EXCEEDED`` [error] a rack's load is above what the facility
  removes from a rack of its cooling class (``facility.air_kw``,
  ``containment_kw``, ``liquid_kw``).
- ``LIQUID_IN_AIR_RACK`` [error] a liquid-cooled device (NVL72 compute trays)
  in a rack whose cooling class is not ``liquid``.
- ``RACK_U_OVERFLOW`` [error] a device reaches above the top of its rack.
- ``RACK_U_OVERLAP`` [error] two devices share a rack unit.
- ``CABLE_TOO_LONG`` [error] a link is longer than every medium of its speed
  class reaches (XDR past single-mode, 1G copper past 100 m, ...).
- ``HALL_POWER_EXCEEDED`` [error] a hall's IT load is above its power budget.
- ``DEVICE_UNPLACED`` [warning] in a placed design, devices without a rack or
  without a U (their cables have no length, their U is not checked).
- ``RACK_OUTSIDE_HALL`` [warning] a rack stands outside its hall's floor.
"""

from __future__ import annotations

import numpy as np

from designer.analysis.context import MAX_ITEMS, first_listed
from designer.analysis.index import DesignIndex, IntArray
from designer.analysis.lengths import PhysicalIndex, media_of, physical_of
from designer.analysis.report import (
    CoolingCounts,
    Finding,
    MediaCounts,
    PhysicalReport,
    Severity,
)
from designer.core.formatting import plural, verb
from designer.core.physical import COOLING_ORDER, Cooling

_UNPLACED_NOTE = (
    "The design has no physical block: no racks, lengths unknown; cables are "
    "counted in the default medium of their speed class."
)


def _round(x: float, digits: int = 2) -> float:
    return round(float(x), digits)


def physical_report(index: DesignIndex, modules: dict[str, int]) -> PhysicalReport:
    """The ``physical`` block of the report (see :class:`PhysicalReport`)."""
    optics = index.catalog.optics
    media_count = dict.fromkeys(MediaCounts.model_fields, 0)
    per_class = _cables_per_class(index)
    optics_w = 0.0
    for i, qty in enumerate(per_class.tolist()):
        if qty:
            c = optics.cables[i]
            media_count[c.medium.value] += int(qty)
            optics_w += qty * (c.power_w or 0.0)
    for mid, qty in modules.items():
        optics_w += qty * (optics.transceiver(mid).power_w or 0.0)
    phys, media = physical_of(index), media_of(index)
    if phys is None or media is None:
        return PhysicalReport(
            cables_by_media=MediaCounts(**media_count),
            cables_without_length=int(index.cables.sum()),
            optics_kw=_round(optics_w / 1000, 3),
            note=_UNPLACED_NOTE,
        )
    p = phys.physical
    cooling = np.bincount(phys.cooling, minlength=len(COOLING_ORDER))
    known = ~np.isnan(media.length_m)
    placed = phys.rack_of >= 0
    floor = sum(h.width_m * h.depth_m for h in p.halls)
    budgets = [h.power_budget_kw for h in p.halls if h.power_budget_kw is not None]
    it_kw = float(phys.kw.sum())
    lengths = media.length_m[known]
    note = ""
    if not known.all():
        note = (
            f"{plural(int(index.cables[~known].sum()), 'cable')} "
            f"{verb(int(index.cables[~known].sum()), 'has', 'have')} an end outside "
            "every rack: no length, default medium"
        )
    return PhysicalReport(
        placed=True,
        racks=phys.n_racks,
        racks_by_cooling=CoolingCounts(
            **{c.value: int(cooling[i]) for i, c in enumerate(COOLING_ORDER)}
        ),
        max_rack_kw=_round(phys.kw.max()) if phys.n_racks else None,
        rows=len(p.rows),
        halls=len(p.halls),
        floor_m2=_round(floor, 1) if p.halls else None,
        rack_footprint_m2=_round(float((phys.width * phys.depth).sum()), 1),
        devices_placed=int(placed.sum()),
        devices_unplaced=int((~placed).sum()),
        it_kw=_round(it_kw),
        pue=p.facility.pue,
        facility_kw=_round(it_kw * p.facility.pue),
        hall_budget_kw=_round(sum(budgets)) if budgets else None,
        cables_by_media=MediaCounts(**media_count),
        cables_without_length=int(index.cables[~known].sum()),
        longest_cable_m=_round(lengths.max()) if len(lengths) else None,
        cable_m=_round(float((lengths * index.cables[known]).sum()), 1),
        optics_kw=_round(optics_w / 1000, 3),
        note=note,
    )


def _cables_per_class(index: DesignIndex) -> np.ndarray:
    """Cables per class of ``optics.cables`` (the BOM's cable lines)."""
    from designer.analysis.metrics import cable_class_counts

    optics = index.catalog.optics
    code = {c.id: i for i, c in enumerate(optics.cables)}
    out = np.zeros(len(optics.cables))
    for cid, qty in cable_class_counts(index).items():
        out[code[cid]] += qty
    return out


def _f(code: str, sev: Severity, msg: str, items: list[str]) -> Finding:
    return Finding(code=code, severity=sev, message=msg, items=items[:MAX_ITEMS])


def _devices_in(index: DesignIndex, phys: PhysicalIndex, racks: IntArray) -> list[str]:
    mask = np.zeros(phys.n_racks + 1, dtype=np.bool_)
    mask[racks] = True
    devs = np.flatnonzero(mask[phys.rack_of])
    return [index.device_ids[i] for i in devs[:MAX_ITEMS].tolist()]


def check_physical(index: DesignIndex) -> list[Finding]:
    """Every physical-layer check (nothing for a design without racks)."""
    phys, media = physical_of(index), media_of(index)
    if phys is None or media is None:
        return []
    out: list[Finding] = []
    out += _power_and_cooling(index, phys)
    out += _units(index, phys)
    too_long = np.flatnonzero(media.too_long)
    if len(too_long):
        worst = too_long[np.argsort(-media.length_m[too_long], kind="stable")]
        shown = ", ".join(
            f"{index.link_ids[i]} {media.length_m[i]:,.1f} m at "
            f"{index.speed[i]}G (reach {media.reach_m[i]:,.0f} m)"
            for i in worst[:3].tolist()
        )
        out.append(
            _f(
                "CABLE_TOO_LONG",
                Severity.ERROR,
                f"{plural(len(too_long), 'link')} "
                f"{verb(len(too_long), 'is', 'are')} longer than any medium of their "
                f"speed reaches: {shown}; move the racks closer or add a "
                f"longer-reach cable class{first_listed(len(too_long))}",
                [index.link_ids[i] for i in worst[:MAX_ITEMS].tolist()],
            )
        )
    out += _halls(index, phys)
    unplaced = np.flatnonzero((phys.rack_of < 0) | (phys.u == 0))
    if len(unplaced):
        no_rack = int((phys.rack_of[unplaced] < 0).sum())
        out.append(
            _f(
                "DEVICE_UNPLACED",
                Severity.WARNING,
                f"{plural(len(unplaced), 'device')} "
                f"{verb(len(unplaced), 'has', 'have')} no rack ({no_rack:,}) or no U "
                f"({len(unplaced) - no_rack:,}): their cables have no length and "
                f"their rack units are not checked{first_listed(len(unplaced))}",
                [index.device_ids[i] for i in unplaced[:MAX_ITEMS].tolist()],
            )
        )
    return out


def _power_and_cooling(index: DesignIndex, phys: PhysicalIndex) -> list[Finding]:
    out: list[Finding] = []
    eps = 1e-9
    over = np.flatnonzero(phys.kw > phys.max_kw + eps)
    if len(over):
        what = [f"{phys.max_kw[r]:,.0f} kW ({phys.rack_type[r]})" for r in over[:5]]
        shown = ", ".join(
            f"{phys.rack_ids[r]} {phys.kw[r]:,.1f} kW > {w}"
            for r, w in zip(over[:5].tolist(), what, strict=False)
        )
        out.append(
            _f(
                "RACK_POWER_EXCEEDED",
                Severity.ERROR,
                f"{plural(len(over), 'rack')} {verb(len(over), 'draws', 'draw')} "
                f"more than {verb(len(over), 'its', 'their')} power feeds deliver: "
                f"{shown}{' ...' if len(over) > 5 else ''}",
                _devices_in(index, phys, over),
            )
        )
    hot = np.flatnonzero(phys.kw > phys.cool_kw + eps)
    if len(hot):
        shown = ", ".join(
            f"{phys.rack_ids[r]} {phys.kw[r]:,.1f} kW > {phys.cool_kw[r]:,.0f} kW "
            f"{COOLING_ORDER[int(phys.cooling[r])].value}"
            for r in hot[:5].tolist()
        )
        out.append(
            _f(
                "RACK_COOLING_EXCEEDED",
                Severity.ERROR,
                f"{plural(len(hot), 'rack')} {verb(len(hot), 'draws', 'draw')} "
                "more than "
                + verb(
                    len(hot),
                    "its cooling class removes ",
                    "their cooling classes remove ",
                )
                + f"(facility kW per rack): {shown}{' ...' if len(hot) > 5 else ''}",
                _devices_in(index, phys, hot),
            )
        )
    liquid_rack = COOLING_ORDER.index(Cooling.LIQUID)
    placed = phys.rack_of >= 0
    wet = np.flatnonzero(
        placed
        & phys.liquid
        & (phys.cooling[np.maximum(phys.rack_of, 0)] != liquid_rack)
    )
    if len(wet):
        racks = sorted({phys.rack_ids[phys.rack_of[i]] for i in wet.tolist()})
        out.append(
            _f(
                "LIQUID_IN_AIR_RACK",
                Severity.ERROR,
                f"{plural(len(wet), 'liquid-cooled device')} "
                f"{verb(len(wet), 'stands', 'stand')} in racks without "
                f"liquid cooling ({', '.join(racks[:5])}"
                f"{' ...' if len(racks) > 5 else ''}); give those racks the "
                "'liquid' cooling class",
                [index.device_ids[i] for i in wet[:MAX_ITEMS].tolist()],
            )
        )
    return out


def _units(index: DesignIndex, phys: PhysicalIndex) -> list[Finding]:
    out: list[Finding] = []
    at = np.flatnonzero((phys.rack_of >= 0) & (phys.u > 0))
    if not len(at):
        return out
    rack = phys.rack_of[at]
    lo = phys.u[at]
    hi = lo + phys.height[at] - 1
    sticking = at[hi > phys.rack_u[rack]]
    if len(sticking):
        shown = ", ".join(
            f"{index.device_ids[i]} U{phys.u[i]}-{phys.u[i] + phys.height[i] - 1} "
            f"in {phys.rack_ids[phys.rack_of[i]]} "
            f"({phys.rack_u[phys.rack_of[i]]}U)"
            for i in sticking[:3].tolist()
        )
        out.append(
            _f(
                "RACK_U_OVERFLOW",
                Severity.ERROR,
                f"{plural(len(sticking), 'device')} "
                f"{verb(len(sticking), 'reaches', 'reach')} above the top of their "
                "rack: "
                f"{shown}{first_listed(len(sticking))}",
                [index.device_ids[i] for i in sticking[:MAX_ITEMS].tolist()],
            )
        )
    # sort by (rack, lowest U); a device overlaps when it starts at or below
    # the highest top of the devices before it in the same rack
    order = np.lexsort((lo, rack))
    r, a, b = rack[order], lo[order], hi[order]
    span = int(max(phys.rack_u.max(), b.max())) + 2
    top = np.maximum.accumulate(b + r * span)
    clash = np.zeros(len(order), dtype=np.bool_)
    clash[1:] = (r[1:] == r[:-1]) & (a[1:] + r[1:] * span <= top[:-1])
    if clash.any():
        hit = order[np.flatnonzero(clash)]
        devs = at[hit]
        shown = ", ".join(
            f"{index.device_ids[i]} at U{phys.u[i]} of {phys.rack_ids[phys.rack_of[i]]}"
            for i in devs[:3].tolist()
        )
        out.append(
            _f(
                "RACK_U_OVERLAP",
                Severity.ERROR,
                f"{plural(len(devs), 'device')} {verb(len(devs), 'shares', 'share')} "
                f"rack units with a device below {verb(len(devs), 'it', 'them')}: "
                f"{shown}{first_listed(len(devs))}",
                [index.device_ids[i] for i in devs[:MAX_ITEMS].tolist()],
            )
        )
    return out


def _halls(index: DesignIndex, phys: PhysicalIndex) -> list[Finding]:
    out: list[Finding] = []
    p = phys.physical
    if not p.halls:
        return out
    kw = np.bincount(phys.rack_hall, weights=phys.kw, minlength=len(p.halls))
    for h, hall in enumerate(p.halls):
        budget = hall.power_budget_kw
        if budget is not None and kw[h] > budget + 1e-9:
            facility = kw[h] * p.facility.pue
            out.append(
                _f(
                    "HALL_POWER_EXCEEDED",
                    Severity.ERROR,
                    f"hall {hall.id} carries {kw[h]:,.1f} kW of IT load, above its "
                    f"{budget:,.0f} kW budget ({facility:,.0f} kW from the grid at "
                    f"PUE {p.facility.pue:g})",
                    _devices_in(index, phys, np.flatnonzero(phys.rack_hall == h)),
                )
            )
    x0 = np.array([p.halls[h].x_m for h in phys.rack_hall.tolist()])
    y0 = np.array([p.halls[h].y_m for h in phys.rack_hall.tolist()])
    w = np.array([p.halls[h].width_m for h in phys.rack_hall.tolist()])
    d = np.array([p.halls[h].depth_m for h in phys.rack_hall.tolist()])
    eps = 1e-6
    outside = np.flatnonzero(
        (phys.x + phys.width > x0 + w + eps) | (phys.y + phys.depth > y0 + d + eps)
    )
    if len(outside):
        names = [phys.rack_ids[r] for r in outside[:5].tolist()]
        out.append(
            _f(
                "RACK_OUTSIDE_HALL",
                Severity.WARNING,
                f"{plural(len(outside), 'rack')} "
                f"{verb(len(outside), 'stands', 'stand')} beyond the floor of their "
                "hall "
                f"({', '.join(names)}{' ...' if len(outside) > 5 else ''}); "
                "enlarge the hall or move the rows",
                _devices_in(index, phys, outside),
            )
        )
    return out


__all__ = ["check_physical", "physical_report"]
