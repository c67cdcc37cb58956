"""Small placed designs built by hand for the physical-layer tests."""

from __future__ import annotations

from collections.abc import Sequence

from designer.core.model import Design, Device, Fabric, Link, LinkTable, Placement
from designer.core.physical import (
    Facility,
    Hall,
    Physical,
    Rack,
    RackType,
    Row,
    standard_rack_type,
)

# (id, catalog id, rack or None, U or None)
Dev = tuple[str, str, str | None, int | None]
# (id, a, a_port, b, b_port, speed, cables)
Lnk = tuple[str, str, str, str, str, int, int]


def placed_design(
    devices: Sequence[Dev],
    links: Sequence[Lnk] = (),
    *,
    racks: Sequence[tuple[str, str, str, int]] = (),
    rows: Sequence[tuple[str, float, float]] = (("r1", 1.0, 1.0),),
    hall: tuple[float, float] = (50.0, 30.0),
    facility: Facility | None = None,
    types: Sequence[RackType] = (),
    budget_kw: float | None = None,
    fabric: Fabric = Fabric.COMPUTE,
) -> Design:
    """A design in one hall: rows (id, x, y), racks (id, type, row, slot)."""
    kinds = list(types) or [
        standard_rack_type("rack-48u"),
        standard_rack_type("nvl72"),
        standard_rack_type("network-48u"),
    ]
    physical = Physical(
        facility=facility or Facility(),
        rack_types=kinds,
        halls=[
            Hall(id="h1", width_m=hall[0], depth_m=hall[1], power_budget_kw=budget_kw)
        ],
        rows=[Row(id=r, hall="h1", x_m=x, y_m=y) for r, x, y in rows],
        racks=[Rack(id=i, type=t, row=r, slot=s) for i, t, r, s in racks],
    )
    devs = [
        Device(
            id=d,
            catalog_id=c,
            placement=None if rack is None else Placement(rack=rack, u=u),
        )
        for d, c, rack, u in devices
    ]
    table = LinkTable.from_links(
        Link(
            id=i,
            a=a,
            a_port=ap,
            b=b,
            b_port=bp,
            speed_gbps=speed,
            cables=n,
            fabric=fabric,
        )
        for i, a, ap, b, bp, speed, n in links
    )
    return Design(devices=devs, links=table, physical=physical)
