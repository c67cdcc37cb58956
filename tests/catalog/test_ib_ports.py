"""InfiniBand port numbers of the catalog's switches (issue 18 item 2)."""

from __future__ import annotations

import pytest

from designer.catalog import default_catalog
from designer.catalog.ib import (
    ib_port_count,
    ib_port_name,
    ib_port_number,
    ib_ports,
    numbering_note,
)

CAT = default_catalog()


def test_qm9700_twin_port_cages_number_64_ports_in_cage_order() -> None:
    e = CAT["qm9700"]
    assert ib_port_count(e) == 64
    assert ib_port_number(e, "osfp1/1") == 1
    assert ib_port_number(e, "osfp1/2") == 2
    assert ib_port_number(e, "osfp2/1") == 3
    assert ib_port_number(e, "osfp17/2") == 34  # 2(C-1)+P
    assert ib_port_number(e, "osfp32/2") == 64
    assert sorted(ib_ports(e).values()) == list(range(1, 65))
    assert ib_port_name(e, 34) == "osfp17/2"


def test_split_lanes_number_after_their_port_and_say_they_are_assumed() -> None:
    e = CAT["qm9700"]
    assert ib_port_number(e, "osfp1/1:1", split=2) == 1
    assert ib_port_number(e, "osfp1/1:2", split=2) == 2
    assert ib_port_number(e, "osfp1/2:1", split=2) == 3
    assert ib_port_count(e, split=2) == 128
    text, assumed = numbering_note(e)
    assert assumed and "assumed" in text and "ib 1/1/1" in text


@pytest.mark.parametrize(("slug", "ports"), [("q3400", 144), ("qm8700", 40)])
def test_other_infiniband_switches_are_numbered(slug: str, ports: int) -> None:
    e = CAT[slug]
    assert ib_port_count(e) == ports
    assert sorted(ib_ports(e).values()) == list(range(1, ports + 1))
    assert numbering_note(e)[1]  # not published: assumed


def test_qm8700_front_panel_number_is_the_ib_port() -> None:
    assert ib_port_number(CAT["qm8700"], "qsfp56-36") == 36


def test_unknown_ports_and_ethernet_switches_are_refused_by_name() -> None:
    with pytest.raises(KeyError, match="qm9700 has no InfiniBand port 'osfp33/1'"):
        ib_port_number(CAT["qm9700"], "osfp33/1")
    with pytest.raises(KeyError, match="sn5600 has no InfiniBand port numbering"):
        ib_port_number(CAT["sn5600"], "swp1")


def test_every_infiniband_switch_of_the_catalog_has_a_numbering() -> None:
    for entry in CAT.values():
        if entry.category.value != "switch":
            continue
        groups = [g for g in entry.interfaces if g.media.value == "infiniband"]
        if groups and not entry.ext.configurable:
            assert ib_ports(entry), entry.slug
