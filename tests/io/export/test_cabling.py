"""Cabling plan: one row per cable, NetBox port names, twin cages shown."""

from __future__ import annotations

import csv
import io
from collections import Counter

from designer.core.model import Fabric, Link
from designer.io.export import CABLING_COLUMNS, cabling_summary, write_cabling_csv
from tests.io.export.designs import rail_design


def _rows(design: object) -> list[dict[str, str]]:
    buf = io.StringIO()
    n = write_cabling_csv(design, buf)  # type: ignore[arg-type]
    rows = list(csv.DictReader(io.StringIO(buf.getvalue())))
    assert n == len(rows)
    return rows


def test_one_row_per_cable() -> None:
    design = rail_design()
    rows = _rows(design)
    assert tuple(rows[0]) == CABLING_COLUMNS
    assert len(rows) == sum(design.links.cables) == 4 * 8 + 4 * 8
    per_link = Counter(r["link"] for r in rows)
    for lid, cables in zip(design.links.id, design.links.cables, strict=True):
        assert per_link[lid] == cables
    assert [int(r["cable"]) for r in rows] == list(range(1, len(rows) + 1))


def test_twin_port_cages_and_unique_ports() -> None:
    rows = _rows(rail_design())
    dgx1 = [r["from_port"] for r in rows if r["from_device"] == "dgx-01"]
    # 8 NDR ports of a DGX H100 sit in 4 twin-port OSFP cages
    assert dgx1 == [f"osfp{c}/{p}" for c in range(1, 5) for p in (1, 2)]
    ends: Counter[tuple[str, str]] = Counter()
    for r in rows:
        ends[(r["from_device"], r["from_port"])] += 1
        ends[(r["to_device"], r["to_port"])] += 1
    assert max(ends.values()) == 1, "a port carries two cables"
    leaf1 = sorted(
        {p for (d, p) in ends if d == "leaf-1"},
        key=lambda s: tuple(int(x) for x in s[4:].split("/")),
    )
    # 16 down (4 nodes x 4 rails) + 16 up = 32 ports = 16 cages, no gap
    assert leaf1 == [f"osfp{c}/{p}" for c in range(1, 17) for p in (1, 2)]
    first = rows[0]
    assert first["from_label"] == "DGX 01"
    assert first["speed_gbps"] == "400"
    assert first["fabric"] == "compute"
    assert first["rail"] == "0"
    # fiber needs a module at each end: twin-port OSFP on DGX and QM9700
    assert first["from_transceiver"] == "osfp-2x400g"
    assert first["to_transceiver"] == "osfp-2x400g"
    assert first["cable_type"] == "MMF fiber 400G InfiniBand"
    assert first["cable_id"] == "cable-ib-400g"
    spine_row = next(r for r in rows if r["to_device"] == "spine-1")
    assert spine_row["rail"] == ""


def test_ports_beyond_capacity_are_flagged() -> None:
    design = rail_design(nodes=1)
    design.links.append(
        Link(
            id="extra",
            a="dgx-01",
            a_port="compute",
            b="leaf-1",
            b_port="ports",
            cables=1,
            speed_gbps=400,
        )
    )
    rows = _rows(design)
    extra = next(r for r in rows if r["link"] == "extra")
    # the DGX has 8 compute ports, all taken: the ninth cable gets none
    assert extra["from_port"] == ""
    assert extra["note"] == (
        "no free port: dgx-01 port group 'compute': the cables need 9 ports, it has 8"
    )
    assert extra["to_port"] == "osfp5/1"
    assert all(r["note"] == "" for r in rows if r["link"] != "extra")


def test_summary_counts_cables() -> None:
    design = rail_design()
    design.links.append(
        Link(
            id="oob",
            a="dgx-01",
            a_port="bmc",
            b="leaf-1",
            b_port="mgmt",
            speed_gbps=1,
            fabric=Fabric.OOB,
        )
    )
    summary = cabling_summary(design)
    assert sum(n for *_, n in summary) == sum(design.links.cables)
    assert summary[0][0] == "compute"
    assert summary[-1] == ("oob", "RJ45 1G Ethernet", 1, 1)


def test_fast_writer_matches_csv_module() -> None:
    import csv as _csv

    from designer.io.export import cabling_rows

    design = rail_design()
    design.devices[0] = design.devices[0].model_copy(
        update={"label": 'DGX "one", rack A'}
    )
    fast = io.StringIO()
    write_cabling_csv(design, fast)
    slow = io.StringIO()
    w = _csv.writer(slow, lineterminator="\n")
    w.writerow(CABLING_COLUMNS)
    w.writerows(cabling_rows(design))
    assert fast.getvalue() == slow.getvalue()
    rows = list(csv.DictReader(io.StringIO(fast.getvalue())))
    assert rows[0]["from_label"] == 'DGX "one", rack A'
