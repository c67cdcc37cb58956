"""Each physical-layer finding on a design built to trigger it, and only it."""

from __future__ import annotations

from designer.analysis import analyze
from designer.analysis.report import Finding, Report, Severity
from designer.catalog import default_catalog
from designer.core.physical import Facility, RackType, standard_rack_type
from tests.physical.builders import placed_design

CAT = default_catalog()
PHYSICAL = {
    "RACK_POWER_EXCEEDED",
    "RACK_COOLING_EXCEEDED",
    "LIQUID_IN_AIR_RACK",
    "RACK_U_OVERFLOW",
    "RACK_U_OVERLAP",
    "CABLE_TOO_LONG",
    "HALL_POWER_EXCEEDED",
    "DEVICE_UNPLACED",
    "RACK_OUTSIDE_HALL",
}


def _physical(report: Report) -> dict[str, Finding]:
    return {f.code: f for f in report.findings if f.code in PHYSICAL}


def _dgx_rack(n: int, **kw: object) -> Report:
    devices = [(f"dgx-{i}", "dgx-h100", "a01", 1 + 8 * i) for i in range(n)]
    design = placed_design(devices, racks=[("a01", "rack-48u", "r1", 0)], **kw)  # type: ignore[arg-type]
    return analyze(design, CAT)


def test_four_dgx_h100_in_an_air_rack_exceed_its_cooling() -> None:
    """40.8 kW in a rack of cooling class air (30 kW by default)."""
    found = _physical(_dgx_rack(4))
    assert set(found) == {"RACK_COOLING_EXCEEDED"}
    f = found["RACK_COOLING_EXCEEDED"]
    assert f.severity is Severity.ERROR
    assert "a01 40.8 kW > 30 kW air" in f.message
    assert f.message.startswith("1 rack draws more than its cooling class removes")
    assert f.items == ["dgx-0", "dgx-1", "dgx-2", "dgx-3"]
    assert _physical(_dgx_rack(2)) == {}  # 20.4 kW is fine in air
    assert _physical(_dgx_rack(4, facility=Facility(air_kw=45))) == {}


def test_rack_over_its_power_feeds() -> None:
    weak = standard_rack_type("rack-48u").model_copy(update={"max_kw": 15.0})
    found = _physical(_dgx_rack(2, types=[weak]))
    assert set(found) == {"RACK_POWER_EXCEEDED"}
    assert "a01 20.4 kW > 15 kW (rack-48u)" in found["RACK_POWER_EXCEEDED"].message
    # one rack, its feeds (issue 16, item 10: "1 rack draws more than their")
    assert found["RACK_POWER_EXCEEDED"].message.startswith(
        "1 rack draws more than its power feeds deliver: "
    )


def test_liquid_cooled_nvl72_in_an_air_rack() -> None:
    tall = RackType(id="tall-air", u=52, max_kw=200, source="test")
    design = placed_design(
        [("nvl", "gb200-nvl72", "a01", 1)],
        racks=[("a01", "tall-air", "r1", 0)],
        types=[tall],
        facility=Facility(air_kw=150),
    )
    found = _physical(analyze(design, CAT))
    assert set(found) == {"LIQUID_IN_AIR_RACK"}
    assert found["LIQUID_IN_AIR_RACK"].items == ["nvl"]
    ok = placed_design(
        [("nvl", "gb200-nvl72", "a01", 1)], racks=[("a01", "nvl72", "r1", 0)]
    )
    assert _physical(analyze(ok, CAT)) == {}


def test_u_overflow_and_overlap() -> None:
    design = placed_design(
        [
            ("low", "dgx-h100", "a01", 1),
            ("clash", "dgx-h100", "a01", 5),  # U5-12 over low's U1-8
            ("tall", "dgx-b200", "a01", 41),  # 10U from U41: to U50 in a 48U rack
            ("ok", "qm9700", "a01", 13),
        ],
        racks=[("a01", "rack-48u", "r1", 0)],
        facility=Facility(air_kw=60),
    )
    found = _physical(analyze(design, CAT))
    assert set(found) == {"RACK_U_OVERFLOW", "RACK_U_OVERLAP"}
    assert found["RACK_U_OVERFLOW"].items == ["tall"]
    assert "tall U41-50 in a01 (48U)" in found["RACK_U_OVERFLOW"].message
    assert found["RACK_U_OVERLAP"].items == ["clash"]


def test_an_overlap_hidden_behind_a_tall_device() -> None:
    # a 10U device at U1 covers U1-10: the 1U switches at U5 and U9 both clash,
    # though U9 does not touch its neighbour below (U5)
    design = placed_design(
        [
            ("big", "dgx-b200", "a01", 1),
            ("s5", "qm9700", "a01", 5),
            ("s9", "qm9700", "a01", 9),
            ("s11", "qm9700", "a01", 11),
        ],
        racks=[("a01", "rack-48u", "r1", 0)],
    )
    found = _physical(analyze(design, CAT))
    assert sorted(found["RACK_U_OVERLAP"].items) == ["s5", "s9"]


def test_hall_power_budget() -> None:
    racks = [("a01", "rack-48u", "r1", 0), ("a02", "rack-48u", "r1", 1)]
    devices = [
        ("d1", "dgx-h100", "a01", 1),
        ("d2", "dgx-h100", "a01", 9),
        ("d3", "dgx-h100", "a02", 1),
    ]
    design = placed_design(devices, racks=racks, budget_kw=30.0)
    found = _physical(analyze(design, CAT))
    assert set(found) == {"HALL_POWER_EXCEEDED"}
    msg = found["HALL_POWER_EXCEEDED"].message
    assert "hall h1 carries 30.6 kW of IT load, above its 30 kW budget" in msg
    assert "40 kW from the grid at PUE 1.3" in msg
    within = placed_design(devices, racks=racks, budget_kw=31.0)
    report = analyze(within, CAT)
    assert _physical(report) == {}
    assert report.physical.hall_budget_kw == 31.0
    assert report.physical.facility_kw == round(30.6 * 1.3, 2)


def test_unplaced_devices_and_racks_outside_the_hall() -> None:
    design = placed_design(
        [("d1", "dgx-h100", "a01", 1), ("loose", "qm9700", None, None)],
        racks=[("a01", "rack-48u", "r1", 0), ("far", "rack-48u", "r1", 99)],
        hall=(10.0, 10.0),
    )
    found = _physical(analyze(design, CAT))
    assert set(found) == {"DEVICE_UNPLACED", "RACK_OUTSIDE_HALL"}
    assert found["DEVICE_UNPLACED"].severity is Severity.WARNING
    assert found["DEVICE_UNPLACED"].items == ["loose"]
    assert "(far)" in found["RACK_OUTSIDE_HALL"].message


def test_no_physical_finding_without_a_physical_block() -> None:
    from designer.generate import superpod

    report = analyze(superpod("dgx-h100", 1), CAT)
    assert _physical(report) == {}
