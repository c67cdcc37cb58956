"""Port counts of a placed device: catalog count, or ``Device.ports`` when allowed.

Only entries marked ``configurable`` (``generic-switch``, ``generic-host``) take
their port counts from the design (``Device.ports = {"ports": k}``); for every
other entry the catalog count wins and an override is a mistake the analysis
should report (:func:`device_ports_problems`).
"""

from __future__ import annotations

from collections.abc import Mapping

from designer.catalog.schema import CatalogEntry


def effective_ports(
    entry: CatalogEntry, device_ports: Mapping[str, int] | None, interface: str
) -> int:
    """Ports of port group ``interface`` on a device (0 when the group is absent)."""
    iface = entry.interface(interface)
    if iface is None:
        return 0
    if entry.ext.configurable and device_ports and interface in device_ports:
        return int(device_ports[interface])
    return iface.count


def effective_ports_at(
    entry: CatalogEntry,
    device_ports: Mapping[str, int] | None,
    interface: str,
    speed_gbps: int,
) -> int:
    """Port budget of a group at ``speed_gbps`` (breakout applied; 0: unsupported)."""
    iface = entry.interface(interface)
    if iface is None:
        return 0
    return iface.ports_at(speed_gbps, effective_ports(entry, device_ports, interface))


def effective_radix(entry: CatalogEntry, device_ports: Mapping[str, int] | None) -> int:
    """Native-speed ports of a switch's ``ports`` group (0: not a switch)."""
    if entry.radix is None:
        return 0
    return effective_ports(entry, device_ports, "ports")


def device_ports_problems(
    entry: CatalogEntry, device_ports: Mapping[str, int] | None
) -> list[str]:
    """Why a device's ``ports`` override is not honoured (empty when fine)."""
    if not device_ports:
        return []
    if not entry.ext.configurable:
        return [
            f"{entry.slug} has fixed port counts; the override "
            f"{dict(device_ports)} is ignored (only configurable entries such as "
            "generic-switch take Device.ports)"
        ]
    names = [i.name for i in entry.interfaces]
    return [
        f"{entry.slug} has no port group {name!r} (it has {', '.join(names)})"
        for name in device_ports
        if name not in names
    ]
