"""The loader's own verdict on a design in memory, for tests of commands.

:func:`load_problem` saves the design to text exactly as a save writes it and
loads that text with :func:`designer.io.loads_design` (the schema, the
references, the physical block and the catalog check of a real open); None
means the file would reopen. :class:`LoadChecked` follows a document and keeps
every step (command, undo, redo) whose state would not reopen.

:func:`random_edits` drives a document with the builders the editor uses
(add and remove devices, connect, remove links, group, ungroup, regroup, paste,
duplicate, rack placement and removal, undo and redo), for the property tests
and for ``python -m tests.core.loadable`` which counts the bad states of 300
random sequences on the enterprise sample.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass, field
from pathlib import Path

from designer.catalog import Catalog, default_catalog
from designer.core.connect import plan_connection
from designer.core.device_commands import RemoveDevices, UpdateDevices
from designer.core.document import Document, Stage
from designer.core.edits import copy_selection, duplicate, paste, remove_group
from designer.core.events import Event
from designer.core.link_commands import RemoveLinks
from designer.core.model import Design, Fabric, Placement
from designer.core.physical_commands import EditRacks, PlaceDevices, remove_racks
from designer.io import DesignFileError, dumps_design, load_design, loads_design
from designer.view.canvas.editing import EditRefused, group_devices, place_devices

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
ENTERPRISE = SAMPLES / "minimum-viable-enterprise.json"


def load_problem(design: Design, catalog: Catalog | None = None) -> str | None:
    """Why the saved design would not reopen (None: it reopens)."""
    try:
        loads_design(dumps_design(design), "<saved design>", catalog=catalog)
    except DesignFileError as exc:
        return str(exc)
    return None


@dataclass
class LoadChecked:
    """A follower of a document that runs the loader on the state after each step."""

    document: Document
    catalog: Catalog | None = None
    bad: list[list[str]] = field(default_factory=list)
    """[what was done, why the file would not reopen] per bad step (what was
    done is filled in by :meth:`name`, "" until then)."""
    steps: int = 0

    def __post_init__(self) -> None:
        self.document.subscribe(self._check, Stage.WINDOW)

    def _check(self, events: list[Event]) -> None:
        del events
        self.steps += 1
        problem = load_problem(self.document.design, self.catalog)
        if problem is not None:
            self.bad.append(["", problem])

    def name(self, what: str) -> None:
        """Name the step that just ran in the bad states it left."""
        for entry in self.bad:
            entry[0] = entry[0] or what


REFUSALS = (ValueError, EditRefused)
"""What a refused edit raises (ConnectionRefused is a ValueError)."""


def random_step(rng: random.Random, doc: Document, catalog: Catalog) -> str:
    """Do one random edit (or undo/redo) as the editor would; say what it was."""
    d = doc.design
    ids = [x.id for x in d.devices]
    groups = [g.id for g in d.groups]

    def some(items: list[str], k: int = 3) -> list[str]:
        return rng.sample(items, min(len(items), rng.randint(1, k))) if items else []

    kind = rng.choice(
        [
            "add", "add", "remove", "connect", "connect", "unlink", "group",
            "ungroup", "ungroup", "regroup", "paste", "duplicate", "place",
            "remove_rack", "rack_group", "undo", "undo", "redo",
        ]
    )  # fmt: skip
    if kind == "undo":
        doc.undo()
        return kind
    if kind == "redo":
        doc.redo()
        return kind
    if kind == "add":
        slug = rng.choice(["dgx-h100", "qm9700", "sn2201", "head-node", "nfs-filer"])
        command = place_devices(d, catalog, slug, rng.randint(1, 2), 0, 900)
    elif kind == "remove" and ids:
        command = RemoveDevices(some(ids))
    elif kind == "connect" and len(ids) >= 2:
        a, b = rng.sample(ids, 2)
        oob = rng.random() < 0.3
        link = plan_connection(d, a, b, catalog, fabric=Fabric.OOB if oob else None)
        from designer.core.link_commands import AddLinks

        command = AddLinks([link.link])
    elif kind == "unlink" and len(d.links):
        command = RemoveLinks(rng.sample(list(d.links.id), 1))
    elif kind == "group" and ids:
        command = group_devices(d, some(ids, 4), rng.choice(["su", "pod", "rack"]))
    elif kind == "ungroup" and groups:
        command = remove_group(d, rng.choice(groups))
    elif kind == "regroup" and ids:
        target = rng.choice([None, *groups])
        command = UpdateDevices(
            {i: {"group": target} for i in some(ids)}, label="Change group"
        )
    elif kind == "paste" and ids:
        clip = copy_selection(d, some(ids, 4))
        command = paste(d, clip, lookup=catalog)
    elif kind == "duplicate" and ids:
        command = duplicate(d, some(ids, 4), lookup=catalog)
    elif kind == "place" and ids and d.physical is not None and d.physical.racks:
        rack = rng.choice(d.physical.racks)
        device = rng.choice(ids)
        command = PlaceDevices({device: Placement(rack=rack.id, u=rng.randint(1, 40))})
    elif kind == "remove_rack" and d.physical is not None and d.physical.racks:
        command = remove_racks(d, [rng.choice(d.physical.racks).id])
    elif kind == "rack_group" and d.physical is not None and d.physical.racks:
        rack = rng.choice(d.physical.racks)
        command = EditRacks({rack.id: {"group": rng.choice([None, *groups])}})
    else:
        return f"{kind} (nothing to do)"
    doc.execute(command)
    return command.label


def random_edits(
    rng: random.Random,
    doc: Document,
    catalog: Catalog,
    steps: int,
    checked: LoadChecked | None = None,
) -> list[str]:
    """``steps`` random edits; refused ones are part of the sequence too."""
    done: list[str] = []
    for _ in range(steps):
        try:
            what = random_step(rng, doc, catalog)
        except REFUSALS as exc:
            what = f"refused: {exc}"
        done.append(what)
        if checked is not None:
            checked.name(what)
    return done


def count_bad(sequences: int = 300, steps: int = 12, seed: int = 16) -> int:
    """Sequences (of ``sequences`` on the enterprise sample) that reach a state
    whose saved file does not load."""
    catalog = default_catalog()
    sample = load_design(ENTERPRISE)
    bad = 0
    for k in range(sequences):
        doc = Document(sample.model_copy(deep=True))
        checked = LoadChecked(doc, catalog)
        random_edits(random.Random(seed * 100_003 + k), doc, catalog, steps, checked)
        if checked.bad:
            bad += 1
            if bad <= 3:
                print(f"sequence {k}: {checked.bad[0][0]!r} -> {checked.bad[0][1]}")
    return bad


if __name__ == "__main__":  # pragma: no cover - a measurement, not a test
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    print(f"{count_bad(n)} of {n} sequences reach a state that does not reopen")
