"""Connection rules: each typed error with catalog-like hardware, port counting."""

from __future__ import annotations

import pickle
from types import SimpleNamespace

import pytest

from designer.core.checks import check_design, check_link
from designer.core.connect import fabric_hint, suggest_link
from designer.core.errors import (
    ConnectionRefused,
    FabricMismatch,
    MediaMismatch,
    NoCompatiblePorts,
    PortBudgetExceeded,
    SelfLink,
    SpeedMismatch,
    UnknownCatalogEntry,
    UnknownDevice,
    UnknownPortGroup,
)
from designer.core.model import Design, Device, Fabric, Link
from designer.core.specs import (
    DeviceSpec,
    PortGroupSpec,
    PortUsage,
    as_lookup,
    ports_in_use,
    rows_touching,
    spec_from_entry,
)
from tests.core.hardware import ENTRIES, SPECS, lookup


def design(*devices: tuple[str, str]) -> Design:
    return Design(devices=[Device(id=i, catalog_id=c) for i, c in devices])


def link(a: str, ap: str, b: str, bp: str, speed: int = 400, **kw: object) -> Link:
    return Link(
        id=kw.pop("id", f"{a}--{b}"),  # type: ignore[arg-type]
        a=a,
        a_port=ap,
        b=b,
        b_port=bp,
        speed_gbps=speed,
        **kw,  # type: ignore[arg-type]
    )


def test_adapter_reads_catalog_like_entries() -> None:
    qm = SPECS["qm9700"]
    ports = qm.port_group("ports")
    assert ports is not None
    assert (ports.count, ports.speeds_gbps, ports.media, ports.role) == (
        64,
        (400, 200),
        "infiniband",
        "any",
    )
    assert ports.ports_per_cage == 2
    assert ports.describe_count() == "64 ports (32 twin-port cages)"
    sn = SPECS["sn5600"].port_group("ports")
    assert (
        sn is not None
        and sn.split(400) == 2
        and sn.split(200) == 4
        and sn.split(800) == 1
    )
    assert SPECS["generic-switch"].configurable and not qm.configurable
    assert SPECS["dgx-h100"].category == "compute"
    assert spec_from_entry(qm) is qm


def test_as_lookup_accepts_mappings_and_callables_and_caches() -> None:
    calls: list[str] = []

    def raw(cid: str) -> object:
        calls.append(cid)
        return ENTRIES.get(cid)

    look = as_lookup(raw)
    assert look("qm9700") == SPECS["qm9700"]
    assert look("qm9700") is look("qm9700")
    assert calls == ["qm9700"]
    assert look("nope") is None
    assert as_lookup(look) is look
    assert as_lookup(ENTRIES)("dgx-h100") == SPECS["dgx-h100"]
    with pytest.raises(TypeError):
        as_lookup(42)


def test_valid_link_passes_with_entries_or_specs() -> None:
    d = design(("dgx-1", "dgx-h100"), ("leaf-1", "qm9700"))
    check_link(d, link("dgx-1", "compute", "leaf-1", "ports", rail=0), ENTRIES)
    check_link(d, link("dgx-1", "compute", "leaf-1", "ports", 200), lookup)


def test_twin_port_cages_count_as_two_ports() -> None:
    # QM9700: 32 OSFP cages, 64 ports. 64 cables fit, the 65th does not.
    d = design(("leaf-1", "qm9700"), ("sp-1", "qm9700"), ("sp-2", "qm9700"))
    d.links.append(link("leaf-1", "ports", "sp-1", "ports", cables=32, id="a"))
    d.links.append(link("leaf-1", "ports", "sp-2", "ports", cables=30, id="b"))
    assert ports_in_use(d)[("leaf-1", "ports")] == 62
    check_link(d, link("leaf-1", "ports", "sp-2", "ports", cables=2, id="c"), lookup)
    with pytest.raises(PortBudgetExceeded) as info:
        check_link(
            d, link("leaf-1", "ports", "sp-2", "ports", cables=4, id="c"), lookup
        )
    err = info.value
    assert str(err) == (
        "qm9700 leaf-1: port group 'ports' has 64 ports (32 twin-port cages) but "
        "66 would be in use (2 too many): 34 to sp-2 and 32 to sp-1"
    )
    assert (err.device, err.port_group, err.capacity, err.in_use, err.needed) == (
        "leaf-1",
        "ports",
        64,
        66,
        2,
    )
    assert err.items == ("c", "leaf-1")


def test_dgx_h100_has_eight_compute_ports() -> None:
    d = design(("dgx-1", "dgx-h100"), ("leaf-1", "qm9700"))
    d.links.append(link("dgx-1", "compute", "leaf-1", "ports", cables=8, id="all"))
    with pytest.raises(
        PortBudgetExceeded,
        match=r"has 8 ports \(4 twin-port cages\) but 9 would be in use \(1 too",
    ):
        check_link(d, link("dgx-1", "compute", "leaf-1", "ports", id="ninth"), lookup)


def test_editing_a_link_does_not_count_it_twice() -> None:
    d = design(("dgx-1", "dgx-h100"), ("leaf-1", "qm9700"))
    d.links.append(link("dgx-1", "compute", "leaf-1", "ports", cables=8, id="all"))
    check_link(
        d, link("dgx-1", "compute", "leaf-1", "ports", cables=8, id="all"), lookup
    )
    with pytest.raises(PortBudgetExceeded, match="9 would be in use \\(1 too many"):
        check_link(
            d, link("dgx-1", "compute", "leaf-1", "ports", cables=9, id="all"), lookup
        )


def test_breakout_counts_native_ports() -> None:
    # SN5600: 64 x 800G = 128 x 400G = 256 x 200G.
    d = design(("sp", "sn5600"), ("l1", "sn5600"), ("l2", "sn5600"))
    d.links.append(link("sp", "ports", "l1", "ports", 400, cables=100, id="a"))
    d.links.append(link("sp", "ports", "l2", "ports", 200, cables=6, id="b"))
    usage = PortUsage.of(d)
    assert usage.links("sp", "ports") == 106
    grp = SPECS["sn5600"].port_group("ports")
    assert grp is not None
    assert usage.native("sp", grp) == 50 + 2  # 100 / 2 at 400G, ceil(6 / 4) at 200G
    check_link(d, link("sp", "ports", "l2", "ports", 800, cables=12, id="c"), lookup)
    check_link(d, link("sp", "ports", "l2", "ports", 400, cables=24, id="c"), lookup)
    with pytest.raises(
        PortBudgetExceeded, match="65 would be in use by 119 cables \\(1 too many"
    ):
        check_link(
            d, link("sp", "ports", "l2", "ports", 800, cables=13, id="c"), lookup
        )


def test_configurable_port_count_only_for_configurable_entries() -> None:
    d = Design(
        devices=[
            Device(id="g", catalog_id="generic-switch", ports={"ports": 4}),
            Device(id="q", catalog_id="qm9700", ports={"ports": 4}),
            Device(id="h", catalog_id="generic-host"),
            Device(id="h2", catalog_id="generic-host"),
        ]
    )
    with pytest.raises(
        PortBudgetExceeded,
        match="generic-switch g: port group 'ports' has 4 ports but 5 would be in "
        "use \\(1 too many\\)",
    ):
        check_link(
            d,
            link("g", "ports", "h", "compute", cables=5, id="x", fabric=Fabric.COMPUTE),
            lookup,
        )
    with pytest.raises(
        MediaMismatch
    ):  # qm9700 ignores Device.ports, but IB vs Ethernet
        check_link(d, link("q", "ports", "h", "compute", id="y"), lookup)


@pytest.mark.parametrize(
    ("lk", "error", "message"),
    [
        (
            link("dgx-1", "compute", "dgx-1", "storage", id="s"),
            SelfLink,
            "cannot join 'dgx-1' to itself",
        ),
        (
            link("dgx-1", "compute", "ghost", "ports", id="u"),
            UnknownDevice,
            "device 'ghost' is not in the design",
        ),
        (
            link("dgx-1", "compute", "odd-1", "ports", id="c"),
            UnknownCatalogEntry,
            "catalog id 'mystery-box' is not in the catalog",
        ),
        (
            link("dgx-1", "nvlink", "leaf-1", "ports", id="p"),
            UnknownPortGroup,
            "dgx-h100 dgx-1 has no port group 'nvlink' "
            "(it has 'compute', 'storage', 'inband', 'bmc')",
        ),
        (
            link("dgx-1", "compute", "leaf-1", "ports", fabric=Fabric.STORAGE, id="f"),
            FabricMismatch,
            "dgx-h100 dgx-1 port group 'compute' is for the compute fabric, "
            "not the storage fabric",
        ),
        (
            link("fs-1", "data", "leaf-1", "ports", fabric=Fabric.COMPUTE, id="f2"),
            FabricMismatch,
            "lustre-appliance fs-1 port group 'data' is for the storage fabric, "
            "not the compute fabric",
        ),
        (
            link("dgx-1", "compute", "eth-1", "ports", id="m"),
            MediaMismatch,
            "dgx-h100 dgx-1 port group 'compute' is InfiniBand but sn5600 eth-1 "
            "port group 'ports' is Ethernet",
        ),
        (
            link("dgx-1", "compute", "leaf-1", "ports", 800, id="sp"),
            SpeedMismatch,
            "800 Gb/s is not supported by dgx-h100 dgx-1 port group 'compute' "
            "(runs at 400/200 Gb/s)",
        ),
        (
            link("hdr-1", "ports", "leaf-1", "ports", 400, id="sp2"),
            SpeedMismatch,
            "400 Gb/s is not supported by qm8700 hdr-1 port group 'ports' "
            "(runs at 200/100 Gb/s)",
        ),
    ],
)
def test_every_error_type(
    lk: Link, error: type[ConnectionRefused], message: str
) -> None:
    d = design(
        ("dgx-1", "dgx-h100"),
        ("leaf-1", "qm9700"),
        ("eth-1", "sn5600"),
        ("fs-1", "lustre-appliance"),
        ("hdr-1", "qm8700"),
        ("odd-1", "mystery-box"),
    )
    with pytest.raises(error) as info:
        check_link(d, lk, lookup)
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)
    assert info.value.link_id == lk.id
    copy = pickle.loads(pickle.dumps(info.value))
    assert type(copy) is error and str(copy) == str(info.value)


def test_media_mismatch_is_a_fabric_mismatch_and_vpi_bridges_it() -> None:
    assert issubclass(MediaMismatch, FabricMismatch)
    d = design(("h", "vpi-host"), ("eth", "sn5600"))
    check_link(d, link("h", "compute", "eth", "ports", 400), lookup)


def test_ports_in_use_counts_cables_at_both_ends() -> None:
    d = design(("dgx-1", "dgx-h100"), ("leaf-1", "qm9700"), ("leaf-2", "qm9700"))
    d.links.append(link("dgx-1", "compute", "leaf-1", "ports", id="a", cables=3))
    d.links.append(link("dgx-1", "compute", "leaf-2", "ports", id="b"))
    d.links.append(link("leaf-1", "ports", "leaf-2", "ports", id="c", cables=2))
    assert dict(ports_in_use(d)) == {
        ("dgx-1", "compute"): 4,
        ("leaf-1", "ports"): 5,
        ("leaf-2", "ports"): 3,
    }
    assert ports_in_use(d)[("leaf-9", "ports")] == 0


def test_suggest_link_defaults() -> None:
    d = design(
        ("dgx-1", "dgx-h100"),
        ("leaf-1", "qm9700"),
        ("sp-1", "qm9700"),
        ("eth-1", "sn5600"),
        ("fs-1", "lustre-appliance"),
        ("oob-1", "sn2201"),
        ("hdr-1", "qm8700"),
    )
    first = suggest_link(d, "dgx-1", "leaf-1", lookup)
    assert (
        first.id,
        first.a_port,
        first.b_port,
        first.speed_gbps,
        first.fabric,
        first.cables,
    ) == ("dgx-1--leaf-1", "compute", "ports", 400, Fabric.COMPUTE, 1)
    d.links.append(first)
    assert suggest_link(d, "dgx-1", "leaf-1", lookup).id == "dgx-1--leaf-1-2"
    # Storage appliance: its 'data' ports decide the fabric.
    fs = suggest_link(d, "fs-1", "leaf-1", lookup)
    assert (fs.a_port, fs.fabric, fs.speed_gbps) == ("data", Fabric.STORAGE, 400)
    # DGX to an Ethernet switch: the in-band NIC, at its top speed.
    eth = suggest_link(d, "dgx-1", "eth-1", lookup)
    assert (eth.a_port, eth.fabric, eth.speed_gbps) == ("inband", Fabric.INBAND, 200)
    # BMC on the OOB switch when asked for the OOB fabric.
    oob = suggest_link(d, "dgx-1", "oob-1", lookup, Fabric.OOB)
    assert (oob.a_port, oob.b_port, oob.speed_gbps) == ("bmc", "ports", 1)
    # Switch to switch follows the fabric of the existing links.
    assert suggest_link(d, "leaf-1", "sp-1", lookup).fabric == Fabric.COMPUTE
    d.links.append(fs)
    assert fabric_hint(d, ["fs-1"]) == Fabric.STORAGE
    # Mixed generations: highest common speed (HDR 200G).
    hdr = suggest_link(d, "hdr-1", "sp-1", lookup)
    assert hdr.speed_gbps == 200


def test_suggest_link_explains_refusals() -> None:
    d = design(
        ("dgx-1", "dgx-h100"),
        ("leaf-1", "qm9700"),
        ("eth-1", "sn5600"),
        ("hdr-1", "qm8700"),
        ("fs-1", "lustre-appliance"),
    )
    with pytest.raises(SelfLink):
        suggest_link(d, "leaf-1", "leaf-1", lookup)
    with pytest.raises(UnknownDevice):
        suggest_link(d, "leaf-1", "ghost", lookup)
    with pytest.raises(
        MediaMismatch,
        match=r"^qm9700 leaf-1 port group 'ports' is InfiniBand",
    ):
        suggest_link(d, "leaf-1", "eth-1", lookup)
    with pytest.raises(SpeedMismatch, match="800 Gb/s is not supported"):
        suggest_link(d, "dgx-1", "leaf-1", lookup, speed_gbps=800)
    with pytest.raises(SpeedMismatch, match="qm8700 hdr-1 port group 'ports'"):
        suggest_link(d, "dgx-1", "hdr-1", lookup, Fabric.STORAGE, speed_gbps=400)
    with pytest.raises(
        FabricMismatch,
        match="lustre-appliance fs-1 port group 'data' is for the storage fabric, "
        "not the compute fabric",
    ):
        suggest_link(d, "fs-1", "leaf-1", lookup, Fabric.COMPUTE)
    # Full compute ports: a budget error, not a silent fallback to the BMC.
    d.links.append(link("dgx-1", "compute", "leaf-1", "ports", cables=8, id="full"))
    with pytest.raises(
        PortBudgetExceeded, match="dgx-h100 dgx-1: port group 'compute' has 8 ports"
    ):
        suggest_link(d, "dgx-1", "leaf-1", lookup)
    empty = Design(
        devices=[Device(id="a", catalog_id="x"), Device(id="b", catalog_id="x")]
    )
    with pytest.raises(NoCompatiblePorts):
        suggest_link(empty, "a", "b", {"x": DeviceSpec("x", ())})


def test_check_design_lists_every_problem() -> None:
    d = design(("dgx-1", "dgx-h100"), ("leaf-1", "qm9700"), ("eth-1", "sn5600"))
    rows = [
        link("dgx-1", "compute", "leaf-1", "ports", id="ok"),
        link("dgx-1", "compute", "leaf-1", "ports", 800, id="fast"),
        link("dgx-1", "compute", "eth-1", "ports", id="media"),
        link("dgx-1", "compute", "leaf-1", "ports", cables=9, id="many"),
        link("dgx-1", "wrong", "leaf-1", "ports", id="port"),
        link("dgx-1", "compute", "leaf-1", "ports", id="ok2"),
    ]
    d.links.extend(rows)
    problems = check_design(d, ENTRIES)
    kinds = [(type(p).__name__, p.link_id) for p in problems]
    assert kinds == [
        ("SpeedMismatch", "fast"),
        ("MediaMismatch", "media"),
        ("UnknownPortGroup", "port"),
        ("PortBudgetExceeded", None),
    ]
    budget = problems[-1]
    assert isinstance(budget, PortBudgetExceeded)
    assert str(budget) == (
        "dgx-h100 dgx-1: port group 'compute' has 8 ports (4 twin-port cages) "
        "but 13 are in use (5 too many): 12 to leaf-1 and 1 to eth-1"
    )
    assert (
        check_design(d, ENTRIES, limit=2) == problems[:2]
        or len(check_design(d, ENTRIES, limit=2)) == 2
    )


def test_port_group_spec_without_cages() -> None:
    g = PortGroupSpec("p", 1, (1,), "ethernet", "oob")
    assert g.describe_count() == "1 port" and g.medias == ("ethernet",)
    assert spec_from_entry(
        SimpleNamespace(
            id="y",
            interfaces=[
                SimpleNamespace(
                    name="p", count=2, speeds_gbps=[1], media="ethernet", role="oob"
                )
            ],
        )
    ).port_group("p") == PortGroupSpec("p", 2, (1,), "ethernet", "oob")


def test_usage_of_some_devices_matches_the_full_count() -> None:
    d = design(
        ("dgx-1", "dgx-h100"), ("leaf-1", "qm9700"), ("sp", "sn5600"), ("l2", "sn5600")
    )
    d.links.append(link("dgx-1", "compute", "leaf-1", "ports", id="a", cables=3))
    d.links.append(link("sp", "ports", "l2", "ports", 400, id="b", cables=5))
    d.links.append(link("l2", "ports", "sp", "ports", 200, id="c", cables=2))
    d.links.append(link("leaf-1", "ports", "dgx-1", "compute", 200, id="d"))
    assert rows_touching(d, ["sp"]) == [1, 2]
    assert rows_touching(d, ["dgx-1", "ghost"]) == [0, 3]
    full, some = PortUsage.of(d), PortUsage.of(d, ["sp", "dgx-1"])
    grp = SPECS["sn5600"].port_group("ports")
    nic = SPECS["dgx-h100"].port_group("compute")
    assert grp is not None and nic is not None
    assert some.native("sp", grp) == full.native("sp", grp) == 3 + 1
    assert some.native("dgx-1", nic) == full.native("dgx-1", nic) == 4
    assert some.links("l2", "ports") == 0 and full.links("l2", "ports") == 7


def test_check_design_reports_unknown_entries_once_per_device() -> None:
    d = design(("a", "mystery"), ("leaf-1", "qm9700"), ("dgx-1", "dgx-h100"))
    for i in range(5):
        d.links.append(link("a", "p", "leaf-1", "ports", id=f"u{i}"))
        d.links.append(link("dgx-1", "nope", "leaf-1", "ports", id=f"p{i}"))
    problems = check_design(d, lookup)
    assert [(type(p).__name__, p.devices) for p in problems] == [
        ("UnknownCatalogEntry", ("a",)),
        ("UnknownPortGroup", ("dgx-1",)),
    ]


def test_check_design_budget_with_breakout() -> None:
    d = design(("sp", "sn5600"), ("l1", "sn5600"), ("l2", "sn5600"))
    d.links.append(link("sp", "ports", "l1", "ports", 400, cables=64, id="a"))
    d.links.append(link("sp", "ports", "l2", "ports", 400, cables=64, id="b"))
    assert check_design(d, lookup) == []  # 128 x 400G = 64 native 800G ports
    d.links.append(link("sp", "ports", "l2", "ports", 400, cables=1, id="c"))
    (problem,) = check_design(d, lookup)
    assert str(problem) == (
        "sn5600 sp: port group 'ports' has 64 ports but 65 are in use by 129 "
        "cables (1 too many): 65 to l2 and 64 to l1"
    )
