"""What the connection rules need to know about hardware, without the catalog.

Core does not import ``designer.catalog``. A rule takes a *lookup*: a callable
``catalog_id -> spec-or-entry`` or a mapping such as the loaded catalog; entries
are adapted by duck typing (:func:`spec_from_entry`), so callers pass catalog
entries directly.

Port counting: one cable is one logical port at each end. A twin-port OSFP cage
holds two ports (a QM9700 has 64 ports in 32 cages). A port running at a lower
speed with a ``breakout`` splits into several logical ports (SN5600: one 800G
port = two 400G links), so the budget is kept in native ports:
``sum over speeds of ceil(links at that speed / split)``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from designer.core.model import Design, Device, Fabric

__all__ = [
    "FABRIC_ORDER",
    "MANAGEMENT_ROLE",
    "MANAGEMENT_SWITCH_MAX_GBPS",
    "ROLE_FABRIC",
    "DeviceSpec",
    "Lookup",
    "PortGroupSpec",
    "PortUsage",
    "as_lookup",
    "effective_count",
    "is_management_switch",
    "ports_in_use",
    "rows_touching",
    "spec_from_entry",
]

ROLE_FABRIC: dict[str, Fabric] = {
    "compute": Fabric.COMPUTE,
    "storage": Fabric.STORAGE,
    "inband": Fabric.INBAND,
    "oob": Fabric.OOB,
}
"""Port-group role -> the fabric it is meant for (role ``any``: every fabric)."""

MANAGEMENT_ROLE = "oob"
"""Role of a management port group: a BMC, a switch's mgmt port, an OOB
switch's uplinks."""

MANAGEMENT_SWITCH_MAX_GBPS = 10
"""A switch whose data ports run at no more than this is a management
(out-of-band) switch: an SN2201's 48 x 1G access ports, not a fabric switch."""

FABRIC_ORDER: tuple[Fabric, ...] = (
    Fabric.COMPUTE,
    Fabric.STORAGE,
    Fabric.INBAND,
    Fabric.OOB,
)
MEDIA_NAMES = {"infiniband": "InfiniBand", "ethernet": "Ethernet"}


@dataclass(frozen=True, slots=True)
class PortGroupSpec:
    """A port group as the rules see it (a catalog ``interface``)."""

    name: str
    count: int
    speeds_gbps: tuple[int, ...]
    media: str  # "infiniband" | "ethernet"
    role: str  # "compute" | "storage" | "inband" | "oob" | "any"
    ports_per_cage: int = 1
    breakout: tuple[tuple[int, int], ...] = ()  # (speed, links per native port)
    alt_media: tuple[str, ...] = ()
    port_names: tuple[str, ...] = ()
    """Front-panel (NetBox) names of the ports, in cage order."""
    port_format: str | None = None
    """Name of port ``n`` beyond the listed ones (configurable entries)."""
    modules: tuple[tuple[int, str], ...] | None = None
    """The pluggable module a port takes at each speed ("" when the cable
    brings its own ends), from the catalog's optics table (None: unknown)."""

    def module_kind(self, speed_gbps: int) -> tuple[int, str]:
        """What a cage holds at ``speed_gbps``: ``(0, module id)``, ``(1, "")``
        for cables with their own ends; without an optics table the speed
        stands for the module (a cage runs one speed)."""
        if self.modules is None:
            return 0, f"{speed_gbps}G"
        for speed, module in self.modules:
            if speed == speed_gbps:
                return (0, module) if module else (1, "")
        return 1, ""

    def port_name(self, i: int) -> str | None:
        """Name of 0-based port ``i`` (None: no such port)."""
        if 0 <= i < len(self.port_names):
            return self.port_names[i]
        if i >= 0 and self.port_format is not None:
            return self.port_format.format(n=i + 1)
        if i >= 0 and not self.port_names:
            return f"{self.name}{i + 1}"  # a spec built without names (tests)
        return None

    @property
    def medias(self) -> tuple[str, ...]:
        """Every link layer the group can run (native first)."""
        return (self.media, *self.alt_media)

    def split(self, speed_gbps: int) -> int:
        """Links one native port carries at ``speed_gbps`` (1 without breakout)."""
        for speed, n in self.breakout:
            if speed == speed_gbps:
                return n
        return 1

    def describe_count(self, count: int | None = None) -> str:
        """'64 ports (32 twin-port cages)' style text for messages."""
        n = self.count if count is None else count
        text = f"{n} port" + ("" if n == 1 else "s")
        if self.ports_per_cage == 2:
            text += f" ({-(-n // 2)} twin-port cages)"
        elif self.ports_per_cage > 2:
            text += f" ({-(-n // self.ports_per_cage)} cages)"
        return text


@dataclass(frozen=True, slots=True)
class DeviceSpec:
    """The port groups of one catalog entry."""

    catalog_id: str
    port_groups: tuple[PortGroupSpec, ...]
    configurable: bool = False
    category: str = ""
    _by_name: dict[str, PortGroupSpec] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        self._by_name.update({g.name: g for g in self.port_groups})

    def port_group(self, name: str) -> PortGroupSpec | None:
        """The port group called ``name``, or None."""
        return self._by_name.get(name)

    def groups_for(self, role: str) -> list[PortGroupSpec]:
        """Port groups with this role (``compute``, ``any``, ...)."""
        return [g for g in self.port_groups if g.role == role]


def is_management_switch(spec: DeviceSpec) -> bool:
    """A switch whose data (non-management) ports run at management speed only."""
    if spec.category != "switch":
        return False
    data = [g for g in spec.port_groups if g.role != MANAGEMENT_ROLE]
    fastest = max((max(g.speeds_gbps, default=0) for g in data), default=0)
    return 0 < fastest <= MANAGEMENT_SWITCH_MAX_GBPS


Lookup = Callable[[str], DeviceSpec | None]
"""Catalog id -> spec (None when the id is unknown)."""


def _text(value: object) -> str:
    """Enum members and strings alike as their plain value."""
    return str(getattr(value, "value", value))


def _modules(optics: Any, interface: Any) -> tuple[tuple[int, str], ...] | None:
    """The module of ``interface`` at each of its speeds, as the cabling plan
    and the analysis count it (``optics.module_for``; None without optics)."""
    if optics is None:
        return None
    out: list[tuple[int, str]] = []
    for speed in interface.speeds_gbps:
        try:
            module = optics.module_for(interface, int(speed))
        except (KeyError, ValueError, AssertionError):
            module = None
        out.append((int(speed), module.id if module is not None else ""))
    return tuple(out)


def spec_from_entry(entry: Any, optics: Any = None) -> DeviceSpec:
    """Adapt any catalog-entry-like object (``slug``/``id``, ``interfaces``);
    with ``optics`` (the catalog's table) each group knows its modules."""
    if isinstance(entry, DeviceSpec):
        return entry
    groups = tuple(
        PortGroupSpec(
            name=str(i.name),
            count=int(i.count),
            speeds_gbps=tuple(int(s) for s in i.speeds_gbps),
            media=_text(i.media),
            role=_text(i.role),
            ports_per_cage=int(getattr(i, "ports_per_cage", 1) or 1),
            breakout=tuple(
                sorted(
                    (int(s), int(n))
                    for s, n in (getattr(i, "breakout", {}) or {}).items()
                )
            ),
            alt_media=tuple(_text(m) for m in getattr(i, "alt_media", ()) or ()),
            port_names=tuple(str(n) for n in getattr(i, "ports", ()) or ()),
            port_format=getattr(i, "port_format", None),
            modules=_modules(optics, i),
        )
        for i in entry.interfaces
    )
    ext = getattr(entry, "ext", None)
    configurable = getattr(entry, "configurable", None)
    if configurable is None:
        configurable = getattr(ext, "configurable", False)
    category = getattr(entry, "category", None)
    if category is None:
        category = getattr(ext, "category", "")
    catalog_id = getattr(entry, "slug", None) or getattr(entry, "id", "")
    return DeviceSpec(
        catalog_id=str(catalog_id),
        port_groups=groups,
        configurable=bool(configurable),
        category=_text(category or ""),
    )


def as_lookup(source: Any) -> Lookup:
    """Normalise a mapping or callable of entries/specs into a cached :data:`Lookup`."""
    if getattr(source, "_designer_lookup", False):
        return source  # type: ignore[no-any-return]
    cache: dict[str, DeviceSpec | None] = {}
    optics = getattr(source, "optics", None) if isinstance(source, Mapping) else None
    if isinstance(source, Mapping):
        raw: Callable[[str], Any] = source.get
    elif callable(source):
        raw = source
    else:
        raise TypeError(
            f"lookup must be a mapping or a callable, not {type(source).__name__}"
        )

    def lookup(catalog_id: str) -> DeviceSpec | None:
        try:
            return cache[catalog_id]
        except KeyError:
            pass
        try:
            entry = raw(catalog_id)
        except KeyError:
            entry = None
        spec = None if entry is None else spec_from_entry(entry, optics)
        cache[catalog_id] = spec
        return spec

    lookup._designer_lookup = True  # type: ignore[attr-defined]
    return lookup


def effective_count(device: Device, spec: DeviceSpec, group: PortGroupSpec) -> int:
    """Native ports of ``group`` on ``device`` (``Device.ports`` if configurable)."""
    if spec.configurable and device.ports and group.name in device.ports:
        return device.ports[group.name]
    return group.count


def _add_extra_cables(
    usage: Counter[Any], design: Design, with_speed: bool
) -> Counter[Any]:
    """Add cables beyond the first of multi-cable links (rare rows only)."""
    s = design.links.arrays
    names, ports = s.names, s.port_names
    for i in np.flatnonzero(s.cables != 1).tolist():
        extra = int(s.cables[i]) - 1
        a, ap = names[s.a[i]], ports[s.a_port[i]]
        b, bp = names[s.b[i]], ports[s.b_port[i]]
        if with_speed:
            speed = int(s.speed[i])
            usage[(a, ap, speed)] += extra
            usage[(b, bp, speed)] += extra
        else:
            usage[(a, ap)] += extra
            usage[(b, bp)] += extra
    return usage


def rows_touching(design: Design, device_ids: Iterable[str]) -> list[int]:
    """Sorted positions of the links with an end on one of ``device_ids``."""
    return design.links.rows_touching(device_ids)


def ports_in_use(design: Design) -> Counter[tuple[str, str]]:
    """Cables (links) attached per (device id, port group); missing keys are 0.

    One pass over the link columns. With breakouts a native port holds several
    links; :class:`PortUsage` turns these counts into native ports.
    """
    t = design.links
    usage: Counter[tuple[str, str]] = Counter(zip(t.a, t.a_port, strict=True))
    usage.update(zip(t.b, t.b_port, strict=True))
    return _add_extra_cables(usage, design, with_speed=False)


class PortUsage:
    """Links per (device, port group, speed), and the native ports they take."""

    def __init__(self, counts: Counter[tuple[str, str, int]] | None = None) -> None:
        self._by_group: dict[tuple[str, str], dict[int, int]] = {}
        for (dev, port, speed), n in (counts or Counter()).items():
            self._by_group.setdefault((dev, port), {})[speed] = n

    @classmethod
    def of(cls, design: Design, only: Iterable[str] | None = None) -> PortUsage:
        """Usage of every port group in ``design`` (one pass over the columns).

        With ``only``, just those devices' port groups (fast: C-level scans).
        """
        t = design.links
        if only is not None:
            counts_only: Counter[tuple[str, str, int]] = Counter()
            wanted = set(only)
            s = t.arrays  # read the rows' codes: no column is turned into a list
            for i in design.links.rows_touching(wanted):
                speed, cables = int(s.speed[i]), int(s.cables[i])
                for dev, port in ((s.a[i], s.a_port[i]), (s.b[i], s.b_port[i])):
                    name = s.names[dev]
                    if name in wanted:
                        counts_only[(name, s.port_names[port], speed)] += cables
            return cls(counts_only)
        counts: Counter[tuple[str, str, int]] = Counter(
            zip(t.a, t.a_port, t.speed_gbps, strict=True)
        )
        counts.update(zip(t.b, t.b_port, t.speed_gbps, strict=True))
        return cls(_add_extra_cables(counts, design, with_speed=True))

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self._by_group)

    def links(self, device_id: str, port: str) -> int:
        """Links (cables) on a port group."""
        return sum(self._by_group.get((device_id, port), {}).values())

    def links_at(self, device_id: str, port: str, speed: int) -> int:
        """Links (cables) on a port group at one speed."""
        return self._by_group.get((device_id, port), {}).get(speed, 0)

    def native_at(self, device_id: str, group: PortGroupSpec, speed: int) -> int:
        """Native ports the links at ``speed`` take."""
        n = self.links_at(device_id, group.name, speed)
        return -(-n // group.split(speed)) if n > 0 else 0

    def add(self, device_id: str, port: str, speed: int, cables: int) -> None:
        """Count ``cables`` more (negative to remove) at ``speed``."""
        per = self._by_group.setdefault((device_id, port), {})
        per[speed] = per.get(speed, 0) + cables

    def native(
        self, device_id: str, group: PortGroupSpec, extra: tuple[int, int] | None = None
    ) -> int:
        """Native ports taken, optionally with ``extra`` = (speed, cables) added."""
        per = self._by_group.get((device_id, group.name), {})
        if extra is not None:
            per = dict(per)
            per[extra[0]] = per.get(extra[0], 0) + extra[1]
        total = 0
        for speed, n in per.items():
            if n > 0:
                split = group.split(speed)
                total += -(-n // split)
        return total
