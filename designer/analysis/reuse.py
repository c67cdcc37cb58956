"""What the next analysis of the same design can take from the last one.

The GUI's worker analyses one state of the design after another, and most edits
leave most of what the analysis reads as it was: a cable count changes the
capacities but not which devices and links there are; a settings change touches
no array at all. :class:`Reuse` keeps the last inputs and results of the stages
whose inputs can be compared for much less than they cost to compute, and hands
a result back only when its inputs are the same:

- the per-device columns, when the device list holds the same objects (commands
  replace a device rather than change it, :mod:`designer.core.snapshot`), with
  the same groups and catalog;
- the whole index, when moreover the link table's state is the same object
  (its arrays are never written) and the physical block the same lists;
- the end table (kinds of both ends of every link), when the devices are the
  same and the links' ends, port groups, fabrics, speeds and media are equal;
- the fabric's topology (devices, links, pendants), its levels and blocks and
  what the checks derive from it alone (fat-tree ranks and up-port groups,
  single points of failure), when the compute links, their ends and the
  fabric's devices with their kinds are equal arrays to those of one of the
  last few states (a device dropped without links leaves them as they were;
  an undo returns to an earlier state's);
- every figure of the index alone (graph, ports, optics, tiers...) and an exact
  bisection, for the same index object.

Nothing is patched: a stage is either recomputed from its inputs or returned
as computed from equal inputs, so a result with reuse equals the result
without it (tests/analysis/test_reuse.py checks this along random edits).

One :class:`Reuse` serves one thread at a time (the GUI's analysis worker runs
its jobs one after the other).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from operator import attrgetter, is_
from typing import TYPE_CHECKING, Any

import numpy as np

from designer.analysis.graph import FabricEnds, Topology, fabric_ends, topology
from designer.analysis.index import DesignIndex, build_index, device_columns

if TYPE_CHECKING:
    from collections.abc import Sequence

    from designer.analysis.levels import Hierarchy
    from designer.catalog.loader import Catalog
    from designer.core.model import Design, Device, LinkArrays


def same_items(a: Sequence[object] | None, b: Sequence[object]) -> bool:
    """``a`` and ``b`` hold the same objects in the same order."""
    return a is not None and len(a) == len(b) and all(map(is_, a, b))


def _equal(x: np.ndarray, y: np.ndarray) -> bool:
    return x.shape == y.shape and bool(np.array_equal(x, y))


def _same_physical(a: object, b: object) -> bool:
    """Two physical blocks with the same lists (a snapshot copies the block
    shallowly; commands replace its lists rather than change them)."""
    if a is None or b is None:
        return a is b
    fields = type(a).model_fields  # type: ignore[attr-defined]
    return type(a) is type(b) and all(getattr(a, f) is getattr(b, f) for f in fields)


KEPT_TOPOLOGIES = 3
"""Topologies kept (with their levels and what checks derived from them): an
edit and its undo, and one more."""


@dataclass
class _Columns:
    devices: list[Device]
    groups: list[Any]
    catalog: Catalog
    device_ids: list[str]
    columns: dict[str, Any]


class Reuse:
    """The last analysis's inputs and results (see the module doc).

    ``hits`` counts what was reused, by stage name (for tests and benchmarks).
    """

    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()
        self._columns: _Columns | None = None
        self._names: tuple[str, ...] | None = None
        self._name_code: dict[str, int] = {}
        self._index: DesignIndex | None = None
        self._index_key: tuple[Any, ...] = ()
        self._topologies: list[tuple[FabricEnds, Topology]] = []
        """The topologies of the last few states, the latest last."""
        self._facts: tuple[DesignIndex, Any] | None = None

    # --- index ------------------------------------------------------------------

    def build_index(
        self, design: Design, catalog: Catalog | None, links: LinkArrays
    ) -> DesignIndex:
        """:func:`~designer.analysis.index.build_index` of a state of the design,
        with what it shares with the last state."""
        if catalog is None:
            from designer.catalog.loader import default_catalog

            catalog = default_catalog()
        same = self._same_index(design, catalog, links)
        if same is not None:
            return same
        last_columns = self._columns
        columns = self._device_columns(design, catalog)
        index = build_index(
            design,
            catalog,
            links=links,
            columns=columns,
            name_code=self._name_codes(links.names),
        )
        last, self._index = self._index, index
        if last is not None and self._columns is last_columns:
            self._lend_ends(last, index)
        return index

    def _lend_ends(self, last: DesignIndex, index: DesignIndex) -> None:
        """Give ``index`` the end table of ``last`` (same devices) when every
        input of :func:`~designer.analysis.ends.end_table` is equal: the links'
        devices, port groups, fabrics and speeds, and the media."""
        table = last._ends
        if (
            table is None
            or last.catalog is not index.catalog
            or last.port_names != index.port_names
            or last.catalog_ids != index.catalog_ids
            or not _same_physical(last.physical, index.physical)
        ):
            return
        pairs = (
            (last.a, index.a),
            (last.b, index.b),
            (last.a_port, index.a_port),
            (last.b_port, index.b_port),
            (last.fabric, index.fabric),
            (last.speed, index.speed),
        )
        if not all(x is y or _equal(x, y) for x, y in pairs):
            return
        if index.physical is not None:
            # the media follow the lengths and the cages, which read the cables
            from designer.analysis.lengths import media_of

            old, new = media_of(last), media_of(index)
            if old is None or new is None or not _equal(old.medium, new.medium):
                return
        index._ends = replace(table, index=index)
        self.hits["end table"] += 1

    def _device_columns(
        self, design: Design, catalog: Catalog
    ) -> tuple[list[str], dict[str, Any]]:
        """(device ids, :func:`~designer.analysis.index.device_columns`)."""
        devices, groups = design.devices, design.groups
        last = self._columns
        if (
            last is not None
            and last.catalog is catalog
            and same_items(last.groups, groups)
            and same_items(last.devices, devices)
        ):
            self.hits["device columns"] += 1
            return last.device_ids, last.columns
        ids = list(map(attrgetter("id"), devices))
        cols = device_columns(devices, catalog, design)
        self._columns = _Columns(list(devices), list(groups), catalog, ids, cols)
        return ids, cols

    def _name_codes(self, names: tuple[str, ...]) -> dict[str, int]:
        """Code of each device name of a link table state (its position)."""
        if names is self._names:
            self.hits["name codes"] += 1
            return self._name_code
        if self._names is not None and names[: len(self._names)] == self._names:
            # names are only ever appended: extend the codes
            for i in range(len(self._names), len(names)):
                self._name_code[names[i]] = i
        else:
            self._name_code = dict(zip(names, range(len(names)), strict=True))
        self._names = names
        return self._name_code

    def _same_index(
        self, design: Design, catalog: Catalog, links: LinkArrays
    ) -> DesignIndex | None:
        """The last index, if it was built from the very same inputs."""
        last = self._index
        if last is None or last.catalog is not catalog or last.links is not links:
            return None
        cols = self._columns
        if cols is None or not (
            same_items(cols.devices, design.devices)
            and same_items(cols.groups, design.groups)
            and _same_physical(last.physical, design.physical)
        ):
            return None
        self.hits["index"] += 1
        return last

    # --- fabric -----------------------------------------------------------------

    def topology(self, index: DesignIndex) -> Topology:
        """:func:`~designer.analysis.graph.topology`, reused for equal inputs
        (of the last few states: an undo returns to one of them)."""
        ends = fabric_ends(index)
        for i, (known, top) in enumerate(self._topologies):
            if known.same_as(ends):
                self.hits["topology"] += 1
                if i < len(self._topologies) - 1:
                    self.hits["earlier topology"] += 1
                self._topologies.append(self._topologies.pop(i))  # most recent
                return top
        top = topology(index, ends)
        self._topologies.append((ends, top))
        del self._topologies[:-KEPT_TOPOLOGIES]
        return top

    def hierarchy(self, top: Topology) -> Hierarchy | None:
        """The levels and blocks found for ``top`` (None: not known yet)."""
        known: Hierarchy | None = top.memo.get("hierarchy")
        if known is not None:
            self.hits["hierarchy"] += 1
        return known

    def keep_hierarchy(self, top: Topology, h: Hierarchy) -> None:
        """Remember the levels and blocks of ``top`` (with it: a topology kept
        for a later state keeps them, and what checks derived from it)."""
        top.memo["hierarchy"] = h

    # --- figures of one index ---------------------------------------------------

    def facts(self, index: DesignIndex) -> Any:
        """What was computed from ``index`` alone (None: another index)."""
        last = self._facts
        if last is not None and last[0] is index:
            self.hits["index figures"] += 1
            return last[1]
        return None

    def keep_facts(self, index: DesignIndex, facts: Any) -> None:
        """Remember what was computed from ``index`` alone."""
        self._facts = (index, facts)
