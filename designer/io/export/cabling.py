"""Cabling plan CSV: one row per physical cable, streamed.

Ports are allocated per device and port group in link order. Port names follow
the cage: ``osfp3/2`` is the second port of twin-port OSFP cage 3 (QM9700,
DGX H100); single-port cages are numbered ``qsfp112-1``, ``eth1``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from designer.catalog.ports import effective_ports
from designer.catalog.schema import Interface
from designer.core.model import Design
from designer.io.export._common import (
    Catalog,
    ExportCancelled,
    Target,
    open_text,
    resolve_catalog,
)

CABLING_COLUMNS: tuple[str, ...] = (
    "cable",
    "link",
    "from_device",
    "from_label",
    "from_port_group",
    "from_port",
    "from_transceiver",
    "to_device",
    "to_label",
    "to_port_group",
    "to_port",
    "to_transceiver",
    "cable_type",
    "cable_id",
    "speed_gbps",
    "fabric",
    "rail",
)

CablingRow = tuple[
    int, str, str, str, str, str, str, str, str, str, str, str, str, str, int, str, str
]
PortNamer = Callable[[int, int], str]


def _connector(iface: Interface | None, group: str) -> str:
    """Short connector name from a NetBox-like interface type."""
    if iface is None:
        return group
    t = iface.type.lower()
    if "base-t" in t:
        return "eth"
    tail = t.rsplit("-", 1)[-1]
    return tail if re.fullmatch(r"[a-z][a-z0-9]*", tail) else group


def port_namer(iface: Interface | None, group: str, count: int | None) -> PortNamer:
    """A function naming the 0-based link slot ``i`` of a port group by cage.

    ``split`` is the breakout (logical links per physical port) at the link's
    speed: slot ``i`` is physical port ``i // split``, sub-port ``i % split``.
    """
    kind = _connector(iface, group)
    per_cage = iface.ports_per_cage if iface is not None else 1
    sep = "-" if kind[-1].isdigit() else ""
    limit = count if count is not None else (iface.count if iface else None)

    def name(i: int, split: int = 1) -> str:
        port, sub = divmod(i, split) if split > 1 else (i, 0)
        if per_cage > 1:
            label = f"{kind}{port // per_cage + 1}/{port % per_cage + 1}"
        else:
            label = f"{kind}{sep}{port + 1}"
        if split > 1:
            label += f".{sub + 1}"
        if limit is not None and port >= limit:
            label += " (beyond the last port)"
        return label

    return name


def _fallback_cable_type(a: Interface | None, b: Interface | None, speed: int) -> str:
    types = " ".join(i.type.lower() for i in (a, b) if i is not None)
    if "base-t" in types:
        return "Cat6 RJ45 copper"
    media = next((i.media.value for i in (a, b) if i is not None), "")
    media = {"infiniband": "InfiniBand", "ethernet": "Ethernet"}.get(media, media)
    return f"{speed}G {media} cable".replace("  ", " ")


_KIND = {"fiber": "MMF fiber", "aoc": "AOC", "dac": "DAC copper", "copper": "RJ45"}
_MEDIA = {"infiniband": "InfiniBand", "ethernet": "Ethernet"}


def link_ends(
    cat: Catalog, a: Interface | None, b: Interface | None, speed: int
) -> tuple[str, str, str, str]:
    """``(cable type, cable id, module at a, module at b)`` of one cable of a link.

    Uses the catalog's optics table (cable class by speed and media; a module at
    each end only for fiber); without it, a plain description and no ids.
    """
    optics = getattr(cat, "optics", None)
    known = a if a is not None else b
    if optics is not None and known is not None:
        media = known.media
        if a is not None and b is not None and a.media is not b.media:
            supports = getattr(b, "supports_media", None)
            media = a.media if supports is None or supports(a.media) else b.media
        try:
            cable = optics.cable_class(speed, media)
            mods = [
                optics.module_for(i, speed, media) if i is not None else None
                for i in (a, b)
            ]
        except (KeyError, ValueError):
            pass
        else:
            kind = _KIND.get(cable.kind.value, cable.kind.value)
            label = f"{kind} {cable.speed_gbps}G {_MEDIA.get(media.value, media.value)}"
            names = [m.id if m is not None else "" for m in mods]
            return label, cable.id, names[0], names[1]
    tr = [(i.transceiver or "") if i is not None else "" for i in (a, b)]
    return _fallback_cable_type(a, b, speed), "", tr[0], tr[1]


def _split(iface: Interface | None, speed: int) -> int:
    split = getattr(iface, "split", None)
    return max(1, int(split(speed))) if split is not None else 1


def _same(value: str) -> str:
    return value


def _slot_names(namer: PortNamer, slots: int, split: int) -> list[str]:
    return [namer(i, split) for i in range(slots)]


def csv_field(value: str) -> str:
    """One CSV field as ``csv.writer`` (minimal quoting) writes it."""
    if any(ch in value for ch in ',"\r\n'):
        return '"' + value.replace('"', '""') + '"'
    return value


def _row_chunks(
    design: Design,
    catalog: Catalog | None,
    chunk_links: int = 20_000,
    *,
    as_text: bool = False,
) -> Iterator[list[Any]]:
    """Cable rows in chunks of about ``chunk_links`` rows.

    Rows are tuples, or with ``as_text`` ready CSV lines: each link's constant
    fields are quoted once and every cable adds one formatted line (2x faster
    than ``csv.writer`` on 300k cables).
    """
    cat = resolve_catalog(catalog)
    devices = design.device_map()
    labels = {d.id: d.label or d.id for d in design.devices}
    q: Callable[[str], str] = csv_field if as_text else _same
    quoted: dict[str, str] = {}

    def qc(value: str) -> str:
        got = quoted.get(value)
        if got is None:
            got = quoted[value] = q(value)
        return got

    # per (device, port group): interface, port names (cached per type), used slots
    ends: dict[tuple[str, str], tuple[Interface | None, PortNamer, int]] = {}
    used: dict[tuple[str, str], int] = {}
    tables: dict[tuple[int, int, int], list[str]] = {}
    link_types: dict[
        tuple[int, int, int], tuple[str, str, str, str, list[str], list[str], int, int]
    ] = {}
    namer_cache: dict[tuple[int, str, int], PortNamer] = {}

    def end_of(dev_id: str, group: str) -> tuple[Interface | None, PortNamer, int]:
        key = (dev_id, group)
        got = ends.get(key)
        if got is None:
            dev = devices[dev_id]
            entry = cat.get(dev.catalog_id)
            iface = entry.interface(group) if entry is not None else None
            count = iface.count if iface is not None else 0
            if entry is not None and iface is not None:
                count = effective_ports(entry, dev.ports, group)
            nkey = (id(iface), group, count)
            namer = namer_cache.get(nkey)
            if namer is None:
                namer = namer_cache[nkey] = port_namer(
                    iface, group, count if iface is not None else None
                )
            got = ends[key] = (iface, namer, count)
        return got

    def names(namer: PortNamer, count: int, split: int) -> list[str]:
        key = (id(namer), count, split)
        table = tables.get(key)
        if table is None:
            table = tables[key] = [
                q(x) for x in _slot_names(namer, count * split, split)
            ]
        return table

    t = design.links
    ids, a_col, b_col, ap_col, bp_col = t.id, t.a, t.b, t.a_port, t.b_port
    cab_col, spd_col, fab_col, rail_col = t.cables, t.speed_gbps, t.fabric, t.rail
    fabric_text = {f: str(getattr(f, "value", f)) for f in set(fab_col)}
    n = 0
    rows: list[Any] = []  # CablingRow tuples, or CSV lines when as_text
    for i in range(len(ids)):
        a, b, ap, bp = a_col[i], b_col[i], ap_col[i], bp_col[i]
        ia, na, ca = end_of(a, ap)
        ib, nb, cb = end_of(b, bp)
        speed = spd_col[i]
        tkey = (id(na), id(nb), speed)
        lt = link_types.get(tkey)
        if lt is None:
            sa, sb = _split(ia, speed), _split(ib, speed)
            lt = link_types[tkey] = (
                *link_ends(cat, ia, ib, speed),
                names(na, ca, sa),
                names(nb, cb, sb),
                sa,
                sb,
            )
        ctype, cable_id, a_tr, b_tr, ta, tb, sa, sb = lt
        ka, kb = (a, ap), (b, bp)
        ua, ub = used.get(ka, 0), used.get(kb, 0)
        cables = cab_col[i]
        fabric = fabric_text[fab_col[i]]
        rail = "" if rail_col[i] is None else str(rail_col[i])
        lid, la, lb = ids[i], labels[a], labels[b]
        if as_text:
            head = f",{q(lid)},{qc(a)},{qc(la)},{qc(ap)},"
            mid = f",{qc(a_tr)},{qc(b)},{qc(lb)},{qc(bp)},"
            tail = (
                f",{qc(b_tr)},{qc(ctype)},{qc(cable_id)},{speed},{qc(fabric)},{rail}\n"
            )
            for c in range(cables):
                n += 1
                sa_i, sb_i = ua + c, ub + c
                pa = ta[sa_i] if sa_i < len(ta) else q(na(sa_i, sa))
                pb = tb[sb_i] if sb_i < len(tb) else q(nb(sb_i, sb))
                rows.append(f"{n}{head}{pa}{mid}{pb}{tail}")
            used[ka] = ua + cables
            used[kb] = ub + cables
            if len(rows) >= chunk_links:
                yield rows
                rows = []
            continue
        for c in range(cables):
            n += 1
            sa_i, sb_i = ua + c, ub + c
            rows.append(
                (
                    n,
                    lid,
                    a,
                    la,
                    ap,
                    ta[sa_i] if sa_i < len(ta) else na(sa_i, sa),
                    a_tr,
                    b,
                    lb,
                    bp,
                    tb[sb_i] if sb_i < len(tb) else nb(sb_i, sb),
                    b_tr,
                    ctype,
                    cable_id,
                    speed,
                    fabric,
                    rail,
                )
            )
        used[ka] = ua + cables
        used[kb] = ub + cables
        if len(rows) >= chunk_links:
            yield rows
            rows = []
    if rows:
        yield rows


def cabling_rows(
    design: Design, catalog: Catalog | None = None
) -> Iterator[CablingRow]:
    """Yield one row per cable (a link with ``cables=4`` gives 4 rows)."""
    for chunk in _row_chunks(design, catalog):
        yield from chunk


def write_cabling_csv(
    design: Design,
    target: Target,
    catalog: Catalog | None = None,
    progress: Callable[[int, int], bool] | None = None,
) -> int:
    """Stream the cabling plan to ``target``; return the number of cable rows.

    ``progress(done_cables, total_cables)`` is called every 50,000 rows; return
    False from it to cancel (then :class:`ExportCancelled` is raised).
    """
    total = sum(design.links.cables)
    written = 0
    with open_text(target) as fh:
        fh.write(",".join(CABLING_COLUMNS) + "\n")
        for rows in _row_chunks(design, catalog, chunk_links=50_000, as_text=True):
            fh.write("".join(rows))
            written += len(rows)
            if progress is not None and not progress(written, total):
                raise ExportCancelled("cabling export cancelled")
    return written


def cabling_summary(
    design: Design, catalog: Catalog | None = None
) -> list[tuple[str, str, int, int]]:
    """Cable counts as rows ``(fabric, cable type, speed, count)``."""
    cat = resolve_catalog(catalog)
    devices = design.device_map()
    cache: dict[tuple[str, str], Interface | None] = {}

    def iface(dev_id: str, group: str) -> Interface | None:
        dev = devices[dev_id]
        key = (dev.catalog_id, group)
        if key not in cache:
            entry = cat.get(dev.catalog_id)
            cache[key] = entry.interface(group) if entry is not None else None
        return cache[key]

    counts: Counter[tuple[str, str, int]] = Counter()
    types: dict[tuple[int, int, int], str] = {}
    t = design.links
    for i in range(len(t.id)):
        ia, ib = iface(t.a[i], t.a_port[i]), iface(t.b[i], t.b_port[i])
        speed = t.speed_gbps[i]
        key = (id(ia), id(ib), speed)
        ctype = types.get(key)
        if ctype is None:
            ctype = types[key] = link_ends(cat, ia, ib, speed)[0]
        fabric = str(getattr(t.fabric[i], "value", t.fabric[i]))
        counts[(fabric, ctype, speed)] += t.cables[i]
    order = {"compute": 0, "storage": 1, "inband": 2, "oob": 3}
    return [
        (f, ty, s, n)
        for (f, ty, s), n in sorted(
            counts.items(), key=lambda kv: (order.get(kv[0][0], 9), -kv[0][2], kv[0][1])
        )
    ]
