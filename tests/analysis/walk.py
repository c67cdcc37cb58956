"""Walks a design through random edits, as the editor's worker sees them: the
patch oracles (tests/analysis/test_*_patch.py) compare each state's patched
stage with the stage made afresh."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

import pytest

from designer.analysis.index import DesignIndex
from designer.analysis.reuse import Reuse
from designer.catalog import Catalog
from designer.core.device_commands import AddDevices
from designer.core.document import Document
from designer.core.link_commands import AddLinks, RemoveLinks, UpdateLink
from designer.core.model import Design, Device
from designer.core.snapshot import snapshot
from designer.generate import fat_tree
from tests.analysis.builders import perturbed_fat_tree, random_design, sketch_design

NO_PINS = {"a_pins": None, "b_pins": None}

DESIGNS = [
    pytest.param(lambda: fat_tree("dgx-h100", 64, "qm9700"), id="fat tree"),
    pytest.param(
        lambda: fat_tree("dgx-h100", 64, "qm9700", oversubscription=(2.0,)),
        id="fat tree 2:1",
    ),
    pytest.param(lambda: perturbed_fat_tree(128, 3), id="perturbed fat tree"),
    pytest.param(lambda: sketch_design(4, 24, mixed=True), id="sketch"),
    pytest.param(lambda: random_design(5, hosts=8, switches=4), id="random"),
]
"""Generated, uneven, hand-drawn-like and random designs to walk."""

Edit = Callable[[random.Random, Document, int], None]


def random_edit(rng: random.Random, doc: Document, step: int) -> None:
    """One edit a user makes: an undo, a link deleted, a cable count, a
    device dropped alone or with a link to it, a parallel cable or one at
    another speed (a new kind of end)."""
    links = doc.design.links
    roll = rng.random()
    if roll < 0.2 and doc.history.done:
        doc.undo()
    elif roll < 0.5 and len(links):
        doc.execute(RemoveLinks([links.id[rng.randrange(len(links))]]))
    elif roll < 0.6 and len(links):  # a cable count: the same ends
        lid = links.id[rng.randrange(len(links))]
        doc.execute(UpdateLink(lid, {"cables": 1 + step % 3}))
    elif roll < 0.62:  # a device dropped alone (a switch, or a compute node)
        model = doc.design.devices[rng.randrange(len(doc.design.devices))].catalog_id
        doc.execute(AddDevices([Device(id=f"alone-{step}", catalog_id=model)]))
    elif roll < 0.7 and len(links):  # a device dropped, then a link to it
        row = links.row(rng.randrange(len(links)))
        like = next(d for d in doc.design.devices if d.id == row.a)
        node = Device(id=f"drop-{step}", catalog_id=like.catalog_id, x=step * 10.0)
        doc.execute(AddDevices([node]))
        update = {"id": f"to-{step}", "a": node.id, "cables": 1}
        doc.execute(AddLinks([row.model_copy(update={**update, **NO_PINS})]))
    elif len(links):  # a parallel cable, or one at another speed (a new kind)
        row = links.row(rng.randrange(len(links)))
        update = {"id": f"new-{step}", "cables": 1, **NO_PINS}
        if rng.random() < 0.3:
            update["speed_gbps"] = 200
        doc.execute(AddLinks([row.model_copy(update=update)]))


def walk(
    design: Design,
    catalog: Catalog,
    *,
    seed: int,
    steps: int,
    edit: Edit = random_edit,
    reuse: Reuse | None = None,
) -> Iterator[tuple[int, Reuse, DesignIndex, Document]]:
    """Each state of ``design`` along ``steps`` random edits (the first state
    unedited), indexed by one :class:`Reuse` as the worker would; an edit the
    rules refuse (a port already full) is skipped."""
    doc = Document(design)
    rng = random.Random(seed)
    reuse = Reuse() if reuse is None else reuse
    for step in range(steps):
        if step:
            try:
                edit(rng, doc, step)
            except ValueError:
                continue
        light, links = snapshot(doc.design)
        yield step, reuse, reuse.build_index(light, catalog, links), doc
