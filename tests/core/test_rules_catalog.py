"""The rules fed straight from the shipped catalog (duck-typed adapter)."""

from __future__ import annotations

import pytest

from designer.catalog.loader import default_catalog
from designer.core.checks import check_design, check_link
from designer.core.connect import suggest_link
from designer.core.document import Document
from designer.core.errors import PortBudgetExceeded
from designer.core.model import Design, Device, Fabric
from designer.core.specs import as_lookup, ports_in_use
from designer.core.wiring import connect_all_to_all, wire_rail_optimized


@pytest.fixture(scope="module")
def catalog():  # type: ignore[no-untyped-def]
    return default_catalog()


def test_adapter_on_real_entries(catalog) -> None:  # type: ignore[no-untyped-def]
    look = as_lookup(catalog)
    qm = look("qm9700")
    assert qm is not None
    ports = qm.port_group("ports")
    assert ports is not None and (ports.count, ports.ports_per_cage) == (64, 2)
    assert ports.media == "infiniband" and ports.role == "any"
    nic = look("dgx-h100")
    assert nic is not None and nic.port_group("compute").count == 8  # type: ignore[union-attr]
    assert look("generic-switch").configurable  # type: ignore[union-attr]
    assert look("no-such-thing") is None


def test_dgx_h100_su_wires_cleanly(catalog) -> None:  # type: ignore[no-untyped-def]
    nodes = [f"dgx-{i}" for i in range(1, 33)]
    leaves = [f"leaf-{i}" for i in range(1, 9)]
    spines = [f"spine-{i}" for i in range(1, 17)]
    d = Design(
        devices=[Device(id=n, catalog_id="dgx-h100") for n in nodes]
        + [Device(id=x, catalog_id="qm9700") for x in leaves + spines]
        + [Device(id="ufm-1", catalog_id="ufm-appliance")]
    )
    doc = Document(d)
    doc.execute(wire_rail_optimized(d, nodes, leaves, catalog))
    doc.execute(connect_all_to_all(d, leaves, spines, 2, catalog))
    assert check_design(d, catalog) == []
    assert ports_in_use(d)[("leaf-1", "ports")] == 64
    # The leaves are full: the UFM appliance needs a spare leaf port.
    with pytest.raises(PortBudgetExceeded, match="qm9700 leaf-1: port group 'ports'"):
        suggest_link(d, "ufm-1", "leaf-1", catalog)
    ufm = suggest_link(d, "ufm-1", "spine-1", catalog)
    assert (ufm.a_port, ufm.speed_gbps, ufm.fabric) == ("compute", 200, Fabric.COMPUTE)
    check_link(d, ufm, catalog)


def test_configurable_switch_uses_device_ports(catalog) -> None:  # type: ignore[no-untyped-def]
    d = Design(
        devices=[
            Device(id="s", catalog_id="generic-switch", ports={"ports": 4}),
            *[Device(id=f"h{i}", catalog_id="generic-host") for i in range(5)],
        ]
    )
    for i in range(4):
        d.links.append(suggest_link(d, f"h{i}", "s", catalog))
    with pytest.raises(PortBudgetExceeded, match="has 4 ports but 5 would be in use"):
        suggest_link(d, "h4", "s", catalog)


def test_gb200_rack_rail_wiring(catalog) -> None:  # type: ignore[no-untyped-def]
    leaves = [f"leaf-{i}" for i in range(1, 5)]
    d = Design(
        devices=[Device(id="rack-1", catalog_id="gb200-nvl72")]
        + [Device(id=x, catalog_id="qm9700") for x in leaves]
    )
    wire_rail_optimized(d, ["rack-1"], leaves, catalog).do(d)
    assert d.links.cables == [18] * 4 and d.links.rail == [0, 1, 2, 3]
    assert check_design(d, catalog) == []


def test_gb200_rack_on_18_tray_rails(catalog) -> None:  # type: ignore[no-untyped-def]
    # The generator's SU model: rail r = compute-tray position r (4 NIC ports).
    leaves = [f"leaf-{i}" for i in range(1, 19)]
    d = Design(
        devices=[Device(id="rack-1", catalog_id="gb200-nvl72")]
        + [Device(id=x, catalog_id="qm9700") for x in leaves]
    )
    wire_rail_optimized(d, ["rack-1"], leaves, catalog).do(d)
    assert d.links.cables == [4] * 18 and d.links.rail == list(range(18))
