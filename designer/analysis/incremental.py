"""Keep a :class:`DesignIndex` in step with a document's edits, and a sound
bisection lower bound across them.

:class:`IncrementalIndex` follows the :class:`~designer.core.commands.Change`
events of one document (call :meth:`IncrementalIndex.update` on the thread that
edits the design, right after each edit):

* settings edits and device moves leave the index as it is;
* link edits (cables, speed, fabric, ports, rail, ends), link deletions and
  link insertions are patched into NEW arrays - an index handed to a worker
  earlier is never written to, so the worker may keep reading it;
* devices added (a palette drop; a paste with links among the new devices; the
  undo of a delete), devices removed with their links, and devices edited in
  place (model swap, group, tier, rack, ports) are patched by
  :mod:`designer.analysis.device_patch`;
* anything else (groups edited, a reset, mixed link edits in one step, devices
  added and removed in one step, bulk edits) drops the index:
  :attr:`IncrementalIndex.index` is None until :meth:`adopt` hands it a freshly
  built one (the GUI worker builds it from a snapshot).

Carried lower bound (why it is sound). Let B(G) be the bisection of the compute
fabric G: the minimum, over balanced splits of the compute nodes (balance set
by the compute nodes and their GPU counts) and over placements of every other
node, of the capacity crossing. Then

1. adding a link, a node, or capacity never lowers B: every cut of the larger
   graph, restricted to the old nodes, is a cut of the old graph with the same
   compute split and no more crossing capacity;
2. lowering capacities by c in total (a removed link lowers its own capacity to
   0) lowers every cut by at most c, hence B by at most c.

3. adding or removing a switch, storage or management node (with its links)
   changes capacity only: removal is 2 applied to its links (tracked like any
   deleted link) followed by dropping an isolated node, which leaves every
   cut's crossing capacity unchanged; adding is 1. A compute node or GPU count
   that changes alters the splits themselves, so a reference holds only while
   the compute nodes are those it was certified for (its fingerprint). Up to
   :data:`MAX_REFERENCES` references are kept, each tracking every link edit,
   so deleting a compute node and undoing it finds the old bound again.

So if B(G_ref) >= L was certified and G differs from G_ref by link edits and
non-compute device edits only, with the same compute nodes and GPU counts
(the graph reads link capacities and the compute nodes only, so a switch's
model swap changes nothing), take G_min with, per link of G_ref, capacity
min(ref, now) (0 when the link is gone, left the compute fabric or changed
ends): G_min is G_ref minus the deficit D = sum(ref - min(ref, now)),
and G contains G_min plus extra capacity, so B(G) >= B(G_min) >= L - D.
:meth:`lower_hint` returns L - D per reference, :func:`hint_for` takes the
best one certified for the analysed compute nodes; :meth:`certify` records a
new (G_ref, L) when a report's lower bound beats what is carried.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from designer.analysis.device_patch import (
    edit_devices,
    find_positions,
    has_ends,
    insert_devices,
    remove_devices,
)
from designer.analysis.ends import EndTable
from designer.analysis.index import (
    FABRIC_CODE,
    KIND_COMPUTE,
    TIER_RANK,
    DesignIndex,
    PortKey,
)
from designer.analysis.rows import cut_rows, put_rows
from designer.catalog.loader import Catalog
from designer.core.commands import Change
from designer.core.model import Design, Fabric, LinkTable

_LINK_KINDS = frozenset({"links_added", "links_removed", "links_changed"})
_DEVICE_KINDS = frozenset({"devices_added", "devices_removed"})
_REBUILD_KINDS = frozenset({"reset", "groups_changed"})
MAX_TRACKED_LINKS = 20_000
"""Past this many links edited since the reference, the carried bound is dropped."""
MAX_REFERENCES = 4
"""Certified bounds kept, each for its own compute nodes (so that deleting a
compute node and undoing it finds its bound again)."""
MAX_PATCH_LINKS = 5_000
"""Bigger link edits (bulk wiring, a fabric-wide speed change) are rebuilt in the
worker: patching reads rows one by one on the GUI thread."""
_COMPUTE = FABRIC_CODE[Fabric.COMPUTE]
_LINK_ARRAYS = (
    "a",
    "b",
    "a_port",
    "b_port",
    "cables",
    "speed",
    "cap",
    "fabric",
    "rail",
)
"""The index's per-link arrays (besides the ids)."""

LinkState = tuple[str, str, int]
"""(end a, end b, compute-fabric capacity in Gb/s; 0 off the compute fabric)."""


def compute_fingerprint(index: DesignIndex) -> tuple[tuple[str, ...], bytes]:
    """Compute nodes and their GPU counts: the balance of every bisection split."""
    comp = np.flatnonzero(index.kind == KIND_COMPUTE)
    ids = tuple(index.device_ids[i] for i in comp.tolist())
    return ids, index.gpus[comp].tobytes()


def _states(index: DesignIndex, positions: Sequence[int]) -> list[LinkState]:
    """Bound-relevant state of the links at ``positions`` of ``index``."""
    out: list[LinkState] = []
    for i in positions:
        cap = int(index.cap[i]) if int(index.fabric[i]) == _COMPUTE else 0
        out.append(
            (index.device_ids[int(index.a[i])], index.device_ids[int(index.b[i])], cap)
        )
    return out


def _same_ends(x: LinkState, y: LinkState) -> bool:
    return {x[0], x[1]} == {y[0], y[1]}


class IncrementalIndex:
    """A design index patched from change events, plus the carried lower bound."""

    def __init__(self, catalog: Catalog | None = None) -> None:
        if catalog is None:
            from designer.catalog.loader import default_catalog

            catalog = default_catalog()
        self.catalog = catalog
        self.index: DesignIndex | None = None
        self._dev_pos: dict[str, int] | None = None
        self._refs: list[_Reference] = []
        self._hints: dict[str, int] = {}
        self.patched = 0
        """How many edits were patched in (for tests and the benchmark)."""

    # -- index ---------------------------------------------------------------------

    def adopt(self, index: DesignIndex) -> None:
        """Take a freshly built index of the current design as the base."""
        self.index = index
        self._dev_pos = None

    def invalidate(self) -> None:
        """Forget the index (the next analysis rebuilds it) and the carried bounds."""
        self.index = None
        self._dev_pos = None
        self._drop_references()

    def update(self, design: Design, changes: Iterable[Change]) -> DesignIndex | None:
        """Follow one edit's changes; the patched index, or None to rebuild."""
        changes = list(changes)
        kinds = {c.kind for c in changes}
        if "reset" in kinds:
            self.invalidate()
            return None
        old = self.index
        link_ids = {i for c in changes if c.kind in _LINK_KINDS for i in c.ids}
        # bulk edits are neither patched nor tracked: no hints to index for them
        self._hints = (
            {
                i: p
                for c in changes
                if c.positions is not None and c.kind in _LINK_KINDS
                for i, p in zip(c.ids, c.positions, strict=True)
            }
            if len(link_ids) <= MAX_TRACKED_LINKS
            else {}
        )
        if link_ids:
            self._track(design, old, link_ids, kinds)
        if old is None:
            return None
        new: DesignIndex | None = old
        moved = [i for c in changes if c.kind == "devices_changed" for i in c.ids]
        if kinds & _REBUILD_KINDS:
            new = None
        elif moved and not self._devices_same(design, old, moved):
            # a model swap, regroup, retier, rack or port change: patch the rows
            new = None
            if kinds == {"devices_changed"}:
                new = edit_devices(design, old, set(moved))
                self.patched += new is not None
        link_kinds = kinds & _LINK_KINDS
        dev_kinds = kinds & _DEVICE_KINDS
        if dev_kinds:
            dev_ids = {i for c in changes if c.kind in _DEVICE_KINDS for i in c.ids}
            if new is not None:
                by_kind: dict[str, set[str]] = {}
                for c in changes:
                    if c.kind in _LINK_KINDS:
                        by_kind.setdefault(c.kind, set()).update(c.ids)
                new = self._patch_devices(design, new, dev_ids, dev_kinds, by_kind)
                self.patched += new is not None
        elif new is not None and link_kinds:
            if len(link_kinds) > 1 or len(link_ids) > MAX_PATCH_LINKS:
                new = None
            elif "links_changed" in link_kinds:
                new = self._patch_changed(design, old, link_ids)
            elif "links_removed" in link_kinds:
                new = self._patch_removed(design, old, link_ids)
            else:
                new = self._patch_added(design, old, link_ids)
            self.patched += new is not None
        self.index = new
        self._hints = {}
        if new is None:
            self._dev_pos = None
        return new

    def _where(
        self,
        seq: list[str],
        ids: Iterable[str],
        search: Callable[[list[str]], dict[str, int]] | None = None,
    ) -> dict[str, int]:
        """Positions of ``ids`` in ``seq``: the edit's hints where they check
        out, ``search`` (default: a scan of ``seq``) for the rest."""
        hints = self._hints
        out: dict[str, int] = {}
        rest: list[str] = []
        for lid in ids:
            p = hints.get(lid)
            if p is not None and p < len(seq) and seq[p] == lid:
                out[lid] = p
            else:
                rest.append(lid)
        if rest:
            out.update(search(rest) if search else find_positions(seq, rest))
        return out

    def _positions(self, index: DesignIndex) -> dict[str, int]:
        if self._dev_pos is None:
            self._dev_pos = {d: i for i, d in enumerate(index.device_ids)}
        return self._dev_pos

    def _devices_same(
        self, design: Design, index: DesignIndex, ids: Sequence[str]
    ) -> bool:
        """True when the edited devices changed nothing the analysis reads."""
        if len(ids) > 2000 or len(design.devices) != index.n_devices:
            return False
        pos = self._positions(index)
        group_pos = {g.id: i for i, g in enumerate(design.groups)}
        for device_id in ids:
            i = pos.get(device_id)
            if i is None or design.devices[i].id != device_id:
                return False
            d = design.devices[i]
            rack = index.rack_names[index.rack[i]] if index.rack[i] >= 0 else None
            placed = d.placement.rack if d.placement and d.placement.rack else None
            if (
                d.catalog_id != index.catalog_ids[int(index.dev_catalog[i])]
                or (TIER_RANK[d.tier] if d.tier else 0) != int(index.declared_rank[i])
                or (group_pos[d.group] if d.group else -1) != int(index.group[i])
                or placed != rack
                or d.ports != index.device_ports[i]
            ):
                return False
        return True

    def _rows(
        self, index: DesignIndex, table: LinkTable, positions: Sequence[int]
    ) -> dict[str, Any] | None:
        """Index columns for rows of the design's link table (None: rebuild)."""
        pos = self._positions(index)
        port_names = index.port_names
        ports = {p: i for i, p in enumerate(port_names)}
        try:
            a = [pos[table.a[i]] for i in positions]
            b = [pos[table.b[i]] for i in positions]
        except KeyError:
            return None  # an unknown device: the design moved on
        names = [table.a_port[i] for i in positions]
        names += [table.b_port[i] for i in positions]
        if any(p not in ports for p in names):
            port_names = list(port_names)  # never write the handed-out index
            for p in names:
                if p not in ports:
                    ports[p] = len(port_names)
                    port_names.append(p)
        ap = [ports[p] for p in names[: len(positions)]]
        bp = [ports[p] for p in names[len(positions) :]]
        port_keys = index.port_keys
        for dev, port in ((a, ap), (b, bp)):
            for d, code in zip(dev, port, strict=True):
                c = int(index.dev_catalog[d])
                if (c, code) not in port_keys:
                    if port_keys is index.port_keys:
                        port_keys = dict(port_keys)
                    entry = index.entries[c]
                    name = port_names[code]
                    port_keys[(c, code)] = PortKey(
                        index.catalog_ids[c],
                        name,
                        entry.interface(name) if entry else None,
                    )
        cables = np.array([table.cables[i] for i in positions], dtype=np.int64)
        speed = np.array([table.speed_gbps[i] for i in positions], dtype=np.int64)
        rail = [table.rail[i] for i in positions]
        return {
            "a": np.array(a, dtype=np.int64),
            "b": np.array(b, dtype=np.int64),
            "a_port": np.array(ap, dtype=np.int64),
            "b_port": np.array(bp, dtype=np.int64),
            "cables": cables,
            "speed": speed,
            "cap": cables * speed,
            "fabric": np.array(
                [FABRIC_CODE[table.fabric[i]] for i in positions], dtype=np.int64
            ),
            "rail": np.array([-1 if r is None else r for r in rail], dtype=np.int64),
            "port_names": port_names,
            "port_keys": port_keys,
        }

    def _patch_changed(
        self, design: Design, index: DesignIndex, ids: set[str]
    ) -> DesignIndex | None:
        """Links edited in place: same positions, new column values."""
        table = design.links
        if len(table) != index.n_links:
            return None
        positions = sorted(table.positions(ids).values())
        if len(positions) != len(ids):
            return None
        rows = self._rows(index, table, positions)
        if rows is None:
            return None
        at = np.asarray(positions, dtype=np.int64)
        cols: dict[str, Any] = {
            "port_names": rows.pop("port_names"),
            "port_keys": rows.pop("port_keys"),
        }
        for name, values in rows.items():
            col = getattr(index, name).copy()
            col[at] = values
            cols[name] = col
        only_cables = cols["port_names"] is index.port_names and all(
            np.array_equal(cols[n][at], getattr(index, n)[at])
            for n in ("a", "b", "a_port", "b_port", "speed", "fabric")
        )
        new = replace(index, **cols)
        new._ends = new._ends_patch = None  # the worker builds it
        if only_cables and index._ends is not None:
            new._ends = _ends_with_cables(index._ends, at, rows["cables"], index)
        return new

    def _patch_removed(
        self, design: Design, index: DesignIndex, ids: set[str]
    ) -> DesignIndex | None:
        """Links deleted: drop their rows."""
        positions = sorted(self._where(index.link_ids, ids).values())
        if len(positions) != len(ids) or len(design.links) != index.n_links - len(
            positions
        ):
            return None
        cols: dict[str, Any] = {
            name: cut_rows(getattr(index, name), positions) for name in _LINK_ARRAYS
        }
        link_ids = list(design.links.id)
        new = replace(
            index,
            link_ids=link_ids,
            link_ids_arr=cut_rows(index.link_ids_arr, positions),
            **cols,
        )
        # the first reader (the worker) drops the rows from the old end table
        new._ends = new._ends_patch = None
        if has_ends(index):
            at = np.asarray(positions, dtype=np.int64)
            new._ends_patch = lambda: _ends_without(index.ends, at, index.n_links, new)
        return new

    def _patch_added(
        self, design: Design, index: DesignIndex, ids: set[str]
    ) -> DesignIndex | None:
        """Links inserted (appended, or restored by an undo): splice their rows in."""
        table = design.links
        positions = sorted(self._where(table.id, ids, table.positions).values())
        if len(positions) != len(ids) or len(table) != index.n_links + len(ids):
            return None
        rows = self._rows(index, table, positions)
        if rows is None:
            return None
        cols: dict[str, Any] = {
            "port_names": rows.pop("port_names"),
            "port_keys": rows.pop("port_keys"),
        }
        for name, values in rows.items():
            cols[name] = put_rows(getattr(index, name), positions, values)
        link_ids = list(table.id)
        new_ids = np.asarray([link_ids[p] for p in positions], dtype=object)
        new = replace(
            index,
            link_ids=link_ids,
            link_ids_arr=put_rows(index.link_ids_arr, positions, new_ids),
            **cols,
        )
        # the first reader (the worker) puts the new links' ends in
        new._ends = new._ends_patch = None
        if has_ends(index) and len(positions) <= MAX_PATCH_LINKS:
            n_ports = len(index.port_names)
            new._ends_patch = lambda: _ends_with_added(
                index.ends, new, positions, n_ports
            )
        return new

    # -- device edits --------------------------------------------------------------

    def _patch_devices(
        self,
        design: Design,
        index: DesignIndex,
        ids: set[str],
        kinds: set[str],
        links: dict[str, set[str]],
    ) -> DesignIndex | None:
        """Devices added (with links among them) or removed (with their links).

        ``links`` maps the step's link change kinds to their ids. RemoveDevices
        deletes the links first; its undo and a paste add the links last.
        """
        link_ids = {i for v in links.values() for i in v}
        if len(link_ids) > MAX_PATCH_LINKS:
            return None
        new: DesignIndex | None = None
        if kinds == {"devices_removed"} and set(links) <= {"links_removed"}:
            new = index
            if link_ids:
                new = self._patch_removed(design, index, link_ids)
            if new is not None:
                new = remove_devices(design, new, ids)
        elif kinds == {"devices_added"} and set(links) <= {"links_added"}:
            new = insert_devices(design, index, ids)
            self._dev_pos = None
            if new is not None and link_ids:
                new = self._patch_added(design, new, link_ids)
        self._dev_pos = None
        return new

    # -- carried lower bound ----------------------------------------------------

    def _drop_references(self) -> None:
        self._refs.clear()

    def _track(
        self,
        design: Design,
        old: DesignIndex | None,
        ids: set[str],
        kinds: set[str],
    ) -> None:
        """Record, per reference, the reference and current state of the links
        this edit touched."""
        if not self._refs:
            return
        if old is None:
            self._drop_references()  # the reference states can no longer be read
            return
        self._refs = [
            r for r in self._refs if len(r.ref_state) + len(ids) <= MAX_TRACKED_LINKS
        ]
        added_only = kinds & _LINK_KINDS == {"links_added"}
        where: dict[str, int] | None = None
        for ref in self._refs:
            new_ids = [i for i in ids if i not in ref.ref_state]
            if added_only:
                # untouched since the reference and added now: it did not exist then
                ref.ref_state.update(dict.fromkeys(new_ids))
            elif new_ids:
                if where is None:
                    where = self._where(old.link_ids, ids)
                states = iter(_states(old, [where[i] for i in new_ids if i in where]))
                for lid in new_ids:
                    ref.ref_state[lid] = next(states) if lid in where else None
        if not self._refs:
            return
        now_state: dict[str, LinkState | None] = {}
        if kinds & _LINK_KINDS == {"links_removed"}:
            now_state = dict.fromkeys(ids)
        else:
            table = design.links
            now = self._where(table.id, ids, table.positions)
            for lid in ids:
                i = now.get(lid)
                if i is None:
                    now_state[lid] = None
                    continue
                compute = table.fabric[i] == Fabric.COMPUTE
                cap = table.cables[i] * table.speed_gbps[i] if compute else 0
                now_state[lid] = (table.a[i], table.b[i], cap)
        for ref in self._refs:
            ref.now_state.update(now_state)

    def lower_hint(self) -> list[tuple[float, tuple[tuple[str, ...], bytes]]]:
        """(carried lower bound in Gb/s, compute fingerprint it holds for) per
        reference; :func:`hint_for` picks the one for the analysed index."""
        return [(ref.carried(), ref.fingerprint) for ref in self._refs]

    def certify(self, lower: float, index: DesignIndex) -> None:
        """A sound lower bound for the current design (the one ``index`` shows)."""
        fp = compute_fingerprint(index)
        same = [r for r in self._refs if r.fingerprint == fp]
        if any(r.carried() >= lower for r in same):
            return
        self._refs = [r for r in self._refs if r.fingerprint != fp]
        self._refs.append(_Reference(float(lower), fp))
        del self._refs[:-MAX_REFERENCES]


class _Reference:
    """A certified bound ``lower`` for a design G_ref with compute nodes
    ``fingerprint``, and the links edited since: their state in G_ref and now."""

    def __init__(self, lower: float, fingerprint: tuple[tuple[str, ...], bytes]):
        self.lower = lower
        self.fingerprint = fingerprint
        self.ref_state: dict[str, LinkState | None] = {}
        self.now_state: dict[str, LinkState | None] = {}

    def carried(self) -> float:
        """L - D: the bound minus the reference capacity lost since."""
        deficit = 0
        for lid, ref in self.ref_state.items():
            if ref is None:
                continue
            now = self.now_state.get(lid)
            kept = now[2] if now is not None and _same_ends(ref, now) else 0
            deficit += max(0, ref[2] - kept)
        return max(0.0, self.lower - deficit)


def hint_for(
    hints: Sequence[tuple[float, tuple[tuple[str, ...], bytes]]] | None,
    index: DesignIndex,
) -> float | None:
    """The best carried bound among ``hints`` certified for the compute nodes of
    ``index`` (None when none was)."""
    if not hints:
        return None
    fp = compute_fingerprint(index)
    fits = [bound for bound, of in hints if of == fp]
    return max(fits) if fits else None


def _ends_with_cables(
    ends: EndTable, at: np.ndarray, cables: np.ndarray, index: DesignIndex
) -> EndTable:
    """The end table with new cable counts on links ``at`` (nothing else changed)."""
    m = index.n_links
    rows = np.concatenate((at, at + m))
    new_c = np.concatenate((cables, cables))
    c = ends.cables.copy()
    usage = ends.usage.copy()
    # usage = cables / split, split fixed by the port group and speed
    usage[rows] = usage[rows] * new_c / np.maximum(c[rows], 1)
    c[rows] = new_c
    return replace(ends, cables=c, usage=usage)


def _drop_empty(
    codes: np.ndarray, keys: np.ndarray, removed: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Dense codes after rows were cut (``removed``: their codes): renumber only
    when a code lost its last row, as :func:`dense_codes` of the rest would."""
    if not len(removed):
        return codes, keys
    cand = np.unique(removed)
    counts = np.bincount(codes, minlength=len(keys))
    empty = cand[counts[cand] == 0]
    if not len(empty):
        return codes, keys
    present = np.ones(len(keys), dtype=np.bool_)
    present[empty] = False
    lookup = np.cumsum(present) - 1
    return lookup[codes], keys[present]


def _merge_codes(
    codes: np.ndarray, keys: np.ndarray, new_keys: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(old codes, keys, codes of ``new_keys``) once ``new_keys`` join the sorted
    distinct ``keys``; old codes shift only when a new key sorts before them."""
    at = np.searchsorted(keys, new_keys)
    known = at < len(keys)
    known[known] = keys[at[known]] == new_keys[known]
    if known.all():
        return codes, keys, at.astype(np.int64)
    missing = np.unique(new_keys[~known])
    # each old key moves up by the number of new keys sorting before it
    shift = np.searchsorted(missing, keys)
    codes = codes + shift[codes]
    keys = np.insert(keys, np.searchsorted(keys, missing), missing)
    return codes, keys, np.searchsorted(keys, new_keys).astype(np.int64)


def _ends_without(
    ends: EndTable, at: np.ndarray, old_m: int, index: DesignIndex
) -> EndTable:
    """The end table without links ``at`` (ascending positions in the old table).

    Per-end facts are row-wise, so their rows are cut; the codes that group ends
    (port groups, cages, cable classes) are renumbered only where a group lost
    its last end.
    """
    m = old_m - len(at)
    rows = np.concatenate((at, at + old_m))
    cut_at = rows.tolist()

    def cut(values: np.ndarray) -> np.ndarray:
        return cut_rows(values, cut_at)

    group_code, group_key = _drop_empty(
        cut(ends.group_code), ends.group_key, ends.group_code[rows]
    )
    mcode = cut(ends.module_code)
    j = np.searchsorted(ends.cage_sel, rows)
    inside = j < len(ends.cage_sel)
    j = j[inside]
    hit = j[ends.cage_sel[j] == rows[inside]]
    cage_code, cage_key = _drop_empty(
        cut_rows(ends.cage_code, hit.tolist()), ends.cage_key, ends.cage_code[hit]
    )
    cable_code, cable_key = _drop_empty(
        cut_rows(ends.cable_code, at.tolist()), ends.cable_key, ends.cable_code[at]
    )
    link = np.arange(m)
    return replace(
        ends,
        dev=cut(ends.dev),
        port=cut(ends.port),
        other=cut(ends.other),
        cables=cut(ends.cables),
        speed=cut(ends.speed),
        fabric=cut(ends.fabric),
        link=np.concatenate((link, link)),
        known=cut(ends.known),
        supported=cut(ends.supported),
        usage=cut(ends.usage),
        modules=cut(ends.modules),
        module_code=mcode,
        media_ok=cut(ends.media_ok),
        role_ok=cut(ends.role_ok),
        group_code=group_code,
        group_key=group_key,
        cage_sel=np.flatnonzero(mcode >= 0),
        cage_code=cage_code,
        cage_key=cage_key,
        cable_code=cable_code,
        cable_key=cable_key,
    )


_ROW_FACTS = (
    "dev",
    "port",
    "other",
    "cables",
    "speed",
    "fabric",
    "known",
    "supported",
    "usage",
    "modules",
    "media_ok",
    "role_ok",
)


def _ends_with_added(
    ends: EndTable, index: DesignIndex, positions: list[int], n_ports: int
) -> EndTable | None:
    """The end table of ``index`` from ``ends`` (the table without the links at
    ``positions``, devices numbered as in ``index``, keys encoded with
    ``n_ports`` port names): the new links' ends are joined with the catalog on
    their own and put in. None (rebuild) when a new port name, speed or module
    type would change how keys are encoded.
    """
    from designer.analysis.ends import end_table

    if len(index.port_names) != n_ports or not positions:
        return None
    pos = np.asarray(positions, dtype=np.int64)
    sub = replace(
        index,
        link_ids=[index.link_ids[p] for p in positions],
        **{name: getattr(index, name)[pos] for name in _LINK_ARRAYS},
    )
    sub._ends = sub._ends_patch = None
    mini = end_table(sub)
    if (
        any(x not in ends.module_id for x in mini.module_id)
        or not np.isin(mini.speeds, ends.speeds).all()
    ):
        return None
    m = index.n_links
    put_at = [*positions, *(m + p for p in positions)]

    def put(old: np.ndarray, rows: np.ndarray) -> np.ndarray:
        return put_rows(old, put_at, rows)

    module_map = np.asarray(
        [ends.module_id.index(x) for x in mini.module_id] or [0], dtype=np.int64
    )
    mini_mcode = np.where(
        mini.module_code >= 0, module_map[np.maximum(mini.module_code, 0)], -1
    )
    old_codes, group_key, new_codes = _merge_codes(
        ends.group_code, ends.group_key, mini.dev * n_ports + mini.port
    )
    group_code = put(old_codes, new_codes)
    n_mod = max(len(ends.module_id), 1)
    sel = np.flatnonzero(mini_mcode >= 0)
    cage_keys = (mini.dev[sel] * n_ports + mini.port[sel]) * n_mod + mini_mcode[sel]
    old_codes, cage_key, new_codes = _merge_codes(
        ends.cage_code, ends.cage_key, cage_keys
    )
    module_code = put(ends.module_code, mini_mcode)
    cage_sel = np.flatnonzero(module_code >= 0)
    # the new cage rows' places among the cage rows, as ends they sit at put_at
    new_cage = np.searchsorted(cage_sel, np.asarray(put_at, dtype=np.int64)[sel])
    cage_code = put_rows(old_codes, new_cage.tolist(), new_codes)
    n_s = max(len(ends.speeds), 1)
    scode = np.searchsorted(ends.speeds, sub.speed)
    cable_keys = (index.dev_catalog[sub.a] * n_ports + sub.a_port) * n_s + scode
    old_codes, cable_key, new_codes = _merge_codes(
        ends.cable_code, ends.cable_key, cable_keys
    )
    link = np.arange(m)
    facts: dict[str, Any] = {
        name: put(getattr(ends, name), getattr(mini, name)) for name in _ROW_FACTS
    }
    return replace(
        ends,
        **facts,
        link=np.concatenate((link, link)),
        module_code=module_code,
        group_code=group_code,
        group_key=group_key,
        cage_sel=cage_sel,
        cage_code=cage_code,
        cage_key=cage_key,
        cable_code=put_rows(old_codes, positions, new_codes),
        cable_key=cable_key,
    )


__all__ = ["IncrementalIndex", "compute_fingerprint", "hint_for"]
