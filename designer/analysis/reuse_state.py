"""What :class:`~designer.analysis.reuse.Reuse` compares between two states of
a design, and the device columns it patches from the last state's.

Two states are compared by identity where commands replace rather than change
(devices, groups, physical lists: :mod:`designer.core.snapshot`), and by the link
table's lineage (:func:`~designer.core.link_arrays.rows_run`) for the link rows an
edit left; only the rows it changed, and the devices' kinds, are compared value
by value.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter, is_
from typing import TYPE_CHECKING, Any

import numpy as np

from designer.analysis.index import (
    KIND_COMPUTE,
    PER_DEVICE_COLUMNS,
    DesignIndex,
    device_columns,
    same_device_rows,
    same_rows_of_names,
)
from designer.analysis.levels import Hierarchy
from designer.core.link_arrays import StateMark, rows_run

if TYPE_CHECKING:
    from collections.abc import Sequence

    from designer.catalog.loader import Catalog
    from designer.core.model import Design, Device


def same_items(a: Sequence[object] | None, b: Sequence[object]) -> bool:
    """``a`` and ``b`` hold the same objects in the same order."""
    return a is not None and len(a) == len(b) and all(map(is_, a, b))


def equal_arrays(x: np.ndarray, y: np.ndarray) -> bool:
    return x.shape == y.shape and bool(np.array_equal(x, y))


def same_physical(a: object, b: object) -> bool:
    """Two physical blocks with the same lists (a snapshot copies the block
    shallowly; commands replace its lists rather than change them)."""
    if a is None or b is None:
        return a is b
    fields = type(a).model_fields  # type: ignore[attr-defined]
    return type(a) is type(b) and all(getattr(a, f) is getattr(b, f) for f in fields)


PATCH_MAX_DEVICES = 64
"""Most devices an edit may replace, add or remove for the device columns to
be patched rather than gathered again."""


def patched_columns(
    last: KeptColumns, devices: Sequence[Device], catalog: Catalog, design: Design
) -> tuple[list[str], dict[str, Any]] | None:
    """The device columns of ``devices`` from those of ``last`` (same catalog
    and groups) when they differ from its devices in one run of a few
    positions (devices replaced, dropped, deleted or put back), else None.

    Only that run is joined with the catalog; the rest is spliced from the
    last columns. The codes of catalog entries and racks go by first
    appearance in the device list, so the result is patched only while the
    known entries keep their codes (new ones come after them) and no rack is
    involved; otherwise the caller gathers the columns afresh.
    """
    old = last.devices
    if last.columns["rack_names"]:
        return None  # rack codes go by first appearance: not worth tracking
    n_old, n_new = len(old), len(devices)
    short = min(n_old, n_new)
    same = np.fromiter(map(is_, old, devices), np.bool_, short)
    head = int(same.argmin()) if not same.all() else short
    tail_same = np.fromiter(map(is_, reversed(old), reversed(devices)), np.bool_, short)
    tail = int(tail_same.argmin()) if not tail_same.all() else short
    tail = min(tail, short - head)  # the unchanged head and tail do not overlap
    gone, come = n_old - head - tail, n_new - head - tail
    if gone + come > PATCH_MAX_DEVICES:
        return None
    cols = last.columns
    catalog_ids = list(dict.fromkeys(map(attrgetter("catalog_id"), devices)))
    known = cols["catalog_ids"]
    if catalog_ids[: len(known)] != known:
        return None  # an entry gone, or a new one first met before a known one
    entries = [*cols["entries"], *map(catalog.get, catalog_ids[len(known) :])]
    new = devices[head : n_new - tail]
    mid = device_columns(new, catalog, design)
    if mid["rack_names"]:
        return None
    code = {c: i for i, c in enumerate(catalog_ids)}
    remap = np.array([code[c] for c in mid["catalog_ids"]], dtype=np.int64)
    mid["dev_catalog"] = remap[mid["dev_catalog"]] if len(new) else mid["dev_catalog"]
    out: dict[str, Any] = {}
    stop = n_old - tail
    for name in PER_DEVICE_COLUMNS:  # placements and device_ports: lists
        column = cols[name]
        out[name] = np.concatenate((column[:head], mid[name], column[stop:]))
    for name in ("placements", "device_ports"):
        column = cols[name]
        out[name] = [*column[:head], *mid[name], *column[stop:]]
    if len(catalog_ids) == len(known):
        catalog_ids, entries = known, cols["entries"]
    out.update(catalog_ids=catalog_ids, entries=entries, rack_names=[])
    ids = last.device_ids
    return [*ids[:head], *map(attrgetter("id"), new), *ids[stop:]], out


def device_prefix(a: KeptColumns, b: KeptColumns) -> bool:
    """The devices of one are the first devices of the other (same objects,
    so the same positions), with the same groups and catalog."""
    short, long = (a, b) if len(a.devices) <= len(b.devices) else (b, a)
    return (
        a.catalog is b.catalog
        and same_items(a.groups, b.groups)
        and same_items(short.devices, long.devices[: len(short.devices)])
    )


@dataclass(frozen=True)
class KeptLevels:
    """The last levels computed or patched, with what a patch compares: the
    graph's edges (serial, ends) and its nodes."""

    h: Hierarchy
    edges: tuple[np.ndarray, np.ndarray, np.ndarray]
    dev: np.ndarray
    endpoint: np.ndarray
    switch: np.ndarray


@dataclass
class KeptColumns:
    devices: list[Device]
    groups: list[Any]
    catalog: Catalog
    device_ids: list[str]
    columns: dict[str, Any]
    orders: dict[str, Any] | None = None
    """The candidate orders of the compute nodes (the index's
    ``endpoint_order``): they read the device columns and the groups alone."""


def compute_run(
    last: StateMark,
    last_rows: np.ndarray,
    last_link: np.ndarray,
    index: DesignIndex,
    link: np.ndarray,
) -> tuple[int, int] | None:
    """(head, tail) of the compute links of two topologies of the same fabric
    devices, from the link table's lineage (:func:`rows_run`) rather than by
    comparing them: the link rows an edit left are equal in every column,
    and with the same devices in the same rows (``row_of_name`` equal for the
    earlier state's names) their compute links have the same serials and
    ends; None when the lineage does not tell."""
    run = rows_run(last, index.links)
    if run is None or not same_rows_of_names(last_rows, index.row_of_name):
        return None
    head, tail = run
    # the compute links among the first head rows, and among the last tail
    n_head = int(np.searchsorted(link, head))
    n_tail = len(link) - int(np.searchsorted(link, len(index.links) - tail))
    assert n_head == int(np.searchsorted(last_link, head))
    assert n_tail == len(last_link) - int(np.searchsorted(last_link, len(last) - tail))
    return n_head, n_tail


def same_fabric(prev: DesignIndex, index: DesignIndex) -> bool:
    """``index`` has the compute-fabric topology of ``prev``: the same links
    in the same rows but for a run the lineage names, whose rows join the same
    device rows on the same fabrics, with the same devices in the same rows
    (and maybe more or fewer after them, none a compute node and none
    linked: a device dropped, or its drop undone)."""
    n0, n1 = prev.n_devices, index.n_devices
    if prev.links.table != index.links.table or prev.n_links != index.n_links:
        return False
    run = rows_run(prev.links, index.links)
    if run is None or not same_device_rows(prev, index):
        return False
    short = min(n0, n1)
    if not (
        prev.kind is index.kind or equal_arrays(prev.kind[:short], index.kind[:short])
    ):
        return False
    if (index.kind[short:] == KIND_COMPUTE).any() or (
        prev.kind[short:] == KIND_COMPUTE
    ).any():
        return False  # a compute node dropped (or its drop undone) is in the fabric
    rows = slice(run[0], index.n_links - run[1])
    return all(
        equal_arrays(getattr(prev, name)[rows], getattr(index, name)[rows])
        for name in ("a", "b", "fabric")
    )


__all__ = [
    "PATCH_MAX_DEVICES",
    "KeptColumns",
    "KeptLevels",
    "compute_run",
    "device_prefix",
    "equal_arrays",
    "patched_columns",
    "same_fabric",
    "same_items",
    "same_physical",
]
