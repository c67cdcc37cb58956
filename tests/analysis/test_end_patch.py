"""The end table patched for the link rows an edit changed equals the table
made afresh (:func:`designer.analysis.ends.patched_end_table`)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from designer.analysis.ends import EndTable, end_table, ends_of
from designer.analysis.reuse import Reuse
from designer.catalog import Catalog, default_catalog
from designer.core.device_commands import AddDevices
from designer.core.document import Document
from designer.core.link_commands import AddLinks, RemoveLinks
from designer.core.model import Design, Device
from designer.core.snapshot import snapshot
from designer.generate import fat_tree
from tests.analysis.walk import DESIGNS, walk


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return default_catalog()


def _same_table(ours: EndTable, fresh: EndTable) -> None:
    assert (ours.m, ours.n_ports) == (fresh.m, fresh.n_ports)
    for name in ("code_a", "code_b", "group_a", "group_b", "pair_code"):
        x, y = getattr(ours, name), getattr(fresh, name)
        assert x.dtype == y.dtype and np.array_equal(x, y), name
    assert np.array_equal(ours.pair_media_ok, fresh.pair_media_ok)
    assert (ours.module_id, ours.blocks, ours.cable_classes) == (
        fresh.module_id,
        fresh.blocks,
        fresh.cable_classes,
    )
    for name in ("known", "supported", "role_ok", "split", "per_cage", "module",
                 "block", "cable"):  # fmt: skip
        assert np.array_equal(getattr(ours.kinds, name), getattr(fresh.kinds, name))
    assert ours.basis is not None and fresh.basis is not None
    for name in ("kinds_present", "speeds", "speed_count", "kind_count", "pair_count"):
        assert np.array_equal(getattr(ours.basis, name), getattr(fresh.basis, name))
    assert ours.all_fine == fresh.all_fine and ours.all_known == fresh.all_known


@pytest.mark.parametrize("make", DESIGNS)
def test_every_patched_end_table_equals_the_table_made_afresh(
    make: Callable[[], Design], catalog: Catalog
) -> None:
    patched = seen = 0
    for _step, reuse, index, _doc in walk(make(), catalog, seed=3, steps=70):
        if reuse.hits["end table patched"] > seen:  # (while indexing this state)
            patched += 1
            assert index._ends is not None
        seen = reuse.hits["end table patched"]
        _same_table(ends_of(index), end_table(index))
    assert patched >= 10, patched


def test_a_kind_pair_no_link_has_any_more_is_not_reported(catalog: Catalog) -> None:
    """An InfiniBand switch cabled to an Ethernet switch is a pair of port groups
    that do not speak the same link layer; once that link is gone (its two
    kinds still used by other links), the patched table says every pair is
    fine, as a table made afresh does."""
    from designer.core.model import Link

    design = fat_tree("dgx-h100", 32, "qm9700")
    leaf = next(d.id for d in design.devices if d.catalog_id == "qm9700")
    doc = Document(design)
    doc.execute(
        AddDevices(
            [
                Device(id="eth-a", catalog_id="sn5600", x=0.0, y=-400.0),
                Device(id="eth-b", catalog_id="sn5600", x=200.0, y=-400.0),
            ]
        )
    )
    wrong = Link(id="wrong", a=leaf, a_port="ports", b="eth-a", b_port="ports",
                 speed_gbps=400)  # fmt: skip
    fine = Link(id="fine", a="eth-a", a_port="ports", b="eth-b", b_port="ports",
                speed_gbps=400)  # fmt: skip
    doc.execute(AddLinks([fine, wrong]))
    reuse = Reuse()
    light, links = snapshot(doc.design)
    first = ends_of(reuse.build_index(light, catalog, links))
    assert not first.all_fine and not first.pair_media_ok.all()
    doc.execute(RemoveLinks(["wrong"]))
    light, links = snapshot(doc.design)
    index = reuse.build_index(light, catalog, links)
    assert reuse.hits["end table patched"] == 1
    _same_table(ends_of(index), end_table(index))
    assert ends_of(index).all_fine
    doc.undo()  # the link is back: a pair the last table had not got
    light, links = snapshot(doc.design)
    index = reuse.build_index(light, catalog, links)
    assert reuse.hits["end table patched"] == 2
    _same_table(ends_of(index), end_table(index))
    assert not ends_of(index).all_fine
