"""Turn a :class:`~designer.generate.plan.Plan` into a laid-out :class:`Design`.

Positions come from :mod:`designer.generate.layout` (SUs wrapped into a grid
of pods). Links are written straight into the column lists of a :class:`LinkTable` (no
pydantic object per link) so that a 100,000-GPU design builds in well under a
second; a sample of rows is validated as :class:`Link` to catch mistakes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from designer.core.model import (
    LINK_COLUMNS,
    Design,
    Device,
    Fabric,
    Group,
    GroupKind,
    Link,
    LinkTable,
    Settings,
    Tier,
)
from designer.generate.layout import GridLayout, Shape, grid_layout
from designer.generate.plan import GeneratorError, Plan

SWITCH_PORT = "ports"
NODE_PORT = "compute"


@dataclass(frozen=True)
class Extra:
    """A non-compute device (e.g. UFM) on a leaf port of scalable unit ``su``."""

    id: str
    catalog_id: str
    label: str
    port: str
    su: int
    leaf: int
    rail: int | None
    speed_gbps: int
    slot: int
    dy: float = 0.0


def _w(n: int, least: int) -> int:
    return max(least, len(str(n)))


def plane_tag(q: int, planes: int) -> str:
    """``""`` for one plane, else ``a-``, ``b-`` ... (``pl27-`` past z)."""
    if planes == 1:
        return ""
    return f"{chr(ord('a') + q)}-" if planes <= 26 else f"pl{q + 1:02d}-"


class _Columns:
    """Link columns being filled."""

    def __init__(self) -> None:
        self.cols: dict[str, list[object]] = {n: [] for n in LINK_COLUMNS}

    def add(
        self,
        lid: str,
        a: str,
        a_port: str,
        b: str,
        cables: int,
        speed: int,
        rail: int | None,
    ) -> None:
        """Append one link (b side is always a switch's ``ports``)."""
        c = self.cols
        c["id"].append(lid)
        c["a"].append(a)
        c["a_port"].append(a_port)
        c["b"].append(b)
        c["b_port"].append(SWITCH_PORT)
        c["cables"].append(cables)
        c["speed_gbps"].append(speed)
        c["fabric"].append(Fabric.COMPUTE)
        c["rail"].append(rail)

    def table(self) -> LinkTable:
        """The finished table; a few rows are validated as :class:`Link`."""
        table = LinkTable.model_construct(**self.cols)
        n = len(table)
        for i in sorted({0, n // 3, n // 2, n - 1} if n else set()):
            Link.model_validate(table.row(i).__dict__)
        return table


def _leaf_name(plan: Plan, su_tag: str, q: int, j: int) -> tuple[str, str]:
    """Id and label of template leaf ``j`` of plane ``q`` in SU ``su_tag``."""
    t = plan.template
    if plan.tiers == 1:
        return "leaf-01", "Leaf switch"
    if plan.rail_optimized:
        rail = q * t.rails + t.leaf_rails[j][0]
        rw = len(str(plan.planes * t.rails - 1))
        tag, text = f"r{rail:0{rw}d}", f"rail {rail}"
        if t.chunked:  # several leaves per rail: r3a, r3b, ...
            tag += chr(ord("a") + t.leaf_chunks[j])
            text += f" #{t.leaf_chunks[j] + 1}"
        return f"leaf-su{su_tag}-{tag}", f"Leaf SU{int(su_tag)} {text}"
    total = t.leaves * plan.planes
    if total == 1:
        return f"leaf-su{su_tag}", f"Leaf SU{int(su_tag)}"
    k = q * t.leaves + j + 1
    return f"leaf-su{su_tag}-{k:0{_w(total, 2)}d}", f"Leaf SU{int(su_tag)} #{k}"


def build_design(
    plan: Plan,
    *,
    compute_id: str,
    compute_model: str,
    switch_id: str,
    speed_gbps: int,
    settings: Settings,
    prefix: str,
    extras: tuple[Extra, ...] = (),
    switch_ports: int | None = None,
    compute_ports: int | None = None,
    side: float = 0.0,
) -> Design:
    """Lay out and wire ``plan`` (one group per SU, pods as parents with a core)."""
    t = plan.template
    n_su = plan.sus
    su_w = _w(n_su, 2)
    three = plan.tiers == 3
    lay = layout_for(plan, side)
    pod_w = _w(plan.pods, 2)
    groups: list[Group] = []
    if three:
        groups += [
            Group(id=f"pod{p + 1:0{pod_w}d}", label=f"Pod {p + 1}", kind=GroupKind.POD)
            for p in range(plan.pods)
        ]
    for i in range(n_su):
        parent = f"pod{plan.pod_of(i) + 1:0{pod_w}d}" if three else None
        groups.append(
            Group(
                id=f"su{i + 1:0{su_w}d}",
                label=f"SU {i + 1}",
                kind=GroupKind.SU,
                parent=parent,
            )
        )
    sw_ports = {SWITCH_PORT: switch_ports} if switch_ports is not None else None
    node_ports = {NODE_PORT: compute_ports} if compute_ports is not None else None

    def switch(
        did: str, label: str, tier: Tier, xy: tuple[float, float], group: str | None
    ) -> None:
        devices.append(
            Device(
                id=did,
                catalog_id=switch_id,
                label=label,
                x=xy[0],
                y=xy[1],
                group=group,
                tier=tier,
                ports=sw_ports,
            )
        )

    devices: list[Device] = []
    cols = _Columns()
    total_nodes = sum(plan.su_nodes)
    nw = _w(total_nodes, 4)
    by_node: dict[int, list[tuple[int, int, int | None]]] = {}
    for a in t.attachments:
        by_node.setdefault(a.node, []).append((a.leaf, a.cables, a.rail))
    extras_by_su: dict[int, list[Extra]] = {}
    for e in extras:
        extras_by_su.setdefault(e.su, []).append(e)
    leaves_by_su: list[list[tuple[str, int]]] = []  # (leaf id, plane)
    single_leaf = "leaf-01"
    if plan.tiers == 1:
        switch(single_leaf, "Leaf switch", Tier.LEAF, lay.top_band(1)[0], None)
    number = 0
    for i in range(n_su):
        su_tag = f"{i + 1:0{su_w}d}"
        gid = f"su{su_tag}"
        n = plan.su_nodes[i]
        su_extras = extras_by_su.get(i, [])
        leaf_ids: dict[int, str] = {}
        if plan.tiers > 1:
            used = {a.leaf for a in t.attachments if a.node < n}
            used |= {e.leaf for e in su_extras}
            present = [
                (q, j) for q in range(plan.planes) for j in range(t.leaves) if j in used
            ]
            at = lay.leaves(i, len(present))
            su_leaves: list[tuple[str, int]] = []
            for k, (q, j) in enumerate(present):
                lid, label = _leaf_name(plan, su_tag, q, j)
                switch(lid, label, Tier.LEAF, at[k], gid)
                leaf_ids[q * t.leaves + j] = lid
                su_leaves.append((lid, q))
            leaves_by_su.append(su_leaves)
        for slot in range(n):
            number += 1
            nid = f"{prefix}-{number:0{nw}d}"
            x, y = lay.node(i, slot)
            devices.append(
                Device(
                    id=nid,
                    catalog_id=compute_id,
                    label=f"{compute_model} #{number}",
                    x=x,
                    y=y,
                    group=gid,
                    ports=node_ports,
                )
            )
            for q in range(plan.planes):
                for leaf, cables, rail in by_node[slot]:
                    lid = (
                        single_leaf
                        if plan.tiers == 1
                        else leaf_ids[q * t.leaves + leaf]
                    )
                    if rail is None:
                        cols.add(
                            f"{nid}/{lid}",
                            nid,
                            NODE_PORT,
                            lid,
                            cables,
                            speed_gbps,
                            None,
                        )
                    else:
                        r = q * t.rails + rail
                        cols.add(
                            f"{nid}.{r}/{lid}",
                            nid,
                            NODE_PORT,
                            lid,
                            cables,
                            speed_gbps,
                            r,
                        )
        for e in su_extras:
            lid = single_leaf if plan.tiers == 1 else leaf_ids[e.leaf]
            x, y = lay.node(i, e.slot)
            devices.append(
                Device(
                    id=e.id,
                    catalog_id=e.catalog_id,
                    label=e.label,
                    x=x,
                    y=y + e.dy,
                    group=gid,
                )
            )
            cols.add(f"{e.id}/{lid}", e.id, e.port, lid, 1, e.speed_gbps, e.rail)
    _check_leaf_budget(plan, cols)
    if plan.tiers == 2:
        _two_tier(plan, leaves_by_su, lay, switch, cols, speed_gbps)
    elif three:
        _three_tier(plan, leaves_by_su, lay, switch, cols, speed_gbps)
    return Design(settings=settings, groups=groups, devices=devices, links=cols.table())


def layout_for(plan: Plan, side: float = 0.0) -> GridLayout:
    """The grid of SU blocks, pods and the top band for ``plan`` (``side``: width
    of the blocks that will be placed beside it)."""
    leaves = plan.template.leaves * plan.planes if plan.tiers > 1 else 0
    shape = Shape(slots=plan.su_size, leaves=leaves)
    if plan.tiers == 3:
        return grid_layout(
            shape,
            plan.sus,
            plan.sus_per_pod,
            plan.pods,
            plan.spines_per_pod * plan.planes,
            plan.cores * plan.planes,
            side,
        )
    top = plan.spines * plan.planes if plan.tiers == 2 else 1
    return grid_layout(shape, plan.sus, plan.sus, 1, 0, top, side)


def _check_leaf_budget(plan: Plan, cols: _Columns) -> None:
    """Extras must not push a leaf past its planned downlinks."""
    down: dict[str, int] = {}
    for b, cables in zip(cols.cols["b"], cols.cols["cables"], strict=True):
        assert isinstance(b, str) and isinstance(cables, int)
        down[b] = down.get(b, 0) + cables
    worst = max(down.items(), key=lambda kv: kv[1], default=("", 0))
    if worst[1] > plan.template.leaf_down:
        raise GeneratorError(
            f"{worst[0]} would need {worst[1]} downlinks, more than its planned "
            f"{plan.template.leaf_down}"
        )


SwitchAdder = Callable[[str, str, Tier, tuple[float, float], str | None], None]
LeafList = list[list[tuple[str, int]]]


def _leaves_to_spines(
    plan: Plan,
    leaves: list[tuple[str, int]],
    plane: int,
    spines: list[str],
    cols: _Columns,
    speed: int,
) -> None:
    """Cable each of ``leaves`` in ``plane`` to every spine of that plane."""
    for lid, lq in leaves:
        if lq != plane:
            continue
        for sid in spines:
            cols.add(
                f"{lid}/{sid}",
                lid,
                SWITCH_PORT,
                sid,
                plan.leaf_spine_cables,
                speed,
                None,
            )


def _two_tier(
    plan: Plan,
    leaves_by_su: LeafList,
    lay: GridLayout,
    switch: SwitchAdder,
    cols: _Columns,
    speed: int,
) -> None:
    sw = _w(plan.spines, 2)
    at = lay.top_band(plan.spines * plan.planes)
    for q in range(plan.planes):
        tag = plane_tag(q, plan.planes)
        spines = [f"spine-{tag}{j + 1:0{sw}d}" for j in range(plan.spines)]
        for j, sid in enumerate(spines):
            k = q * plan.spines + j
            plane = f" plane {tag[:-1]}" if tag else ""
            switch(sid, f"Spine {j + 1}{plane}", Tier.SPINE, at[k], None)
        for su_leaves in leaves_by_su:
            _leaves_to_spines(plan, su_leaves, q, spines, cols, speed)


def _three_tier(
    plan: Plan,
    leaves_by_su: LeafList,
    lay: GridLayout,
    switch: SwitchAdder,
    cols: _Columns,
    speed: int,
) -> None:
    pw, sw = _w(plan.pods, 2), _w(plan.spines_per_pod, 2)
    cw = _w(plan.cores * plan.planes, 3)
    c_per = plan.cores_per_group
    core_at = lay.top_band(plan.cores * plan.planes)
    per_pod = plan.spines_per_pod * plan.planes
    spine_at = [lay.pod_band(p, per_pod) for p in range(plan.pods)]
    for q in range(plan.planes):
        tag = plane_tag(q, plan.planes)
        plane = f" plane {tag[:-1]}" if tag else ""
        cores = [f"core-{tag}{k + 1:0{cw}d}" for k in range(plan.cores)]
        for k, cid in enumerate(cores):
            pos = q * plan.cores + k
            switch(cid, f"Core {k + 1}{plane}", Tier.CORE, core_at[pos], None)
        for p in range(plan.pods):
            sus = [i for i in range(plan.sus) if plan.pod_of(i) == p]
            gid = f"pod{p + 1:0{pw}d}"
            spines = [
                f"spine-{tag}p{p + 1:0{pw}d}-{j + 1:0{sw}d}"
                for j in range(plan.spines_per_pod)
            ]
            for j, sid in enumerate(spines):
                pos = q * plan.spines_per_pod + j
                switch(
                    sid,
                    f"Spine pod {p + 1} #{j + 1}{plane}",
                    Tier.SPINE,
                    spine_at[p][pos],
                    gid,
                )
            for i in sus:
                _leaves_to_spines(plan, leaves_by_su[i], q, spines, cols, speed)
            for j, sid in enumerate(spines):
                for c in range(c_per):
                    cid = cores[j * c_per + c]
                    cols.add(
                        f"{sid}/{cid}",
                        sid,
                        SWITCH_PORT,
                        cid,
                        plan.spine_core_cables,
                        speed,
                        None,
                    )
