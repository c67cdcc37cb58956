"""Auto-placement against the reference architectures' rack layouts and power.

Golden figures (physical.md §2-3, hardware.md §6.4): 4 DGX H100 per rack, "power
consumption per rack exceeds 40 kW" (RA-H100); 32 DGX H100 = 326.4 kW per SU;
DGX B200 2 per rack "exceeds 25 kW" (RA-B200); 4 DGX B300 per rack about 56 kW
(RA-B300-XDR); GB200 NVL72 about 120 kW, liquid, 8 racks per SU and 1.2 MW TDP
per SU (RA-GB200); GB300 NVL72 up to 142 kW.
"""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.analysis import analyze
from designer.catalog import default_catalog
from designer.core.model import Design, Device, Group, GroupKind, Link, LinkTable
from designer.core.physical import Cooling, RackRole
from designer.generate import fat_tree, superpod
from designer.io import load_design
from designer.physical import PlacementError, PlaceOptions, place
from tests.hypo import examples

CAT = default_catalog()
PHYSICAL_CODES = {
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


def _racks(design: Design) -> dict[str, list[Device]]:
    out: dict[str, list[Device]] = defaultdict(list)
    for d in design.devices:
        if d.placement is not None and d.placement.rack is not None:
            out[d.placement.rack].append(d)
    return out


def _kw(devices: list[Device]) -> float:
    return sum(CAT[d.catalog_id].ext.max_power_w for d in devices) / 1000


def _compute_racks(design: Design) -> list[list[Device]]:
    assert design.physical is not None
    roles = {r.id: r.role for r in design.physical.racks}
    return [
        devs for rid, devs in _racks(design).items() if roles[rid] is RackRole.COMPUTE
    ]


def test_dgx_h100_four_per_rack_over_40_kw() -> None:
    placed = place(superpod("dgx-h100", 4), CAT)
    racks = _compute_racks(placed)
    sizes = Counter(len(r) for r in racks)
    assert sizes == {4: 31, 3: 1}  # 127 DGX (RA-H100 Table 4)
    full = [r for r in racks if len(r) == 4]
    assert all(_kw(r) == pytest.approx(40.8) for r in full)  # > 40 kW (RA-H100)
    ph = analyze(placed, CAT).physical
    assert ph.max_rack_kw == pytest.approx(40.8)
    # 40.8 kW is past air cooling (30 kW): the compute racks get containment
    types = placed.physical.rack_type_map()  # type: ignore[union-attr]
    by_id = {r.id: r for r in placed.physical.racks}  # type: ignore[union-attr]
    for devs in full:
        rack = by_id[devs[0].placement.rack]  # type: ignore[union-attr,index]
        assert placed.physical.cooling_of(rack, types) is Cooling.CONTAINMENT  # type: ignore[union-attr]
    # RA-H100 Appendix A lists 38 racks for 4 SU: ours are 32 compute racks,
    # a network rack per SU, one spine rack, one storage and one management
    assert ph.racks == 32 + 4 + 1 + 2


def test_one_su_of_dgx_h100_is_326_kw_of_compute() -> None:
    placed = place(superpod("dgx-h100", 5), CAT)  # past 4 SU: 32 full DGX per SU
    su2 = [r for r in _compute_racks(placed) if r[0].group == "su02"]
    assert sum(len(r) for r in su2) == 32 and len(su2) == 8
    assert sum(_kw(r) for r in su2) == pytest.approx(326.4)


def test_dgx_b200_two_per_rack_exceeds_25_kw() -> None:
    design = superpod("dgx-b200", 1)
    two = _compute_racks(place(design, CAT, PlaceOptions(per_rack=2)))
    assert {len(r) for r in two} == {2}
    assert all(_kw(r) == pytest.approx(28.6) for r in two)  # > 25 kW (RA-B200)
    four = _compute_racks(place(design, CAT))
    assert {len(r) for r in four} == {4}  # 57.2 kW, within containment's 60


def test_dgx_b300_four_per_rack_about_56_kw() -> None:
    design = fat_tree("dgx-b300", 72, "q3400")
    racks = _compute_racks(place(design, CAT))
    assert {len(r) for r in racks} == {4}
    assert all(abs(_kw(r) - 56) / 56 < 0.05 for r in racks)  # RA-B300-XDR


@pytest.mark.parametrize(("system", "kw"), [("gb200-nvl72", 120.0)])
def test_nvl72_su_is_8_liquid_racks(system: str, kw: float) -> None:
    placed = place(superpod(system, 2), CAT)
    assert placed.physical is not None
    by_id = {r.id: r for r in placed.physical.racks}
    types = placed.physical.rack_type_map()
    for su in ("su01", "su02"):
        racks = [r for r in _compute_racks(placed) if r[0].group == su]
        assert len(racks) == 8 and all(len(r) == 1 for r in racks)
        for devs in racks:
            rack = by_id[devs[0].placement.rack]  # type: ignore[union-attr,index]
            assert rack.type == "nvl72"
            assert placed.physical.cooling_of(rack, types) is Cooling.LIQUID
            assert devs[0].placement.u == 1  # type: ignore[union-attr]
            assert _kw(devs) == pytest.approx(kw)
        # the SU's row: its 8 racks, then its network racks at the end
        row = by_id[racks[0][0].placement.rack].row  # type: ignore[union-attr,index]
        in_row = sorted(
            (r for r in placed.physical.racks if r.row == row), key=lambda r: r.slot
        )
        roles = [r.role for r in in_row]
        assert roles[:8] == [RackRole.COMPUTE] * 8
        assert set(roles[8:]) == {RackRole.NETWORK}
        su_kw = sum(_kw(_racks(placed)[r.id]) for r in in_row)
        assert 8 * kw <= su_kw <= 1200  # RA-GB200: 1.2 MW TDP per SU
    report = analyze(placed, CAT)
    assert report.physical.racks_by_cooling.liquid == 16
    assert not PHYSICAL_CODES & {f.code for f in report.findings}


def test_gb300_nvl72_at_142_kw_fits_the_liquid_default() -> None:
    design = fat_tree("gb300-nvl72", 8, "q3400")
    report = analyze(place(design, CAT), CAT)
    assert report.physical.max_rack_kw == pytest.approx(142.0)
    assert not PHYSICAL_CODES & {f.code for f in report.findings}


def test_vera_rubin_needs_more_than_the_default_liquid_rack() -> None:
    """230 kW (reported) racks: the default 142 kW facility cannot cool them."""
    report = analyze(place(fat_tree("vr-nvl72", 8, "q3400"), CAT), CAT)
    codes = {f.code for f in report.findings}
    assert "RACK_COOLING_EXCEEDED" in codes
    assert "RACK_POWER_EXCEEDED" not in codes  # its nvl72-vr rack type takes 230


def test_air_only_site_puts_two_dgx_h100_per_rack() -> None:
    placed = place(superpod("dgx-h100", 1), CAT, PlaceOptions(max_cooling=Cooling.AIR))
    racks = _compute_racks(placed)
    assert max(len(r) for r in racks) == 2  # 2 x 10.2 kW <= 30 kW
    report = analyze(placed, CAT)
    assert report.physical.racks_by_cooling.containment == 0
    assert not PHYSICAL_CODES & {f.code for f in report.findings}


@pytest.mark.parametrize(
    "name",
    [
        "minimum-viable-enterprise",
        "development",
        "dgx-h100-superpod-4su",
        "dgx-b200-superpod-16su",
        "gb200-nvl72-su",
        "inference-ethernet",
        "vera-rubin-nvl72-pod",
    ],
)
def test_every_sample_is_placed_without_physical_findings(name: str) -> None:
    design = load_design(f"samples/{name}.json")
    report = analyze(design, CAT)
    ph = report.physical
    assert ph.placed and ph.devices_unplaced == 0 and ph.cables_without_length == 0
    assert not PHYSICAL_CODES & {f.code for f in report.findings}
    assert ph.longest_cable_m is not None and ph.longest_cable_m < 50  # one hall
    assert ph.floor_m2 is not None and ph.floor_m2 > ph.rack_footprint_m2


def _limits_hold(design: Design) -> None:
    assert design.physical is not None
    types = design.physical.rack_type_map()
    f = design.physical.facility
    by_id = {r.id: r for r in design.physical.racks}
    for rid, devs in _racks(design).items():
        rack = by_id[rid]
        kind = types[rack.type]
        taken: set[int] = set()
        for d in devs:
            h = max(1, int(-(-CAT[d.catalog_id].u_height // 1)))
            assert d.placement is not None and d.placement.u is not None
            us = set(range(d.placement.u, d.placement.u + h))
            assert not us & taken and max(us) <= kind.u
            taken |= us
        cooling = design.physical.cooling_of(rack, types)
        assert _kw(devs) <= min(kind.max_kw, f.kw_for(cooling)) + 1e-9 or len(devs) == 1
        if any(CAT[d.catalog_id].ext.cooling.value == "liquid" for d in devs):
            assert cooling is Cooling.LIQUID


SLUGS = ["dgx-h100", "hgx-h100", "l40s-server", "qm9700", "sn2201", "head-node",
         "lustre-appliance", "gb200-nvl72", "sn4600c", "vast-appliance"]  # fmt: skip


@settings(max_examples=examples(30), deadline=None)
@given(
    devices=st.lists(st.sampled_from(SLUGS), min_size=1, max_size=40),
    grouped=st.booleans(),
    per_rack=st.one_of(st.none(), st.integers(1, 6)),
)
def test_any_design_is_placed_within_u_power_and_cooling(
    devices: list[str], grouped: bool, per_rack: int | None
) -> None:
    """Hand-drawn-like designs (any mix, grouped or not, no links)."""
    groups = [Group(id="g1", kind=GroupKind.SU)] if grouped else []
    design = Design(
        groups=groups,
        devices=[
            Device(id=f"d{i}", catalog_id=c, group="g1" if grouped and i % 2 else None)
            for i, c in enumerate(devices)
        ],
    )
    placed = place(design, CAT, PlaceOptions(per_rack=per_rack))
    assert all(d.placement is not None for d in placed.devices)
    _limits_hold(placed)
    again = Design.model_validate_json(placed.model_dump_json())
    assert again == placed  # a valid design file, exactly
    codes = {f.code for f in analyze(placed, CAT).findings}
    assert not {"RACK_U_OVERLAP", "RACK_U_OVERFLOW", "LIQUID_IN_AIR_RACK"} & codes


def test_switches_go_to_the_row_of_the_su_they_serve() -> None:
    placed = place(superpod("dgx-h100", 2), CAT)
    assert placed.physical is not None
    rack_row = {r.id: r.row for r in placed.physical.racks}
    row_of = {
        d.id: rack_row[d.placement.rack]  # type: ignore[union-attr,index]
        for d in placed.devices
    }
    for d in placed.devices:
        if d.id.startswith("leaf-su01"):
            assert row_of[d.id] == row_of["dgx-0001"]
        if d.id.startswith("leaf-su02"):
            assert row_of[d.id] == row_of["dgx-0063"]
    spine_rows = {row_of[d.id] for d in placed.devices if d.id.startswith("spine")}
    assert len(spine_rows) == 1 and spine_rows.isdisjoint(
        {row_of["dgx-0001"], row_of["dgx-0063"]}
    )


def test_place_replaces_a_previous_placement_and_keeps_the_rest() -> None:
    design = superpod("dgx-h100", 1)
    once = place(design, CAT)
    twice = place(once, CAT)
    assert twice == once
    assert twice.links == design.links and twice.groups == design.groups
    assert [d.model_copy(update={"placement": None}) for d in twice.devices] == [
        d.model_copy(update={"placement": None}) for d in design.devices
    ]


def test_unknown_catalog_entries_stay_unplaced() -> None:
    design = Design.model_construct(
        devices=[Device(id="x", catalog_id="no-such-box")], groups=[], links=LinkTable()
    )
    placed = place(design, CAT)
    assert placed.devices[0].placement is None


def test_bad_options_are_refused() -> None:
    with pytest.raises(PlacementError, match="rack-99u"):
        place(Design(), CAT, PlaceOptions(rack_type="rack-99u"))
    with pytest.raises(PlacementError, match="rack-scale"):
        place(Design(), CAT, PlaceOptions(rack_type="nvl72"))
    with pytest.raises(PlacementError, match="air or containment"):
        place(Design(), CAT, PlaceOptions(max_cooling=Cooling.LIQUID))


def test_links_keep_their_order_and_ids() -> None:
    design = superpod("gb200-nvl72", 1)
    placed = place(design, CAT)
    assert placed.links.id == design.links.id
    assert isinstance(placed.links.row(0), Link)
