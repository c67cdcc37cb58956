"""Hostnames agree across the hand-offs: cabling plan, NetBox and Slurm."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from designer.catalog.hosts import design_hosts
from designer.core.model import Device
from designer.io import load_design
from designer.io.export import write_cabling_csv
from designer.io.export.netbox import write_netbox_csvs
from tests.io.export.designs import rail_design

SAMPLES = Path(__file__).resolve().parents[3] / "samples"


def _cabling(design: object) -> list[dict[str, str]]:
    out = io.StringIO()
    write_cabling_csv(design, out)  # type: ignore[arg-type]
    return list(csv.DictReader(io.StringIO(out.getvalue())))


def test_a_tray_port_is_labelled_with_its_tray_host() -> None:
    design = load_design(SAMPLES / "gb200-nvl72-su.json")
    rows = _cabling(design)
    rack = [r for r in rows if r["from_device"] == "nvl72-0003"]
    assert rack
    for r in rack:
        port = r["from_port"]
        if port.startswith("tray"):
            tray = int(port[4 : port.index("-")])
            assert r["from_host"] == f"nvl72-0003-t{tray:02d}", r
        else:  # the rack's OOB uplinks are the rack's, no host's
            assert port.startswith("oob") and r["from_host"] == ""
    # every tray of every rack has cables to the compute fabric
    trays = {r["from_host"] for r in rows if r["fabric"] == "compute"}
    assert len({t for t in trays if t}) == 8 * 18
    # switch ends have no host
    assert {r["to_host"] for r in rows if r["to_device"].startswith("leaf")} == {""}


def test_a_server_is_its_own_host_on_every_port() -> None:
    rows = _cabling(rail_design())
    for r in rows:
        if r["from_device"].startswith("dgx"):
            assert r["from_host"] == r["from_device"]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(p.name for p in SAMPLES.glob("*.json")))
def test_netbox_and_cabling_name_hosts_as_the_hosts_module(
    name: str, tmp_path: Path
) -> None:
    design = load_design(SAMPLES / name)
    hosts = design_hosts(design)
    write_netbox_csvs(design, tmp_path)
    with (tmp_path / "devices.csv").open(encoding="utf-8") as fh:
        netbox = [r["name"] for r in csv.DictReader(fh)]
    assert len(netbox) == len(set(netbox)) == len(design.devices)
    for dev, host_name in hosts.device_names.items():
        assert host_name in netbox, dev
    # cables name the same devices
    with (tmp_path / "cables.csv").open(encoding="utf-8") as fh:
        ends = {r["side_a_device"] for r in csv.DictReader(fh)}
    assert ends <= set(netbox)
    cabled = {r["from_host"] for r in _cabling(design)} - {""}
    assert cabled <= {h.name for h in hosts}


def test_a_label_that_is_a_switch_id_does_not_take_its_name(tmp_path: Path) -> None:
    design = rail_design()
    design.devices = [
        d.model_copy(update={"label": f"node-{i}"}) if d.id.startswith("dgx") else d
        for i, d in enumerate(design.devices)
    ]
    design.devices[0] = design.devices[0].model_copy(update={"label": "leaf-1"})
    hosts = design_hosts(design)
    names = {h.name for h in hosts}
    assert "leaf-1" not in names  # the switch's id; hosts fall back to ids
    assert hosts.hostname("dgx-01") == "dgx-01"
    write_netbox_csvs(design, tmp_path)
    with (tmp_path / "devices.csv").open(encoding="utf-8") as fh:
        netbox = [r["name"] for r in csv.DictReader(fh)]
    assert len(netbox) == len(set(netbox))


def test_hostnames_from_labels_reach_netbox(tmp_path: Path) -> None:
    design = rail_design()
    design.devices = [
        d.model_copy(update={"label": f"GPU-{d.id[-2:]}"})
        if d.id.startswith("dgx")
        else d
        for d in design.devices
    ]
    design.devices.append(Device(id="rack-a", catalog_id="gb200-nvl72", label="r-a"))
    write_netbox_csvs(design, tmp_path)
    with (tmp_path / "devices.csv").open(encoding="utf-8") as fh:
        netbox = {r["name"] for r in csv.DictReader(fh)}
    assert {"gpu-01", "gpu-04", "r-a"} <= netbox
    assert design_hosts(design).hostname("rack-a", 1) == "r-a-t01"


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(p.name for p in SAMPLES.glob("*.json")))
def test_slurm_names_the_same_hosts_as_the_cabling_plan(
    name: str, tmp_path: Path
) -> None:
    from designer.io.export.slurm_files import write_slurm_folder
    from tests.io.export.test_slurm import expand_hostlist

    design = load_design(SAMPLES / name)
    hosts = {h.name for h in design_hosts(design)}
    folder = write_slurm_folder(design, tmp_path)
    listed: list[str] = []
    for line in folder.files["nodes.conf"].splitlines():
        if line.startswith("NodeName="):
            listed += expand_hostlist(line.split()[0].removeprefix("NodeName="))
    assert len(listed) == len(set(listed)) and set(listed) == hosts
    tree = set()
    for line in folder.files["topology.conf"].splitlines():
        if " Nodes=" in line:
            tree |= set(expand_hostlist(line.split(" Nodes=")[1]))
    cabled = {r["from_host"] for r in _cabling(design) if r["fabric"] == "compute"} - {
        ""
    }
    assert tree == cabled <= hosts
    if "topology-block.conf" in folder.files:
        blocks = [
            set(expand_hostlist(line.split(" Nodes=")[1]))
            for line in folder.files["topology-block.conf"].splitlines()
            if line.startswith("BlockName=")
        ]
        assert set().union(*blocks) <= hosts and all(len(b) == 18 for b in blocks)


NVL72_SAMPLES = sorted(p.name for p in SAMPLES.glob("*nvl72*.json"))


@pytest.mark.parametrize("name", NVL72_SAMPLES)
def test_tray_hostnames_agree_across_slurm_cabling_and_netbox(
    name: str, tmp_path: Path
) -> None:
    """Each tray of each NVL72 rack, read from the three hand-offs: NetBox names
    the rack and the tray's interfaces (``trayN-...``), the cabling plan labels
    the same cable with the tray's host, and Slurm lists that host as a node, on
    the leaf the cable reaches, in the rack's block. The tray's name is worked
    out here from the NetBox rack name by the documented default rule
    (``{rack}-t{tray:02}``), not taken from the hosts module."""
    from designer.io.export.slurm_files import write_slurm_folder
    from tests.io.export.test_slurm import expand_hostlist

    design = load_design(SAMPLES / name)
    assert design.settings.tray_hostnames in ("", "{rack}-t{tray:02}")
    slurm = write_slurm_folder(design, tmp_path / "slurm").files
    write_netbox_csvs(design, tmp_path / "netbox")
    with (tmp_path / "netbox" / "cables.csv").open(encoding="utf-8") as fh:
        netbox = list(csv.DictReader(fh))
    with (tmp_path / "netbox" / "devices.csv").open(encoding="utf-8") as fh:
        netbox_devices = {r["name"]: r for r in csv.DictReader(fh)}
    cabling = [r for r in _cabling(design) if r["from_port"] and r["to_port"]]
    # NetBox has one row per physical cable (a splitter's legs on one side), the
    # cabling plan one per lane: the same cabled ports, each end with its host
    plan_end: dict[tuple[str, str], dict[str, str]] = {}
    for cab in cabling:
        for end in ("from", "to"):
            port = cab[f"{end}_port"].split(":")[0]
            plan_end[(cab[f"{end}_device"], port)] = {
                "host": cab[f"{end}_host"],
                "fabric": cab["fabric"],
            }

    def ends(nb: dict[str, str], side: str) -> list[tuple[str, str]]:
        """A cable side's (device, port) terminations: a splitter's legs may end
        on several devices, listed in step with their ports."""
        ports = nb[f"{side}_name"].split(",")
        devices = nb[f"{side}_device"].split(",")
        if len(devices) == 1:
            devices = devices * len(ports)
        return list(zip(devices, ports, strict=True))

    netbox_ends = {
        e for nb in netbox for side in ("side_a", "side_b") for e in ends(nb, side)
    }
    assert netbox_ends == set(plan_end)

    nodes: set[str] = set()
    for line in slurm["nodes.conf"].splitlines():
        if line.startswith("NodeName="):
            nodes |= set(expand_hostlist(line.split()[0].removeprefix("NodeName=")))
    leaf_of: dict[str, set[str]] = {}
    for line in slurm["topology.conf"].splitlines():
        if " Nodes=" in line:
            switch = line.split()[0].removeprefix("SwitchName=")
            for host in expand_hostlist(line.split(" Nodes=")[1]):
                leaf_of.setdefault(host, set()).add(switch)
    block_of: dict[str, str] = {}
    for line in slurm["topology-block.conf"].splitlines():
        if line.startswith("BlockName="):
            block = line.split()[0].removeprefix("BlockName=")
            for host in expand_hostlist(line.split(" Nodes=")[1]):
                assert host not in block_of, host
                block_of[host] = block

    trays: dict[str, set[str]] = {}  # NetBox rack -> tray hosts seen on its cables
    compute_trays: set[str] = set()
    for nb in netbox:
        for side in ("side_a", "side_b"):
            for rack, port in ends(nb, side):
                m = re.match(r"tray(\d+)-", port)
                if not m:
                    continue
                host = f"{rack}-t{int(m[1]):02d}"
                assert netbox_devices[rack]["role"] == "compute", rack
                cab = plan_end[(rack, port)]
                assert cab["host"] == host, (cab, nb)
                assert host in nodes, host
                trays.setdefault(rack, set()).add(host)
                if cab["fabric"] == "compute":
                    compute_trays.add(host)
                    assert leaf_of.get(host), (
                        f"{host} is under no leaf in topology.conf"
                    )
    racks = {r for r, d in netbox_devices.items() if d["role"] == "compute"}
    assert set(trays) == racks and racks
    # every rack's 18 trays are cabled under those names, and are its one block
    for rack, hosts in trays.items():
        assert hosts == {f"{rack}-t{t:02d}" for t in range(1, 19)}, rack
        assert {block_of[h] for h in hosts} == {block_of[f"{rack}-t01"]}
    assert set(block_of) == nodes == set().union(*trays.values())
    assert set(leaf_of) == compute_trays == nodes
