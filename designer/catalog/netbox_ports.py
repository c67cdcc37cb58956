"""A NetBox device type's interfaces grouped the way catalog port groups are:
by NetBox type and name pattern (``P0.0 .. P31.1``, ``sw1p1 .. sw72p2``,
``swp1 .. swp48``), with the native speed and link layer of the type
(``400gbase-x-osfp`` 400G Ethernet, ``infiniband-xdr`` 800G InfiniBand), the
names compressed to a pattern, the gaps of a numbered sequence and twin-port
cages. :func:`designer.catalog.netbox_import.import_device_type` builds the
entry's port groups from them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from designer.catalog.netbox import NetboxDeviceType, expand_names
from designer.catalog.optics import Optics
from designer.catalog.schema import Media

__all__ = [
    "InterfaceGroup",
    "compress",
    "group_interfaces",
    "missing_in_sequence",
    "speed_of",
    "stem",
    "twin_cages",
    "twin_module",
]

_SPEED = re.compile(r"^(\d+(?:\.\d+)?)(g?)base-")
_IB = {
    "infiniband-sdr": 10,
    "infiniband-ddr": 20,
    "infiniband-qdr": 40,
    "infiniband-fdr10": 40,
    "infiniband-fdr": 56,
    "infiniband-edr": 100,
    "infiniband-hdr": 200,
    "infiniband-ndr": 400,
    "infiniband-xdr": 800,
}
_MGMT = re.compile(r"(mgmt|eth0|eth1|bmc|ipmi|oob|fnm|console)", re.IGNORECASE)
_TWO = re.compile(r"^(\D*?)(\d+)(\D+)(\d+)$")
_ONE = re.compile(r"^(\D*?)(\d+)$")


def speed_of(netbox_type: str) -> tuple[int, Media] | None:
    """(native Gb/s, link layer) of a NetBox interface type (None: not a data port)."""
    if netbox_type in _IB:
        return _IB[netbox_type], Media.INFINIBAND
    m = _SPEED.match(netbox_type)
    if m is None:
        return None
    value = float(m.group(1))
    gbps = value if m.group(2) else value / 1000
    if gbps < 1 or gbps != int(gbps):
        return None
    return int(gbps), Media.ETHERNET


def stem(name: str) -> str:
    """The name with every number as ``#`` (``osfp#/#``): its pattern."""
    return re.sub(r"\d+", "#", name)


def compress(names: list[str]) -> str | list[str]:
    """A pattern such as ``P[0-31].[0-1]`` when it expands to exactly ``names``."""
    if len(names) == 1:
        return names[0]
    two = [_TWO.match(n) for n in names]
    if names and all(two):
        parts = [m.groups() for m in two if m]
        heads = {(p[0], p[2]) for p in parts}
        if len(heads) == 1:
            ((head, sep),) = heads
            a = sorted({int(p[1]) for p in parts})
            b = sorted({int(p[3]) for p in parts})
            pattern = f"{head}[{a[0]}-{a[-1]}]{sep}[{b[0]}-{b[-1]}]"
            if _expands(pattern, names):
                return pattern
    one = [_ONE.match(n) for n in names]
    if names and all(one):
        parts1 = [m.groups() for m in one if m]
        if len({p[0] for p in parts1}) == 1:
            nums = [int(p[1]) for p in parts1]
            pattern = f"{parts1[0][0]}[{min(nums)}-{max(nums)}]"
            if _expands(pattern, names):
                return pattern
    return names[0] if len(names) == 1 else names


def _expands(pattern: str, names: list[str]) -> bool:
    try:
        return expand_names(pattern) == names
    except ValueError:
        return False


def missing_in_sequence(names: list[str]) -> list[str]:
    """Names a complete numbered grid of these names would have but they lack."""
    two = [_TWO.match(n) for n in names]
    if len(names) >= 4 and all(two):
        parts = [m.groups() for m in two if m]
        if len({(p[0], p[2]) for p in parts}) == 1:
            head, sep = parts[0][0], parts[0][2]
            a = sorted({int(p[1]) for p in parts})
            b = sorted({int(p[3]) for p in parts})
            have = set(names)
            return [
                f"{head}{x}{sep}{y}"
                for x in range(a[0], a[-1] + 1)
                for y in range(b[0], b[-1] + 1)
                if f"{head}{x}{sep}{y}" not in have
            ]
    one = [_ONE.match(n) for n in names]
    if len(names) >= 4 and all(one):
        parts1 = [m.groups() for m in one if m]
        if len({p[0] for p in parts1}) == 1:
            nums = {int(p[1]) for p in parts1}
            head = parts1[0][0]
            return [
                f"{head}{x}" for x in range(min(nums), max(nums) + 1) if x not in nums
            ]
    return []


def twin_cages(names: list[str]) -> bool:
    """Two-level names with exactly two ports in every cage."""
    two = [_TWO.match(n) for n in names]
    if len(names) < 4 or not all(two):
        return False
    per: dict[int, int] = {}
    for m in two:
        assert m is not None
        per[int(m.group(2))] = per.get(int(m.group(2)), 0) + 1
    return set(per.values()) == {2}


@dataclass
class InterfaceGroup:
    """Interfaces of one NetBox type and name pattern (management ports: of one
    type), with the native speed and link layer of that type."""

    stem: str
    type: str
    names: list[str]
    speed: int
    media: Media
    mgmt: bool


def group_interfaces(nb: NetboxDeviceType) -> tuple[list[InterfaceGroup], list[str]]:
    """Interfaces grouped by (type, name pattern); and the types skipped."""
    by: dict[tuple[str, str], InterfaceGroup] = {}
    skipped: list[str] = []
    for i in nb.netbox_interfaces:
        got = speed_of(i.type)
        if got is None:
            skipped.append(f"{i.name} ({i.type})")
            continue
        mgmt = (
            bool(i.mgmt_only)
            or bool(_MGMT.search(i.name))
            or bool(i.description and _MGMT.search(i.description))
        )
        key = (i.type, "mgmt" if mgmt else stem(i.name))
        g = by.get(key)
        if g is None:
            g = by[key] = InterfaceGroup(stem(i.name), i.type, [], got[0], got[1], mgmt)
        g.names.append(i.name)
    return list(by.values()), skipped


def twin_module(optics: Optics, speed: int, media: Media) -> str | None:
    """A twin-port module for the speed and link layer (multimode first)."""
    like = [
        t
        for t in optics.transceivers
        if t.links == 2 and t.speed_gbps == speed and media in t.media
    ]
    like.sort(key=lambda t: t.medium.value != "multimode")
    return like[0].id if like else None
