"""Property: any sequence of edits, undone, gives the original design exactly.

Random sequences of every command (and the builders on top of them) run
through a Document; undo-all must give the original ``model_dump()`` (order
included), redo-all the final one, and every step in between must match the
state recorded on the way. A refused edit must leave the design untouched.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.core.commands import Command, Macro, ReplaceDesign, SetGroups, SetSettings
from designer.core.device_commands import AddDevices, RemoveDevices, UpdateDevices
from designer.core.document import Document
from designer.core.edits import (
    add_group,
    duplicate,
    remove_group,
    set_group_collapsed,
)
from designer.core.errors import ConnectionRefused
from designer.core.link_commands import AddLinks, RemoveLinks, UpdateLinks
from designer.core.model import Design, Device, Fabric, Group, GroupKind, Link, Settings
from designer.core.specs import DeviceSpec, PortGroupSpec
from designer.core.wiring import connect_all_to_all, wire_rail_optimized
from tests.hypo import examples

SPECS = {
    "node": DeviceSpec(
        "node", (PortGroupSpec("compute", 2, (400, 200), "infiniband", "compute", 2),)
    ),
    "sw": DeviceSpec(
        "sw", (PortGroupSpec("ports", 40, (400, 200), "infiniband", "any"),)
    ),
}


def start() -> Design:
    d = Design(
        groups=[Group(id="su-1", kind=GroupKind.SU)],
        devices=[
            Device(id="node-1", catalog_id="node", group="su-1"),
            Device(id="node-2", catalog_id="node"),
            Device(id="sw-1", catalog_id="sw"),
            Device(id="sw-2", catalog_id="sw"),
        ],
    )
    d.links.append(
        Link(
            id="l-0",
            a="node-1",
            a_port="compute",
            b="sw-1",
            b_port="ports",
            speed_gbps=400,
        )
    )
    return d


class Maker:
    """Draws a command that fits the document's current state."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data
        self.n = 0

    def fresh(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}-x{self.n}"

    def pick(self, items: list[Any], k_max: int = 3) -> list[Any]:
        if not items:
            return []
        return self.data.draw(
            st.lists(st.sampled_from(items), min_size=1, max_size=k_max, unique=True)
        )

    def command(self, d: Design) -> Command:
        kinds = [
            "add_devices",
            "remove_devices",
            "update_devices",
            "add_links",
            "remove_links",
            "update_links",
            "groups",
            "settings",
            "macro",
            "duplicate",
            "add_group",
            "remove_group",
            "collapse",
            "all_to_all",
            "rails",
            "replace",
        ]
        kind = self.data.draw(st.sampled_from(kinds))
        devices = [x.id for x in d.devices]
        nodes = [x.id for x in d.devices if x.catalog_id == "node"]
        switches = [x.id for x in d.devices if x.catalog_id == "sw"]
        groups = [g.id for g in d.groups]
        if kind == "add_devices":
            n = self.data.draw(st.integers(1, 3))
            return AddDevices(
                Device(
                    id=self.fresh("dev"),
                    catalog_id=self.data.draw(st.sampled_from(["node", "sw"])),
                    x=float(self.data.draw(st.integers(-50, 50))),
                    group=self.data.draw(st.sampled_from([None, *groups])),
                )
                for _ in range(n)
            )
        if kind == "remove_devices":
            return RemoveDevices(self.pick(devices))
        if kind == "update_devices":
            return UpdateDevices(
                {
                    i: {
                        "x": float(self.data.draw(st.integers(-9, 9))),
                        "label": self.data.draw(st.sampled_from(["", "a", "b"])),
                        "group": self.data.draw(st.sampled_from([None, *groups])),
                    }
                    for i in self.pick(devices)
                }
            )
        if kind == "add_links" and len(devices) >= 2:
            links = []
            for _ in range(self.data.draw(st.integers(1, 3))):
                a, b = self.data.draw(
                    st.lists(
                        st.sampled_from(devices), min_size=2, max_size=2, unique=True
                    )
                )
                links.append(
                    Link(
                        id=self.fresh("link"),
                        a=a,
                        a_port="p",
                        b=b,
                        b_port="q",
                        cables=self.data.draw(st.integers(1, 3)),
                        speed_gbps=400,
                        fabric=self.data.draw(st.sampled_from(list(Fabric))),
                        rail=self.data.draw(st.sampled_from([None, 0, 1])),
                    )
                )
            return AddLinks(links)
        if kind == "remove_links":
            return RemoveLinks(self.pick(list(d.links.id), 4))
        if kind == "update_links" and len(d.links):
            return UpdateLinks(
                {
                    i: {"cables": self.data.draw(st.integers(1, 4)), "rail": None}
                    for i in self.pick(list(d.links.id))
                }
            )
        if kind == "groups":
            used = {x.group for x in d.devices}
            keep = [
                g for g in d.groups if g.id in used or self.data.draw(st.booleans())
            ]
            keep = [
                g.model_copy(update={"parent": None})
                if g.parent not in {k.id for k in keep}
                else g
                for g in keep
            ]
            return SetGroups([*keep, Group(id=self.fresh("grp"))])
        if kind == "settings":
            return SetSettings(Settings(name=self.fresh("name")))
        if kind == "macro":
            return Macro("Two", [self.command(d), self.command(d)])
        if kind == "duplicate" and devices:
            return duplicate(d, self.pick(devices))
        if kind == "add_group":
            return add_group(
                d, Group(id=self.fresh("g"), kind=GroupKind.POD), self.pick(devices)
            )
        if kind == "remove_group" and groups:
            return remove_group(d, self.data.draw(st.sampled_from(groups)))
        if kind == "collapse" and groups:
            return set_group_collapsed(
                d,
                self.data.draw(st.sampled_from(groups)),
                self.data.draw(st.booleans()),
            )
        if kind == "all_to_all" and len(switches) >= 2:
            half = len(switches) // 2
            return connect_all_to_all(
                d,
                switches[:half],
                switches[half:],
                self.data.draw(st.integers(1, 2)),
                SPECS,
            )
        if kind == "rails" and nodes and len(switches) >= 2:
            return wire_rail_optimized(d, self.pick(nodes), switches[:2], SPECS)
        if kind == "replace":
            return ReplaceDesign(start())
        return SetSettings(Settings(name=self.fresh("fallback")))


@pytest.mark.slow
@settings(
    max_examples=examples(100),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.data())
def test_undo_all_restores_and_redo_all_replays(data: st.DataObject) -> None:
    doc = Document(start())
    maker = Maker(data)
    states = [doc.design.model_dump()]
    steps = data.draw(st.integers(1, 12))
    for _ in range(steps):
        before = doc.design.model_dump()
        try:
            command = maker.command(doc.design)
            doc.execute(command)
        except (ValueError, ConnectionRefused):
            assert doc.design.model_dump() == before  # refused: untouched
            continue
        Design.model_validate(doc.design.model_dump())  # still a valid design
        states.append(doc.design.model_dump())
    final = states[-1]
    for expected in reversed(states[:-1]):
        doc.undo()
        assert doc.design.model_dump() == expected
    assert not doc.history.can_undo and doc.history.is_clean
    while doc.history.can_redo:
        doc.redo()
    assert doc.design.model_dump() == final
    table = doc.design.links
    assert table.positions(table.id) == {lid: i for i, lid in enumerate(table.id)}
