"""Typed connection errors; each message names devices, port groups and numbers."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from designer.core.model import Device
from designer.core.specs import PortGroupSpec

__all__ = [
    "ConnectionRefused",
    "FabricMismatch",
    "InvalidLink",
    "MediaMismatch",
    "NoCompatiblePorts",
    "NothingToWire",
    "OutOfBandMismatch",
    "PortBudgetExceeded",
    "PortTaken",
    "RailMismatch",
    "RailsTaken",
    "SelfLink",
    "SpeedMismatch",
    "UnknownCatalogEntry",
    "UnknownDevice",
    "UnknownLink",
    "UnknownPortGroup",
    "cabled_to",
    "device_name",
    "over_budget",
]


_E = TypeVar("_E", bound=BaseException)


def _rebuild(cls: type[_E], state: dict[str, Any]) -> _E:
    """Recreate an error from its attributes (copy, pickle)."""
    new = cls.__new__(cls)
    new.__dict__.update(state)
    new.args = (state.get("message", ""),)
    return new


class ConnectionRefused(ValueError):
    """A link breaks a connection rule; the message says which and why."""

    def __init__(
        self,
        message: str,
        *,
        link_id: str | None = None,
        devices: Iterable[str] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.link_id = link_id
        self.devices: tuple[str, ...] = tuple(devices)

    @property
    def items(self) -> tuple[str, ...]:
        """Ids involved (link first, then devices), for findings."""
        return ((self.link_id,) if self.link_id else ()) + self.devices

    def with_context(self, prefix: str, suffix: str = "") -> ConnectionRefused:
        """A copy of the same type with ``prefix`` and ``suffix`` around the message."""
        new = _rebuild(type(self), dict(self.__dict__))
        new.message = f"{prefix}{self.message}{suffix}"
        new.args = (new.message,)
        return new

    def __reduce__(self) -> tuple[Any, ...]:
        # Keyword-only constructors do not pickle or copy by default.
        return (_rebuild, (type(self), dict(self.__dict__)))

    def __str__(self) -> str:
        return self.message


class UnknownDevice(ConnectionRefused):
    """A link names a device that is not in the design."""


class UnknownCatalogEntry(ConnectionRefused):
    """A device's catalog id is not in the catalog."""


class UnknownPortGroup(ConnectionRefused):
    """A link names a port group the device does not have."""


class SelfLink(ConnectionRefused):
    """A link joins a device to itself."""


class FabricMismatch(ConnectionRefused):
    """A port group is meant for another fabric than the link's."""


class MediaMismatch(FabricMismatch):
    """InfiniBand on one end, Ethernet on the other."""


class OutOfBandMismatch(FabricMismatch):
    """An out-of-band link that does not join a management port to a management
    switch's access port (or a management switch's uplink to another switch)."""


class SpeedMismatch(ConnectionRefused):
    """The link speed is not one both port groups can run at."""


class RailMismatch(ConnectionRefused):
    """Rail wiring needs one rail leaf per compute port of every node."""


class NoCompatiblePorts(ConnectionRefused):
    """Two devices have no port groups that can be joined at all."""


class UnknownLink(ConnectionRefused):
    """An edit names a link that is not in the design."""


class InvalidLink(ConnectionRefused):
    """A link field has a value the design model does not allow (cables < 1...)."""


class NothingToWire(ConnectionRefused):
    """A bulk wiring request would add no link (everything is already wired)."""


class PortBudgetExceeded(ConnectionRefused):
    """A port group has fewer free ports than the link needs."""

    def __init__(
        self,
        message: str,
        *,
        device: str,
        port_group: str,
        capacity: int,
        in_use: int,
        needed: int,
        link_id: str | None = None,
    ) -> None:
        super().__init__(message, link_id=link_id, devices=(device,))
        self.device = device
        self.port_group = port_group
        self.capacity = capacity
        self.in_use = in_use
        self.needed = needed


class RailsTaken(RailMismatch, PortBudgetExceeded):
    """A node's compute ports are taken by links that rail wiring would have to
    replace; ``wire_rail_optimized(..., replace=True)`` rewires it."""


class PortTaken(ConnectionRefused):
    """A port a link asks for is another link's (or not one of the group's)."""

    def __init__(
        self,
        message: str,
        *,
        device: str,
        port: str,
        link_id: str | None = None,
        holder: str | None = None,
    ) -> None:
        super().__init__(message, link_id=link_id, devices=(device,))
        self.device = device
        self.port = port
        self.holder = holder


def device_name(device: Device) -> str:
    """'qm9700 leaf-3': catalog id and device id, as messages name a device;
    the id alone when it already starts with the catalog id ('dgx-h100-2',
    not 'dgx-h100 dgx-h100-2')."""
    if device.id == device.catalog_id or device.id.startswith(f"{device.catalog_id}-"):
        return device.id
    return f"{device.catalog_id} {device.id}"


def cabled_to(ends: Mapping[str, int], shown: int = 3) -> str:
    """'9 to leaf-1' / '5 to leaf-1 and 4 to leaf-2' / '..., 3 to spine-2 and
    71 to 45 other devices': where a port group's cables go, most first."""
    items = sorted(ends.items(), key=lambda kv: (-kv[1], kv[0]))
    parts = [f"{n} to {d}" for d, n in items[:shown]]
    rest = items[shown:]
    if rest:
        others = len(rest)
        parts.append(
            f"{sum(n for _, n in rest)} to {others} other "
            f"device{'s' if others != 1 else ''}"
        )
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def over_budget(
    device: Device,
    group: PortGroupSpec,
    capacity: int,
    used: int,
    cables: int | None = None,
    *,
    proposed: bool = True,
    link_id: str | None = None,
    ends: Mapping[str, int] | None = None,
) -> PortBudgetExceeded:
    """The one port-budget reason every entry point gives, and check_design too.

    "dgx-h100 dgx-1: port group 'compute' has 8 ports (4 twin-port cages) but 9
    would be in use (1 too many)"; ``proposed`` False says "are in use" (a design
    as loaded). ``cables`` is added ("by 129 cables") when breakouts make it
    differ from the native ports ``used``. ``ends`` (cables per device at the
    other end, the edit's links included) says where the ports go: "... but 9
    would be in use (1 too many): 5 to leaf-1 and 4 to leaf-2", the same
    words for the edit and for a design that has it.
    """
    verb = "would be" if proposed else "are"
    by = "" if cables is None or cables == used else f" by {cables} cables"
    where = f": {cabled_to(ends)}" if ends else ""
    return PortBudgetExceeded(
        f"{device_name(device)}: port group '{group.name}' has "
        f"{group.describe_count(capacity)} but {used} {verb} in use{by} "
        f"({used - capacity} too many){where}",
        device=device.id,
        port_group=group.name,
        capacity=capacity,
        in_use=used,
        needed=used - capacity,
        link_id=link_id,
    )
