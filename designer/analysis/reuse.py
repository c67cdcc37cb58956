"""What the next analysis of the same design can take from the last one.

The GUI's worker analyses one state of the design after another, and most edits
leave most of what the analysis reads as it was: a cable count changes the
capacities but not which devices and links there are; a settings change touches
no array at all. :class:`Reuse` keeps the last inputs and results of the stages
whose inputs can be compared for much less than they cost to compute, and hands
a result back only when its inputs are the same:

- the per-device columns, when the device list holds the same objects (commands
  replace a device rather than change it, :mod:`designer.core.snapshot`), with
  the same groups and catalog; patched when it differs in a few positions in
  one run (a model swapped, a device dropped, deleted or put back), the rest
  spliced from the last columns (:func:`~.reuse_state.patched_columns`); with the same
  columns, the candidate orders of the compute nodes too (they read the
  columns and the groups alone);
- what the index derives from a link column the edit left, the very same
  array in the next state (:class:`~designer.analysis.index.Casts`);
- the whole index, when moreover the link table's state is the same object
  (its arrays are never written) and the physical block the same lists;
- the end table (kinds of both ends of every link), when the devices are the
  same (or one state's are the first of the other's: a device dropped, or its
  drop undone) and the links' ends, port groups, fabrics, speeds and media
  are equal;
- the fabric's topology (devices, links, pendants), its levels and blocks and
  what the checks derive from it alone (fat-tree ranks and up-port groups,
  single points of failure), when the compute links, their ends and the
  fabric's devices with their kinds are equal arrays to those of one of the
  last few states (a device dropped without links leaves them as they were;
  an undo returns to an earlier state's);
- every figure of the index alone (graph, ports, optics, tiers...) and an exact
  bisection, for the same index object.

- the levels, blocks and switch planes of a new topology of the same nodes,
  patched from the last ones when the links that differ provably leave them as
  they were (:func:`~designer.analysis.levels.patched_hierarchy`: a leaf-spine
  link removed whose pair of lower block and spine keeps another link, say);
  and a new topology of the same devices is told how its links line up with
  the last one's (:class:`~designer.analysis.graph.EarlierEdges`), from which
  the fat-tree checks patch their shape (:mod:`designer.analysis.tree_checks`).

Apart from the device columns, the levels and the fat-tree shape, nothing is
patched: a stage is either recomputed from its inputs or returned as computed
from equal inputs, so a result with reuse equals the result without it
(tests/analysis/test_reuse.py checks this along random edits and the patched
columns against columns gathered afresh; tests/analysis/test_level_patch.py
checks every patched hierarchy and shape against one made afresh).

One :class:`Reuse` serves one thread at a time (the GUI's analysis worker runs
its jobs one after the other).
"""

from __future__ import annotations

import weakref
from collections import Counter
from dataclasses import replace
from operator import attrgetter
from typing import TYPE_CHECKING, Any

import numpy as np

from designer.analysis.ends import EndTable, patched_end_table
from designer.analysis.graph import (
    ComputeGraph,
    EarlierEdges,
    FabricEnds,
    Topology,
    changed_run,
    compute_graph,
    fabric_ends,
    recapacitated,
    switch_planes,
    topology,
)
from designer.analysis.index import (
    Casts,
    DesignIndex,
    build_index,
    device_columns,
)
from designer.analysis.levels import Hierarchy, hierarchy, patched_hierarchy
from designer.analysis.reuse_state import (
    KeptColumns,
    KeptLevels,
    compute_run,
    device_prefix,
    equal_arrays,
    patched_columns,
    same_fabric,
    same_items,
    same_physical,
)
from designer.analysis.sums import LinkSums, link_sums, patched_sums
from designer.core.link_arrays import StateMark, rows_run

if TYPE_CHECKING:
    from collections.abc import Callable

    from designer.catalog.loader import Catalog
    from designer.core.model import Design, LinkArrays


PATCH_MAX_LINKS = 64
"""Most compute links an edit may remove and add for what the checks derived
from the last topology to be patched (:class:`.graph.EarlierEdges`)."""

_PATCHED_MEMO = ("tree shape",)
"""What the checks derive from a topology and can patch from the last one's."""

KEPT_TOPOLOGIES = 3
"""Topologies kept (with their levels and what checks derived from them): an
edit and its undo, and one more."""


class Reuse:
    """The last analysis's inputs and results (see the module doc).

    ``hits`` counts what was reused, by stage name (for tests and benchmarks).
    """

    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()
        self._columns: KeptColumns | None = None
        self._names: tuple[str, ...] | None = None
        self._name_code: dict[str, int] = {}
        self._index: DesignIndex | None = None
        self._index_key: tuple[Any, ...] = ()
        self._topologies: list[
            tuple[FabricEnds, Topology, np.ndarray, StateMark, np.ndarray]
        ] = []
        """The topologies of the last few states, the latest last."""
        self._facts: tuple[DesignIndex, Any] | None = None
        self._levels: KeptLevels | None = None
        self._sums: LinkSums | None = None
        self._fabric_of: DesignIndex | None = None
        """The index whose topology is the most recent kept."""
        self._graph: tuple[ComputeGraph, DesignIndex] | None = None
        self._casts = Casts()
        """What the index derived from the last state's link columns."""
        self._derived = Casts()
        """Figures of arrays an edit left (:meth:`derived`)."""

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
        kept = self._columns  # new (orders unknown) unless the columns are the same
        orders = kept.orders if kept is not None else None
        last = self._index
        rows = (
            last.row_of_name
            if last is not None
            and last.device_ids is columns[0]
            and last.links.names is links.names
            else None
        )
        self.hits["rows of names"] += rows is not None
        index = build_index(
            design,
            catalog,
            links=links,
            columns=columns,
            name_code=self._name_codes(links.names),
            endpoint_order=orders,
            row_of_name=rows,
            casts=self._casts,
        )
        if kept is not None:
            self.hits["endpoint orders"] += orders is not None
            kept.orders = index.endpoint_order
        self._index = index
        if last is not None and (
            self._columns is last_columns
            or (
                last_columns is not None
                and self._columns is not None
                and device_prefix(last_columns, self._columns)
            )
        ):
            self._lend_ends(last, index)
        return index

    def _lend_ends(self, last: DesignIndex, index: DesignIndex) -> None:
        """Give ``index`` the end table of ``last`` when every input of
        :func:`~designer.analysis.ends.end_table` is equal: the devices at
        the links' ends (the same devices, or one state's devices the first
        of the other's: devices dropped or their drop undone), the links'
        devices, port groups, fabrics and speeds, and the media."""
        table = last._ends
        short = min(len(last.catalog_ids), len(index.catalog_ids))
        if (
            table is None
            or last.catalog is not index.catalog
            or last.port_names != index.port_names
            or last.catalog_ids[:short] != index.catalog_ids[:short]
            or not same_physical(last.physical, index.physical)
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
        if not all(x is y or equal_arrays(x, y) for x, y in pairs):
            self._patch_ends(table, last, index)
            return
        if index.physical is not None:
            # the media follow the lengths and the cages, which read the cables
            from designer.analysis.lengths import media_of

            old, new = media_of(last), media_of(index)
            if old is None or new is None or not equal_arrays(old.medium, new.medium):
                return
        index._ends = replace(table, source=weakref.ref(index))
        self.hits["end table"] += 1

    def _patch_ends(
        self, table: EndTable, last: DesignIndex, index: DesignIndex
    ) -> None:
        """Give ``index`` the end table of ``last`` patched for the link rows
        an edit changed (:func:`~designer.analysis.ends.patched_end_table`),
        when the link table's lineage tells which rows those are."""
        if index.physical is not None:
            return
        run = rows_run(last.links, index.links)
        if run is None:
            return
        patched = patched_end_table(table, index, *run)
        if patched is not None:
            index._ends = patched
            self.hits["end table patched"] += 1

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
        patched = None
        if (
            last is not None
            and last.catalog is catalog
            and same_items(last.groups, groups)
        ):
            patched = patched_columns(last, devices, catalog, design)
        if patched is not None:
            self.hits["device columns patched"] += 1
            ids, cols = patched
        else:
            ids = list(map(attrgetter("id"), devices))
            cols = device_columns(devices, catalog, design)
        self._columns = KeptColumns(list(devices), list(groups), catalog, ids, cols)
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
            and same_physical(last.physical, design.physical)
        ):
            return None
        self.hits["index"] += 1
        return last

    # --- fabric -----------------------------------------------------------------

    def topology(self, index: DesignIndex) -> Topology:
        """:func:`~designer.analysis.graph.topology`, reused for equal inputs
        (of the last few states: an undo returns to one of them). A new one of
        the same devices as the last is told how its links line up with the
        last one's (:class:`~designer.analysis.graph.EarlierEdges`)."""
        prev = self._fabric_of
        if prev is not None and self._topologies and same_fabric(prev, index):
            # the link rows an edit changed kept their ends and fabrics: the
            # last topology, found without reading every link again
            self.hits["topology"] += 1
            self.hits["topology by the rows"] += 1
            known, top, *_ = self._topologies[-1]
            self._keep_topology(-1, known, top, index)
            return top
        ends = fabric_ends(index)
        for i, (known, top, *_) in enumerate(self._topologies):
            if known.same_as(ends):
                self.hits["topology"] += 1
                if i < len(self._topologies) - 1:
                    self.hits["earlier topology"] += 1
                del self._topologies[i]
                # most recent, as this state's (whose lineage the next one knows)
                self._keep_topology(None, known, top, index)
                return top
        top = topology(index, ends)
        serial = index.links.serial[top.link]
        if self._topologies:
            last_ends, last, last_serial, last_mark, last_rows = self._topologies[-1]
            if equal_arrays(last_ends.active, ends.active) and equal_arrays(
                last_ends.kind, ends.kind
            ):
                run = compute_run(last_mark, last_rows, last.link, index, top.link)
                if run is not None and (
                    len(last.link) + len(top.link) - 2 * sum(run) <= PATCH_MAX_LINKS
                ):
                    self.hits["compute links' run from the lineage"] += 1
                else:  # not told, or more than the patch takes: compare
                    run = changed_run(
                        (last_serial, last.local_u, last.local_v),
                        (serial, top.local_u, top.local_v),
                        PATCH_MAX_LINKS,
                    )
                if run is not None:
                    kept = {k: last.memo[k] for k in _PATCHED_MEMO if k in last.memo}
                    top.memo["earlier"] = EarlierEdges(
                        *run, last.local_u, last.local_v, kept
                    )
        self._keep_topology(None, ends, top, index, serial)
        del self._topologies[:-KEPT_TOPOLOGIES]
        return top

    def _keep_topology(
        self,
        at: int | None,
        ends: FabricEnds,
        top: Topology,
        index: DesignIndex,
        serial: np.ndarray | None = None,
    ) -> None:
        """Keep ``top`` as the topology of ``index``'s state (at position
        ``at`` of the kept ones, or as the most recent)."""
        if serial is None:
            serial = index.links.serial[top.link]
        record = (ends, top, serial, index.links.mark(), index.row_of_name)
        if at is None:
            self._topologies.append(record)
        else:
            self._topologies[at] = record
        self._fabric_of = index

    def graph(self, index: DesignIndex, top: Topology) -> ComputeGraph:
        """:func:`~designer.analysis.graph.compute_graph` of ``index`` on
        ``top``: when the last graph is of the same topology and the link
        rows an edit changed are known, its capacities patched for them
        (:func:`~designer.analysis.graph.recapacitated`)."""
        last = self._graph
        g = None
        if last is not None and last[0].memo is top.memo:
            g = recapacitated(last[0], last[1], index, top)
        if g is None:
            g = compute_graph(index, top)
        else:
            self.hits["graph capacities patched"] += 1
        self._graph = (g, index)
        return g

    def levels(self, index: DesignIndex, top: Topology, g: ComputeGraph) -> Hierarchy:
        """The levels and blocks of ``g`` (the graph of ``top``): those found
        for ``top`` before (an undo), else patched from the last ones when the
        nodes are the same and the edges that differ leave them as they were
        (:func:`~designer.analysis.levels.patched_hierarchy`), else computed."""
        serial = index.links.serial[g.link]
        known: Hierarchy | None = top.memo.get("hierarchy")
        if known is not None:
            self.hits["hierarchy"] += 1
            h = known.with_capacities(g)
        else:
            last = self._levels
            patched = None
            if last is not None and (
                equal_arrays(last.dev, g.dev)
                and equal_arrays(last.endpoint, g.endpoint)
                and equal_arrays(last.switch, g.switch)
            ):
                patched = patched_hierarchy(last.h, last.edges, g, serial)
            if patched is not None:
                self.hits["hierarchy patched"] += 1
                h = patched
            else:
                h = hierarchy(g)
            if h.plane is None:  # (a patch keeps the planes it proved kept)
                h.plane = switch_planes(g)
            top.memo["hierarchy"] = h  # with the topology: an undo finds it
        self._levels = KeptLevels(h, (serial, g.u, g.v), g.dev, g.endpoint, g.switch)
        return h

    def derived(
        self, name: str, inputs: tuple[object, ...], make: Callable[[], Any]
    ) -> Any:
        """``make()``, or what it gave last time for the very same ``inputs``
        (arrays an index shares with the last state's: :class:`Casts`)."""
        return self._derived.get(name, inputs, make)

    # --- sums over the links ----------------------------------------------------

    def sums(self, index: DesignIndex, ends: EndTable, rank: np.ndarray) -> LinkSums:
        """:func:`~designer.analysis.sums.link_sums` of ``index``, patched from
        the last state's for the link rows an edit changed when it can be
        (:func:`~designer.analysis.sums.patched_sums`)."""
        last = self._sums
        if last is not None and last.index is index:
            self.hits["link sums"] += 1
            return last
        sums = patched_sums(last, index, ends, rank) if last is not None else None
        if sums is None:
            sums = link_sums(index, ends, rank)
        else:
            self.hits["link sums patched"] += 1
        self._sums = sums
        return sums

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
