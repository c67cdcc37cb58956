"""Completeness findings on hand-drawn-like designs: present when a gap is drawn,
absent (exactly) otherwise, with the right devices in ``items``."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

from designer.analysis import analyze
from designer.analysis.report import Finding, Report, Severity
from designer.core.model import Design, Device, Fabric, Link, LinkTable, Settings
from designer.io.load import load_design

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
COMPLETENESS = {
    "FABRIC_SPLIT",
    "UNWIRED_DEVICE",
    "COMPUTE_PORTS_UNUSED",
    "LEAF_WITHOUT_UPLINKS",
    "NO_OOB_LINK",
    "HEAD_NODE_LINKS",
    "STORAGE_UNREACHABLE",
    "NO_STORAGE_PATH",
}
Row = tuple[str, str, str, str, int, int, Fabric]
C, S, INB, OOB = Fabric.COMPUTE, Fabric.STORAGE, Fabric.INBAND, Fabric.OOB


def build(devices: dict[str, str], rows: Iterable[Row]) -> Design:
    """A design from {id: catalog id} and (a, port, b, port, cables, speed, fabric)."""
    table = LinkTable()
    for i, (a, ap, b, bp, cables, speed, fabric) in enumerate(rows):
        table.append(
            Link(
                id=f"l{i}",
                a=a,
                a_port=ap,
                b=b,
                b_port=bp,
                cables=cables,
                speed_gbps=speed,
                fabric=fabric,
            )
        )
    return Design(
        settings=Settings(scheduler="slurm", monitoring=["dcgm"]),
        devices=[Device(id=k, catalog_id=v) for k, v in devices.items()],
        links=table,
    )


def sketch(
    *,
    drop: Iterable[str] = (),
    extra: dict[str, str] | None = None,
    rows: Iterable[Row] = (),
    node_ports: dict[str, int] | None = None,
) -> Design:
    """4 DGX H100 on 2 leaves and a spine, Lustre on the leaves (converged), an
    in-band switch with a head node, and an OOB switch for every BMC.

    ``drop`` leaves out links by tag (``up2``: leaf-2's uplink, ``bmc-dgx-3``,
    ``inband-head``, ``fs``: the Lustre data links); ``node_ports`` cables fewer
    compute ports of a node.
    """
    devices = {
        **{f"dgx-{i}": "dgx-h100" for i in range(1, 5)},
        "leaf-1": "qm9700",
        "leaf-2": "qm9700",
        "spine": "qm9700",
        "fs": "lustre-appliance",
        "inb": "sn4600c",
        "head": "head-node",
        "oob": "sn2201",
        **(extra or {}),
    }
    tagged: list[tuple[str, Row]] = []
    for i in range(1, 5):
        leaf = "leaf-1" if i <= 2 else "leaf-2"
        n = (node_ports or {}).get(f"dgx-{i}", 8)
        tagged.append((f"c{i}", (f"dgx-{i}", "compute", leaf, "ports", n, 400, C)))
        inband = (f"dgx-{i}", "inband", "inb", "ports", 2, 100, INB)
        tagged.append((f"inband-dgx-{i}", inband))
    tagged += [
        ("up1", ("leaf-1", "ports", "spine", "ports", 16, 400, C)),
        ("up2", ("leaf-2", "ports", "spine", "ports", 16, 400, C)),
        ("fs", ("fs", "data", "leaf-1", "ports", 4, 200, S)),
        ("fs", ("fs", "data", "leaf-2", "ports", 4, 200, S)),
        ("inband-head", ("head", "inband", "inb", "ports", 2, 100, INB)),
        ("head-storage", ("head", "storage", "leaf-1", "ports", 2, 200, S)),
    ]
    for dev in [*(f"dgx-{i}" for i in range(1, 5)), "fs", "head"]:
        tagged.append((f"bmc-{dev}", (dev, "bmc", "oob", "ports", 1, 1, OOB)))
    for dev in ("leaf-1", "leaf-2", "spine", "inb"):
        tagged.append((f"mgmt-{dev}", (dev, "mgmt", "oob", "ports", 1, 1, OOB)))
    gone = set(drop)
    return build(devices, [r for tag, r in tagged if tag not in gone] + list(rows))


def found(report: Report) -> dict[str, Finding]:
    """Completeness findings by code (one per code)."""
    out: dict[str, Finding] = {}
    for f in report.findings:
        if f.code in COMPLETENESS:
            assert f.code not in out, f"two {f.code} findings"
            out[f.code] = f
    return out


def test_the_sketch_is_complete() -> None:
    report = analyze(sketch())
    assert found(report) == {}
    assert not [f.code for f in report.findings if f.severity is Severity.ERROR]


def test_storage_and_head_node_never_wired() -> None:
    # The case: drawn, never wired, and nothing said.
    d = sketch(extra={"weka": "weka-appliance", "head-2": "head-node"})
    f = found(analyze(d))
    assert set(f) == {"UNWIRED_DEVICE"}  # not also as missing BMC or in-band
    unwired = f["UNWIRED_DEVICE"]
    assert unwired.items == ["weka", "head-2"]
    assert unwired.message.startswith("2 devices are drawn but never wired")
    assert "1 storage device" in unwired.message
    assert "1 management server" in unwired.message
    # a head node wired only to storage misses both management links
    rows: list[Row] = [("head-2", "storage", "leaf-2", "ports", 2, 200, S)]
    f = found(analyze(sketch(extra={"head-2": "head-node"}, rows=rows)))
    assert set(f) == {"HEAD_NODE_LINKS"}
    assert f["HEAD_NODE_LINKS"].items == ["head-2"]
    assert "head-2 (no in-band or out-of-band link)" in f["HEAD_NODE_LINKS"].message


def test_one_of_eight_compute_ports() -> None:
    f = found(analyze(sketch(node_ports={"dgx-1": 1})))
    assert set(f) == {"COMPUTE_PORTS_UNUSED"}
    assert f["COMPUTE_PORTS_UNUSED"].items == ["dgx-1"]
    assert f["COMPUTE_PORTS_UNUSED"].message.startswith(
        "dgx-1 uses 1 of 8 compute ports"
    )
    many = found(analyze(sketch(node_ports={"dgx-2": 4, "dgx-3": 7})))
    msg = many["COMPUTE_PORTS_UNUSED"].message
    assert many["COMPUTE_PORTS_UNUSED"].items == ["dgx-2", "dgx-3"]
    assert "2 compute nodes leave compute ports unused" in msg
    assert "dgx-2 uses 4 of 8" in msg and "dgx-3 uses 7 of 8" in msg
    assert "5 ports in all" in msg


def test_bmc_links_counted_per_node() -> None:
    # One node's BMC missing: not cleared by the others' OOB links.
    f = found(analyze(sketch(drop=["bmc-dgx-3"])))
    assert set(f) == {"NO_OOB_LINK"}
    assert f["NO_OOB_LINK"].items == ["dgx-3"]
    assert f["NO_OOB_LINK"].message.startswith("1 of 5 wired servers with a BMC port")
    # Only one BMC link in the whole design: the rest are named, one finding.
    drop = [f"bmc-dgx-{i}" for i in (2, 3, 4)] + ["bmc-fs"]
    f = found(analyze(sketch(drop=drop)))
    assert f["NO_OOB_LINK"].items == ["dgx-2", "dgx-3", "dgx-4", "fs"]


def test_no_oob_at_all_names_the_servers() -> None:
    drop = [f"bmc-{d}" for d in ("dgx-1", "dgx-2", "dgx-3", "dgx-4", "fs", "head")]
    drop += [f"mgmt-{d}" for d in ("leaf-1", "leaf-2", "spine", "inb")]
    report = analyze(sketch(drop=drop))
    codes = {f.code for f in report.findings}
    assert "NO_OOB_LINK" not in codes  # NO_OOB_NETWORK says it once
    net = next(f for f in report.findings if f.code == "NO_OOB_NETWORK")
    assert net.items == ["dgx-1", "dgx-2", "dgx-3", "dgx-4", "fs", "head"]
    # the head node misses its OOB link too; said once, with the head node
    assert found(report)["HEAD_NODE_LINKS"].items == ["head"]


def test_head_node_without_in_band() -> None:
    f = found(analyze(sketch(drop=["inband-head"])))
    assert set(f) == {"HEAD_NODE_LINKS"}
    assert "head (no in-band link)" in f["HEAD_NODE_LINKS"].message
    f = found(analyze(sketch(drop=["bmc-head"])))
    assert set(f) == {"HEAD_NODE_LINKS"}  # not also NO_OOB_LINK
    assert "head (no out-of-band link)" in f["HEAD_NODE_LINKS"].message


def test_storage_not_reachable() -> None:
    # Lustre on a storage switch no compute node is wired to.
    rows: list[Row] = [
        ("fs", "data", "st", "ports", 8, 200, S),
        ("st", "mgmt", "oob", "ports", 1, 1, OOB),
    ]
    d = sketch(drop=["fs"], extra={"st": "qm9700"}, rows=rows)
    f = found(analyze(d))
    assert set(f) == {"STORAGE_UNREACHABLE"}
    assert f["STORAGE_UNREACHABLE"].items == ["fs"]
    # ... and the head node's storage link does not make it reachable through
    # the head node (servers do not forward traffic)
    rows.append(("head", "storage", "st", "ports", 2, 200, S))
    d = sketch(drop=["fs", "head-storage"], extra={"st": "qm9700"}, rows=rows)
    assert set(found(analyze(d))) == {"STORAGE_UNREACHABLE"}


def test_storage_fabric_reaches_some_nodes_only() -> None:
    # A dedicated storage switch that dgx-1 and dgx-2 reach; dgx-3, dgx-4 not.
    rows: list[Row] = [
        ("fs", "data", "st", "ports", 8, 200, S),
        ("dgx-1", "storage", "st", "ports", 2, 400, S),
        ("dgx-2", "storage", "st", "ports", 2, 400, S),
        ("st", "mgmt", "oob", "ports", 1, 1, OOB),
    ]
    d = sketch(drop=["fs"], extra={"st": "qm9700"}, rows=rows)
    f = found(analyze(d))
    assert set(f) == {"NO_STORAGE_PATH"}
    assert f["NO_STORAGE_PATH"].items == ["dgx-3", "dgx-4"]
    assert f["NO_STORAGE_PATH"].message.startswith("2 of 4 wired compute nodes")
    # a storage spine joining the storage switch to the leaves: all reach it
    rows.append(("st", "ports", "leaf-2", "ports", 2, 400, S))
    d = sketch(drop=["fs"], extra={"st": "qm9700"}, rows=rows)
    assert found(analyze(d)) == {}


def test_leaf_without_uplinks_cuts_the_fabric() -> None:
    report = analyze(sketch(drop=["up2"]))
    f = found(report)
    assert set(f) == {"LEAF_WITHOUT_UPLINKS", "FABRIC_SPLIT"}
    assert f["LEAF_WITHOUT_UPLINKS"].items == ["leaf-2"]
    split = f["FABRIC_SPLIT"]
    assert split.severity is Severity.ERROR
    assert split.message.startswith("the compute fabric is in 2 parts")
    assert "16 GPUs on 2 nodes (dgx-1, dgx-2)" in split.message
    assert "16 GPUs on 2 nodes (dgx-3, dgx-4)" in split.message
    assert split.items == ["dgx-3", "dgx-4", "leaf-2"]  # the smaller part
    assert [e.code for e in report.errors()] == ["FABRIC_SPLIT"]


def test_leaf_without_uplinks_but_nodes_dual_homed() -> None:
    # leaf-2 lost its uplinks, its nodes also have ports on leaf-1: one fabric.
    rows: list[Row] = [
        ("dgx-3", "compute", "leaf-1", "ports", 4, 400, C),
        ("dgx-4", "compute", "leaf-1", "ports", 4, 400, C),
    ]
    f = found(
        analyze(sketch(drop=["up2"], rows=rows, node_ports={"dgx-3": 4, "dgx-4": 4}))
    )
    assert set(f) == {"LEAF_WITHOUT_UPLINKS"}
    assert "(2 nodes)" in f["LEAF_WITHOUT_UPLINKS"].message


def test_dual_plane_and_rail_only_need_no_uplinks() -> None:
    # Every node on every leaf, no spine: no leaf lacks an uplink that matters.
    devices = {f"dgx-{i}": "dgx-h100" for i in range(1, 5)}
    devices |= {f"rail-{r}": "qm9700" for r in range(8)}
    rows: list[Row] = [
        (f"dgx-{i}", "compute", f"rail-{r}", "ports", 1, 400, C)
        for i in range(1, 5)
        for r in range(8)
    ]
    codes = {f.code for f in analyze(build(devices, rows)).findings}
    assert not codes & {"LEAF_WITHOUT_UPLINKS", "FABRIC_SPLIT", "COMPUTE_PORTS_UNUSED"}


def test_islands_are_named_by_size() -> None:
    # 3 islands of 3, 2 and 1 nodes (24, 16, 8 GPUs) on their own leaves.
    devices = {f"dgx-{i}": "dgx-h100" for i in range(1, 7)}
    devices |= {"a": "qm9700", "b": "qm9700", "c": "qm9700"}
    where = {1: "b", 2: "a", 3: "a", 4: "a", 5: "c", 6: "c"}
    rows: list[Row] = [
        (f"dgx-{i}", "compute", leaf, "ports", 8, 400, C) for i, leaf in where.items()
    ]
    split = found(analyze(build(devices, rows)))["FABRIC_SPLIT"]
    msg = split.message
    assert msg.startswith("the compute fabric is in 3 parts")
    assert msg.index("24 GPUs on 3 nodes") < msg.index("16 GPUs on 2 nodes")
    assert msg.index("16 GPUs on 2 nodes") < msg.index("8 GPUs on 1 node ")
    assert set(split.items) == {"dgx-1", "b", "dgx-5", "dgx-6", "c"}


def test_an_unwired_node_is_not_a_part() -> None:
    devices = {"dgx-1": "dgx-h100", "dgx-2": "dgx-h100", "dgx-3": "dgx-h100"}
    devices["leaf"] = "qm9700"
    rows: list[Row] = [
        ("dgx-1", "compute", "leaf", "ports", 8, 400, C),
        ("dgx-2", "compute", "leaf", "ports", 8, 400, C),
    ]
    report = analyze(build(devices, rows))
    codes = {f.code for f in report.findings}
    assert "UNCONNECTED_COMPUTE" in codes
    assert not codes & {"FABRIC_SPLIT", "UNWIRED_DEVICE"}  # said once


def test_one_finding_at_scale() -> None:
    # 1,000 nodes, one BMC link: one finding with the count, items capped.
    n = 1000
    devices = {f"n{i}": "dgx-h100" for i in range(n)} | {"oob": "sn2201"}
    devices |= {f"leaf{j}": "qm9700" for j in range(n // 8)}
    rows: list[Row] = [
        (f"n{i}", "compute", f"leaf{i // 8}", "ports", 8, 400, C) for i in range(n)
    ]
    rows += [
        (f"leaf{j}", "ports", f"leaf{j + 1}", "ports", 8, 400, C)
        for j in range(n // 8 - 1)
    ]
    rows.append(("n0", "bmc", "oob", "ports", 1, 1, OOB))
    f = found(analyze(build(devices, rows)))
    oob = f["NO_OOB_LINK"]
    assert oob.message.startswith("999 of 1,000 wired servers with a BMC port")
    assert len(oob.items) == 50 and oob.items[0] == "n1"
    assert "(first 50 listed)" in oob.message


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.json")), ids=lambda p: p.name)
def test_samples_have_no_completeness_gaps(path: Path) -> None:
    got = {c: f.items for c, f in found(analyze(load_design(path))).items()}
    if path.name == "minimum-viable-enterprise.json":
        # A real gap: the design has no in-band management network, so its head
        # node (and the DGX in-band ports) are not on one.
        assert got == {"HEAD_NODE_LINKS": ["head-01"]}
    else:
        assert got == {}


def _without(design: Design, pred: object) -> Design:
    t = design.links
    keep = [i for i, link in enumerate(t) if not pred(link)]  # type: ignore[operator]
    return design.model_copy(update={"links": t.take(keep)})


def test_sample_gaps_are_found() -> None:
    # The 4-SU DGX H100 SuperPOD, edited as a user might.
    pod = load_design(SAMPLES / "dgx-h100-superpod-4su.json")
    no_bmc = _without(pod, lambda x: x.a == "dgx-0007" and x.fabric is OOB)
    assert {c: f.items for c, f in found(analyze(no_bmc)).items()} == {
        "NO_OOB_LINK": ["dgx-0007"]
    }
    leaf = next(d.id for d in pod.devices if d.id.startswith("leaf-su02"))
    cut = _without(
        pod,
        lambda x: (
            x.fabric is C
            and leaf in (x.a, x.b)
            and not (x.a.startswith("dgx") or x.b.startswith("dgx"))
        ),
    )
    f = found(analyze(cut))
    assert set(f) == {"LEAF_WITHOUT_UPLINKS"}  # rails: the SU still reaches out
    assert f["LEAF_WITHOUT_UPLINKS"].items == [leaf]
