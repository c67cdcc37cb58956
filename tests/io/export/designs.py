"""Small hand-built designs and reports shared by the export tests (no Qt)."""

from __future__ import annotations

from designer.analysis.report import (
    Bisection,
    Cost,
    CostLine,
    Finding,
    Report,
    Severity,
    TierClass,
    TierOversubscription,
)
from designer.core.model import Design, Device, Group, Link, LinkTable, Settings, Tier

NODES = 4
RAILS = 8


def rail_design(nodes: int = NODES) -> Design:
    """``nodes`` DGX H100, 2 rail leaves (rails 0-3, 4-7), 2 spines, all QM9700."""
    devices = [
        Device(
            id=f"dgx-{i + 1:02d}",
            catalog_id="dgx-h100",
            label=f"DGX {i + 1:02d}",
            x=100.0 * i,
            y=400.0,
            group="su1",
        )
        for i in range(nodes)
    ]
    devices += [
        Device(
            id=f"leaf-{j + 1}",
            catalog_id="qm9700",
            label=f"Leaf {j + 1}",
            x=150.0 * j,
            y=200.0,
            tier=Tier.LEAF,
            group="su1",
        )
        for j in range(2)
    ]
    devices += [
        Device(
            id=f"spine-{j + 1}",
            catalog_id="qm9700",
            label=f"Spine {j + 1}",
            x=150.0 * j,
            y=0.0,
            tier=Tier.SPINE,
        )
        for j in range(2)
    ]
    links: list[Link] = []
    for i in range(nodes):
        for r in range(RAILS):
            links.append(
                Link(
                    id=f"l-n{i + 1}-r{r}",
                    a=f"dgx-{i + 1:02d}",
                    a_port="compute",
                    b=f"leaf-{r // 4 + 1}",
                    b_port="ports",
                    speed_gbps=400,
                    rail=r,
                )
            )
    for j in range(2):
        for s in range(2):
            links.append(
                Link(
                    id=f"l-leaf{j + 1}-spine{s + 1}",
                    a=f"leaf-{j + 1}",
                    a_port="ports",
                    b=f"spine-{s + 1}",
                    b_port="ports",
                    cables=2 * nodes,
                    speed_gbps=400,
                )
            )
    return Design(
        settings=Settings(name="Rail test cluster"),
        groups=[Group(id="su1", label="SU 1", kind="su")],
        devices=devices,
        links=LinkTable.from_links(links),
    )


def fake_report(design: Design) -> Report:
    """A report with cost lines whose extended prices sum to the total."""
    nodes = sum(1 for d in design.devices if d.catalog_id == "dgx-h100")
    switches = sum(1 for d in design.devices if d.catalog_id == "qm9700")
    cables = sum(design.links.cables)
    lines = [
        CostLine(
            category="compute",
            catalog_id="dgx-h100",
            description="NVIDIA DGX H100",
            quantity=nodes,
            unit_usd=270000.0,
            extended_usd=270000.0 * nodes,
            estimate=True,
            source="SemiAnalysis estimate",
        ),
        CostLine(
            category="fabric",
            catalog_id="qm9700",
            description="NVIDIA Quantum-2 QM9700",
            quantity=switches,
            unit_usd=50000.0,
            extended_usd=50000.0 * switches,
            estimate=True,
            source="spreadsheet notes rows 17-18",
        ),
        CostLine(
            category="cables_optics",
            catalog_id="cable-ndr-400g",
            description="NDR 400G multimode fiber cable",
            quantity=cables,
            unit_usd=250.5,
            extended_usd=250.5 * cables,
            estimate=False,
            source="vendor list, 2024",
        ),
    ]
    total = sum(x.extended_usd for x in lines)
    return Report(
        gpus=nodes * 8,
        compute_nodes=nodes,
        nvlink_domains=nodes,
        nvlink_domain_size=8,
        switches={"leaf": 2, "spine": 2},
        cables={"compute": cables},
        transceivers=2 * cables,
        bisection=Bisection(
            gbps=6400.0,
            ratio=1.0,
            exact=True,
            lower_gbps=6400.0,
            upper_gbps=6400.0,
            full_gbps=6400.0,
            method="max-flow",
        ),
        oversubscription={"leaf": 1.0, "spine": None},
        tiers={
            "leaf": TierOversubscription(
                switches=2,
                down_gbps=12800,
                up_gbps=12800,
                ratio=1.0,
                ports_used=64,
                ports_total=128,
            ),
            "spine": TierOversubscription(
                switches=2,
                down_gbps=12800,
                up_gbps=0,
                ratio=None,
                ports_used=32,
                ports_total=128,
            ),
        },
        cost_usd=Cost(
            total=total,
            compute=lines[0].extended_usd,
            fabric=lines[1].extended_usd,
            cables_optics=lines[2].extended_usd,
            storage=0.0,
            management=0.0,
            lines=lines,
            per_gpu=total / max(nodes * 8, 1),
        ),
        power_kw=45.6,
        rack_units=36.0,
        racks=2,
        tier=TierClass(
            name="Small",
            reason="32 GPUs: 9 to 64 GPUs",
            typical_cost_usd=(500000.0, 3000000.0),
            typical_cost_note="product brief",
        ),
        findings=[
            Finding(
                code="no-storage",
                severity=Severity.WARNING,
                message="No storage appliance: training I/O has nowhere to go.",
            ),
            Finding(
                code="no-oob",
                severity=Severity.INFO,
                message="No out-of-band management network.",
                items=["dgx-01"],
            ),
        ],
    )
