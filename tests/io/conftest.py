"""A small hand-built design and a stand-in catalog: io tests need no real catalog."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from designer.core.model import (
    Design,
    Device,
    Fabric,
    Group,
    GroupKind,
    Link,
    LinkTable,
    Placement,
    Purpose,
    Settings,
    Tier,
)


def _entry(*ports: str) -> Any:
    return SimpleNamespace(interfaces=[SimpleNamespace(name=p) for p in ports])


FAKE_CATALOG: dict[str, Any] = {
    "dgx-h100": _entry("compute", "storage", "inband", "bmc"),
    "dgx-h200": _entry("compute", "storage", "inband", "bmc"),
    "qm9700": _entry("ports", "mgmt"),
    "generic-switch": _entry("ports"),
    "lustre-appliance": _entry("data", "bmc"),
}


@pytest.fixture
def catalog() -> dict[str, Any]:
    """Catalog stand-in: only port-group names matter to the loader."""
    return FAKE_CATALOG


def make_design() -> Design:
    """Two nodes, a leaf, a spine, storage; every model field used at least once."""
    groups = [
        Group(id="pod-1", label="Pod 1", kind=GroupKind.POD),
        Group(id="su-1", label="SU 1", kind=GroupKind.SU, parent="pod-1"),
    ]
    devices = [
        Device(
            id="dgx-1",
            catalog_id="dgx-h100",
            label="DGX 1",
            x=0.0,
            y=400.0,
            group="su-1",
            placement=Placement(row="A", rack="A01", u=10),
        ),
        Device(id="dgx-2", catalog_id="dgx-h100", x=120.5, y=400.0, group="su-1"),
        Device(id="leaf-1", catalog_id="qm9700", y=200.0, tier=Tier.LEAF),
        Device(
            id="spine-1",
            catalog_id="generic-switch",
            tier=Tier.SPINE,
            ports={"ports": 48},
        ),
        Device(id="fs-1", catalog_id="lustre-appliance", x=-300.0, y=200.0),
    ]
    links = [
        Link(
            id="l1",
            a="dgx-1",
            a_port="compute",
            b="leaf-1",
            b_port="ports",
            cables=8,
            speed_gbps=400,
            rail=0,
        ),
        Link(
            id="l2",
            a="dgx-2",
            a_port="compute",
            b="leaf-1",
            b_port="ports",
            cables=8,
            speed_gbps=400,
            rail=1,
        ),
        Link(
            id="l3",
            a="leaf-1",
            a_port="ports",
            b="spine-1",
            b_port="ports",
            cables=16,
            speed_gbps=400,
        ),
        Link(
            id="l4",
            a="fs-1",
            a_port="data",
            b="dgx-1",
            b_port="storage",
            speed_gbps=200,
            fabric=Fabric.STORAGE,
        ),
    ]
    settings = Settings(
        name="Test design \u00e9",
        purpose=Purpose.MIXED,
        scheduler="slurm",
        monitoring=["dcgm", "prometheus"],
        price_overrides={"dgx-h100": 250000.0},
        notes="line one\nline two",
    )
    return Design(
        settings=settings,
        groups=groups,
        devices=devices,
        links=LinkTable.from_links(links),
    )


@pytest.fixture
def design() -> Design:
    """The small test design."""
    return make_design()


@pytest.fixture
def data() -> dict[str, Any]:
    """The small test design as parsed JSON (edit it, then dump it)."""
    return json.loads(make_design().model_dump_json())
