"""One rule for every proposed link set, and the same rule over a whole design.

Every entry point that adds or edits links asks :func:`check_links` (canvas
connect, bulk wiring, paste) or :func:`check_link_updates` (Properties edits of
cables, speed, fabric or ports) before it builds its command, and
:func:`check_design` (the CLI and the validator) applies the same row checks
and the same port budget to a design as loaded. A refusal is a
:class:`~designer.core.errors.ConnectionRefused` subclass whose message is the
reason alone, without a prefix naming the entry point, so the same bad edit
reads the same from everywhere. The checks, in order: both devices exist and
differ, their catalog entries and port groups exist, each group's role fits the
fabric, the groups share a link layer and run the speed (the rules of one pair
of ends: :mod:`designer.core.rules`), and no port group ends up with more
native ports in use than it has (breakouts counted).
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from designer.core.errors import (
    ConnectionRefused,
    InvalidLink,
    PortBudgetExceeded,
    SelfLink,
    UnknownCatalogEntry,
    UnknownLink,
    UnknownPortGroup,
    over_budget,
)
from designer.core.model import LINK_COLUMNS, Design, Device, Fabric, Link, LinkTable
from designer.core.rules import link_problem, resolve
from designer.core.specs import (
    ROLE_FABRIC,
    DeviceSpec,
    Lookup,
    PortGroupSpec,
    PortUsage,
    as_lookup,
    effective_count,
    ports_in_use,
)

__all__ = [
    "LinkLimits",
    "cabled_ends",
    "check_design",
    "check_link",
    "check_link_update",
    "check_link_updates",
    "check_links",
    "free_links",
    "link_limits",
]

_FEW_DEVICES = 64
"""Up to this many touched devices, port usage is counted from their rows only."""

Kind = tuple[str, str, str, str, int, str]
"""(catalog a, port a, catalog b, port b, speed, fabric): pass or fail alike."""


def _row_problem(
    devices: Mapping[str, Device],
    look: Lookup,
    lid: str,
    a: str,
    ap: str,
    b: str,
    bp: str,
    speed: int,
    fabric: str,
) -> ConnectionRefused | None:
    """What is wrong with one link row apart from port budgets (None: fine)."""
    if a == b:
        return SelfLink(
            f"a link cannot join {a!r} to itself", link_id=lid, devices=(a,)
        )
    try:
        da, sa, ga = resolve(devices, a, ap, look, lid)
        db, sb, gb = resolve(devices, b, bp, look, lid)
    except ConnectionRefused as exc:
        return exc
    assert ga is not None and gb is not None
    return link_problem(da, sa, ga, db, sb, gb, Fabric(fabric), speed, lid)[1]


def _columns(links: Iterable[Link] | LinkTable) -> LinkTable:
    if isinstance(links, LinkTable):
        return links
    return LinkTable.from_links(links)


def _check_rows(devices: Mapping[str, Device], look: Lookup, table: LinkTable) -> None:
    """Raise the first row problem; rows of an already passed kind are skipped."""
    ok: set[Kind] = set()
    t = table
    for lid, a, ap, b, bp, speed, fab in zip(
        t.id, t.a, t.a_port, t.b, t.b_port, t.speed_gbps, t.fabric, strict=True
    ):
        da, db = devices.get(a), devices.get(b)
        key: Kind | None = None
        if da is not None and db is not None and a != b:
            key = (da.catalog_id, ap, db.catalog_id, bp, speed, str(fab))
            if key in ok:
                continue
        problem = _row_problem(devices, look, lid, a, ap, b, bp, speed, str(fab))
        if problem is not None:
            raise problem
        if key is not None:
            ok.add(key)


def cabled_ends(
    design: Design,
    device_id: str,
    port: str,
    skip: Iterable[str] = (),
    adding: LinkTable | None = None,
) -> dict[str, int]:
    """Cables per device at the other end of ``device_id``'s links on ``port``:
    where a port group's ports go. Links named in ``skip`` are left out (an
    edit replaces or removes them); the rows of ``adding`` are counted in."""
    s = design.links.arrays
    gone = set(skip)
    out: dict[str, int] = {}

    def add(far: str, cables: int) -> None:
        out[far] = out.get(far, 0) + cables

    for i in design.links.rows_touching([device_id]):
        if gone and s.ids[i] in gone:
            continue
        for mine, my_port, other in ((s.a, s.a_port, s.b), (s.b, s.b_port, s.a)):
            if s.names[mine[i]] == device_id and s.port_names[my_port[i]] == port:
                add(s.names[other[i]], int(s.cables[i]))
    if adding is not None:
        t = adding
        for a, ap, b, bp, c in zip(t.a, t.a_port, t.b, t.b_port, t.cables, strict=True):
            if a == device_id and ap == port:
                add(b, c)
            if b == device_id and bp == port:
                add(a, c)
    return out


def _budget_overflows(
    devices: Mapping[str, Device],
    look: Lookup,
    usage: PortUsage,
    groups: Iterable[tuple[str, str]],
    *,
    proposed: bool,
    design: Design | None = None,
    skip: Iterable[str] = (),
    adding: LinkTable | None = None,
) -> Iterator[ConnectionRefused]:
    """Port groups among ``groups`` with more native ports in use than they have
    (with ``design``, the reason says where the design's cables on it go)."""
    gone = list(skip)
    for did, port in groups:
        dev = devices.get(did)
        spec = None if dev is None else look(dev.catalog_id)
        grp = None if spec is None else spec.port_group(port)
        if dev is None or spec is None or grp is None:
            continue
        capacity = effective_count(dev, spec, grp)
        used = usage.native(did, grp)
        if used > capacity:
            ends = (
                None if design is None else cabled_ends(design, did, port, gone, adding)
            )
            yield over_budget(
                dev,
                grp,
                capacity,
                used,
                usage.links(did, port),
                proposed=proposed,
                ends=ends,
            )


def _count(usage: PortUsage, table: LinkTable, sign: int) -> None:
    for a, ap, b, bp, c, s in zip(
        table.a,
        table.a_port,
        table.b,
        table.b_port,
        table.cables,
        table.speed_gbps,
        strict=True,
    ):
        usage.add(a, ap, s, sign * c)
        usage.add(b, bp, s, sign * c)


def check_links(
    design: Design,
    links: Iterable[Link] | LinkTable,
    lookup: Any,
    *,
    new_devices: Sequence[Device] = (),
    removing: Iterable[str] = (),
) -> None:
    """Refuse (raise :class:`ConnectionRefused`) a proposed set of links.

    ``links`` are added to the design; a link whose id is already in the design
    replaces that link (an edit: its old ports are freed first). ``new_devices``
    are devices the same edit adds (paste); ``removing`` names links the edit
    removes first (rewiring). Per-link problems come first in row order, then
    the first port group overfilled by the whole set.
    """
    look = as_lookup(lookup)
    table = _columns(links)
    devices: dict[str, Device] = design.device_map()
    devices.update((d.id, d) for d in new_devices)
    _check_rows(devices, look, table)
    touched = set(table.a).union(table.b)
    usage = PortUsage.of(design, touched if len(touched) <= _FEW_DEVICES else None)
    existing = design.links
    gone = [*removing, *(lid for lid in table.id if existing.has(lid))]
    if gone:
        at = existing.positions(gone)
        _count(usage, existing.take(sorted(set(at.values()))), -1)
    _count(usage, table, +1)
    first_row: dict[tuple[str, str], str] = {}
    for lid, a, ap, b, bp in zip(
        table.id, table.a, table.a_port, table.b, table.b_port, strict=True
    ):
        first_row.setdefault((a, ap), lid)
        first_row.setdefault((b, bp), lid)
    overflows = _budget_overflows(
        devices,
        look,
        usage,
        first_row,
        proposed=True,
        design=design,
        skip=gone,
        adding=table,
    )
    for problem in overflows:
        assert isinstance(problem, PortBudgetExceeded)
        problem.link_id = first_row[(problem.device, problem.port_group)]
        raise problem


def check_link(
    design: Design,
    link: Link,
    lookup: Any,
    *,
    usage: PortUsage | None = None,
) -> None:
    """Refuse one link (new, or an edit of the link with the same id).

    ``usage`` is accepted for callers that precomputed :meth:`PortUsage.of`; the
    check counts the touched devices itself, which is as fast.
    """
    del usage
    check_links(design, [link], lookup)


def _edited(design: Design, link_id: str, fields: Mapping[str, object]) -> Link:
    """The link as it would be after ``fields`` change (model rules applied)."""
    old = design.links.get(link_id)
    if old is None:
        raise UnknownLink(f"link {link_id!r} is not in the design", link_id=link_id)
    if "id" in fields and fields["id"] != link_id:
        raise InvalidLink(
            f"link {link_id!r} cannot be renamed: ids are stable", link_id=link_id
        )
    unknown = sorted(set(fields) - set(LINK_COLUMNS))
    if unknown:
        raise InvalidLink(
            f"link {link_id!r}: {unknown[0]!r} is not a link field", link_id=link_id
        )
    try:
        new = Link.model_validate({**old.model_dump(), **fields})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InvalidLink(
            f"link {link_id!r}: field {where}: {first['msg']}",
            link_id=link_id,
            devices=(old.a, old.b),
        ) from None
    from designer.core.pins import repin_update

    new = repin_update(old, new, fields)
    for end in ("a", "b"):
        pins = getattr(new, f"{end}_pins")
        if pins is not None and len(pins) != new.cables:
            raise InvalidLink(
                f"link {link_id!r}: {len(pins)} ports named at {getattr(new, end)} "
                f"for {new.cables} cable{'s' if new.cables != 1 else ''}",
                link_id=link_id,
                devices=(old.a, old.b),
            )
    return new


def check_link_updates(
    design: Design, updates: Mapping[str, Mapping[str, object]], lookup: Any
) -> None:
    """Refuse an ``UpdateLinks`` edit ({link id: {field: value}}) as the canvas would.

    Cables, speed, fabric, ports and ends are checked like a new link, with the
    edited links' old ports freed first: Cables = 9 on an 8-port group gives
    the same reason as a ninth cable drawn on the canvas.
    """
    edited = [_edited(design, lid, fields) for lid, fields in updates.items()]
    check_links(design, edited, lookup)
    from designer.core.pin_checks import check_pins
    from designer.core.pins import repin_update

    for link_id, fields in updates.items():
        if "a_pins" in fields or "b_pins" in fields:
            i = design.links.position(link_id)
            old = design.links.row(i) if i is not None else None
            link = _edited(design, link_id, fields)
            if old is not None:
                link = repin_update(old, link, fields)
            check_pins(design, link, lookup, i)


def check_link_update(
    design: Design, link_id: str, fields: Mapping[str, object], lookup: Any
) -> None:
    """Refuse an edit of one link's fields (Properties); see check_link_updates."""
    check_link_updates(design, {link_id: fields}, lookup)


@dataclass(frozen=True, slots=True)
class LinkLimits:
    """What an edit of one link may set, for the Properties panel's widgets."""

    max_cables: int
    """Cables the link can have at its speed with every other link kept (>= 0)."""
    speeds_gbps: tuple[int, ...]
    """Speeds both port groups run, highest first."""
    fabrics: tuple[Fabric, ...]
    """Fabrics both port groups' roles allow."""


def link_limits(design: Design, link_id: str, lookup: Any) -> LinkLimits:
    """The cables, speeds and fabrics a Properties edit of this link can choose.

    Raises :class:`ConnectionRefused` when the link or its hardware is unknown.
    """
    look = as_lookup(lookup)
    link = design.links.get(link_id)
    if link is None:
        raise UnknownLink(f"link {link_id!r} is not in the design", link_id=link_id)
    devices = design.device_map()
    da, sa, ga = resolve(devices, link.a, link.a_port, look, link_id)
    db, sb, gb = resolve(devices, link.b, link.b_port, look, link_id)
    assert ga is not None and gb is not None
    usage = PortUsage.of(design, (link.a, link.b))
    _count(usage, LinkTable.from_links([link]), -1)
    room: list[int] = []
    for dev, spec, grp in ((da, sa, ga), (db, sb, gb)):
        room.append(free_links(usage, dev, spec, grp, link.speed_gbps))
    if link.a == link.b:
        room = [0]
    speeds = tuple(sorted(set(ga.speeds_gbps) & set(gb.speeds_gbps), reverse=True))
    fabrics = tuple(
        f
        for f in Fabric
        if ROLE_FABRIC.get(ga.role, f) is f and ROLE_FABRIC.get(gb.role, f) is f
    )
    return LinkLimits(max(0, min(room)), speeds, fabrics)


def free_links(
    usage: PortUsage, dev: Device, spec: DeviceSpec, grp: PortGroupSpec, speed: int
) -> int:
    """Links of ``speed`` the port group still takes (breakout lanes counted)."""
    capacity = effective_count(dev, spec, grp)
    here = usage.links_at(dev.id, grp.name, speed)
    others = usage.native(dev.id, grp) - usage.native_at(dev.id, grp, speed)
    return max(0, (capacity - others) * grp.split(speed) - here)


# --- a whole design -------------------------------------------------------------


def check_design(
    design: Design, lookup: Any, *, limit: int | None = None
) -> list[ConnectionRefused]:
    """Every rule violation in the design, with the reasons the edits give.

    Per-link problems come first in link order (unknown catalog ids and port
    groups once per device and port group), then port budgets exceeded per
    (device, port group) in order of first use. ``limit`` caps the list.
    """
    look = as_lookup(lookup)
    devices = design.device_map()
    out: list[ConnectionRefused] = []
    cap = limit if limit is not None else len(design.links) + len(devices) + 1
    if not _links_all_fine(design, look):
        _link_problems(design, look, devices, out, cap)
        if len(out) >= cap:
            return out
    _budget_problems(design, look, devices, out, cap)
    # pins are kept right by the commands (PortTaken) and checked when a file
    # is opened (designer.core.pin_checks.pin_problems), not on every analysis
    return out


def _links_all_fine(design: Design, look: Lookup) -> bool:
    """Fast pass: every link kind is valid and no link is a self link.

    The columns are mapped to catalog ids and collapsed to distinct kinds in C
    (a few dozen in a generated fabric), and each kind is checked once.
    """
    t = design.links
    if any(map(operator.eq, t.a, t.b)):
        return False
    catalog = {d.id: d.catalog_id for d in design.devices}
    kinds = set(
        zip(
            map(catalog.get, t.a),
            t.a_port,
            map(catalog.get, t.b),
            t.b_port,
            t.speed_gbps,
            t.fabric,
            strict=True,
        )
    )
    for cat_a, ap, cat_b, bp, speed, fab in kinds:
        if cat_a is None or cat_b is None:
            return False
        sa, sb = look(cat_a), look(cat_b)
        ga = None if sa is None else sa.port_group(ap)
        gb = None if sb is None else sb.port_group(bp)
        if ga is None or gb is None:
            return False
        da = Device.model_construct(id="a", catalog_id=cat_a)
        db = Device.model_construct(id="b", catalog_id=cat_b)
        assert sa is not None and sb is not None
        if link_problem(da, sa, ga, db, sb, gb, Fabric(fab), speed)[1] is not None:
            return False
    return True


def _link_problems(
    design: Design,
    look: Lookup,
    devices: Mapping[str, Device],
    out: list[ConnectionRefused],
    cap: int,
) -> None:
    """Per-link problems, in link order (only run when the fast pass fails)."""
    ok_kinds: set[Kind] = set()
    reported: set[tuple[str, ...]] = set()
    t = design.links
    for lid, a, ap, b, bp, speed, fab in zip(
        t.id, t.a, t.a_port, t.b, t.b_port, t.speed_gbps, t.fabric, strict=True
    ):
        if len(out) >= cap:
            return
        da, db = devices.get(a), devices.get(b)
        key: Kind | None = None
        if da is not None and db is not None and a != b:
            key = (da.catalog_id, ap, db.catalog_id, bp, speed, str(fab))
            if key in ok_kinds:
                continue
        found = _row_problem(devices, look, lid, a, ap, b, bp, speed, str(fab))
        if isinstance(found, UnknownCatalogEntry | UnknownPortGroup):
            # Once per device (and port group), not once per link.
            what: tuple[str, ...] = (type(found).__name__, *found.devices)
            if isinstance(found, UnknownPortGroup):
                what += (ap if found.devices == (a,) else bp,)
            if what in reported:
                continue
            reported.add(what)
        if found is None:
            if key is not None:
                ok_kinds.add(key)
        else:
            out.append(found)


def _budget_problems(
    design: Design,
    look: Lookup,
    devices: Mapping[str, Device],
    out: list[ConnectionRefused],
    cap: int,
) -> None:
    """Port groups with more native ports in use than they have."""
    # Breakouts only ever shrink the native count below the cable count, so
    # only groups with more cables than ports need the per-speed count.
    suspects: list[tuple[str, str]] = []
    for (did, port), cables in ports_in_use(design).items():
        dev = devices.get(did)
        spec = None if dev is None else look(dev.catalog_id)
        grp = None if spec is None else spec.port_group(port)
        if (
            dev is not None
            and spec is not None
            and grp is not None
            and cables > effective_count(dev, spec, grp)
        ):
            suspects.append((did, port))
    if not suspects:
        return
    few = {did for did, _ in suspects}
    usage = PortUsage.of(design, few if len(few) <= _FEW_DEVICES else None)
    overflows = _budget_overflows(
        devices, look, usage, suspects, proposed=False, design=design
    )
    for problem in overflows:
        if len(out) >= cap:
            break
        out.append(problem)
