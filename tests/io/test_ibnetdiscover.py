"""The InfiniBand topology export: names, port numbers, rates, GUIDs, OpenSM files,
and agreement with the cabling plan and the NetBox export port for port."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from designer import generate
from designer.catalog import default_catalog
from designer.catalog.hosts import DesignHosts
from designer.cli.main import main
from designer.io import load_design
from designer.io.export.cabling import cabling_rows
from designer.io.export.ib_fabric import ib_fabrics, link_rate
from designer.io.export.ibnetdiscover import ibnetdiscover_text, write_ibnetdiscover
from designer.io.export.netbox import write_netbox_csvs
from designer.io.export.opensm import write_opensm_files
from designer.io.ibdiscovered import parse_ibnetdiscover

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


@pytest.fixture(scope="module")
def small():
    return generate.fat_tree("dgx-h100", 12, "qm9700")


def test_rates_follow_the_older_port_and_the_lanes_the_speed_needs() -> None:
    assert link_rate(400, 400, 400) == (4, "NDR")
    assert link_rate(200, 400, 400) == (2, "NDR")  # NDR200 on a split port
    assert link_rate(200, 200, 400) == (4, "HDR")  # an HDR HCA on Quantum-2
    assert link_rate(800, 800, 800) == (4, "XDR")
    assert link_rate(100, 200, 200) == (2, "HDR")  # HDR100


def test_quantum2_cage_and_port_give_the_infiniband_port_number(small) -> None:
    (fab,) = ib_fabrics(small)
    checked = 0
    for link in fab.links:
        for end in (link.a, link.b):
            if fab.nodes[end.node].is_switch:
                cage, port = map(
                    int, re.fullmatch(r"osfp(\d+)/(\d)", end.port_name).groups()
                )
                assert end.port == 2 * (cage - 1) + port
                checked += 1
    assert checked == 2 * len(fab.links) - len(fab.cas)
    assert all(n.ports == 64 for n in fab.switches)


def test_dgx_h100_ports_report_the_user_guides_devices(small) -> None:
    (fab,) = ib_fabrics(small)
    host = DesignHosts(small, default_catalog()).hostname(fab.cas[0].device)
    mine = {n.port_name: n.hca for n in fab.cas if n.host == host}
    assert mine == {
        "osfp1/1": "mlx5_11",
        "osfp1/2": "mlx5_6",
        "osfp2/1": "mlx5_10",
        "osfp2/2": "mlx5_9",
        "osfp3/1": "mlx5_4",
        "osfp3/2": "mlx5_3",
        "osfp4/1": "mlx5_5",
        "osfp4/2": "mlx5_0",
    }
    assert all(n.desc == f"{n.host} {n.hca}" and n.ports == 1 for n in fab.cas)


def test_nvl72_trays_report_their_own_hostnames() -> None:
    design = load_design(SAMPLES / "gb200-nvl72-su.json")
    hosts = DesignHosts(design, default_catalog())
    (fab,) = ib_fabrics(design)
    assert len(fab.cas) == 576
    for n in fab.cas[:80]:
        tray = int(re.match(r"tray(\d+)-", n.port_name).group(1))
        assert n.host == hosts.hostname(n.device, tray=tray)
        assert (
            n.hca
            == {
                "osfp1": "mlx5_0",
                "osfp2": "mlx5_1",
                "osfp3": "mlx5_4",
                "osfp4": "mlx5_5",
            }[n.port_name.split("-", 1)[1]]
        )
    assert len({n.desc for n in fab.cas}) == 576


def test_guids_are_deterministic_and_stable_under_other_edits(small, tmp_path) -> None:
    (a,) = ib_fabrics(small)
    (b,) = ib_fabrics(small)
    assert ibnetdiscover_text(a) == ibnetdiscover_text(b)
    bigger = generate.fat_tree("dgx-h100", 14, "qm9700")
    (c,) = ib_fabrics(bigger)
    common = set(a.nodes) & set(c.nodes)
    assert len(common) > 90
    assert all(a.nodes[n].guid == c.nodes[n].guid for n in common)
    guids = [n.guid for n in a.nodes.values()]
    assert len(set(guids)) == len(guids)
    assert all(g % 2 == 0 for g in guids)  # CA port 1 is GUID + 1


def test_export_reads_back_as_every_cable_at_both_ends(small) -> None:
    (fab,) = ib_fabrics(small)
    text = ibnetdiscover_text(fab)
    found = parse_ibnetdiscover(text, "x")
    assert len(found.nodes) == len(fab.nodes) == 6 + 96
    assert len(found.links) == len(fab.links) == 192
    assert text.count('"leaf-su01-r0"') > 24  # its stanza and every far end
    assert {lk.rate for lk in found.links} == {"4xNDR"}
    # the guid lines make ibsim take exactly these GUIDs
    for node in fab.nodes.values():
        kind = "switchguid" if node.is_switch else "caguid"
        assert f"{kind}=0x{node.guid:016x}\n" in text


def test_opensm_files_name_the_top_tier_and_the_hosts(small, tmp_path) -> None:
    ((fab, _files),) = write_opensm_files(small, tmp_path)
    roots = (tmp_path / "compute-root-guids.txt").read_text().split()
    spines = [n for n in fab.switches if n.desc.startswith("spine")]
    assert (
        sorted(roots) == sorted(f"0x{n.guid:016x}" for n in spines) and len(roots) == 2
    )
    cn = (tmp_path / "compute-cn-guids.txt").read_text().split()
    assert len(cn) == 96 and all(int(g, 16) % 2 == 1 for g in cn)
    assert not (tmp_path / "compute-io-guids.txt").exists()  # OpenSM refuses empty
    conf = (tmp_path / "compute-opensm.conf").read_text()
    assert "routing_engine ftree" in conf and "io_guid_file" not in conf
    text = (tmp_path / "compute-guid-map.csv").read_text()
    rows = list(csv.DictReader(text.splitlines()))
    assert len(rows) == 2 * len(fab.links)
    spine = next(r for r in rows if r["node_description"] == "spine-01")
    assert spine["kind"] == "Switch" and spine["rank"] == "1"
    assert spine["port_guid"] == spine["node_guid"]


def test_storage_fabric_of_its_own_gets_its_own_file(tmp_path) -> None:
    design = load_design(SAMPLES / "dgx-h100-superpod-4su.json")
    written = write_ibnetdiscover(design, tmp_path / "f.topo")
    assert [(p.name, f.name) for p, f in written] == [
        ("f.topo", "compute"),
        ("f-storage.topo", "storage"),
    ]
    storage = written[1][1]
    roles = {n.role for n in storage.cas}
    assert roles == {"compute", "io"}  # DGX storage ports and the appliances
    # ftree leaves are where compute hosts are cabled; the appliances are I/O
    assert {n.rank for n in storage.switches} == {0, 1}


def test_cabling_plan_netbox_and_ibnetdiscover_agree_port_for_port(tmp_path) -> None:
    design = load_design(SAMPLES / "dgx-h100-superpod-4su.json")
    cat = default_catalog()
    plan = {int(r[0]): r for r in cabling_rows(design, cat)}
    write_netbox_csvs(design, tmp_path)
    # NetBox rows are physical cables: a splitter is one row, its legs listed
    # (with their devices) on one side; each InfiniBand cable is one leg pair
    across: set[tuple[tuple[str, str], tuple[str, str]]] = set()
    for r in csv.DictReader((tmp_path / "cables.csv").read_text().splitlines()):
        sides = []
        for side in ("side_a", "side_b"):
            ports = r[f"{side}_name"].split(",")
            devices = r[f"{side}_device"].split(",")
            if len(devices) == 1:
                devices = devices * len(ports)
            sides.append(list(zip(devices, ports, strict=True)))
        across |= {(a, b) for a in sides[0] for b in sides[1]}
        across |= {(b, a) for a in sides[0] for b in sides[1]}
    hosts = DesignHosts(design, cat)
    compared = 0
    for fab in ib_fabrics(design, cat):
        for link in fab.links:
            row = plan[link.cable]
            assert (row[2], row[6], row[8], row[12]) == (
                link.a.device,
                link.a.port_name,
                link.b.device,
                link.b.port_name,
            )
            a, b = (
                (hosts.device_name(e.device) or e.device, e.port_name.partition(":")[0])
                for e in (link.a, link.b)
            )
            assert (a, b) in across, (a, b)
            compared += 1
    assert compared == 2044 + 472


def test_export_command_writes_both_and_refuses_an_ethernet_design(
    tmp_path, capsys
) -> None:
    topo, osm = tmp_path / "t.topo", tmp_path / "osm"
    code = main(
        [
            "export",
            str(SAMPLES / "gb200-nvl72-su.json"),
            "--ibnetdiscover",
            str(topo),
            "--opensm",
            str(osm),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "fabric compute: 34 switches, 576 HCA ports, 1,152 cables" in out
    assert topo.exists() and (osm / "compute-root-guids.txt").exists()
    code = main(
        [
            "export",
            str(SAMPLES / "inference-ethernet.json"),
            "--ibnetdiscover",
            str(tmp_path / "e.topo"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "no InfiniBand cable" in err


def test_both_exports_are_written_from_one_reading_of_the_fabric(
    tmp_path, monkeypatch
) -> None:
    """``--ibnetdiscover`` and ``--opensm`` together make the InfiniBand
    fabrics once, and write what each alone writes."""
    import designer.io.export.ib_fabric as ib

    made = []
    real = ib.ib_fabrics

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        made.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(ib, "ib_fabrics", counted)
    sample = str(SAMPLES / "dgx-h100-superpod-4su.json")
    both, alone = tmp_path / "both", tmp_path / "alone"
    both.mkdir()
    alone.mkdir()
    code = main(["export", sample, "--ibnetdiscover", str(both / "f.topo"),
                 "--opensm", str(both / "osm")])  # fmt: skip
    assert code == 0 and made == [1]
    assert main(["export", sample, "--ibnetdiscover", str(alone / "f.topo")]) == 0
    assert main(["export", sample, "--opensm", str(alone / "osm")]) == 0
    assert made == [1, 1, 1]
    for name in ("f.topo", *(f"osm/{p.name}" for p in (both / "osm").iterdir())):
        ours = (both / name).read_text("utf-8").replace(str(both), "DIR")
        theirs = (alone / name).read_text("utf-8").replace(str(alone), "DIR")
        assert ours == theirs, name  # (the OpenSM options name their folder)


def test_cutting_one_bundle_keeps_every_other_cables_infiniband_ports() -> None:
    """With pinned ports an edit to one link moves no other cable in the
    topology either: the verified fabric stays the one that was cabled."""
    from designer.core.document import Document
    from designer.core.link_commands import UpdateLinks
    from designer.io import dumps_design, loads_design

    cat = default_catalog()
    design = loads_design(dumps_design(generate.fat_tree("dgx-h100", 16, "qm9700")))
    doc = Document(design)
    t = design.links
    i = next(
        k
        for k, (a, b, c) in enumerate(zip(t.a, t.b, t.cables, strict=True))
        if a.startswith("leaf") and b.startswith("spine") and c >= 2
    )
    lid = t.id[i]

    def cables(d) -> dict[str, set[frozenset[tuple[str, int]]]]:
        out: dict[str, set[frozenset[tuple[str, int]]]] = {}
        for fab in ib_fabrics(d, cat):
            for x in fab.links:
                out.setdefault(x.link, set()).add(
                    frozenset({(x.a.node, x.a.port), (x.b.node, x.b.port)})
                )
        return out

    before = cables(doc.design)
    doc.execute(UpdateLinks({lid: {"cables": 1}}, lookup=cat))
    after = cables(doc.design)
    assert len(after[lid]) == 1 and after[lid] < before[lid]
    assert {k: v for k, v in after.items() if k != lid} == {
        k: v for k, v in before.items() if k != lid
    }
