"""Cable lengths and media of placed designs: by hand, a naive oracle, properties."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.analysis import analyze, build_index
from designer.analysis.lengths import LinkMedia, PhysicalIndex, media_of, physical_of
from designer.catalog import Media, Medium, default_catalog
from designer.catalog.optics import MEDIA
from designer.core.model import Design
from designer.core.physical import RACK_UNIT_M, SLOT_M
from designer.core.physical_commands import EditRacks
from designer.generate import fat_tree, superpod
from designer.physical import place
from tests.hypo import examples
from tests.physical.builders import placed_design

CAT = default_catalog()
TOP = 48 * RACK_UNIT_M  # a 48U rack
DGX_Z = 4 * RACK_UNIT_M  # DGX H100 (8U) at U1: ports at mid-height
LEAF_Z = 39.5 * RACK_UNIT_M  # QM9700 (1U) at U40


def _media(design: Design) -> LinkMedia:
    media = media_of(build_index(design, CAT))
    assert media is not None
    return media


def _three_runs(cables: int = 2) -> Design:
    """Three DGX H100 on one leaf: in its rack, the next rack, another row.

    With two cables per link every twin cage holds one medium.
    """
    return placed_design(
        [
            ("dgx-1", "dgx-h100", "a01", 1),
            ("leaf", "qm9700", "a01", 40),
            ("dgx-2", "dgx-h100", "a02", 1),
            ("dgx-3", "dgx-h100", "b06", 1),
        ],
        [
            ("same", "dgx-1", "compute", "leaf", "ports", 400, cables),
            ("next", "dgx-2", "compute", "leaf", "ports", 400, cables),
            ("far", "dgx-3", "compute", "leaf", "ports", 400, cables),
        ],
        racks=[
            ("a01", "rack-48u", "r1", 0),
            ("a02", "rack-48u", "r1", 1),
            ("b06", "rack-48u", "r2", 5),
        ],
        rows=[("r1", 1.0, 1.0), ("r2", 1.0, 4.6)],
    )


def test_lengths_by_hand() -> None:
    """In one rack along it; between racks up to the tray, along, across, down."""
    media = _media(_three_runs())
    slack, tray = 1.0, 0.5
    same = abs(DGX_Z - LEAF_Z) + slack
    up = (TOP - DGX_Z) + (TOP - LEAF_Z) + 2 * tray
    nxt = up + SLOT_M + slack
    far = up + 5 * SLOT_M + 3.6 + slack
    assert media.length_m.tolist() == pytest.approx([same, nxt, far])
    got = [MEDIA[i] for i in media.medium.tolist()]
    # 2.6 m passive copper, 4.9 m active copper, 10.9 m multimode (NDR ladder)
    assert got == [Medium.DAC, Medium.ACC, Medium.MULTIMODE]


def test_a_cage_takes_one_plug() -> None:
    """One cable each: the leaf's twin cage would hold a DAC and an ACC end, so
    the DAC link moves up to active copper (never down)."""
    media = _media(_three_runs(cables=1))
    got = [MEDIA[i] for i in media.medium.tolist()]
    assert got == [Medium.ACC, Medium.ACC, Medium.MULTIMODE]


def test_unplaced_ends_have_no_length_and_the_default_medium() -> None:
    d = placed_design(
        [("dgx-1", "dgx-h100", "a01", 1), ("leaf", "qm9700", None, None)],
        [("l", "dgx-1", "compute", "leaf", "ports", 400, 1)],
        racks=[("a01", "rack-48u", "r1", 0)],
    )
    media = _media(d)
    assert np.isnan(media.length_m[0])
    assert CAT.optics.cables[int(media.cable[0])].id == "cable-ib-400g"  # default
    report = analyze(d, CAT)
    assert report.physical.cables_without_length == 1
    assert report.physical.longest_cable_m is None
    assert "DEVICE_UNPLACED" in {f.code for f in report.findings}


def _naive_lengths(design: Design, phys: PhysicalIndex) -> list[float]:
    """One cable's route per link, device by device in plain Python."""
    f = design.physical.facility  # type: ignore[union-attr]
    where = {d.id: i for i, d in enumerate(design.devices)}
    out = []
    for a, b in zip(design.links.a, design.links.b, strict=True):
        ia, ib = where[a], where[b]
        ra, rb = int(phys.rack_of[ia]), int(phys.rack_of[ib])
        if ra < 0 or rb < 0:
            out.append(float("nan"))
            continue
        za, zb = float(phys.port_z[ia]), float(phys.port_z[ib])
        if ra == rb:
            out.append(abs(za - zb) + f.slack_m)
            continue
        xa = phys.x[ra] + phys.width[ra] / 2
        xb = phys.x[rb] + phys.width[rb] / 2
        ya = phys.y[ra] + phys.depth[ra] / 2
        yb = phys.y[rb] + phys.depth[rb] / 2
        top_a, top_b = phys.rack_u[ra] * RACK_UNIT_M, phys.rack_u[rb] * RACK_UNIT_M
        route = (top_a - za + f.tray_m) + abs(xa - xb) + abs(ya - yb)
        out.append(route + (top_b - zb + f.tray_m) + f.slack_m)
    return out


@pytest.mark.parametrize(
    "make",
    [
        lambda: superpod("dgx-h100", 2),
        lambda: superpod("gb200-nvl72", 1),
        lambda: fat_tree("dgx-b200", 600, "qm9700", oversubscription=(1, 2)),
        lambda: fat_tree("vr-nvl72", 16, "q3400"),
    ],
)
def test_vectorised_lengths_match_the_naive_route(make: object) -> None:
    design = place(make(), CAT)  # type: ignore[operator]
    index = build_index(design, CAT)
    assert physical_of(index) is not None and media_of(index) is not None
    naive = _naive_lengths(design, physical_of(index))
    assert media_of(index).length_m.tolist() == pytest.approx(naive, nan_ok=True)  # type: ignore[union-attr]


def _ends(design: Design) -> tuple[list[int], list[Media]]:
    """Links per cage of each link's ends (worst of the two), a-end media."""
    index = build_index(design, CAT)
    per: list[int] = []
    layer: list[Media] = []
    for i in range(index.n_links):
        ks = []
        for d, p in ((index.a[i], index.a_port[i]), (index.b[i], index.b_port[i])):
            iface = index.interface(int(d), int(p))
            ks.append(iface.links_per_cage(int(index.speed[i])) if iface else 1)
        per.append(max(ks))
        a_iface = index.interface(int(index.a[i]), int(index.a_port[i]))
        layer.append(a_iface.media if a_iface else Media.ETHERNET)
    return per, layer


@pytest.mark.parametrize("name", ["dgx-h100-superpod-4su", "gb200-nvl72-su"])
def test_media_follow_reach_and_cages(name: str) -> None:
    """Single-port ends: the shortest-reach medium covering the length; twin
    cages: never a shorter reach, and every medium but the longest fills cages."""
    from designer.io import load_design

    design = load_design(f"samples/{name}.json")
    index = build_index(design, CAT)
    media = media_of(index)
    assert media is not None
    per, layer = _ends(design)
    optics = CAT.optics
    upgraded = 0
    for i in range(index.n_links):
        length = float(media.length_m[i])
        want = optics.cable_for_length(int(index.speed[i]), layer[i], length)
        got = optics.cables[int(media.cable[i])]
        assert want is not None
        assert got.reach_m >= length
        if per[i] == 1:
            assert got.id == want.id, index.link_ids[i]
        else:
            assert got.reach_m >= want.reach_m
            upgraded += got.id != want.id
    # whole cages: per device, port group and medium, cables fill cages
    # except in the group's longest-reach medium
    cells: Counter[tuple[int, int, int]] = Counter()
    top: dict[tuple[int, int], float] = {}
    for i in range(index.n_links):
        c = optics.cables[int(media.cable[i])]
        for d, p in ((index.a[i], index.a_port[i]), (index.b[i], index.b_port[i])):
            iface = index.interface(int(d), int(p))
            if iface is None or iface.ports_per_cage == 1:
                continue
            cells[(int(d), int(p), int(media.cable[i]))] += int(index.cables[i])
            top[(int(d), int(p))] = max(top.get((int(d), int(p)), 0.0), c.reach_m)
    for (d, p, cable), n in cells.items():
        if optics.cables[cable].reach_m < top[(d, p)]:
            iface = index.interface(d, p)
            assert iface is not None
            k = iface.links_per_cage(optics.cables[cable].speed_gbps)
            assert n % k == 0, (index.device_ids[d], optics.cables[cable].id, n)
    assert upgraded >= 0


@pytest.mark.slow
@settings(
    max_examples=examples(25),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_moving_a_rack_never_leaves_a_link_without_a_medium_or_a_finding(
    data: st.DataObject,
) -> None:
    design = place(superpod("dgx-h100", 1), CAT)
    assert design.physical is not None
    racks = design.physical.racks
    rows = [r.id for r in design.physical.rows]
    rack = data.draw(st.sampled_from(racks))
    row = data.draw(st.sampled_from(rows))
    taken = {(r.row, r.slot) for r in racks if r.id != rack.id}
    slot = data.draw(
        st.integers(0, 2000).filter(lambda s: (row, s) not in taken), label="slot"
    )
    EditRacks({rack.id: {"row": row, "slot": slot}}).do(design)
    index = build_index(design, CAT)
    media = media_of(index)
    assert media is not None
    reach = np.array([CAT.optics.cables[int(c)].reach_m for c in media.cable])
    fine = reach >= media.length_m
    assert (fine | media.too_long).all()
    report = analyze(design, CAT)
    codes = {f.code for f in report.findings}
    if media.too_long.any():
        finding = next(f for f in report.findings if f.code == "CABLE_TOO_LONG")
        listed = set(finding.items)
        worst = np.argsort(-np.where(media.too_long, media.length_m, -1))[:50]
        assert {index.link_ids[i] for i in worst if media.too_long[i]} == listed
    else:
        assert "CABLE_TOO_LONG" not in codes
    assert report.physical.longest_cable_m == pytest.approx(
        round(float(np.nanmax(media.length_m)), 2)
    )


def test_a_link_past_every_reach_is_a_finding() -> None:
    # XDR across a 700 m hall: past single-mode's 500 m
    d = placed_design(
        [("n1", "vr-nvl72", "x1", 1), ("sw", "q3400", "x2", 1)],
        [("l", "n1", "compute", "sw", "ports", 800, 1)],
        racks=[("x1", "nvl72-vr", "r1", 0), ("x2", "rack-48u", "r2", 0)],
        rows=[("r1", 1.0, 1.0), ("r2", 1.0, 699.0)],
        hall=(10.0, 701.0),
        types=[
            __import__("designer.core.physical", fromlist=["x"]).standard_rack_type(t)
            for t in ("rack-48u", "nvl72-vr")
        ],
    )
    report = analyze(d, CAT)
    finding = next(f for f in report.findings if f.code == "CABLE_TOO_LONG")
    assert finding.items == ["l"] and "reach 500 m" in finding.message
    assert report.errors()


def test_bom_follows_the_lengths() -> None:
    """The 2.6 m link is a DAC with no modules; the 10.9 m one multimode fibre."""
    report = analyze(_three_runs(), CAT)
    lines = {c.catalog_id: c.quantity for c in report.cost_usd.lines}
    assert lines["cable-ib-400g-dac"] == 2
    assert lines["cable-ib-400g-acc"] == 2
    assert lines["cable-ib-400g"] == 2
    # twin cages: dgx-3's cage and the leaf's cage of the fibre link
    assert report.transceivers_by_type == {"osfp-2x400g": 2}
    media = report.physical.cables_by_media
    assert (media.dac, media.acc, media.multimode) == (2, 2, 2)
    assert report.physical.optics_kw == pytest.approx((2 * 17 + 2 * 1.5) / 1000)
    total = sum(c.extended_usd for c in report.cost_usd.lines)
    assert report.cost_usd.total == pytest.approx(total)


def test_unplaced_report_says_lengths_are_unknown() -> None:
    design = superpod("dgx-h100", 1)
    ph = analyze(design, CAT).physical
    assert not ph.placed and ph.racks == 0 and ph.longest_cable_m is None
    assert ph.cables_without_length == sum(design.links.cables)
    assert "lengths unknown" in ph.note
    # every compute cable in the default NDR medium: multimode fibre
    assert ph.cables_by_media.multimode >= 252 + 256
    assert ph.racks_by_cooling.model_dump() == {
        "air": 0,
        "containment": 0,
        "liquid": 0,
    }
