"""The connection rules: what makes a link between two port groups valid.

A link is valid when both devices exist and differ, both port groups exist,
each port group's role fits the link's fabric (``any`` fits every fabric), the
two groups share a link layer (InfiniBand or Ethernet, VPI alternatives
included), both run the link speed, an out-of-band link joins a management
port to a management switch (:data:`OOB_RULE`), and both have enough free
native ports. Hardware comes from a *lookup* (see :mod:`designer.core.specs`);
pass the loaded catalog directly. This module holds the rules for one pair of
ends (:func:`resolve`, :func:`pair_check`, :func:`link_problem`); the port
budget and the entry points are in :mod:`designer.core.checks`.

Entry points and the function each calls (all raise
:class:`~designer.core.errors.ConnectionRefused` with the same reason for the
same bad edit):

- canvas connect: :func:`designer.core.connect.plan_connection` (port choice,
  all free ports or one cable, a status-bar description; checked by
  :func:`designer.core.checks.check_links`);
- bulk wiring (:mod:`designer.core.wiring`): ``check_links`` on the batch;
- paste (:func:`designer.core.edits.paste` with a lookup): ``check_links``
  with the pasted devices;
- Properties edits of a link: :func:`designer.core.checks.check_link_update` /
  ``check_link_updates`` before ``UpdateLink``;
  :func:`designer.core.checks.link_limits` bounds the widgets;
- the validator and CLI: :func:`designer.core.checks.check_design`, the same
  checks on a design.
"""

from __future__ import annotations

from collections.abc import Mapping

from designer.core.errors import (
    ConnectionRefused,
    FabricMismatch,
    MediaMismatch,
    OutOfBandMismatch,
    SpeedMismatch,
    UnknownCatalogEntry,
    UnknownDevice,
    UnknownPortGroup,
    device_name,
)
from designer.core.model import Device, Fabric
from designer.core.specs import (
    MANAGEMENT_ROLE,
    MEDIA_NAMES,
    ROLE_FABRIC,
    DeviceSpec,
    Lookup,
    PortGroupSpec,
    is_management_switch,
)

__all__ = [
    "OOB_RULE",
    "end_kind",
    "link_problem",
    "media_problem",
    "oob_problem",
    "pair_check",
    "resolve",
    "role_problem",
    "speed_problem",
]

_name = device_name


def _speeds(group: PortGroupSpec) -> str:
    return "/".join(str(s) for s in group.speeds_gbps)


def _media(group: PortGroupSpec) -> str:
    return " or ".join(MEDIA_NAMES.get(m, m) for m in group.medias)


def role_problem(
    da: Device,
    ga: PortGroupSpec,
    db: Device,
    gb: PortGroupSpec,
    fabric: Fabric,
    link_id: str | None = None,
) -> ConnectionRefused | None:
    """A port group meant for another fabric than ``fabric`` (a's end first)."""
    for dev, grp in ((da, ga), (db, gb)):
        meant = ROLE_FABRIC.get(grp.role)
        if meant is not None and meant is not fabric:
            return FabricMismatch(
                f"{_name(dev)} port group '{grp.name}' is for the {meant.value} "
                f"fabric, not the {fabric.value} fabric",
                link_id=link_id,
                devices=(da.id, db.id),
            )
    return None


def media_problem(
    da: Device,
    ga: PortGroupSpec,
    db: Device,
    gb: PortGroupSpec,
    link_id: str | None = None,
) -> ConnectionRefused | None:
    """InfiniBand on one end and Ethernet on the other (VPI alternatives count)."""
    if set(ga.medias).intersection(gb.medias):
        return None
    return MediaMismatch(
        f"{_name(da)} port group '{ga.name}' is {_media(ga)} but {_name(db)} "
        f"port group '{gb.name}' is {_media(gb)}; a link joins InfiniBand to "
        "InfiniBand or Ethernet to Ethernet",
        link_id=link_id,
        devices=(da.id, db.id),
    )


def speed_problem(
    da: Device,
    ga: PortGroupSpec,
    db: Device,
    gb: PortGroupSpec,
    speed: int,
    link_id: str | None = None,
) -> ConnectionRefused | None:
    """A speed one of the port groups cannot run (a's end first)."""
    for dev, grp in ((da, ga), (db, gb)):
        if speed not in grp.speeds_gbps:
            return SpeedMismatch(
                f"{speed} Gb/s is not supported by {_name(dev)} port group "
                f"'{grp.name}' (runs at {_speeds(grp)} Gb/s)",
                link_id=link_id,
                devices=(da.id, db.id),
            )
    return None


OOB_RULE = (
    "an out-of-band link joins a management port (a BMC or a switch's mgmt "
    "port) to a management switch's access port"
)
"""The out-of-band rule, as every refusal of it starts."""


def end_kind(spec: DeviceSpec, group: PortGroupSpec) -> str:
    """What a port group is on the out-of-band network.

    ``management``: a BMC or a switch's management port; ``access``: a
    management switch's data ports; ``uplink``: a management switch's
    management-role uplinks (SN2201 4 x 100G); ``data``: anything else.
    """
    mgmt_switch = is_management_switch(spec)
    if group.role == MANAGEMENT_ROLE:
        return "uplink" if mgmt_switch else "management"
    return "access" if mgmt_switch else "data"


_OOB_PAIRS = frozenset(
    {
        frozenset({"management", "access"}),
        frozenset({"access"}),  # two management switches chained
        frozenset({"uplink", "access"}),
        frozenset({"uplink"}),
    }
)


def oob_problem(
    da: Device,
    sa: DeviceSpec,
    ga: PortGroupSpec,
    db: Device,
    sb: DeviceSpec,
    gb: PortGroupSpec,
    link_id: str | None = None,
) -> ConnectionRefused | None:
    """Why an out-of-band link between these port groups makes no physical
    sense (None: it does). A management switch's uplinks may also go to any
    other switch's data ports (the in-band spines aggregate the OOB switches)."""
    ka, kb = end_kind(sa, ga), end_kind(sb, gb)
    pair = frozenset({ka, kb})
    if pair in _OOB_PAIRS:
        return None
    a = f"{_name(da)} port group '{ga.name}'"
    b = f"{_name(db)} port group '{gb.name}'"
    if pair == frozenset({"uplink", "data"}):
        other, spec = (db, sb) if ka == "uplink" else (da, sa)
        if spec.category == "switch":
            return None
        why = (
            f"{_name(other)} is not a switch: a management switch's uplinks "
            "go to another switch"
        )
    elif ka == kb == "management":
        why = (
            f"{a} and {b} are both management ports; cable each to a "
            "management switch (such as an SN2201)"
        )
    elif ka == kb == "data":
        why = (
            f"{a} and {b} are data ports, and neither device is a management "
            "switch; link them on the compute, storage or in-band fabric"
        )
    elif pair == frozenset({"management", "data"}):
        mgmt, other = (a, db) if ka == "management" else (b, da)
        why = (
            f"{mgmt} is a management port but {_name(other)} is not a management "
            "switch (its ports carry data)"
        )
    elif pair == frozenset({"management", "uplink"}):
        mgmt, up = (a, b) if ka == "management" else (b, a)
        why = f"{up} is an uplink; cable {mgmt} to the management switch's access ports"
    else:  # access to data
        acc, rest = (a, b) if ka == "access" else (b, a)
        why = (
            f"{acc} is an access port but {rest} is not a management port; a "
            "management switch reaches the rest of the network through its uplinks"
        )
    return OutOfBandMismatch(
        f"{OOB_RULE}: {why}", link_id=link_id, devices=(da.id, db.id)
    )


def link_problem(
    da: Device,
    sa: DeviceSpec,
    ga: PortGroupSpec,
    db: Device,
    sb: DeviceSpec,
    gb: PortGroupSpec,
    fabric: Fabric,
    speed: int | None,
    link_id: str | None = None,
) -> tuple[int, ConnectionRefused | None, int]:
    """:func:`pair_check`, then the out-of-band rule for an ``oob`` link
    (stage 4: compatible ports, refused by :func:`oob_problem`)."""
    stage, err, chosen = pair_check(da, ga, db, gb, fabric, speed, link_id)
    if err is None and fabric is Fabric.OOB:
        err = oob_problem(da, sa, ga, db, sb, gb, link_id)
        if err is not None:
            return 4, err, 0
    return stage, err, chosen


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
    err = role_problem(da, ga, db, gb, fabric, link_id)
    if err is not None:
        return 0, err, 0
    err = media_problem(da, ga, db, gb, link_id)
    if err is not None:
        return 1, err, 0
    if speed is None:
        common = set(ga.speeds_gbps).intersection(gb.speeds_gbps)
        if common:
            return 3, None, max(common)
        return (
            2,
            SpeedMismatch(
                f"{_name(da)} port group '{ga.name}' runs at {_speeds(ga)} Gb/s and "
                f"{_name(db)} port group '{gb.name}' at {_speeds(gb)} Gb/s: no "
                "common speed",
                link_id=link_id,
                devices=(da.id, db.id),
            ),
            0,
        )
    err = speed_problem(da, ga, db, gb, speed, link_id)
    if err is not None:
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
