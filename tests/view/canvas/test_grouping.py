"""Grouping is linear: the device list is read a fixed number of times, not
once per member (issue 16, item 14: 2,000 of the 100K design's devices took
3.7 s; ``bench/bench_grouping.py`` times it against the old way)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from designer.core.document import Document
from designer.core.model import Design, Device, Group, GroupKind
from designer.view.canvas.editing import EditRefused, group_devices


class CountingList(list[Any]):
    """A list that counts how often it is walked."""

    walks = 0

    def __iter__(self) -> Iterator[Any]:
        CountingList.walks += 1
        return super().__iter__()


def _design(n: int) -> Design:
    d = Design(
        groups=[Group(id="su-1", kind=GroupKind.SU)],
        devices=[
            Device(id=f"n{i}", catalog_id="dgx-h100", group="su-1" if i < 5 else None)
            for i in range(n)
        ],
    )
    d.devices = CountingList(d.devices)
    return d


@pytest.mark.parametrize("kind", ["su", "pod", "rack"])
def test_the_device_list_is_walked_a_fixed_number_of_times(kind: str) -> None:
    walks = []
    for members in (10, 200):
        d = _design(400)
        CountingList.walks = 0
        group_devices(d, [f"n{i}" for i in range(members)], kind)
        walks.append(CountingList.walks)
    assert walks[0] == walks[1] <= 3, walks  # before: one walk per member


def test_grouping_still_does_what_it_did() -> None:
    d = _design(20)
    doc = Document(d)
    doc.execute(group_devices(d, ["n1", "n7", "n7", "ghost", "n8"], "rack"))
    new = d.groups[-1]
    assert (new.id, new.label, new.kind) == ("rack-1", "Rack 1", GroupKind.RACK)
    assert [x.id for x in d.devices if x.group == "rack-1"] == ["n1", "n7", "n8"]
    assert doc.history.done[-1].label == "Group 3 devices as Rack"
    doc.execute(group_devices(d, ["n0", "n9"], "pod"))  # adopts su-1, takes n9
    pod = d.groups[-1]
    assert d.group_map()["su-1"].parent == pod.id
    assert d.device_map()["n9"].group == pod.id
    assert d.device_map()["n0"].group == "su-1"
    with pytest.raises(EditRefused):
        group_devices(d, ["ghost"], "su")
