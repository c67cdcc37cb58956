"""Refusals say where the ports go and name a device once (issue 16, item 10)."""

from __future__ import annotations

import pytest

from designer.catalog.loader import default_catalog
from designer.core.checks import check_design, check_link_update
from designer.core.connect import plan_connection
from designer.core.edits import copy_selection, paste
from designer.core.errors import PortBudgetExceeded, cabled_to, device_name
from designer.core.model import Design, Device, Link
from designer.core.wiring import connect_all_to_all

CATALOG = default_catalog()


def _node_on_two_leaves() -> Design:
    d = Design(
        devices=[
            Device(id="dgx-h100-2", catalog_id="dgx-h100"),
            Device(id="leaf-1", catalog_id="qm9700"),
            Device(id="leaf-2", catalog_id="qm9700"),
        ]
    )
    for lid, leaf in (("up1", "leaf-1"), ("up2", "leaf-2")):
        d.links.append(
            Link(
                id=lid,
                a="dgx-h100-2",
                a_port="compute",
                b=leaf,
                b_port="ports",
                cables=4,
                speed_gbps=400,
            )
        )
    return d


WANT = (
    "dgx-h100-2: port group 'compute' has 8 ports (4 twin-port cages) but 9 "
    "would be in use (1 too many): 5 to leaf-1 and 4 to leaf-2"
)


def test_a_ninth_cable_says_where_the_eight_go_from_every_entry_point() -> None:
    """Before: "dgx-h100 dgx-h100-2: port group 'compute' has 8 ports (4
    twin-port cages) but 9 would be in use (1 too many)"."""
    d = _node_on_two_leaves()
    one = d.model_copy(deep=True)
    one.links.append(
        Link(
            id="x",
            a="dgx-h100-2",
            a_port="compute",
            b="leaf-1",
            b_port="ports",
            cables=1,
            speed_gbps=400,
        )
    )
    clip = copy_selection(one, ["dgx-h100-2", "leaf-1", "leaf-2"])
    errors = {
        "canvas": lambda: plan_connection(d, "dgx-h100-2", "leaf-1", CATALOG),
        "bulk": lambda: connect_all_to_all(d, ["dgx-h100-2"], ["leaf-1"], 1, CATALOG),
    }
    for name, build in errors.items():
        with pytest.raises(PortBudgetExceeded) as info:
            build()
        assert str(info.value) == WANT, name
    # paste adds its own copies: the fragment alone overfills the copy's ports
    with pytest.raises(PortBudgetExceeded) as pasted:
        paste(Design(), clip, lookup=CATALOG)
    assert "9 would be in use (1 too many)" in str(pasted.value)
    # Properties: the edited link's own cables are not counted twice
    with pytest.raises(PortBudgetExceeded) as props:
        check_link_update(d, "up1", {"cables": 5}, CATALOG)
    assert str(props.value) == WANT
    # a design that has it: where its cables go, in the present tense
    (problem,) = check_design(one, CATALOG)
    assert str(problem) == WANT.replace("would be in use", "are in use")


def test_a_device_is_named_once() -> None:
    assert device_name(Device(id="dgx-h100-2", catalog_id="dgx-h100")) == "dgx-h100-2"
    assert device_name(Device(id="qm9700", catalog_id="qm9700")) == "qm9700"
    assert device_name(Device(id="leaf-3", catalog_id="qm9700")) == "qm9700 leaf-3"
    # a catalog id that is only a prefix of another word is kept
    assert device_name(Device(id="dgx-h1000", catalog_id="dgx-h100")) == (
        "dgx-h100 dgx-h1000"
    )


def test_where_many_cables_go() -> None:
    assert cabled_to({"leaf-1": 8}) == "8 to leaf-1"
    assert cabled_to({"a": 1, "b": 3}) == "3 to b and 1 to a"
    many = {f"leaf-{i}": 1 for i in range(6)} | {"spine": 4}
    assert (
        cabled_to(many)
        == "4 to spine, 1 to leaf-0, 1 to leaf-1 and 4 to 4 other devices"
    )
