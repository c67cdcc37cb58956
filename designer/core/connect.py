"""The link an architect means when joining two devices (canvas connect, bulk wiring).

Port groups: data ports before management ports. A pair is a *management* pair
when one of its groups has the ``oob`` role (a BMC, a switch's management port,
an OOB switch's uplinks). Without an explicit fabric, any compatible data pair
wins: first one on the fabric a switch end already carries most (a DGX dragged
to a leaf of the storage fabric uses its storage ports), then in fabric order
compute, storage, in-band, out-of-band. Switch to switch follows the fabric of
the devices' existing links; with none, a 1 Gb/s link is out-of-band (no data
fabric runs at 1G) and a faster one compute. A management pair with one
management end (a BMC on an OOB switch's access ports) is taken only when no
data pair fits; two management ports (an NFS filer's BMC on a QM9700's
management port) are joined only when out-of-band is asked for, or when
neither device has anything but management ports. A full port group does not
make the choice fall back to another fabric or to a management port: its budget
error is the answer.

Cables: by default all free ports of the chosen group, up to the other end's
free ports (a DGX H100 to an empty leaf: 8 cables); ``cables=1`` for one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from designer.core.checks import cabled_ends, check_links, free_links
from designer.core.errors import (
    ConnectionRefused,
    FabricMismatch,
    NoCompatiblePorts,
    SelfLink,
    device_name,
    over_budget,
)
from designer.core.ids import new_id
from designer.core.model import Design, Device, Fabric, Link
from designer.core.rules import link_problem, resolve
from designer.core.specs import (
    FABRIC_ORDER,
    MANAGEMENT_ROLE,
    ROLE_FABRIC,
    DeviceSpec,
    PortGroupSpec,
    PortUsage,
    as_lookup,
    effective_count,
    rows_touching,
)

__all__ = [
    "Connection",
    "PortChoice",
    "choose_ports",
    "describe_link",
    "fabric_hint",
    "plan_connection",
    "suggest_link",
]

_name = device_name


@dataclass(frozen=True, slots=True)
class PortChoice:
    """Port groups, fabric and speed for a link between two devices."""

    a_port: str
    b_port: str
    fabric: Fabric
    speed_gbps: int
    management: bool = False
    """A management (``oob``-role) port group is on one end or both."""


def fabric_hint(design: Design, device_ids: Iterable[str]) -> Fabric | None:
    """The most common fabric among links touching these devices (None if none)."""
    fabrics = design.links.fabric
    counts: Counter[str] = Counter(
        fabrics[i] for i in rows_touching(design, device_ids)
    )
    if not counts:
        return None
    return max(FABRIC_ORDER, key=lambda f: (counts[f], -FABRIC_ORDER.index(f)))


def _management_ends(ga: PortGroupSpec, gb: PortGroupSpec) -> int:
    return (ga.role == MANAGEMENT_ROLE) + (gb.role == MANAGEMENT_ROLE)


def _only_management(spec: DeviceSpec) -> bool:
    return all(g.role == MANAGEMENT_ROLE for g in spec.port_groups)


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
    carried: tuple[Fabric | None, Fabric | None] = (None, None),
    design: Design | None = None,
) -> PortChoice:
    """The best port groups to join ``da`` and ``db``, or the closest typed error.

    See the module doc for the order. ``hint``: the fabric of a switch-to-switch
    link; ``carried``: the fabric each device's links carry most (a switch end
    prefers it). With ``usage`` the port budget for ``cables`` cables is
    checked too.
    """
    if da.id == db.id:
        raise SelfLink(f"a link cannot join {da.id!r} to itself", devices=(da.id,))
    both_oob = fabric is Fabric.OOB or (_only_management(sa) and _only_management(sb))
    # Compatible pairs (rank, choice, budget error) and the closest refusal.
    fits: list[tuple[tuple[int, ...], PortChoice, ConnectionRefused | None]] = []
    closest: tuple[tuple[int, ...], ConnectionRefused] | None = None
    held_back = False
    order = 0
    for ga in sa.port_groups:
        for gb in sb.port_groups:
            order += 1
            err: ConnectionRefused | None
            ra, rb = ROLE_FABRIC.get(ga.role), ROLE_FABRIC.get(gb.role)
            fab = fabric or ra or rb or hint or _by_speed(ga, gb, speed_gbps)
            mgmt = _management_ends(ga, gb)
            # a switch end (role any) already carrying this fabric is preferred
            ends = (
                carried[0] if ra is None else None,
                carried[1] if rb is None else None,
            )
            usual = 0 if fab in ends else 1
            if fabric is None and ra is not None and rb is not None and ra is not rb:
                stage, speed = -1, 0
                err = FabricMismatch(
                    f"{_name(da)} port group '{ga.name}' is for the {ra.value} "
                    f"fabric but {_name(db)} port group '{gb.name}' is for the "
                    f"{rb.value} fabric",
                    devices=(da.id, db.id),
                )
            else:
                stage, err, speed = link_problem(
                    da, sa, ga, db, sb, gb, fab, speed_gbps
                )
            if err is None and mgmt == 2 and not both_oob:
                held_back = True
                continue
            if err is not None:
                # A data pair's reason explains a refusal better than a BMC's;
                # asked for out-of-band, the out-of-band rule's reason does.
                key = (
                    0 if stage == 4 or fabric is not Fabric.OOB else 1,
                    min(mgmt, 1),
                    FABRIC_ORDER.index(fab) if stage >= 0 else 9,
                    -stage,
                    order,
                )
                if closest is None or key < closest[0]:
                    closest = (key, err)
                continue
            budget: ConnectionRefused | None = None
            if usage is not None:
                for dev, spec, grp in ((da, sa, ga), (db, sb, gb)):
                    capacity = effective_count(dev, spec, grp)
                    after = usage.native(dev.id, grp, (speed, cables))
                    if after > capacity:
                        far = (
                            None
                            if design is None
                            else cabled_ends(design, dev.id, grp.name)
                        )
                        if far is not None:
                            other = db.id if dev is da else da.id
                            far[other] = far.get(other, 0) + cables
                        budget = over_budget(
                            dev,
                            grp,
                            capacity,
                            after,
                            _links(usage, dev, grp, cables),
                            ends=far,
                        )
                        break
            rank = (mgmt, usual, FABRIC_ORDER.index(fab), -speed, order)
            choice = PortChoice(ga.name, gb.name, fab, speed, mgmt > 0)
            fits.append((rank, choice, budget))
    if fits:
        top = min(rank[:3] for rank, _, _ in fits)
        same = sorted((f for f in fits if f[0][:3] == top), key=lambda f: f[0])
        for _, choice, budget in same:
            if budget is None:
                return choice
        assert same[0][2] is not None
        raise same[0][2]
    if closest is None:
        raise NoCompatiblePorts(
            f"{_name(da)} or {_name(db)} has no port groups", devices=(da.id, db.id)
        )
    if held_back:
        raise closest[1].with_context(
            "",
            suffix="; only their management ports would match, and two "
            "management ports are joined only when out-of-band is asked for",
        )
    raise closest[1]


def _by_speed(ga: PortGroupSpec, gb: PortGroupSpec, speed: int | None) -> Fabric:
    """Fabric of a switch-to-switch link without a hint: 1G is management."""
    if speed is None:
        common = set(ga.speeds_gbps).intersection(gb.speeds_gbps)
        speed = max(common) if common else 0
    return Fabric.OOB if 0 < speed <= 1 else Fabric.COMPUTE


def _links(usage: PortUsage, dev: Device, grp: PortGroupSpec, cables: int) -> int:
    return usage.links(dev.id, grp.name) + cables


@dataclass(frozen=True, slots=True)
class Connection:
    """A planned link between two devices and what it is, for the status bar."""

    link: Link
    description: str
    """'8 cables, compute, 400G: dgx-01 compute -> leaf-1 ports'."""
    management: bool
    """An out-of-band (management) port group is on an end."""


def describe_link(link: Link) -> str:
    """'4 cables, compute, 400G: dgx-01 compute -> leaf-1 ports' (status bar text)."""
    n = link.cables
    return (
        f"{n} cable{'' if n == 1 else 's'}, {link.fabric.value}, "
        f"{link.speed_gbps}G: {link.a} {link.a_port} -> {link.b} {link.b_port}"
    )


def plan_connection(
    design: Design,
    a_id: str,
    b_id: str,
    lookup: Any,
    *,
    fabric: Fabric | None = None,
    speed_gbps: int | None = None,
    cables: int | None = None,
) -> Connection:
    """The link a connect gesture from ``a_id`` to ``b_id`` makes (not added).

    Port groups and fabric as the module doc says; ``fabric=Fabric.OOB`` asks
    for an out-of-band link explicitly. ``cables`` None takes every free port of
    the chosen group up to the other end's free ports; ``cables=1`` one cable.
    The link passes :func:`check_links`; a refusal is a
    :class:`ConnectionRefused` with the reason.
    """
    look = as_lookup(lookup)
    if a_id == b_id:
        raise SelfLink(f"a link cannot join {a_id!r} to itself", devices=(a_id,))
    if cables is not None and cables < 1:
        raise ValueError(f"cables must be at least 1, not {cables}")
    devices = design.device_map()
    da, sa, _ = resolve(devices, a_id, None, look)
    db, sb, _ = resolve(devices, b_id, None, look)
    usage = PortUsage.of(design, (a_id, b_id))
    choice = choose_ports(
        da,
        sa,
        db,
        sb,
        fabric=fabric,
        speed_gbps=speed_gbps,
        hint=fabric_hint(design, (a_id, b_id)) if fabric is None else None,
        usage=usage,
        cables=cables or 1,
        carried=(fabric_hint(design, (a_id,)), fabric_hint(design, (b_id,))),
        design=design,
    )
    if cables is None:
        ga, gb = sa.port_group(choice.a_port), sb.port_group(choice.b_port)
        assert ga is not None and gb is not None
        cables = max(
            1,
            min(
                free_links(usage, da, sa, ga, choice.speed_gbps),
                free_links(usage, db, sb, gb, choice.speed_gbps),
            ),
        )
    link = Link(
        id=new_id(f"{a_id}--{b_id}", design.links.id_set(), bare_first=True),
        a=a_id,
        a_port=choice.a_port,
        b=b_id,
        b_port=choice.b_port,
        cables=cables,
        speed_gbps=choice.speed_gbps,
        fabric=choice.fabric,
    )
    check_links(design, [link], look)
    return Connection(link, describe_link(link), choice.management)


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
    """A valid new link of ``cables`` cables between two devices (not added).

    The same choice as :func:`plan_connection` with a fixed cable count; raises
    a :class:`ConnectionRefused` subclass with the reason when no pair works.
    """
    del usage  # counted from the two devices' rows, which is as fast
    return plan_connection(
        design,
        a_id,
        b_id,
        lookup,
        fabric=fabric,
        speed_gbps=speed_gbps,
        cables=cables,
    ).link
