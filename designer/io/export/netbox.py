"""NetBox bulk-import CSVs: sites, locations, racks, devices and cables.

``write_netbox_csvs(design, DIR)`` writes, in the order NetBox must import them:

- ``sites.csv``: one site for the design (``name``, ``slug``, ``status``);
- ``locations.csv``: one location per data hall;
- ``racks.csv``: every rack with its location, height and a description
  naming its row and floor slot (NetBox has no rows);
- ``devices.csv``: every device with its device type (manufacturer and model
  as the catalog's NetBox file has them), role, site, location, rack,
  ``position`` (lowest U) and ``face``; a compute device is named by its
  hostname (:mod:`designer.catalog.hosts`, as Slurm and the cabling plan name
  it; a rack of trays by the rack's name its trays build on), any other
  device by its id;
- ``cables.csv``: one row per cable of the cabling plan, between NetBox
  interface names (the ports each link holds, its pins:
  :mod:`designer.core.pins`; the plan's ``from_port``/``to_port``), with
  ``type`` from the medium, ``length`` and
  ``length_unit`` (m). A breakout lane is a single-termination row from the
  split port (its NetBox interface) to the far port, labelled with the lane:
  a splitter cable is several such rows.

Device roles are ``compute``, ``switch``, ``storage`` and ``management``
(create them in NetBox first). Unplaced devices get no rack or position;
cables without a length get an empty length.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from designer.catalog.hosts import device_hostnames
from designer.core.model import Design
from designer.io.export._common import Catalog, open_text, resolve_catalog
from designer.io.export.cabling import CABLING_COLUMNS, LANE_SEPARATOR, cabling_rows

SITE_COLUMNS = ("name", "slug", "status", "description")
LOCATION_COLUMNS = ("site", "name", "slug", "status", "description")
RACK_COLUMNS = (
    "site",
    "location",
    "name",
    "status",
    "width",
    "u_height",
    "facility_id",
    "description",
)
DEVICE_COLUMNS = (
    "name",
    "role",
    "manufacturer",
    "device_type",
    "site",
    "location",
    "rack",
    "position",
    "face",
    "status",
    "description",
)
CABLE_COLUMNS = (
    "side_a_device",
    "side_a_type",
    "side_a_name",
    "side_b_device",
    "side_b_type",
    "side_b_name",
    "type",
    "status",
    "label",
    "length",
    "length_unit",
)

NETBOX_CABLE_TYPE = {
    "dac": "dac-passive",
    "acc": "dac-active",
    "aoc": "aoc",
    "multimode": "mmf",
    "singlemode": "smf",
    "copper": "cat6",
}
"""NetBox cable ``type`` of each medium (NetBox's cable type choices)."""

_FILES = ("sites", "locations", "racks", "devices", "cables")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:100] or "site"


def write_netbox_csvs(
    design: Design, directory: str | Path, catalog: Catalog | None = None
) -> dict[str, int]:
    """Write the five CSVs into ``directory``; return rows written per file."""
    cat = resolve_catalog(catalog)
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    site = design.settings.name or "GPU cluster"
    counts = dict.fromkeys(_FILES, 0)
    physical = design.physical
    names = {d.id: d.id for d in design.devices}
    names.update(device_hostnames(design, cat))  # unique: hosts avoid other ids
    hall_of_row: dict[str, str] = {}
    rack_hall: dict[str, str] = {}
    with open_text(out / "sites.csv") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(SITE_COLUMNS)
        w.writerow((site, _slug(site), "planned", "GPU Cluster Designer design"))
        counts["sites"] = 1
    with open_text(out / "locations.csv") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(LOCATION_COLUMNS)
        for h in physical.halls if physical else []:
            w.writerow(
                (
                    site,
                    h.label or h.id,
                    _slug(h.id),
                    "planned",
                    f"{h.width_m:g} x {h.depth_m:g} m"
                    + (
                        f", budget {h.power_budget_kw:g} kW"
                        if h.power_budget_kw
                        else ""
                    ),
                )
            )
            counts["locations"] += 1
    with open_text(out / "racks.csv") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(RACK_COLUMNS)
        if physical is not None:
            halls = {h.id: h.label or h.id for h in physical.halls}
            hall_of_row = {r.id: halls[r.hall] for r in physical.rows}
            rows = {r.id: r.label or r.id for r in physical.rows}
            types = physical.rack_type_map()
            for r in physical.racks:
                kind = types[r.type]
                rack_hall[r.id] = hall_of_row[r.row]
                w.writerow(
                    (
                        site,
                        hall_of_row[r.row],
                        r.id,
                        "planned",
                        19,
                        kind.u,
                        r.id,
                        f"{kind.label or kind.id}; row {rows[r.row]}, slot {r.slot}; "
                        f"{physical.cooling_of(r, types).value} cooling",
                    )
                )
                counts["racks"] += 1
    with open_text(out / "devices.csv") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(DEVICE_COLUMNS)
        for d in design.devices:
            entry = cat.get(d.catalog_id)
            p = d.placement
            rack = p.rack if p is not None and p.rack in rack_hall else None
            racked = rack is not None
            rack = rack or ""
            w.writerow(
                (
                    names[d.id],
                    entry.category.value if entry else "",
                    entry.manufacturer if entry else "",
                    entry.model if entry else d.catalog_id,
                    site,
                    rack_hall.get(rack, ""),
                    rack,
                    p.u if racked and p is not None and p.u else "",
                    "front" if racked and p is not None and p.u else "",
                    "planned",
                    d.label,
                )
            )
            counts["devices"] += 1
    col = {name: i for i, name in enumerate(CABLING_COLUMNS)}
    with open_text(out / "cables.csv") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(CABLE_COLUMNS)
        for row in cabling_rows(design, cat):
            a_port, b_port = str(row[col["from_port"]]), str(row[col["to_port"]])
            if not a_port or not b_port:
                continue  # no free port: the cabling plan says why
            a_name, _, a_lane = a_port.partition(LANE_SEPARATOR)
            b_name, _, b_lane = b_port.partition(LANE_SEPARATOR)
            lanes = [
                f"{n} lane {lane}"
                for n, lane in ((a_name, a_lane), (b_name, b_lane))
                if lane
            ]
            length = str(row[col["length_m"]])
            w.writerow(
                (
                    names[str(row[col["from_device"]])],
                    "dcim.interface",
                    a_name,
                    names[str(row[col["to_device"]])],
                    "dcim.interface",
                    b_name,
                    NETBOX_CABLE_TYPE.get(str(row[col["media"]]), ""),
                    "planned",
                    f"{row[col['cable']]}"
                    + (f" ({', '.join(lanes)})" if lanes else ""),
                    length,
                    "m" if length else "",
                )
            )
            counts["cables"] += 1
    return counts


__all__ = [
    "CABLE_COLUMNS",
    "DEVICE_COLUMNS",
    "LOCATION_COLUMNS",
    "NETBOX_CABLE_TYPE",
    "RACK_COLUMNS",
    "SITE_COLUMNS",
    "write_netbox_csvs",
]
