"""The link a connect gesture makes: data before management, all free ports."""

from __future__ import annotations

import pytest

from designer.catalog.loader import default_catalog
from designer.core.checks import check_design
from designer.core.connect import plan_connection
from designer.core.errors import ConnectionRefused, MediaMismatch, PortBudgetExceeded
from designer.core.model import Design, Device, Fabric, Link

CATALOG = default_catalog()
DEVICES = {
    "dgx-01": "dgx-h100",
    "leaf-1": "qm9700",
    "leaf-2": "qm9700",
    "nfs": "nfs-filer",
    "oob": "sn2201",
    "inb": "sn4600c",
    "head": "head-node",
    "fs": "lustre-appliance",
    "ufm": "ufm-appliance",
    "eth": "sn5600",
    "gb": "gb200-nvl72",
}


def fresh() -> Design:
    return Design(devices=[Device(id=k, catalog_id=v) for k, v in DEVICES.items()])


@pytest.mark.parametrize(
    ("a", "b", "kw", "made"),
    [
        # all free compute ports, up to the leaf's free ports
        (
            "dgx-01",
            "leaf-1",
            {},
            "8 cables, compute, 400G: dgx-01 compute -> leaf-1 ports",
        ),
        (
            "dgx-01",
            "leaf-1",
            {"cables": 1},
            "1 cable, compute, 400G: dgx-01 compute -> leaf-1 ports",
        ),
        # an Ethernet in-band switch: the in-band NIC, not the BMC
        ("dgx-01", "inb", {}, "2 cables, inband, 100G: dgx-01 inband -> inb ports"),
        # an OOB switch: nothing else fits, so the BMC goes on its access port
        ("dgx-01", "oob", {}, "1 cable, oob, 1G: dgx-01 bmc -> oob ports"),
        ("leaf-1", "oob", {}, "1 cable, oob, 1G: leaf-1 mgmt -> oob ports"),
        # out-of-band asked for: the BMC on the management switch
        (
            "dgx-01",
            "oob",
            {"fabric": Fabric.OOB},
            "1 cable, oob, 1G: dgx-01 bmc -> oob ports",
        ),
        ("nfs", "inb", {}, "4 cables, storage, 100G: nfs data -> inb ports"),
        ("fs", "leaf-1", {}, "8 cables, storage, 200G: fs data -> leaf-1 ports"),
        ("head", "leaf-1", {}, "2 cables, storage, 200G: head storage -> leaf-1 ports"),
        ("ufm", "leaf-1", {}, "1 cable, compute, 200G: ufm compute -> leaf-1 ports"),
        # switch to switch with no links yet: compute, every free port
        (
            "leaf-1",
            "leaf-2",
            {},
            "64 cables, compute, 400G: leaf-1 ports -> leaf-2 ports",
        ),
        # two OOB switches: 1G is management
        ("oob", "inb", {}, "4 cables, oob, 100G: oob uplinks -> inb ports"),
    ],
)
def test_connect_choice(a: str, b: str, kw: dict[str, object], made: str) -> None:
    d = fresh()
    plan = plan_connection(d, a, b, CATALOG, **kw)  # type: ignore[arg-type]
    assert plan.description == made
    assert plan.management == ("oob" in made.split(",")[1])
    d.links.append(plan.link)
    assert check_design(d, CATALOG) == []


def test_filer_to_infiniband_switch_is_refused_not_made_oob() -> None:
    # Before: a silent 1 Gb/s link from the filer's BMC to the switch's mgmt port.
    with pytest.raises(MediaMismatch) as info:
        plan_connection(fresh(), "nfs", "leaf-1", CATALOG)
    msg = str(info.value)
    assert msg.startswith(
        "nfs-filer nfs port group 'data' is Ethernet but qm9700 leaf-1 port group "
        "'ports' is InfiniBand"
    )
    # the filer's BMC and the leaf's mgmt port are both management ports: no
    # out-of-band link joins them either (issue 16, item 1)
    with pytest.raises(ConnectionRefused, match="are both management ports"):
        plan_connection(fresh(), "nfs", "leaf-1", CATALOG, fabric=Fabric.OOB)


def test_out_of_band_to_a_fabric_switch_is_refused() -> None:
    """Before: "1 cable, oob, 1G: dgx-01 bmc -> leaf-1 mgmt" (two management
    ports, no management switch)."""
    with pytest.raises(ConnectionRefused) as info:
        plan_connection(fresh(), "dgx-01", "leaf-1", CATALOG, fabric=Fabric.OOB)
    assert str(info.value).startswith(
        "an out-of-band link joins a management port (a BMC or a switch's mgmt "
        "port) to a management switch's access port: dgx-h100 dgx-01 port group "
        "'bmc' and qm9700 leaf-1 port group 'mgmt' are both management ports"
    )


def test_all_free_ports_up_to_the_other_end() -> None:
    d = fresh()
    # leaf-1 has 3 ports left: a DGX gets 3 cables, not 8
    d.links.append(
        Link(
            id="full",
            a="leaf-1",
            a_port="ports",
            b="leaf-2",
            b_port="ports",
            cables=61,
            speed_gbps=400,
        )
    )
    plan = plan_connection(d, "dgx-01", "leaf-1", CATALOG)
    assert plan.link.cables == 3
    d.links.append(plan.link)
    # now leaf-1 is full: refused with the budget reason, no fallback to a BMC
    with pytest.raises(PortBudgetExceeded, match="qm9700 leaf-1: port group 'ports'"):
        plan_connection(d, "dgx-01", "leaf-1", CATALOG)
    # the DGX has 5 compute ports left
    assert plan_connection(d, "dgx-01", "leaf-2", CATALOG).link.cables == 3


def test_breakout_lanes_count_as_free_ports() -> None:
    # SN5600 at 400G: 128 lanes; a GB200 rack has 72 compute ports
    d = fresh()
    plan = plan_connection(d, "gb", "eth", CATALOG)
    assert (plan.link.cables, plan.link.speed_gbps) == (72, 400)
    d.links.append(plan.link)
    # compute ports full: the budget reason, not a silent storage link
    with pytest.raises(PortBudgetExceeded, match="gb200-nvl72 gb: port group 'com"):
        plan_connection(d, "gb", "eth", CATALOG)
    again = plan_connection(d, "gb", "eth", CATALOG, fabric=Fabric.STORAGE)
    assert (again.link.a_port, again.link.cables) == ("storage", 36)
    d.links.append(again.link)
    assert check_design(d, CATALOG) == []


def test_a_switch_end_prefers_the_fabric_it_carries() -> None:
    # leaf-2 carries storage: a DGX dragged to it uses its storage ports
    d = fresh()
    d.links.append(plan_connection(d, "fs", "leaf-2", CATALOG).link)
    plan = plan_connection(d, "dgx-01", "leaf-2", CATALOG)
    assert plan.description == "2 cables, storage, 400G: dgx-01 storage -> leaf-2 ports"
    # and to an empty leaf its compute ports
    assert plan_connection(d, "dgx-01", "leaf-1", CATALOG).link.fabric is Fabric.COMPUTE


def test_refusals_are_connection_refused_with_reasons() -> None:
    d = fresh()
    with pytest.raises(ConnectionRefused, match="cannot join 'leaf-1' to itself"):
        plan_connection(d, "leaf-1", "leaf-1", CATALOG)
    with pytest.raises(ConnectionRefused, match="'ghost' is not in the design"):
        plan_connection(d, "leaf-1", "ghost", CATALOG)
    with pytest.raises(ValueError, match="at least 1"):
        plan_connection(d, "dgx-01", "leaf-1", CATALOG, cables=0)
