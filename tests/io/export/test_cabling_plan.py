"""The cabling plan books every port and lane once and matches the report's counts.

Checked by :mod:`tests.io.export.plan_checks` (which reads only the CSV and the
catalog) on every sample, on generated designs of each generator, on a
hand-drawn design with mixed breakouts, on random designs and on designs that
ask for more ports than exist.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.analysis import analyze
from designer.core.model import Design, Device, Link, LinkTable, Settings
from designer.generate import fat_tree, k_ary, superpod
from designer.io import load_design
from tests.hypo import examples
from tests.io.export.plan_checks import check_against_report, check_plan

SAMPLES = sorted((Path(__file__).resolve().parents[3] / "samples").glob("*.json"))


@pytest.mark.slow
@pytest.mark.parametrize("path", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_sample_plans_are_exact(path: Path) -> None:
    design = load_design(path)
    facts = check_against_report(design)
    if path.stem == "dgx-h100-superpod-4su":
        # RA-H100 Table 8 counts 508 DGX + 1,536 switch OSFP on the compute fabric
        compute = design.model_copy(
            update={"links": design.links.take(_rows(design, "compute"))}
        )
        modules = check_against_report(compute).modules
        assert modules == {"osfp-2x400g": 508 + 1536, "qsfp56-200g": 4}  # + 4 UFM
        # "All networking components are multi-mode fiber" (RA-H100), placed too
        media = analyze(compute).physical.cables_by_media.model_dump()
        assert media == {**dict.fromkeys(media, 0), "multimode": 2044}
        # the storage fabric's 328 less 4 twin cages of the 16 Lustre links that
        # run as copper inside the storage rack once the design is placed (and
        # the 16 QSFP56 modules at their Lustre ends)
        assert facts.modules["osfp-2x400g"] == 2044 + 328 - 4
        assert sum(facts.modules.values()) == 2656 - 4 - 16


def _rows(design: Design, fabric: str) -> list[int]:
    return [i for i, f in enumerate(design.links.fabric) if f.value == fabric]


GENERATED = {
    "superpod-h100-4su": lambda: superpod("dgx-h100", 4),
    "superpod-gb200-2su": lambda: superpod("gb200-nvl72", 2),
    "fat-tree-dgx-qm9700": lambda: fat_tree("dgx-h100", 96, "qm9700"),
    "fat-tree-hgx-sn5600-400g": lambda: fat_tree("hgx-h100", 300, "sn5600"),
    "fat-tree-3tier-2to1": lambda: fat_tree(
        "dgx-b200", 600, "qm9700", oversubscription=(1, 2)
    ),
    "fat-tree-nvl72-800g": lambda: fat_tree("gb300-nvl72", 16, "q3400"),
    "fat-tree-l40s-breakout": lambda: fat_tree("l40s-server", 40, "tor-100g-32"),
    "k-ary-8": lambda: k_ary(8),
    "k-ary-6-100g": lambda: k_ary(6, speed_gbps=100),
}


@pytest.mark.slow
@pytest.mark.parametrize("make", GENERATED.values(), ids=GENERATED.keys())
def test_generated_plans_are_exact(make: object) -> None:
    design = make()  # type: ignore[operator]
    assert isinstance(design, Design)
    check_against_report(design)


def _dev(id_: str, catalog_id: str, ports: dict[str, int] | None = None) -> Device:
    return Device(id=id_, catalog_id=catalog_id, ports=ports)


def _link(
    i: int, a: str, ap: str, b: str, bp: str, speed: int, cables: int = 1
) -> Link:
    return Link(
        id=f"l{i}", a=a, a_port=ap, b=b, b_port=bp, speed_gbps=speed, cables=cables
    )


def hand_drawn() -> Design:
    """Uneven cables and every breakout the catalog has, links in odd order."""
    devices = [
        _dev("sw-eth", "sn5600"),
        _dev("sw-ib", "qm9700"),
        _dev("sw-ib2", "qm9700"),
        _dev("tor", "tor-100g-32"),
        _dev("gen", "generic-switch", {"ports": 80}),
        _dev("ufm", "ufm-appliance"),
        *(_dev(f"hgx{i}", "hgx-h100") for i in range(3)),
        *(_dev(f"b300-{i}", "dgx-b300") for i in range(2)),
        *(_dev(f"dgx{i}", "dgx-h100") for i in range(3)),
        *(_dev(f"l40s{i}", "l40s-server") for i in range(2)),
        *(_dev(f"host{i}", "generic-host", {"compute": 3}) for i in range(4)),
    ]
    ends = [
        ("sw-eth", "ports", "hgx0", "compute", 400, 5),
        ("b300-0", "compute", "sw-eth", "ports", 800, 3),
        ("sw-eth", "ports", "hgx1", "compute", 200, 3),
        ("hgx2", "compute", "sw-eth", "ports", 100, 2),
        ("sw-eth", "ports", "b300-1", "compute", 400, 4),
        ("sw-eth", "ports", "hgx2", "compute", 400, 1),
        ("hgx1", "storage", "sw-eth", "ports", 400, 2),
        ("b300-1", "compute", "sw-eth", "ports", 200, 2),
        ("dgx0", "compute", "sw-ib", "ports", 400, 7),
        ("sw-ib", "ports", "dgx1", "compute", 200, 3),
        ("ufm", "compute", "sw-ib", "ports", 200, 1),
        ("sw-ib", "ports", "sw-ib2", "ports", 400, 9),
        ("dgx2", "compute", "sw-ib2", "ports", 200, 5),
        ("dgx1", "compute", "sw-ib2", "ports", 400, 5),
        ("sw-ib2", "ports", "sw-ib", "ports", 200, 3),
        ("l40s0", "compute", "tor", "ports", 25, 3),
        ("tor", "ports", "l40s1", "compute", 100, 2),
        ("l40s1", "compute", "tor", "ports", 50, 2),
        ("tor", "ports", "sw-eth", "ports", 100, 3),
        ("dgx0", "inband", "tor", "ports", 100, 2),
        ("host0", "compute", "gen", "ports", 400, 3),
        ("gen", "ports", "host1", "compute", 800, 2),
        ("host2", "compute", "gen", "ports", 200, 3),
        ("gen", "ports", "sw-eth", "ports", 800, 4),
        ("gen", "ports", "host3", "compute", 100, 3),
    ]
    links = [_link(i, *e) for i, e in enumerate(ends)]
    return Design(
        settings=Settings(name="hand-drawn mixed breakouts"),
        devices=devices,
        links=LinkTable.from_links(links),
    )


def test_hand_drawn_mixed_breakouts_plan_is_exact() -> None:
    facts = check_against_report(hand_drawn())
    # 3 x 200G on an 800G SN5600: lanes 1-3 of one port broken out 4 ways; the
    # next 200G link (2 cables) takes its lane 4 and lane 1 of the next port
    l2 = [r["from_port"].partition(":") for r in facts.rows if r["link"] == "l2"]
    assert len({base for base, _, _ in l2}) == 1
    assert [lane for *_, lane in l2] == ["1", "2", "3"]
    l7 = [r["to_port"].partition(":") for r in facts.rows if r["link"] == "l7"]
    assert l7[0][0] == l2[0][0] and [lane for *_, lane in l7] == ["4", "1"]


def test_a_port_is_never_a_whole_port_and_lanes() -> None:
    """QM9700 with 400G ports and 200G lanes in one group: lanes get their own ports."""
    facts = check_plan(hand_drawn())
    ib = [
        (r["from_port"] if r["from_device"] == "sw-ib" else r["to_port"])
        for r in facts.rows
        if "sw-ib" in (r["from_device"], r["to_device"])
        and "sw-ib2" not in (r["from_device"], r["to_device"])
    ]
    lanes = {p.partition(":")[0] for p in ib if ":" in p}
    wholes = {p for p in ib if ":" not in p}
    assert lanes and wholes and not lanes & wholes


def test_more_cables_than_ports_are_listed_unassigned() -> None:
    design = Design(
        settings=Settings(name="over budget"),
        devices=[_dev("dgx", "dgx-h100"), _dev("leaf", "qm9700"), _dev("x", "qm9700")],
        links=LinkTable.from_links(
            [
                _link(0, "dgx", "compute", "leaf", "ports", 400, 6),
                _link(1, "dgx", "compute", "x", "ports", 400, 3),
                _link(2, "dgx", "nope", "x", "ports", 400, 1),
            ]
        ),
    )
    facts = check_plan(design)
    missing = [r for r in facts.rows if not r["from_port"]]
    assert len(missing) == 2
    assert (
        "dgx port group 'compute': the cables need 9 ports, it has 8"
        in (missing[0]["note"])
    )
    assert "has no port group 'nope'" in missing[1]["note"]
    assert all(r["to_port"] for r in facts.rows)


_SWITCHES = ("sn5600", "qm9700", "tor-100g-32", "generic-400g-64")
_NODES = ("hgx-h100", "dgx-h100", "dgx-b300", "l40s-server", "ufm-appliance")


@st.composite
def random_designs(draw: st.DrawFn) -> Design:
    """Random links between a few switches and nodes at speeds both ends run."""
    from designer.catalog import default_catalog

    cat = default_catalog()
    switches = draw(st.lists(st.sampled_from(_SWITCHES), min_size=1, max_size=3))
    nodes = draw(st.lists(st.sampled_from(_NODES), min_size=1, max_size=6))
    devices = [_dev(f"s{i}", c) for i, c in enumerate(switches)]
    devices += [_dev(f"n{i}", c) for i, c in enumerate(nodes)]
    links: list[Link] = []
    for _ in range(draw(st.integers(1, 25))):
        a = draw(st.sampled_from(devices))
        b = draw(st.sampled_from(devices[: len(switches)]))
        if a.id == b.id:
            continue
        ga = draw(st.sampled_from([g.name for g in cat[a.catalog_id].interfaces]))
        ia, ib = cat[a.catalog_id].interface(ga), cat[b.catalog_id].interface("ports")
        assert ia is not None and ib is not None
        common = sorted(set(ia.speeds_gbps) & set(ib.speeds_gbps))
        if not common:
            continue
        speed = draw(st.sampled_from(common))
        cables = draw(st.integers(1, 6))
        links.append(_link(len(links), a.id, ga, b.id, "ports", speed, cables))
    return Design(
        settings=Settings(name="random"),
        devices=devices,
        links=LinkTable.from_links(links),
    )


@pytest.mark.slow
@settings(max_examples=examples(60), deadline=None)
@given(design=random_designs())
def test_random_designs_never_double_book(design: Design) -> None:
    facts = check_plan(design)
    if not facts.unassigned:
        check_against_report(design)


def test_two_breakouts_in_one_group_take_a_module_each() -> None:
    """One 400G, one 200G and one 100G link on an SN5600 need three 800G modules.

    With fiber at 200G and 100G (a what-if optics table), each breakout takes a
    port of its own: 1/2 + 1/4 + 1/4 of a port is still three ports, and the
    report counts them as the plan lays them out.
    """
    from designer.catalog import CableKind, Catalog, Medium, default_catalog

    cat = default_catalog()
    fibre = {
        "kind": CableKind.FIBER,
        "medium": Medium.MULTIMODE,
        "transceiver": "qsfp28-100g",
    }
    cables = [
        c.model_copy(update=fibre)
        if c.id in ("cable-eth-100g", "cable-eth-200g")
        else c
        for c in cat.optics.cables
    ]
    what_if = Catalog(
        list(cat.values()), cat.optics.model_copy(update={"cables": cables})
    )
    design = Design(
        settings=Settings(name="three breakouts"),
        devices=[_dev("sw", "sn5600"), *(_dev(f"h{i}", "hgx-h100") for i in range(3))],
        links=LinkTable.from_links(
            [
                _link(0, "h0", "compute", "sw", "ports", 400),
                _link(1, "h1", "compute", "sw", "ports", 200),
                _link(2, "h2", "compute", "sw", "ports", 100),
            ]
        ),
    )
    facts = check_against_report(design, what_if)
    assert facts.modules["osfp-800g"] == 3
    ports = sorted(r["to_port"] for r in facts.rows)
    assert ports == ["swp1:1", "swp2:1", "swp3:1"]
