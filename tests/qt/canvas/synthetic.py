"""A fat-tree-shaped design built directly (stand-in for designer.generate.fat_tree)."""

from __future__ import annotations

from designer.core.model import (
    Design,
    Device,
    Fabric,
    Group,
    GroupKind,
    Link,
    LinkTable,
    Tier,
)

PITCH = 80.0


def node_link(link_id: str, a: str, b: str, cables: int = 1) -> Link:
    """A compute-fabric link from node ``a``'s compute ports to switch ``b``."""
    return Link(
        id=link_id,
        a=a,
        a_port="compute",
        b=b,
        b_port="ports",
        cables=cables,
        speed_gbps=400,
        fabric=Fabric.COMPUTE,
    )


def synthetic_fat_tree(nodes: int, su_size: int = 32, pod_sus: int = 16) -> Design:
    """Rail-optimised DGX H100 nodes, 8 rail leaves per SU, spines per pod, cores.

    Shaped like the generator's output (SU and pod groups, tiers, rows by tier,
    compute at the largest y) but not sized by port budgets: a rendering load.
    """
    devices: list[Device] = []
    groups: list[Group] = []
    cols: dict[str, list[object]] = {
        k: []
        for k in (
            "id",
            "a",
            "a_port",
            "b",
            "b_port",
            "cables",
            "speed_gbps",
            "fabric",
            "rail",
        )
    }

    def link(a: str, ap: str, b: str, bp: str, rail: int | None) -> None:
        cols["id"].append(f"l{len(cols['id'])}")
        cols["a"].append(a)
        cols["a_port"].append(ap)
        cols["b"].append(b)
        cols["b_port"].append(bp)
        cols["cables"].append(1)
        cols["speed_gbps"].append(400)
        cols["fabric"].append(Fabric.COMPUTE)
        cols["rail"].append(rail)

    sus = -(-nodes // su_size)
    three_tier = sus > 4
    pods = -(-sus // pod_sus) if three_tier else 0
    for p in range(pods):
        groups.append(
            Group(id=f"pod-{p + 1}", label=f"Pod {p + 1}", kind=GroupKind.POD)
        )
    leaves_all: list[list[str]] = []
    n = 0
    for s in range(sus):
        gid = f"su-{s + 1}"
        parent = f"pod-{s // pod_sus + 1}" if three_tier else None
        groups.append(
            Group(id=gid, label=f"SU {s + 1}", kind=GroupKind.SU, parent=parent)
        )
        members = min(su_size, nodes - n)
        leaves = [f"leaf-{s + 1}-{r + 1}" for r in range(8)]
        leaves_all.append(leaves)
        x0 = s * (su_size + 2) * PITCH
        for r, leaf in enumerate(leaves):
            devices.append(
                Device(
                    id=leaf,
                    catalog_id="qm9700",
                    label=f"Leaf {s + 1}.{r + 1}",
                    x=x0 + r * PITCH * su_size / 8,
                    y=480.0,
                    group=gid,
                    tier=Tier.LEAF,
                )
            )
        for k in range(members):
            did = f"node-{n + 1}"
            devices.append(
                Device(
                    id=did,
                    catalog_id="dgx-h100",
                    label=f"DGX {n + 1}",
                    x=x0 + k * PITCH,
                    y=720.0,
                    group=gid,
                )
            )
            for r, leaf in enumerate(leaves):
                link(did, "compute", leaf, "ports", r)
            n += 1
    spines: list[str] = []
    if three_tier:
        for p in range(pods):
            pod_leaves = [
                leaf
                for s in range(p * pod_sus, min(sus, (p + 1) * pod_sus))
                for leaf in leaves_all[s]
            ]
            pod_spines = [f"spine-{p + 1}-{k + 1}" for k in range(len(pod_leaves))]
            x0 = p * pod_sus * (su_size + 2) * PITCH
            for k, sp in enumerate(pod_spines):
                devices.append(
                    Device(
                        id=sp,
                        catalog_id="qm9700",
                        label=f"Spine {p + 1}.{k + 1}",
                        x=x0 + k * PITCH * 4,
                        y=240.0,
                        group=f"pod-{p + 1}",
                        tier=Tier.SPINE,
                    )
                )
            for i, leaf in enumerate(pod_leaves):
                for u in range(min(32, len(pod_spines))):
                    link(
                        leaf,
                        "ports",
                        pod_spines[(i + u * 4) % len(pod_spines)],
                        "ports",
                        None,
                    )
            spines += pod_spines
        cores = [f"core-{k + 1}" for k in range(max(1, len(spines) // 2))]
        span = max(d.x for d in devices)
        for k, c in enumerate(cores):
            devices.append(
                Device(
                    id=c,
                    catalog_id="qm9700",
                    label=f"Core {k + 1}",
                    x=k * span / max(1, len(cores) - 1),
                    y=0.0,
                    tier=Tier.CORE,
                )
            )
        for j, sp in enumerate(spines):
            for u in range(32):
                link(sp, "ports", cores[(j * 32 + u) % len(cores)], "ports", None)
    else:
        spines = [f"spine-{k + 1}" for k in range(8)]
        for k, sp in enumerate(spines):
            devices.append(
                Device(
                    id=sp,
                    catalog_id="qm9700",
                    label=f"Spine {k + 1}",
                    x=k * PITCH * 4,
                    y=240.0,
                    tier=Tier.SPINE,
                )
            )
        for leaves in leaves_all:
            for leaf in leaves:
                for sp in spines:
                    link(leaf, "ports", sp, "ports", None)
    t = LinkTable.from_columns(cols)
    return Design.model_construct(groups=groups, devices=devices, links=t)
