"""One rule everywhere: canvas connect, bulk wiring, paste and Properties edits
refuse the same bad edit with the identical message, and check_design agrees."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from designer.catalog.loader import default_catalog
from designer.core.checks import (
    check_design,
    check_link_update,
    check_link_updates,
    link_limits,
)
from designer.core.connect import plan_connection
from designer.core.document import Document
from designer.core.edits import copy_selection, paste
from designer.core.errors import (
    ConnectionRefused,
    InvalidLink,
    PortBudgetExceeded,
    SpeedMismatch,
    UnknownLink,
)
from designer.core.link_commands import UpdateLink
from designer.core.model import Design, Device, Fabric, Link
from designer.core.wiring import connect_all_to_all

CATALOG = default_catalog()


def wired(cables: int = 8, speed: int = 400) -> Design:
    """dgx-1 on leaf-1 with ``cables`` compute cables (link 'up')."""
    d = Design(
        devices=[
            Device(id="dgx-1", catalog_id="dgx-h100"),
            Device(id="leaf-1", catalog_id="qm9700"),
        ]
    )
    d.links.append(
        Link(
            id="up",
            a="dgx-1",
            a_port="compute",
            b="leaf-1",
            b_port="ports",
            cables=cables,
            speed_gbps=speed,
        )
    )
    return d


def refusal(build: Callable[[], object]) -> ConnectionRefused:
    with pytest.raises(ConnectionRefused) as info:
        build()
    return info.value


NINTH = (
    "dgx-h100 dgx-1: port group 'compute' has 8 ports (4 twin-port cages) but 9 "
    "would be in use (1 too many): 9 to leaf-1"
)


def test_a_ninth_compute_cable_reads_the_same_from_every_entry_point() -> None:
    d = wired()
    empty = Design()
    clip = copy_selection(wired(9), ["dgx-1", "leaf-1"])
    # the clip holds a link of 9 cables (a file edited by hand)
    assert clip["links"][0]["cables"] == 9
    errors = {
        "canvas": refusal(lambda: plan_connection(d, "dgx-1", "leaf-1", CATALOG)),
        "canvas, one cable": refusal(
            lambda: plan_connection(d, "dgx-1", "leaf-1", CATALOG, cables=1)
        ),
        "properties": refusal(
            lambda: check_link_update(d, "up", {"cables": 9}, CATALOG)
        ),
        "bulk": refusal(
            lambda: connect_all_to_all(d, ["dgx-1"], ["leaf-1"], 1, CATALOG)
        ),
        "paste": refusal(lambda: paste(empty, clip, lookup=CATALOG)),
    }
    assert {k: str(e) for k, e in errors.items()} == dict.fromkeys(errors, NINTH)
    assert all(type(e) is PortBudgetExceeded for e in errors.values())
    # the validator says the same about a design that has it
    applied = wired(9)
    (problem,) = check_design(applied, CATALOG)
    assert type(problem) is PortBudgetExceeded
    assert str(problem) == NINTH.replace("would be in use", "are in use")


def test_a_speed_the_nic_cannot_run_reads_the_same() -> None:
    d = wired(4)
    want = (
        "800 Gb/s is not supported by dgx-h100 dgx-1 port group 'compute' "
        "(runs at 400/200 Gb/s)"
    )
    clip = copy_selection(wired(4, 800), ["dgx-1", "leaf-1"])
    errors = [
        refusal(lambda: plan_connection(d, "dgx-1", "leaf-1", CATALOG, speed_gbps=800)),
        refusal(lambda: check_link_update(d, "up", {"speed_gbps": 800}, CATALOG)),
        refusal(
            lambda: connect_all_to_all(
                d, ["dgx-1"], ["leaf-1"], 1, CATALOG, speed_gbps=800
            )
        ),
        refusal(lambda: paste(Design(), clip, lookup=CATALOG)),
    ]
    assert [str(e) for e in errors] == [want] * 4
    assert all(type(e) is SpeedMismatch for e in errors)
    assert [str(p) for p in check_design(wired(4, 800), CATALOG)] == [want]


def test_properties_edits_are_checked_like_new_links() -> None:
    d = wired(4)
    check_link_update(d, "up", {"cables": 8}, CATALOG)  # fits
    with pytest.raises(PortBudgetExceeded):
        check_link_update(d, "up", {"cables": 9}, CATALOG)
    fab = refusal(lambda: check_link_update(d, "up", {"fabric": Fabric.OOB}, CATALOG))
    assert str(fab) == (
        "dgx-h100 dgx-1 port group 'compute' is for the compute fabric, not the "
        "oob fabric"
    )
    port = refusal(lambda: check_link_update(d, "up", {"a_port": "bmc"}, CATALOG))
    assert "port group 'bmc' is for the oob fabric" in str(port)
    with pytest.raises(InvalidLink, match="field cables"):
        check_link_update(d, "up", {"cables": 0}, CATALOG)
    with pytest.raises(InvalidLink, match="ids are stable"):
        check_link_update(d, "up", {"id": "other"}, CATALOG)
    with pytest.raises(UnknownLink):
        check_link_update(d, "ghost", {"cables": 1}, CATALOG)
    # two links edited together count together
    d.links.append(d.links.row(0).model_copy(update={"id": "up2", "cables": 2}))
    check_link_updates(d, {"up": {"cables": 6}}, CATALOG)
    with pytest.raises(PortBudgetExceeded, match="9 would be in use"):
        check_link_updates(d, {"up": {"cables": 5}, "up2": {"cables": 4}}, CATALOG)


def test_link_limits_bound_the_properties_widgets() -> None:
    d = wired(3)
    limits = link_limits(d, "up", CATALOG)
    assert limits.max_cables == 8
    assert limits.speeds_gbps == (400, 200)
    assert limits.fabrics == (Fabric.COMPUTE,)
    d.links.append(d.links.row(0).model_copy(update={"id": "more", "cables": 2}))
    assert link_limits(d, "up", CATALOG).max_cables == 6
    # a switch-to-switch link may go on any fabric; at 200G a QM9700 port splits
    s = Design(
        devices=[
            Device(id="a", catalog_id="qm9700"),
            Device(id="b", catalog_id="qm9700"),
        ]
    )
    s.links.append(
        Link(id="x", a="a", a_port="ports", b="b", b_port="ports", speed_gbps=200)
    )
    sw = link_limits(s, "x", CATALOG)
    assert sw.max_cables == 128 and set(sw.fabrics) == set(Fabric)


def test_a_refused_properties_edit_leaves_the_document_alone() -> None:
    # What the Properties panel does: check, then execute UpdateLink.
    doc = Document(wired(8))
    before = doc.design.model_dump()
    fields = {"cables": 9}
    with pytest.raises(PortBudgetExceeded):
        check_link_update(doc.design, "up", fields, CATALOG)
    assert doc.design.model_dump() == before
    check_link_update(doc.design, "up", {"cables": 7}, CATALOG)
    doc.execute(UpdateLink("up", {"cables": 7}))
    assert check_design(doc.design, CATALOG) == []


def test_paste_checks_only_with_a_lookup_and_keeps_good_fragments() -> None:
    clip = copy_selection(wired(8), ["dgx-1", "leaf-1"])
    d = wired(8)
    cmd = paste(d, clip, lookup=CATALOG)
    cmd.do(d)
    assert check_design(d, CATALOG) == []
    assert len(d.links) == 2
    # without a lookup (no catalog at hand) paste stays as it was
    bad = copy_selection(wired(9), ["dgx-1", "leaf-1"])
    paste(Design(), bad)
