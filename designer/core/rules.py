"""Connection rules: port budgets, speed, media and fabric, with typed errors.

A link is valid when both devices exist and differ, both port groups exist,
each port group's role fits the link's fabric (``any`` fits every fabric), the
two groups share a link layer (InfiniBand or Ethernet, VPI alternatives
included), both run the link speed, and both have enough free native ports.
Hardware comes from a *lookup* (see :mod:`designer.core.specs`); pass the
loaded catalog directly. Everything here is re-exported for callers.
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from designer.core.errors import (
    ConnectionRefused,
    FabricMismatch,
    MediaMismatch,
    NoCompatiblePorts,
    PortBudgetExceeded,
    RailMismatch,
    SelfLink,
    SpeedMismatch,
    UnknownCatalogEntry,
    UnknownDevice,
    UnknownPortGroup,
    budget_error,
    device_name,
)
from designer.core.ids import new_id
from designer.core.model import Design, Device, Fabric, Link
from designer.core.specs import (
    FABRIC_ORDER,
    MEDIA_NAMES,
    ROLE_FABRIC,
    DeviceSpec,
    Lookup,
    PortGroupSpec,
    PortUsage,
    as_lookup,
    effective_count,
    ports_in_use,
    rows_touching,
    spec_from_entry,
)

__all__ = [
    "ConnectionRefused",
    "DeviceSpec",
    "FabricMismatch",
    "Lookup",
    "MediaMismatch",
    "NoCompatiblePorts",
    "PortBudgetExceeded",
    "PortChoice",
    "PortGroupSpec",
    "PortUsage",
    "RailMismatch",
    "SelfLink",
    "SpeedMismatch",
    "UnknownCatalogEntry",
    "UnknownDevice",
    "UnknownPortGroup",
    "as_lookup",
    "check_design",
    "check_link",
    "choose_ports",
    "effective_count",
    "fabric_hint",
    "ports_in_use",
    "resolve",
    "spec_from_entry",
    "suggest_link",
]

_name = device_name


def _speeds(group: PortGroupSpec) -> str:
    return "/".join(str(s) for s in group.speeds_gbps)


def _media(group: PortGroupSpec) -> str:
    return " or ".join(MEDIA_NAMES.get(m, m) for m in group.medias)


def pair_check(
    da: Device,
    ga: PortGroupSpec,
    db: Device,
    gb: PortGroupSpec,
    fabric: Fabric,
    speed: int | None,
    link_id: str | None = None,
) -> tuple[int, ConnectionRefused | None, int]:
    """Fabric, media and speed compatibility of two port groups (no budget).

    Returns (stage reached, error or None, speed). Stages: 0 fabric, 1 media,
    2 speed, 3 compatible. With ``speed`` None the highest common speed is used.
    """
    ids = (da.id, db.id)
    err: ConnectionRefused
    for dev, grp in ((da, ga), (db, gb)):
        meant = ROLE_FABRIC.get(grp.role)
        if meant is not None and meant is not fabric:
            err = FabricMismatch(
                f"{_name(dev)} port group '{grp.name}' is for the {meant.value} "
                f"fabric, not the {fabric.value} fabric",
                link_id=link_id,
                devices=ids,
            )
            return 0, err, 0
    if not set(ga.medias).intersection(gb.medias):
        err = MediaMismatch(
            f"{_name(da)} port group '{ga.name}' is {_media(ga)} but {_name(db)} "
            f"port group '{gb.name}' is {_media(gb)}; a link joins InfiniBand to "
            "InfiniBand or Ethernet to Ethernet",
            link_id=link_id,
            devices=ids,
        )
        return 1, err, 0
    if speed is None:
        common = set(ga.speeds_gbps).intersection(gb.speeds_gbps)
        if common:
            return 3, None, max(common)
        err = SpeedMismatch(
            f"{_name(da)} port group '{ga.name}' runs at {_speeds(ga)} Gb/s and "
            f"{_name(db)} port group '{gb.name}' at {_speeds(gb)} Gb/s: no common "
            "speed",
            link_id=link_id,
            devices=ids,
        )
        return 2, err, 0
    for dev, grp in ((da, ga), (db, gb)):
        if speed not in grp.speeds_gbps:
            err = SpeedMismatch(
                f"{speed} Gb/s is not supported by {_name(dev)} port group "
                f"'{grp.name}' (runs at {_speeds(grp)} Gb/s)",
                link_id=link_id,
                devices=ids,
            )
            return 2, err, 0
    return 3, None, speed


def resolve(
    devices: Mapping[str, Device],
    device_id: str,
    port: str | None,
    lookup: Lookup,
    link_id: str | None = None,
) -> tuple[Device, DeviceSpec, PortGroupSpec | None]:
    """Device, spec and port group for an endpoint, or a typed error."""
    device = devices.get(device_id)
    if device is None:
        raise UnknownDevice(
            f"device {device_id!r} is not in the design",
            link_id=link_id,
            devices=(device_id,),
        )
    spec = lookup(device.catalog_id)
    if spec is None:
        raise UnknownCatalogEntry(
            f"{device.id}: catalog id {device.catalog_id!r} is not in the catalog",
            link_id=link_id,
            devices=(device_id,),
        )
    if port is None:
        return device, spec, None
    group = spec.port_group(port)
    if group is None:
        names = ", ".join(f"'{g.name}'" for g in spec.port_groups) or "none"
        raise UnknownPortGroup(
            f"{_name(device)} has no port group '{port}' (it has {names})",
            link_id=link_id,
            devices=(device_id,),
        )
    return device, spec, group


def check_link(
    design: Design,
    link: Link,
    lookup: Any,
    *,
    usage: PortUsage | None = None,
) -> None:
    """Raise a :class:`ConnectionRefused` subclass if ``link`` may not join the design.

    When a link with the same id is already in the design its ports are not
    counted twice, so this also checks an edited link. ``usage`` may pass a
    precomputed :meth:`PortUsage.of` for batch checks.
    """
    look = as_lookup(lookup)
    if link.a == link.b:
        raise SelfLink(
            f"a link cannot join {link.a!r} to itself",
            link_id=link.id,
            devices=(link.a,),
        )
    devices = design.device_map()
    da, sa, ga = resolve(devices, link.a, link.a_port, look, link.id)
    db, sb, gb = resolve(devices, link.b, link.b_port, look, link.id)
    assert ga is not None and gb is not None
    err = pair_check(da, ga, db, gb, link.fabric, link.speed_gbps, link.id)[1]
    if err is not None:
        raise err
    used = PortUsage.of(design, (link.a, link.b)) if usage is None else usage
    own = design.links.get(link.id)
    for dev, spec, grp in ((da, sa, ga), (db, sb, gb)):
        # An edited link frees its old ports first.
        ends = 0
        if own is not None:
            ends = ((own.a, own.a_port), (own.b, own.b_port)).count((dev.id, grp.name))
        if own is not None and ends:
            used.add(dev.id, grp.name, own.speed_gbps, -own.cables * ends)
        try:
            before = used.native(dev.id, grp)
            after = used.native(dev.id, grp, (link.speed_gbps, link.cables))
        finally:
            if own is not None and ends:
                used.add(dev.id, grp.name, own.speed_gbps, own.cables * ends)
        capacity = effective_count(dev, spec, grp)
        if after > capacity:
            raise budget_error(
                dev, grp, capacity, before, after - capacity, link_id=link.id
            )


def check_design(
    design: Design, lookup: Any, *, limit: int | None = None
) -> list[ConnectionRefused]:
    """Every rule violation in the design (for findings), one pass over the columns.

    Per-link problems come first in link order, then port budgets exceeded per
    (device, port group) in order of first use. ``limit`` caps the list.
    """
    look = as_lookup(lookup)
    devices = design.device_map()
    out: list[ConnectionRefused] = []
    cap = limit if limit is not None else len(design.links) + len(devices) + 1
    # Links of one kind (catalog ids, ports, speed, fabric) pass or fail alike;
    # only failing kinds are worked out per link (their messages name devices).
    ok_kinds: set[tuple[str, str, str, str, int, str]] = set()
    reported: set[tuple[str, ...]] = set()
    if not _links_all_fine(design, look):
        _link_problems(design, look, devices, out, cap, ok_kinds, reported)
        if len(out) >= cap:
            return out
    _budget_problems(design, look, devices, out, cap)
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
        if pair_check(da, ga, db, gb, Fabric(fab), speed)[1] is not None:
            return False
    return True


def _link_problems(
    design: Design,
    look: Lookup,
    devices: Mapping[str, Device],
    out: list[ConnectionRefused],
    cap: int,
    ok_kinds: set[tuple[str, str, str, str, int, str]],
    reported: set[tuple[str, ...]],
) -> None:
    """Per-link problems, in link order (only run when the fast pass fails)."""
    t = design.links
    for lid, a, ap, b, bp, speed, fab in zip(
        t.id, t.a, t.a_port, t.b, t.b_port, t.speed_gbps, t.fabric, strict=True
    ):
        if len(out) >= cap:
            return
        if a == b:
            out.append(
                SelfLink(
                    f"link {lid!r} joins {a!r} to itself", link_id=lid, devices=(a,)
                )
            )
            continue
        da, db = devices.get(a), devices.get(b)
        if da is None or db is None:
            missing = a if da is None else b
            out.append(
                UnknownDevice(
                    f"link {lid!r} names device {missing!r}, which is not in the "
                    "design",
                    link_id=lid,
                    devices=(missing,),
                )
            )
            continue
        key = (da.catalog_id, ap, db.catalog_id, bp, speed, fab)
        if key in ok_kinds:
            continue
        try:
            _, _, ga = resolve(devices, a, ap, look, lid)
            _, _, gb = resolve(devices, b, bp, look, lid)
            assert ga is not None and gb is not None
            found = pair_check(da, ga, db, gb, Fabric(fab), speed, lid)[1]
        except (UnknownCatalogEntry, UnknownPortGroup) as exc:
            # Once per device (and port group), not once per link.
            what: tuple[str, ...] = (type(exc).__name__, *exc.devices)
            if isinstance(exc, UnknownPortGroup):
                what += (ap if exc.devices == (a,) else bp,)
            if what in reported:
                continue
            reported.add(what)
            found = exc
        if found is None:
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
    usage = PortUsage.of(design, few if len(few) <= 64 else None)
    for did, port in suspects:
        if len(out) >= cap:
            break
        dev = devices.get(did)
        spec = None if dev is None else look(dev.catalog_id)
        grp = None if spec is None else spec.port_group(port)
        if dev is None or spec is None or grp is None:
            continue
        capacity = effective_count(dev, spec, grp)
        used = usage.native(did, grp)
        if used > capacity:
            links = usage.links(did, port)
            by = "" if links == used else f" by {links} cables"
            out.append(
                PortBudgetExceeded(
                    f"{_name(dev)}: port group '{port}' has "
                    f"{grp.describe_count(capacity)} but {used} are in use{by} "
                    f"({used - capacity} too many)",
                    device=did,
                    port_group=port,
                    capacity=capacity,
                    in_use=used,
                    needed=used - capacity,
                )
            )


# --- choosing ports -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PortChoice:
    """Port groups, fabric and speed for a link between two devices."""

    a_port: str
    b_port: str
    fabric: Fabric
    speed_gbps: int


def fabric_hint(design: Design, device_ids: Iterable[str]) -> Fabric | None:
    """The most common fabric among links touching these devices (None if none)."""
    fabrics = design.links.fabric
    counts: Counter[str] = Counter(
        fabrics[i] for i in rows_touching(design, device_ids)
    )
    if not counts:
        return None
    return max(FABRIC_ORDER, key=lambda f: (counts[f], -FABRIC_ORDER.index(f)))


def choose_ports(
    da: Device,
    sa: DeviceSpec,
    db: Device,
    sb: DeviceSpec,
    *,
    fabric: Fabric | None = None,
    speed_gbps: int | None = None,
    hint: Fabric | None = None,
    usage: PortUsage | None = None,
    cables: int = 1,
) -> PortChoice:
    """The best port groups to join ``da`` and ``db``, or the closest typed error.

    Preference: the given fabric (else compute, storage, in-band, OOB; switch
    to switch uses ``hint``), then the highest common speed, then catalog
    order. With ``usage`` the port budget for ``cables`` cables is checked too.
    """
    if da.id == db.id:
        raise SelfLink(f"a link cannot join {da.id!r} to itself", devices=(da.id,))
    # Compatible pairs (rank, choice, budget error); a full port group does not
    # make the choice fall back to another fabric: the budget error is the answer.
    fits: list[tuple[tuple[int, int, int], PortChoice, ConnectionRefused | None]] = []
    closest: tuple[tuple[int, int, int], ConnectionRefused] | None = None
    order = 0
    for ga in sa.port_groups:
        for gb in sb.port_groups:
            order += 1
            err: ConnectionRefused | None
            ra, rb = ROLE_FABRIC.get(ga.role), ROLE_FABRIC.get(gb.role)
            fab = fabric or ra or rb or hint or Fabric.COMPUTE
            if fabric is None and ra is not None and rb is not None and ra is not rb:
                stage, speed = -1, 0
                err = FabricMismatch(
                    f"{_name(da)} port group '{ga.name}' is for the {ra.value} "
                    f"fabric but {_name(db)} port group '{gb.name}' is for the "
                    f"{rb.value} fabric",
                    devices=(da.id, db.id),
                )
            else:
                stage, err, speed = pair_check(da, ga, db, gb, fab, speed_gbps)
            if err is not None:
                key = (FABRIC_ORDER.index(fab) if stage >= 0 else 9, -stage, order)
                if closest is None or key < closest[0]:
                    closest = (key, err)
                continue
            budget: ConnectionRefused | None = None
            if usage is not None:
                for dev, spec, grp in ((da, sa, ga), (db, sb, gb)):
                    capacity = effective_count(dev, spec, grp)
                    after = usage.native(dev.id, grp, (speed, cables))
                    if after > capacity:
                        before = usage.native(dev.id, grp)
                        budget = budget_error(
                            dev, grp, capacity, before, after - capacity
                        )
                        break
            rank = (FABRIC_ORDER.index(fab), -speed, order)
            fits.append((rank, PortChoice(ga.name, gb.name, fab, speed), budget))
    if fits:
        top = min(rank[0] for rank, _, _ in fits)
        same = sorted((f for f in fits if f[0][0] == top), key=lambda f: f[0])
        for _, choice, budget in same:
            if budget is None:
                return choice
        assert same[0][2] is not None
        raise same[0][2].with_context(f"cannot connect {da.id} to {db.id}: ")
    if closest is None:
        raise NoCompatiblePorts(
            f"{_name(da)} or {_name(db)} has no port groups", devices=(da.id, db.id)
        )
    raise closest[1].with_context(f"cannot connect {da.id} to {db.id}: ")


def suggest_link(
    design: Design,
    a_id: str,
    b_id: str,
    lookup: Any,
    fabric: Fabric | None = None,
    *,
    speed_gbps: int | None = None,
    cables: int = 1,
    usage: PortUsage | None = None,
) -> Link:
    """A valid new link between two devices with sensible defaults (not added).

    Picks port groups by role and fabric, the highest common speed, one cable
    and a fresh id (``a--b``); raises a :class:`ConnectionRefused` subclass with
    the reason when no port pair works (the error of the pair that came closest).
    """
    look = as_lookup(lookup)
    if a_id == b_id:
        raise SelfLink(f"a link cannot join {a_id!r} to itself", devices=(a_id,))
    devices = design.device_map()
    da, sa, _ = resolve(devices, a_id, None, look)
    db, sb, _ = resolve(devices, b_id, None, look)
    choice = choose_ports(
        da,
        sa,
        db,
        sb,
        fabric=fabric,
        speed_gbps=speed_gbps,
        hint=fabric_hint(design, (a_id, b_id)) if fabric is None else None,
        usage=PortUsage.of(design, (a_id, b_id)) if usage is None else usage,
        cables=cables,
    )
    return Link(
        id=new_id(f"{a_id}--{b_id}", design.links.id_set(), bare_first=True),
        a=a_id,
        a_port=choice.a_port,
        b=b_id,
        b_port=choice.b_port,
        cables=cables,
        speed_gbps=choice.speed_gbps,
        fabric=choice.fabric,
    )
