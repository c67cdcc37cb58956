"""Commands, macros, history and document: every edit undoes exactly."""

from __future__ import annotations

import pytest

from designer.core.commands import Command, Macro, ReplaceDesign, SetGroups, SetSettings
from designer.core.device_commands import (
    AddDevices,
    RemoveDevices,
    UpdateDevices,
    move_devices,
)
from designer.core.document import Document
from designer.core.events import (
    DesignReplaced,
    DevicesAdded,
    DevicesChanged,
    DevicesRemoved,
    Event,
    LinksAdded,
    LinksChanged,
    LinksRemoved,
)
from designer.core.link_commands import AddLinks, RemoveLinks, UpdateLink, UpdateLinks
from designer.core.model import (
    Design,
    Device,
    Fabric,
    Group,
    GroupKind,
    Link,
    LinkTable,
    Purpose,
    Settings,
)


def fabric() -> Design:
    """2 leaves, 4 nodes, each node on both leaves; leaf-1 links interleave."""
    d = Design(
        groups=[Group(id="su-1", kind=GroupKind.SU)],
        devices=[Device(id=f"leaf-{i}", catalog_id="qm9700") for i in (1, 2)]
        + [Device(id=f"n{i}", catalog_id="dgx-h100", group="su-1") for i in range(4)],
    )
    for i in range(4):
        for leaf in (1, 2):
            d.links.append(
                Link(
                    id=f"n{i}-l{leaf}",
                    a=f"n{i}",
                    a_port="compute",
                    b=f"leaf-{leaf}",
                    b_port="ports",
                    speed_gbps=400,
                    rail=leaf - 1,
                )
            )
    return d


def roundtrip(command: Command, design: Design | None = None) -> Design:
    """do, undo, redo, undo on a design: the dumps must match each time."""
    d = design or fabric()
    before = d.model_dump()
    command.do(d)
    after = d.model_dump()
    assert after != before
    command.undo(d)
    assert d.model_dump() == before
    command.do(d)
    assert d.model_dump() == after
    command.undo(d)
    assert d.model_dump() == before
    # The id index stays right after all of that.
    assert d.links.positions(d.links.id) == {lid: i for i, lid in enumerate(d.links.id)}
    command.do(d)
    return d


def test_add_devices() -> None:
    d = roundtrip(AddDevices([Device(id="sp-1", catalog_id="qm9700")]))
    assert d.devices[-1].id == "sp-1"
    assert AddDevices([Device(id="x", catalog_id="c", label="X")]).label == "Add X"
    assert AddDevices([Device(id="a", catalog_id="c")] * 2).label == "Add 2 devices"


def test_add_devices_refuses_duplicates_and_unknown_groups() -> None:
    d = fabric()
    before = d.model_dump()
    with pytest.raises(ValueError, match="'n1' already exists"):
        AddDevices(
            [Device(id="z", catalog_id="c"), Device(id="n1", catalog_id="c")]
        ).do(d)
    with pytest.raises(ValueError, match="unknown group 'su-9'"):
        AddDevices([Device(id="z", catalog_id="c", group="su-9")]).do(d)
    assert d.model_dump() == before


def test_remove_devices_restores_links_at_the_same_positions() -> None:
    d = fabric()
    order = list(d.links.id)
    cmd = RemoveDevices(["leaf-1", "n3"])
    changes = cmd.do(d)
    assert [dev.id for dev in d.devices] == ["leaf-2", "n0", "n1", "n2"]
    assert d.links.id == ["n0-l2", "n1-l2", "n2-l2"]
    assert changes[0] == LinksRemoved(
        ("n0-l1", "n1-l1", "n2-l1", "n3-l1", "n3-l2"), (0, 2, 4, 6, 7)
    )
    assert changes[1] == DevicesRemoved(("leaf-1", "n3"), (0, 5))
    cmd.undo(d)
    assert d.links.id == order
    assert d.model_dump() == fabric().model_dump()
    roundtrip(RemoveDevices(["n0", "leaf-2"]))
    assert cmd.label == "Delete 2 devices"


def test_update_devices_and_move() -> None:
    d = roundtrip(UpdateDevices({"n1": {"label": "Node 1", "group": None}}))
    assert d.device_map()["n1"].label == "Node 1"
    move = move_devices({"n0": (5.0, 6.0), "leaf-1": (1.0, 2.0)})
    assert move.label == "Move 2 devices"
    d = roundtrip(move)
    assert (d.device_map()["n0"].x, d.device_map()["n0"].y) == (5.0, 6.0)


@pytest.mark.parametrize(
    ("updates", "message"),
    [
        ({"ghost": {"x": 1.0}}, "'ghost': not in the design"),
        ({"n1": {"id": "n9"}}, "cannot rename device 'n1'"),
        ({"n1": {"group": "su-9"}}, "unknown group 'su-9'"),
        ({"n1": {"tier": "attic"}}, "device 'n1': field tier"),
        ({"n1": {"colour": "red"}}, "device 'n1': field colour"),
        ({"n0": {"x": 3.0}, "n1": {"x": "far"}}, "device 'n1': field x"),
    ],
)
def test_update_devices_refuses_bad_edits_as_a_whole(
    updates: dict[str, dict[str, object]], message: str
) -> None:
    d = fabric()
    before = d.model_dump()
    with pytest.raises(ValueError, match=message):
        UpdateDevices(updates).do(d)
    assert d.model_dump() == before


def test_add_links_rows_and_table() -> None:
    link = Link(
        id="x", a="leaf-1", a_port="ports", b="leaf-2", b_port="ports", speed_gbps=400
    )
    d = roundtrip(AddLinks([link]))
    assert d.links.get("x") == link
    table = LinkTable.from_links(
        [link.model_copy(update={"id": f"y{i}"}) for i in range(3)]
    )
    cmd = AddLinks(table, label="Bulk")
    assert [x.id for x in cmd.links] == ["y0", "y1", "y2"]
    roundtrip(cmd)


@pytest.mark.parametrize(
    ("links", "message"),
    [
        ([{"id": "n0-l1"}], "'n0-l1' already exists"),
        ([{"id": "q"}, {"id": "q"}], "'q' is used twice"),
        ([{"id": "q", "b": "ghost"}], "device 'ghost', not in the design"),
        ([{"id": "q", "b": "leaf-1"}], "cannot join 'leaf-1' to itself"),
    ],
)
def test_add_links_refuses(links: list[dict[str, str]], message: str) -> None:
    base = {"a": "leaf-1", "a_port": "ports", "b": "leaf-2", "b_port": "ports"}
    rows = [Link(**{**base, **x}, speed_gbps=400) for x in links]  # type: ignore[arg-type]
    d = fabric()
    before = d.model_dump()
    with pytest.raises(ValueError, match=message):
        AddLinks(rows).do(d)
    assert d.model_dump() == before


def test_remove_links_keeps_positions() -> None:
    d = fabric()
    cmd = RemoveLinks(["n1-l2", "n0-l1", "unknown"])
    cmd.do(d)
    assert "n1-l2" not in d.links.id and len(d.links) == 6
    cmd.undo(d)
    assert d.model_dump() == fabric().model_dump()
    roundtrip(RemoveLinks(["n3-l2", "n2-l1"]))


def test_update_link_and_links() -> None:
    d = roundtrip(UpdateLink("n0-l1", {"cables": 2, "fabric": Fabric.STORAGE}))
    assert d.links.get("n0-l1").cables == 2  # type: ignore[union-attr]
    d = roundtrip(UpdateLinks({"n0-l1": {"speed_gbps": 200}, "n3-l2": {"rail": 7}}))
    assert d.links.get("n3-l2").rail == 7  # type: ignore[union-attr]
    bad = fabric()
    before = bad.model_dump()
    for updates, message in [
        ({"nope": {"cables": 2}}, "'nope': not in the design"),
        ({"n0-l1": {"cables": 0}}, "link 'n0-l1': field cables"),
        ({"n0-l1": {"b": "ghost"}}, "device 'ghost' is not in the design"),
        ({"n0-l1": {"b": "n0"}}, "cannot join 'n0' to itself"),
        ({"n0-l1": {"id": "zz"}}, "cannot rename link"),
    ]:
        with pytest.raises(ValueError, match=message):
            UpdateLinks(updates).do(bad)  # type: ignore[arg-type]
        assert bad.model_dump() == before


def test_set_groups_validates() -> None:
    roundtrip(SetGroups([Group(id="su-1"), Group(id="pod-1", kind=GroupKind.POD)]))
    d = fabric()
    before = d.model_dump()
    with pytest.raises(ValueError, match="device 'n0' is still in group 'su-1'"):
        SetGroups([]).do(d)
    with pytest.raises(ValueError, match="parent chain has a cycle"):
        SetGroups([Group(id="su-1", parent="p"), Group(id="p", parent="su-1")]).do(d)
    with pytest.raises(ValueError, match="duplicate group id"):
        SetGroups([Group(id="su-1"), Group(id="su-1")]).do(d)
    assert d.model_dump() == before


def test_set_settings() -> None:
    d = roundtrip(SetSettings(Settings(name="B", purpose=Purpose.MIXED)))
    assert d.settings.name == "B"


def test_replace_design_keeps_the_object_and_undoes() -> None:
    new = Design(devices=[Device(id="only", catalog_id="qm9700")])
    roundtrip(ReplaceDesign(new))
    doc = Document(fabric())
    same = doc.design
    seen: list[list[Event]] = []
    doc.subscribe(seen.append)
    doc.execute(ReplaceDesign(new, label="Apply template"))
    assert doc.design is same and [x.id for x in same.devices] == ["only"]
    assert seen[-1] == [DesignReplaced()] and doc.history.undo_label == "Apply template"
    doc.execute(AddDevices([Device(id="more", catalog_id="x")]))
    assert [x.id for x in new.devices] == ["only"]  # the template is not aliased
    doc.undo()
    doc.undo()
    assert same.model_dump() == fabric().model_dump()


def test_macro_is_one_step_and_atomic() -> None:
    good = Macro(
        "Add and wire",
        [
            AddDevices([Device(id="sp", catalog_id="qm9700")]),
            AddLinks(
                [
                    Link(
                        id="up",
                        a="leaf-1",
                        a_port="ports",
                        b="sp",
                        b_port="ports",
                        speed_gbps=400,
                    )
                ]
            ),
        ],
    )
    roundtrip(good)
    d = fabric()
    before = d.model_dump()
    bad = Macro(
        "Half",
        [
            AddDevices([Device(id="sp", catalog_id="qm9700")]),
            RemoveLinks(["n0-l1"]),
            UpdateDevices({"ghost": {"x": 1.0}}),
        ],
    )
    with pytest.raises(ValueError, match="ghost"):
        bad.do(d)
    assert d.model_dump() == before


def test_history_labels_and_clean_state() -> None:
    doc = Document(fabric())
    h = doc.history
    assert h.is_clean and not h.can_undo and not h.can_redo
    assert h.undo_label is None
    doc.execute(move_devices({"n0": (1.0, 1.0)}))
    doc.execute(RemoveLinks(["n0-l1"]))
    assert h.undo_label == "Delete link" and not h.is_clean
    doc.mark_clean()
    assert h.is_clean
    doc.undo()
    assert h.redo_label == "Delete link" and h.undo_label == "Move device"
    assert not h.is_clean
    doc.redo()
    assert h.is_clean
    doc.undo()
    doc.execute(SetSettings(Settings(name="other")))  # the saved state is gone
    assert h.clean_index is None and not h.is_clean and not h.can_redo
    while h.can_undo:
        doc.undo()
    assert doc.design.model_dump() == fabric().model_dump()
    assert doc.undo() == [] and doc.redo() != []


def test_failed_command_leaves_no_history_entry() -> None:
    doc = Document(fabric())
    with pytest.raises(ValueError):
        doc.execute(UpdateDevices({"ghost": {"x": 1.0}}))
    assert not doc.history.can_undo and doc.revision == 0


def test_document_listeners_receive_changes() -> None:
    doc = Document(fabric())
    seen: list[list[Event]] = []
    doc.subscribe(seen.append)
    n0 = [d.id for d in doc.design.devices].index("n0")
    doc.execute(RemoveDevices(["n0"]))
    assert seen[-1] == [
        LinksRemoved(("n0-l1", "n0-l2"), (0, 1)),
        DevicesRemoved(("n0",), (n0,)),
    ]
    doc.undo()
    added = seen[-1][0]
    assert isinstance(added, DevicesAdded)
    assert (added.ids, added.positions) == (("n0",), (n0,))
    assert added.devices == (doc.design.devices[n0],)
    doc.redo()
    assert type(seen[-1][1]) is DevicesRemoved
    doc.reset(Design())
    assert seen[-1] == [DesignReplaced()]
    assert doc.revision == 4 and not doc.history.can_undo
    doc.unsubscribe(seen.append)
    doc.execute(AddDevices([Device(id="a", catalog_id="c")]))
    assert len(seen) == 4


def test_fast_move_matches_validated_update() -> None:
    fast, slow = fabric(), fabric()
    UpdateDevices({"n0": {"x": 3, "y": 4.5}}).do(fast)
    UpdateDevices({"n0": {"x": 3, "y": 4.5, "label": ""}}).do(slow)
    assert fast.model_dump() == slow.model_dump()
    assert fast.model_dump_json() == slow.model_dump_json()
    assert isinstance(fast.device_map()["n0"].x, float)


@pytest.mark.slow
def test_core_imports_no_qt() -> None:
    import subprocess
    import sys

    code = (
        "import sys, designer.core.rules, designer.core.wiring, designer.core.edits;"
        "assert not any(m.startswith(('PySide6', 'pyqtgraph', 'shiboken6'))"
        " for m in sys.modules), 'Qt imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_link_changes_carry_the_positions_of_their_links() -> None:
    """Removed: where the rows were before; added: where they are after;
    changed: where they are. Followers rely on these without checking."""
    doc = Document(fabric())
    seen: list[list[Event]] = []
    doc.subscribe(seen.append)
    before = list(doc.design.links.id)
    devices_before = [d.id for d in doc.design.devices]

    def check_last() -> None:
        assert seen[-1], "every step reports what it changed"
        links_now = doc.design.links.id
        devices_now = [d.id for d in doc.design.devices]
        for c in seen[-1]:
            if isinstance(c, LinksRemoved):
                table = before
            elif isinstance(c, LinksAdded | LinksChanged):
                table = links_now
            elif isinstance(c, DevicesRemoved):
                table = devices_before
            elif isinstance(c, DevicesAdded | DevicesChanged):
                table = devices_now
            else:
                continue
            assert list(c.positions) == sorted(c.positions), c
            assert [table[p] for p in c.positions] == list(c.ids), c

    node = doc.design.devices[-1].id
    steps = [
        lambda: doc.execute(RemoveLinks([before[1], before[4]])),
        doc.undo,
        lambda: doc.execute(UpdateLinks({before[3]: {"cables": 2}, before[0]: {}})),
        doc.undo,
        lambda: doc.execute(move_devices({node: (5.0, 6.0)})),
        lambda: doc.execute(RemoveDevices([node])),
        doc.undo,
        lambda: doc.execute(
            AddLinks(
                [
                    Link(
                        id="extra",
                        a=node,
                        a_port="compute",
                        b=doc.design.devices[0].id,
                        b_port="ports",
                        speed_gbps=400,
                    )
                ]
            )
        ),
        doc.undo,
    ]
    for step in steps:
        before = list(doc.design.links.id)
        devices_before = [d.id for d in doc.design.devices]
        step()
        check_last()
    assert sum(len(changes) for changes in seen) >= 8
