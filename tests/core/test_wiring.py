"""Bulk wiring: rail-optimized SU and leaf-spine all-to-all, as one step each."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

import pytest

from designer.core.checks import check_design
from designer.core.document import Document
from designer.core.errors import (
    MediaMismatch,
    NothingToWire,
    PortBudgetExceeded,
    RailMismatch,
    RailsTaken,
    SelfLink,
    UnknownDevice,
    UnknownPortGroup,
)
from designer.core.ids import IdAllocator, id_base, new_id, sanitize_id
from designer.core.model import Design, Device, Fabric, Link
from designer.core.specs import ports_in_use
from designer.core.wiring import connect_all_to_all, wire_rail_optimized
from tests.core.hardware import ENTRIES, lookup


def su(nodes: int = 32, leaves: int = 8, spines: int = 16) -> Document:
    """One DGX H100 scalable unit (RA-H100: 32 nodes, 8 rail leaves) + spines."""
    devices = (
        [Device(id=f"dgx-{i + 1}", catalog_id="dgx-h100") for i in range(nodes)]
        + [Device(id=f"leaf-{i + 1}", catalog_id="qm9700") for i in range(leaves)]
        + [Device(id=f"spine-{i + 1}", catalog_id="qm9700") for i in range(spines)]
    )
    return Document(Design(devices=devices))


def ids(prefix: str, n: int) -> list[str]:
    return [f"{prefix}-{i + 1}" for i in range(n)]


def test_rail_optimized_su() -> None:
    doc = su()
    before = doc.design.model_dump()
    cmd = wire_rail_optimized(doc.design, ids("dgx", 32), ids("leaf", 8), ENTRIES)
    doc.execute(cmd)
    t = doc.design.links
    assert len(t) == 256 and sum(t.cables) == 256
    assert cmd.label == "Wire 32 nodes to 8 rails (256 links)"
    # NIC r of every node lands on rail leaf r.
    assert all(b == f"leaf-{r + 1}" for b, r in zip(t.b, t.rail, strict=True))
    assert Counter(t.rail) == {r: 32 for r in range(8)}
    assert set(t.speed_gbps) == {400} and set(t.fabric) == {Fabric.COMPUTE}
    assert set(t.a_port) == {"compute"} and set(t.b_port) == {"ports"}
    used = ports_in_use(doc.design)
    assert used[("leaf-3", "ports")] == 32 and used[("dgx-7", "compute")] == 8
    assert len(set(t.id)) == 256 and t.id[0] == "dgx-1--leaf-1"
    assert check_design(doc.design, lookup) == []
    doc.undo()
    assert doc.design.model_dump() == before


def test_leaf_spine_all_to_all_fills_the_leaves() -> None:
    # RA-H100: each leaf has 32 ports down and 32 up; with 16 spines that is
    # 2 cables from every leaf to every spine.
    doc = su()
    doc.execute(wire_rail_optimized(doc.design, ids("dgx", 32), ids("leaf", 8), lookup))
    cmd = connect_all_to_all(doc.design, ids("leaf", 8), ids("spine", 16), 2, lookup)
    doc.execute(cmd)
    t = doc.design.links
    assert len(t) == 256 + 128 and sum(t.cables) == 256 + 256
    used = ports_in_use(doc.design)
    assert all(used[(leaf, "ports")] == 64 for leaf in ids("leaf", 8))
    assert all(used[(sp, "ports")] == 16 for sp in ids("spine", 16))
    up = doc.design.links.get("leaf-1--spine-1")
    assert up is not None and up.fabric == Fabric.COMPUTE and up.cables == 2
    assert up.rail is None
    # The leaves are full now: one more cable per spine is refused, naming numbers.
    with pytest.raises(PortBudgetExceeded) as info:
        connect_all_to_all(doc.design, ids("leaf", 8), ids("spine", 16), 1, lookup)
    assert str(info.value) == (
        "qm9700 leaf-1: port group 'ports' has 64 ports (32 twin-port cages) but 80 "
        "would be in use (16 too many): 3 to spine-1, 3 to spine-10, 3 to spine-11 "
        "and 71 to 45 other devices"
    )
    assert len(doc.design.links) == 384  # nothing half-wired


def test_all_to_all_refusals() -> None:
    doc = su(nodes=2, leaves=2, spines=2)
    doc.design.devices.append(Device(id="eth", catalog_id="sn5600"))
    d = doc.design
    with pytest.raises(SelfLink):
        connect_all_to_all(d, ["leaf-1", "leaf-2"], ["leaf-2"], 1, lookup)
    with pytest.raises(UnknownDevice):
        connect_all_to_all(d, ["leaf-1"], ["ghost"], 1, lookup)
    with pytest.raises(MediaMismatch):
        connect_all_to_all(d, ["leaf-1"], ["eth"], 1, lookup)
    with pytest.raises(ValueError, match="at least 1"):
        connect_all_to_all(d, ["leaf-1"], ["spine-1"], 0, lookup)
    with pytest.raises(ValueError, match="at least one source"):
        connect_all_to_all(d, [], ["spine-1"], 1, lookup)
    with pytest.raises(
        PortBudgetExceeded,
        match=r"has 64 ports \(32 twin-port cages\) but 66 would be in use \(2 too",
    ):
        connect_all_to_all(d, ["leaf-1"], ["spine-1", "spine-2"], 33, lookup)


def test_rail_refusals() -> None:
    doc = su(nodes=2, leaves=8, spines=0)
    d = doc.design
    with pytest.raises(
        RailMismatch, match=r"dgx-h100 dgx-1 has 8 compute ports but 3 rail leaves"
    ):
        wire_rail_optimized(d, ["dgx-1"], ids("leaf", 3), lookup)
    with pytest.raises(UnknownPortGroup, match="no compute port group"):
        wire_rail_optimized(d, ["leaf-1"], ["leaf-2"], lookup)
    with pytest.raises(RailMismatch, match="two rails"):
        wire_rail_optimized(d, ["dgx-1"], ["leaf-1"] * 8, lookup)
    doc.execute(wire_rail_optimized(d, ["dgx-1"], ids("leaf", 8), lookup))
    with pytest.raises(NothingToWire, match="already has its 8 rails wired"):
        wire_rail_optimized(d, ["dgx-1"], ids("leaf", 8), lookup)


def test_rails_follow_configurable_port_count() -> None:
    d = Design(
        devices=[
            Device(id="h", catalog_id="generic-host", ports={"compute": 2}),
            Device(id="s1", catalog_id="generic-switch"),
            Device(id="s2", catalog_id="generic-switch"),
        ]
    )
    cmd = wire_rail_optimized(d, ["h"], ["s1", "s2"], lookup)
    cmd.do(d)
    assert d.links.rail == [0, 1] and d.links.b == ["s1", "s2"]


def test_link_ids_avoid_existing_ones() -> None:
    doc = su(nodes=1, leaves=8, spines=0)
    doc.design.devices.append(Device(id="fs-1", catalog_id="lustre-appliance"))
    # An unrelated link already holds the id the wiring would pick first.
    doc.design.links.append(
        Link(
            id="dgx-1--leaf-1",
            a="dgx-1",
            a_port="storage",
            b="fs-1",
            b_port="data",
            speed_gbps=400,
            fabric=Fabric.STORAGE,
        )
    )
    doc.execute(wire_rail_optimized(doc.design, ["dgx-1"], ids("leaf", 8), lookup))
    assert doc.design.links.id[1:3] == ["dgx-1--leaf-1-2", "dgx-1--leaf-2"]


def test_id_helpers() -> None:
    assert new_id("leaf", {"leaf-1", "leaf-2"}) == "leaf-3"
    assert new_id("leaf", set()) == "leaf-1"
    assert new_id("a--b", {"a--b"}, bare_first=True) == "a--b-2"
    assert new_id("a--b", set(), bare_first=True) == "a--b"
    assert sanitize_id("My Leaf #1") == "My-Leaf-1"
    assert sanitize_id("###") == "id"
    assert len(sanitize_id("x" * 500)) == 180
    assert id_base("leaf-12") == "leaf" and id_base("dgx-h100") == "dgx-h100"
    alloc = IdAllocator(["n-1", "n-3"])
    assert [alloc.new("n") for _ in range(3)] == ["n-2", "n-4", "n-5"]
    assert alloc.new("x", bare_first=True) == "x"
    assert alloc.new("x", bare_first=True) == "x-2"


def test_nvl72_rack_on_four_rail_leaves_bundles_18_per_leaf() -> None:
    # RA-GB200: 18 trays x 4 ConnectX-7 = 72 ports; one leaf per rack per rail.
    nvl = SimpleNamespace(
        slug="nvl72",
        interfaces=[
            SimpleNamespace(
                name="compute",
                count=72,
                speeds_gbps=[400, 200],
                media="infiniband",
                role="compute",
            )
        ],
    )
    look = {**ENTRIES, "nvl72": nvl}
    d = Design(
        devices=[Device(id="rack-1", catalog_id="nvl72")]
        + [Device(id=f"leaf-{i}", catalog_id="qm9700") for i in range(1, 5)]
    )
    cmd = wire_rail_optimized(d, ["rack-1"], ids("leaf", 4), look)
    assert cmd.label == "Wire 1 node to 4 rails (4 links)"
    cmd.do(d)
    assert d.links.cables == [18, 18, 18, 18] and d.links.rail == [0, 1, 2, 3]
    assert ports_in_use(d)[("rack-1", "compute")] == 72
    with pytest.raises(RailMismatch, match="72 compute ports but 5 rail leaves"):
        d.devices.append(Device(id="leaf-5", catalog_id="qm9700"))
        wire_rail_optimized(d, ["rack-1"], ids("leaf", 5), look)


def _partly_wired() -> Document:
    """4 nodes, 8 rail leaves: dgx-1 complete, dgx-2 rails 0-2, dgx-3 one cable
    on rail 4, dgx-4 none."""
    doc = su(nodes=4, leaves=8, spines=1)
    d = doc.design
    doc.execute(wire_rail_optimized(d, ["dgx-1"], ids("leaf", 8), lookup))
    for r in range(3):
        d.links.append(
            Link(
                id=f"p{r}",
                a="dgx-2",
                a_port="compute",
                b=f"leaf-{r + 1}",
                b_port="ports",
                speed_gbps=400,
                rail=r,
            )
        )
    d.links.append(
        Link(
            id="q",
            a="leaf-5",
            a_port="ports",
            b="dgx-3",
            b_port="compute",
            speed_gbps=400,
        )
    )
    return doc


def test_rails_are_completed_on_partly_wired_nodes() -> None:
    doc = _partly_wired()
    d = doc.design
    before = d.model_dump()
    cmd = wire_rail_optimized(d, ids("dgx", 4), ids("leaf", 8), lookup)
    # dgx-1 complete (nothing), dgx-2 misses 5 rails, dgx-3 7, dgx-4 all 8
    assert cmd.label == "Complete the rails of 3 nodes (20 links)"
    doc.execute(cmd)
    per: Counter[tuple[str, str]] = Counter()
    t = d.links
    for a, b, c in zip(t.a, t.b, t.cables, strict=True):
        node, leaf = (a, b) if a.startswith("dgx") else (b, a)
        per[(node, leaf)] += c
    assert per == {(n, leaf): 1 for n in ids("dgx", 4) for leaf in ids("leaf", 8)}
    added = t.take(range(len(t) - 20, len(t)))
    assert [r for a, r in zip(added.a, added.rail, strict=True) if a == "dgx-2"] == [
        3,
        4,
        5,
        6,
        7,
    ]
    assert check_design(d, lookup) == []
    with pytest.raises(NothingToWire):
        wire_rail_optimized(d, ids("dgx", 4), ids("leaf", 8), lookup)
    doc.undo()
    assert d.model_dump() == before


def test_nodes_wired_elsewhere_are_offered_a_rewire() -> None:
    doc = _partly_wired()
    d = doc.design
    # dgx-4's eight ports all go to the spine: its rails cannot be completed
    d.links.append(
        Link(
            id="odd",
            a="dgx-4",
            a_port="compute",
            b="spine-1",
            b_port="ports",
            cables=8,
            speed_gbps=400,
        )
    )
    with pytest.raises(RailsTaken) as info:
        wire_rail_optimized(d, ids("dgx", 4), ids("leaf", 8), lookup)
    err = info.value
    assert isinstance(err, RailMismatch) and isinstance(err, PortBudgetExceeded)
    assert str(err) == (
        "dgx-h100 dgx-4 has 8 compute ports, 8 already cabled (8 to spine-1); its "
        "missing rails need 8 more, so replace its compute links to rewire it"
    )
    assert err.devices == ("dgx-4",)
    before = d.model_dump()
    steps = len(doc.history.done)
    cmd = wire_rail_optimized(d, ids("dgx", 4), ids("leaf", 8), lookup, replace=True)
    assert cmd.label == "Rewire 4 nodes to 8 rails (32 links, 13 replaced)"
    doc.execute(cmd)
    assert len(doc.history.done) == steps + 1  # one step
    t = d.links
    assert "odd" not in t.id and "p0" not in t.id and "q" not in t.id
    assert sorted(t.id) == sorted(
        f"dgx-{n}--leaf-{r}" for n in range(1, 5) for r in range(1, 9)
    )
    assert Counter(t.rail) == {r: 4 for r in range(8)}
    assert check_design(d, lookup) == []
    doc.undo()
    assert d.model_dump() == before


def test_an_nvl72_rack_gets_the_rest_of_a_rail_bundle() -> None:
    d = Design(
        devices=[Device(id="rack-1", catalog_id="gb200-nvl72")]
        + [Device(id=f"leaf-{i}", catalog_id="qm9700") for i in range(1, 5)]
    )
    d.links.append(
        Link(
            id="some",
            a="rack-1",
            a_port="compute",
            b="leaf-2",
            b_port="ports",
            cables=10,
            speed_gbps=400,
            rail=1,
        )
    )
    from designer.catalog.loader import default_catalog

    cmd = wire_rail_optimized(d, ["rack-1"], ids("leaf", 4), default_catalog())
    cmd.do(d)
    assert d.links.cables == [10, 18, 8, 18, 18]
    assert d.links.b == ["leaf-2", "leaf-1", "leaf-2", "leaf-3", "leaf-4"]
