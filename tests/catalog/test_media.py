"""Media by reach and speed (physical.md §1): ladders, defaults, module variants."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.catalog import Catalog, Interface, Media, Medium, default_catalog
from tests.hypo import examples

CAT = default_catalog()
OPT = CAT.optics


def _iface(cat: Catalog, slug: str, name: str) -> Interface:
    i = cat[slug].interface(name)
    assert i is not None
    return i


def _pick(speed: int, media: Media, length: float) -> Medium | None:
    c = OPT.cable_for_length(speed, media, length)
    return None if c is None else c.medium


@pytest.mark.parametrize("media", [Media.INFINIBAND, Media.ETHERNET])
def test_ndr_and_400g_ladder(media: Media) -> None:
    """NDR / 400G: DAC to 3 m, active copper to 5 m, multimode to 50 m, then SM."""
    assert _pick(400, media, 0.5) is Medium.DAC
    assert _pick(400, media, 3.0) is Medium.DAC
    assert _pick(400, media, 3.01) is Medium.ACC
    assert _pick(400, media, 5.0) is Medium.ACC
    assert _pick(400, media, 5.5) is Medium.MULTIMODE
    assert _pick(400, media, 50.0) is Medium.MULTIMODE
    assert _pick(400, media, 51.0) is Medium.SINGLEMODE
    assert _pick(400, media, 500.0) is Medium.SINGLEMODE
    assert _pick(400, media, 501.0) is None


def test_xdr_has_no_passive_copper_multimode_or_aoc() -> None:
    ladder = {c.medium for c in OPT.ladder(800, Media.INFINIBAND)}
    assert ladder == {Medium.ACC, Medium.SINGLEMODE}
    assert _pick(800, Media.INFINIBAND, 1.0) is Medium.ACC  # no DAC even at 1 m
    assert _pick(800, Media.INFINIBAND, 6.0) is Medium.SINGLEMODE
    # 800GbE on Spectrum-4 runs 100G-PAM4 lanes: the NDR-generation ladder
    assert _pick(800, Media.ETHERNET, 2.0) is Medium.DAC
    assert _pick(800, Media.ETHERNET, 20.0) is Medium.MULTIMODE


def test_out_of_band_copper_reaches_100_m() -> None:
    assert _pick(1, Media.ETHERNET, 99.0) is Medium.COPPER
    assert _pick(1, Media.ETHERNET, 101.0) is None


def test_defaults_are_the_classes_used_without_lengths() -> None:
    """Unplaced designs price the classes they always did."""
    assert OPT.cable_class(400, Media.INFINIBAND).id == "cable-ib-400g"
    assert OPT.cable_class(200, Media.INFINIBAND).id == "cable-ib-200g"
    assert OPT.cable_class(200, Media.ETHERNET).medium is Medium.AOC
    assert OPT.cable_class(1, Media.ETHERNET).medium is Medium.COPPER
    assert OPT.cable_class(800, Media.INFINIBAND).medium is Medium.SINGLEMODE  # XDR


def test_every_ladder_is_sourced_and_has_one_default() -> None:
    by_tier: dict[tuple[int, Media], list[str]] = {}
    for c in OPT.cables:
        by_tier.setdefault((c.speed_gbps, c.media), []).append(c.id)
        said = [e for e in c.estimates if e.startswith("reach_m:")]
        assert c.sources or said, f"{c.id}: reach without a source or estimate"
        if c.medium.fiber:
            assert c.transceiver is not None
            assert OPT.transceiver(c.transceiver).medium is c.medium
    for (speed, media), _ in by_tier.items():
        assert sum(c.default for c in OPT.ladder(speed, media)) == 1


@settings(max_examples=examples(300), deadline=None)
@given(
    speed=st.sampled_from([1, 10, 25, 100, 200, 400, 800]),
    media=st.sampled_from([Media.INFINIBAND, Media.ETHERNET]),
    a=st.floats(0, 700, allow_nan=False),
    b=st.floats(0, 700, allow_nan=False),
)
def test_a_longer_cable_never_gets_a_shorter_reach_medium(
    speed: int, media: Media, a: float, b: float
) -> None:
    short, long_ = sorted((a, b))
    c1 = OPT.cable_for_length(speed, media, short)
    c2 = OPT.cable_for_length(speed, media, long_)
    if c2 is not None:
        assert c1 is not None and c1.reach_m <= c2.reach_m
        assert c2.reach_m >= long_
    if c1 is None:
        assert c2 is None  # nothing reaches the shorter one: nothing the longer


def test_module_variants_follow_the_medium() -> None:
    dgx = _iface(CAT, "dgx-h100", "compute")
    qm = _iface(CAT, "qm9700", "ports")
    sm = OPT.module_for(dgx, 400, medium=Medium.SINGLEMODE)
    assert sm is not None and sm.id == "osfp-2x400g-sm" and sm.links == 2
    mm = OPT.module_for(qm, 400, medium=Medium.MULTIMODE)
    assert mm is not None and mm.id == "osfp-2x400g"
    assert OPT.module_for(qm, 400, medium=Medium.DAC) is None
    assert OPT.module_for(qm, 400, medium=Medium.ACC) is None
    vr = _iface(CAT, "vr-nvl72", "compute")
    xdr = OPT.module_for(vr, 800)
    assert xdr is not None and xdr.id == "osfp-800g-sm"  # XDR is single-mode
    eth = OPT.module_for(vr, 800, Media.ETHERNET)
    assert eth is not None and eth.id == "osfp-800g"  # 800GbE SR8
    sn = _iface(CAT, "sn5600", "ports")
    lane = OPT.module_for(sn, 400, medium=Medium.SINGLEMODE)
    assert lane is not None and lane.id == "osfp-800g-sm"


def test_every_port_group_has_a_module_for_each_fibre_medium_it_can_get() -> None:
    for entry in CAT.values():
        for i in entry.interfaces:
            for speed in i.speeds_gbps:
                for c in OPT.ladder(speed, i.media):
                    module = OPT.module_for(i, speed, medium=c.medium)
                    if c.medium.fiber:
                        assert module is not None, (entry.slug, i.name, c.id)
                        assert module.medium is c.medium, (entry.slug, i.name, c.id)
                    else:
                        assert module is None
