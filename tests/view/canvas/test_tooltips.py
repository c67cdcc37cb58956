"""Hover texts of canvas items (no Qt)."""

from __future__ import annotations

from designer.catalog.loader import default_catalog
from designer.core.model import Device, Group, GroupKind, Link, Placement, Tier
from designer.view.canvas.quotient import Trunk
from designer.view.canvas.tooltips import (
    device_tooltip,
    group_tooltip,
    link_tooltip,
    trunk_text,
)
from designer.view.catalog.specs import entry_specs

CATALOG = default_catalog()


def test_device_tooltip_has_the_full_name_model_and_specs() -> None:
    d = Device(
        id="dgx-0127",
        catalog_id="dgx-h100",
        label="DGX H100 #127",
        group="su04",
        placement=Placement(rack="r12", u=3),
    )
    group = Group(id="su04", label="SU 4", kind=GroupKind.SU)
    entry = CATALOG["dgx-h100"]
    lines = device_tooltip(d, entry, group, 9, 10).splitlines()
    assert lines[0] == "DGX H100 #127"
    assert lines[1] == f"dgx-0127 · {entry.manufacturer} {entry.model}"
    assert lines[2] == entry_specs(entry) + " (catalog)"
    assert lines[3] == "Compute, in SU 4"
    assert lines[4] == "9 links, 10 cables"
    assert lines[5] == "Rack r12, U3"
    leaf = Device(id="l1", catalog_id="qm9700", tier=Tier.LEAF)
    text = device_tooltip(leaf, CATALOG["qm9700"], None, 1, 1)
    assert "Switch, leaf tier" in text and "1 link, 1 cable" in text
    unknown = Device(id="x", catalog_id="nope")
    assert "nope (not in the catalog)" in device_tooltip(unknown, None, None, 0, 0)


def test_link_group_and_trunk_texts() -> None:
    link = Link(
        id="l1", a="dgx-1", a_port="compute", b="leaf-1", b_port="ports",
        cables=8, speed_gbps=400, rail=3,
    )  # fmt: skip
    text = link_tooltip(link, "DGX H100 #1", "Leaf rail 3")
    assert text.splitlines()[0] == "DGX H100 #1 compute — Leaf rail 3 ports"
    assert "8 cables x 400G = 3,200 Gb/s, compute fabric" in text
    assert "Rail 3" in text and text.endswith("l1")
    pinned = link.model_copy(
        update={
            "cables": 2,
            "a_pins": ("osfp1/1", "osfp1/2"),
            "b_pins": ("osfp7/1", ""),
        }
    )
    lines = link_tooltip(pinned, "DGX H100 #1", "Leaf rail 3").splitlines()
    assert lines[-4:] == [
        "Ports:",
        "  osfp1/1 — osfp7/1",
        "  osfp1/2 — no port",
        "l1",
    ]
    one = link.model_copy(update={"cables": 1, "a_pins": ("a",), "b_pins": ("b",)})
    assert "Ports: a — b" in link_tooltip(one, "x", "y")
    g = Group(id="su01", label="SU 1", kind=GroupKind.SU)
    assert group_tooltip(g, 43, "31x DGX H100", True).splitlines() == [
        "SU 1 (SU)",
        "43 devices: 31x DGX H100",
        "double-click to expand",
    ]
    t = Trunk((0, 1), (0, 0), (0, 1), links=1, cables=256, capacity_gbps=102_400,
              speed_gbps=400)  # fmt: skip
    assert trunk_text(t) == "1 link, 256 cables, 102.4 Tb/s"
