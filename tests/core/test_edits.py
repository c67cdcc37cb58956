"""Group helpers, copy/paste and duplicate: one step each, exact undo."""

from __future__ import annotations

import json

import pytest

from designer.core.commands import SetGroups, SetSettings
from designer.core.device_commands import AddDevices, move_devices
from designer.core.document import Document
from designer.core.edits import (
    add_group,
    copy_selection,
    duplicate,
    paste,
    remove_group,
    rename_device,
    rename_group,
    set_group_collapsed,
)
from designer.core.limits import COORD_LIMIT, LABEL_MAX, MAX_PRICE_USD
from designer.core.model import Design, Device, Group, GroupKind, Link


def pod() -> Design:
    """pod-1 > su-1 (n1, n2) and su-2 (n3); leaf-1 in su-1; spine outside."""
    d = Design(
        groups=[
            Group(id="pod-1", label="Pod 1", kind=GroupKind.POD),
            Group(id="su-1", label="SU 1", kind=GroupKind.SU, parent="pod-1"),
            Group(id="su-2", label="SU 2", kind=GroupKind.SU, parent="pod-1"),
        ],
        devices=[
            Device(id="n-1", catalog_id="dgx-h100", group="su-1", x=0, y=500),
            Device(id="n-2", catalog_id="dgx-h100", group="su-1", x=100, y=500),
            Device(id="leaf-1", catalog_id="qm9700", group="su-1", x=50, y=300),
            Device(id="n-3", catalog_id="dgx-h100", group="su-2", x=300, y=500),
            Device(id="spine-1", catalog_id="qm9700", x=50, y=100),
        ],
    )
    for n in ("n-1", "n-2", "n-3"):
        d.links.append(
            Link(
                id=f"{n}--leaf-1",
                a=n,
                a_port="compute",
                b="leaf-1",
                b_port="ports",
                speed_gbps=400,
                rail=0,
            )
        )
    d.links.append(
        Link(
            id="leaf-1--spine-1",
            a="leaf-1",
            a_port="ports",
            b="spine-1",
            b_port="ports",
            cables=2,
            speed_gbps=400,
        )
    )
    return d


def run(doc: Document, cmd) -> None:  # type: ignore[no-untyped-def]
    """Execute, and check that undo + redo are exact."""
    before = doc.design.model_dump()
    doc.execute(cmd)
    after = doc.design.model_dump()
    Design.model_validate(after)  # references still resolve
    doc.undo()
    assert doc.design.model_dump() == before
    doc.redo()
    assert doc.design.model_dump() == after


def test_add_group_moves_members() -> None:
    doc = Document(pod())
    run(
        doc, add_group(doc.design, Group(id="rack-1", kind=GroupKind.RACK), ["spine-1"])
    )
    assert doc.design.device_map()["spine-1"].group == "rack-1"
    assert doc.history.undo_label == "Group 1 device as rack-1"
    with pytest.raises(ValueError, match="already exists"):
        add_group(doc.design, Group(id="su-1"), [])
    with pytest.raises(ValueError, match="'ghost': not in the design"):
        add_group(doc.design, Group(id="x"), ["ghost"])


def test_remove_group_moves_members_and_children_up() -> None:
    doc = Document(pod())
    run(doc, remove_group(doc.design, "su-1"))
    assert doc.design.device_map()["n-1"].group == "pod-1"
    assert "su-1" not in doc.design.group_map()
    run(doc, remove_group(doc.design, "pod-1"))
    assert doc.design.group_map()["su-2"].parent is None
    assert doc.design.device_map()["n-1"].group is None
    with pytest.raises(ValueError, match="no group"):
        remove_group(doc.design, "pod-1")


def test_collapse_and_expand() -> None:
    doc = Document(pod())
    run(doc, set_group_collapsed(doc.design, "su-2", True))
    assert doc.design.group_map()["su-2"].collapsed
    assert doc.history.undo_label == "Collapse SU 2"
    run(doc, set_group_collapsed(doc.design, "su-2", False))
    assert not doc.design.group_map()["su-2"].collapsed


def test_duplicate_whole_su_copies_group_devices_and_inner_links() -> None:
    doc = Document(pod())
    run(doc, duplicate(doc.design, ["n-1", "n-2", "leaf-1"], offset=(0, 1000)))
    d = doc.design
    assert [g.id for g in d.groups] == ["pod-1", "su-1", "su-2", "su-3"]
    su3 = d.group_map()["su-3"]
    assert su3.parent == "pod-1" and su3.label == "SU 1 copy"
    new = d.devices[-3:]
    assert [x.id for x in new] == ["n-4", "n-5", "leaf-2"]
    assert {x.group for x in new} == {"su-3"}
    assert (new[0].x, new[0].y) == (0, 1500)
    # Only links among the copied devices come along, with fresh ids.
    assert d.links.id[-2:] == ["n-4--leaf-2", "n-5--leaf-2"]
    assert d.links.rail[-2:] == [0, 0]
    assert len(d.links) == 6
    assert doc.history.undo_label == "Duplicate 3 devices"


def test_duplicate_part_of_a_group_stays_in_it() -> None:
    doc = Document(pod())
    run(doc, duplicate(doc.design, ["n-1"]))
    copy = doc.design.devices[-1]
    assert copy.id == "n-4" and copy.group == "su-1" and (copy.x, copy.y) == (40, 540)
    assert len(doc.design.groups) == 3


def test_paste_into_another_design_drops_unknown_groups() -> None:
    clip = json.loads(json.dumps(copy_selection(pod(), ["n-1", "leaf-1", "spine-1"])))
    assert [g["id"] for g in clip["groups"]] == []
    target = Document(Design(devices=[Device(id="leaf-1", catalog_id="qm9700")]))
    run(target, paste(target.design, clip, offset=(10, 10)))
    d = target.design
    assert [x.id for x in d.devices] == ["leaf-1", "n-1", "leaf-2", "spine-1"]
    assert all(x.group is None for x in d.devices)
    assert d.links.id == ["n-1--leaf-2", "leaf-2--spine-1"]
    assert d.links.cables == [1, 2]


def test_paste_accepts_column_wise_links_and_refuses_junk() -> None:
    src = pod()
    clip = copy_selection(src, ["n-3", "leaf-1"])
    clip["links"] = {
        "id": ["x"],
        "a": ["n-3"],
        "a_port": ["compute"],
        "b": ["leaf-1"],
        "b_port": ["ports"],
        "cables": [1],
        "speed_gbps": [400],
        "fabric": ["compute"],
        "rail": [None],
    }
    doc = Document(src)
    run(doc, paste(doc.design, clip))
    assert doc.design.links.id[-1] == "n-4--leaf-2"
    with pytest.raises(ValueError, match="nothing to paste"):
        paste(src, {"devices": []})
    with pytest.raises(ValueError, match="does not hold devices"):
        paste(src, {"devices": [{"id": "bad id"}]})


# --- fields stay within the model's limits -----------------------------------------


def test_duplicating_a_group_with_a_full_length_label_keeps_it_in_range() -> None:
    design = pod()
    long = "S" * LABEL_MAX
    design.groups[1] = design.groups[1].model_copy(update={"label": long})
    doc = Document(design)
    run(doc, duplicate(doc.design, ["n-1", "n-2", "leaf-1"]))
    copy = doc.design.groups[-1]
    assert len(copy.label) == LABEL_MAX
    assert copy.label == "S" * (LABEL_MAX - 5) + " copy"
    Design.model_validate(doc.design.model_dump())


def test_paste_far_away_stays_on_the_canvas() -> None:
    doc = Document(pod())
    run(doc, duplicate(doc.design, ["spine-1"], offset=(1e308, -float("inf"))))
    copy = doc.design.devices[-1]
    assert (copy.x, copy.y) == (COORD_LIMIT, -COORD_LIMIT)


def test_rename_group_and_device() -> None:
    doc = Document(pod())
    run(doc, rename_group(doc.design, "su-1", "  Scalable unit 1 "))
    assert doc.design.group_map()["su-1"].label == "Scalable unit 1"
    assert doc.history.undo_label == "Rename SU 1 to Scalable unit 1"
    run(doc, rename_device(doc.design, "n-1", "x" * LABEL_MAX))
    assert doc.design.device_map()["n-1"].label == "x" * LABEL_MAX
    with pytest.raises(
        ValueError, match="at most 200 characters \\(this one has 201\\)"
    ):
        rename_group(doc.design, "su-1", "y" * (LABEL_MAX + 1))
    with pytest.raises(ValueError, match="at most 200 characters"):
        rename_device(doc.design, "n-1", "y" * (LABEL_MAX + 1))
    with pytest.raises(ValueError, match="no group"):
        rename_group(doc.design, "su-9", "z")


def refused(doc: Document, command: object, match: str) -> None:
    """The command is refused and the design is as it was."""
    before = doc.design.model_dump()
    with pytest.raises(ValueError, match=match):
        doc.execute(command)  # type: ignore[arg-type]
    assert doc.design.model_dump() == before


def test_commands_refuse_objects_that_skipped_validation() -> None:
    doc = Document(pod())
    too_long = doc.design.groups[0].model_copy(update={"label": "L" * 205})
    refused(doc, SetGroups([too_long, *doc.design.groups[1:]]), "group 'pod-1'")
    settings = doc.design.settings
    refused(
        doc,
        SetSettings(settings.model_copy(update={"name": "N" * 201})),
        "design settings: field name",
    )
    refused(
        doc,
        SetSettings(settings.model_copy(update={"price_overrides": {"qm9700": 1e308}})),
        "price_overrides",
    )
    ok = settings.model_copy(update={"price_overrides": {"qm9700": MAX_PRICE_USD}})
    doc.execute(SetSettings(ok))
    ghost = Device.model_construct(id="g-1", catalog_id="qm9700", label="G" * 300)
    refused(doc, AddDevices([ghost]), "device 'g-1': field label")


@pytest.mark.parametrize(
    "value", [float("inf"), float("nan"), 1e308, COORD_LIMIT * 2, 10**400]
)
def test_moves_out_of_range_are_refused(value: object) -> None:
    doc = Document(pod())
    refused(doc, move_devices({"n-1": (0.0, value)}), "device 'n-1': field y")  # type: ignore[dict-item]


def test_moves_to_the_edge_are_fine() -> None:
    doc = Document(pod())
    run(doc, move_devices({"n-1": (COORD_LIMIT, -COORD_LIMIT)}))
    assert doc.design.device_map()["n-1"].x == COORD_LIMIT
