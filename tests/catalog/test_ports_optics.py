"""Port budgets (breakout, configurable entries) and cable/transceiver counting."""

from __future__ import annotations

import pytest

from designer.catalog import (
    CableClass,
    CableKind,
    Catalog,
    Interface,
    Media,
    Role,
    Transceiver,
    cable_price,
    common_media,
    default_catalog,
    device_ports_problems,
    effective_ports,
    effective_ports_at,
    effective_radix,
    end_transceivers,
    optics_price,
    port_group_transceivers,
)


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return default_catalog()


def _iface(cat: Catalog, slug: str, name: str) -> Interface:
    i = cat[slug].interface(name)
    assert i is not None
    return i


def test_ports_at_with_and_without_breakout(cat: Catalog) -> None:
    qm = _iface(cat, "qm9700", "ports")
    assert (qm.ports_at(400), qm.ports_at(200), qm.ports_at(100)) == (64, 128, 0)
    assert qm.links_per_cage(400) == 2 and qm.links_per_cage(200) == 4
    dgx = _iface(cat, "dgx-h100", "compute")
    # a lower speed without breakout runs one link per port
    assert (dgx.ports_at(400), dgx.ports_at(200)) == (8, 8)
    assert dgx.split(800) == 0 and not dgx.supports_speed(800)
    hdr = _iface(cat, "qm8700", "ports")
    assert (hdr.ports_at(200), hdr.ports_at(100)) == (40, 80)
    assert qm.ports_at(200, count=10) == 20


def test_media_alternatives(cat: Catalog) -> None:
    dgx = _iface(cat, "dgx-h100", "compute")
    assert dgx.supports_media(Media.INFINIBAND) and dgx.supports_media(Media.ETHERNET)
    sn = _iface(cat, "sn5600", "ports")
    assert not sn.supports_media(Media.INFINIBAND)


def test_interface_validation_messages() -> None:
    base = {
        "name": "p",
        "type": "x",
        "count": 4,
        "media": "ethernet",
        "role": "any",
    }
    with pytest.raises(ValueError, match="repeat"):
        Interface.model_validate({**base, "speeds_gbps": [100, 100]})
    with pytest.raises(ValueError, match="lower speeds"):
        Interface.model_validate(
            {**base, "speeds_gbps": [100, 25], "breakout": {100: 2}}
        )
    with pytest.raises(ValueError, match="alt_media repeats"):
        Interface.model_validate(
            {**base, "speeds_gbps": [100], "alt_media": ["ethernet"]}
        )


def test_effective_ports_only_for_configurable(cat: Catalog) -> None:
    gs = cat["generic-switch"]
    assert effective_ports(gs, None, "ports") == 64
    assert effective_ports(gs, {"ports": 48}, "ports") == 48
    assert effective_radix(gs, {"ports": 4}) == 4
    assert effective_ports_at(gs, {"ports": 6}, "ports", 400) == 6
    assert effective_ports_at(gs, {"ports": 6}, "ports", 3) == 0
    host = cat["generic-host"]
    assert effective_ports(host, {"compute": 2}, "compute") == 2
    qm = cat["qm9700"]
    assert effective_ports(qm, {"ports": 8}, "ports") == 64  # fixed entry
    assert effective_ports_at(qm, None, "ports", 200) == 128
    assert effective_radix(qm, None) == 64
    assert effective_radix(cat["dgx-h100"], None) == 0
    assert effective_ports(qm, None, "storage") == 0  # no such group


def test_device_ports_problems(cat: Catalog) -> None:
    assert device_ports_problems(cat["generic-switch"], {"ports": 8}) == []
    assert device_ports_problems(cat["qm9700"], None) == []
    (fixed,) = device_ports_problems(cat["qm9700"], {"ports": 8})
    assert "fixed port counts" in fixed
    (bad,) = device_ports_problems(cat["generic-switch"], {"uplinks": 8})
    assert "'uplinks'" in bad and "ports" in bad


def test_ra_h100_table8_transceivers(cat: Catalog) -> None:
    """127 DGX x 4 twin OSFP = 508; 48 QM9700 x 32 cages = 1,536 (RA-H100 Table 8)."""
    dgx = _iface(cat, "dgx-h100", "compute")
    assert 127 * end_transceivers(dgx, 8, 400) == 508
    qm = _iface(cat, "qm9700", "ports")
    assert 48 * end_transceivers(qm, 64, 400) == 1536
    # storage fabric: 2 QSFP112 per DGX -> 254 for 127 DGX
    assert 127 * end_transceivers(_iface(cat, "dgx-h100", "storage"), 2, 400) == 254
    # UFM: one 200G module per appliance (4 UFM transceivers for 4 appliances)
    assert end_transceivers(_iface(cat, "ufm-appliance", "compute"), 1, 200) == 1


def test_transceiver_counts_round_up_per_cage(cat: Catalog) -> None:
    qm = _iface(cat, "qm9700", "ports")
    assert end_transceivers(qm, 3, 400) == 2  # a half-used twin cage still holds one
    assert end_transceivers(qm, 5, 200) == 2  # 4 links per cage at 200G (splitters)
    assert end_transceivers(qm, 0, 400) == 0
    assert cat.optics.module_for(qm, 400).id == "osfp-2x400g"  # type: ignore[union-attr]


def test_copper_and_aoc_need_no_transceivers(cat: Catalog) -> None:
    assert end_transceivers(_iface(cat, "dgx-h100", "bmc"), 1, 1) == 0
    assert end_transceivers(_iface(cat, "dgx-h100", "inband"), 2, 200) == 0  # AOC
    assert end_transceivers(_iface(cat, "sn4600c", "ports"), 64, 100) == 0
    price = optics_price(200, Media.ETHERNET)
    assert price.usd == 0 and "carries its own ends" in price.source


def test_default_module_when_group_names_none(cat: Catalog) -> None:
    gs = _iface(cat, "generic-switch", "ports")
    assert gs.transceiver is None
    module = cat.optics.module_for(gs, 400)
    assert module is not None and module.id == "osfp-400g" and module.links == 1
    assert end_transceivers(gs, 10, 400) == 10


def test_optics_and_cable_prices(cat: Catalog) -> None:
    p = optics_price(400, Media.INFINIBAND)
    assert 700 <= p.usd <= 800 and p.estimate and "§3" in p.source  # hardware.md §3
    assert optics_price(400, Media.INFINIBAND, optics=cat) == p
    assert cable_price(400, Media.INFINIBAND).usd > 0
    assert cable_price(1, Media.ETHERNET).usd < cable_price(100, Media.ETHERNET).usd
    twin = cat.optics.transceiver("osfp-2x400g")
    assert (twin.links, twin.power_w, twin.price.usd) == (2, 17, 750)


def test_cable_class_selection(cat: Catalog) -> None:
    o = cat.optics
    assert o.cable_class(400, Media.INFINIBAND).id == "cable-ib-400g"
    assert o.cable_class(100, Media.INFINIBAND).id == "cable-ib-200g"  # next faster
    assert o.cable_class(1600, Media.ETHERNET).id == "cable-eth-800g"  # fastest
    assert o.cable_class(1, Media.ETHERNET).kind is CableKind.COPPER
    assert o.cable_class(100, Media.ETHERNET).kind is CableKind.AOC


def test_every_optics_price_is_sourced(cat: Catalog) -> None:
    o = cat.optics
    items: list[Transceiver | CableClass] = [*o.transceivers, *o.cables]
    for item in items:
        assert item.price.usd > 0 and item.price.estimate
        assert len(item.price.source) > 10 and item.price.date[:2] == "20"
        assert any(e.startswith("price:") for e in item.estimates), item.id


def test_every_shipped_port_group_can_be_cabled(cat: Catalog) -> None:
    """Every port group at every speed maps to a cable class (and module if fiber)."""
    for entry in cat.values():
        for i in entry.interfaces:
            for speed in i.speeds_gbps:
                c = cat.optics.cable_class(speed, i.media)
                assert c.media is i.media
                if c.needs_transceivers:
                    assert cat.optics.module_for(i, speed) is not None
            assert i.role in Role


def test_named_modules_are_used_at_native_speed(cat: Catalog) -> None:
    """A port group names a module only where its native cable class is fiber."""
    for entry in cat.values():
        for i in entry.interfaces:
            if i.transceiver is not None:
                module = cat.optics.module_for(i, i.speed_gbps)
                assert module is not None, (entry.slug, i.name)
                assert module.id == i.transceiver
                assert module.links == i.ports_per_cage
                assert i.media in module.media


def test_mixed_speeds_share_cages(cat: Catalog) -> None:
    """A leaf with 63 x 400G + the UFM's 200G link fills 32 cages (RA-H100 1,536)."""
    qm = _iface(cat, "qm9700", "ports")
    assert port_group_transceivers(qm, {400: 63, 200: 1}) == 32
    assert end_transceivers(qm, 63, 400) + end_transceivers(qm, 1, 200) == 33
    assert port_group_transceivers(qm, {400: 64}) == 32
    assert port_group_transceivers(qm, {}) == 0
    assert port_group_transceivers(_iface(cat, "sn4600c", "ports"), {100: 64}) == 0


def test_common_media_and_link_media_pricing(cat: Catalog) -> None:
    dgx_inband = _iface(cat, "dgx-h100", "inband")
    dgx = _iface(cat, "dgx-h100", "compute")
    sn = _iface(cat, "sn5600", "ports")
    qm = _iface(cat, "qm9700", "ports")
    assert common_media(dgx, sn) is Media.ETHERNET  # VPI port on Spectrum-X
    assert common_media(dgx, qm) is Media.INFINIBAND
    assert common_media(qm, sn) is None
    assert common_media(dgx_inband, qm) is None
    # 200G: InfiniBand is fibre + modules, Ethernet is an AOC with its own ends
    assert end_transceivers(dgx, 8, 200) == 4
    assert end_transceivers(dgx, 8, 200, Media.ETHERNET) == 0
    assert port_group_transceivers(dgx, {200: 8}, Media.ETHERNET) == 0


def test_lanes_of_two_breakout_speeds_do_not_share_a_port(cat: Catalog) -> None:
    """A port is one 800G link or 400G lanes: 800G + one 400G lane on an SN5600 = 2."""
    sn = _iface(cat, "sn5600", "ports")
    assert port_group_transceivers(sn, {400: 1, 800: 1}) == 2
    assert port_group_transceivers(sn, {400: 3}) == 2  # 2 lanes per port
    qm = _iface(cat, "qm9700", "ports")
    assert port_group_transceivers(qm, {400: 1, 200: 3}) == 2  # 1 + 2 ports, 2 cages
