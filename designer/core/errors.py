"""Typed connection errors; each message names devices, port groups and numbers."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

from designer.core.model import Device
from designer.core.specs import PortGroupSpec

__all__ = [
    "ConnectionRefused",
    "FabricMismatch",
    "MediaMismatch",
    "NoCompatiblePorts",
    "PortBudgetExceeded",
    "RailMismatch",
    "SelfLink",
    "SpeedMismatch",
    "UnknownCatalogEntry",
    "UnknownDevice",
    "UnknownPortGroup",
    "budget_error",
    "device_name",
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

    def with_context(self, prefix: str) -> ConnectionRefused:
        """A copy of the same type whose message starts with ``prefix``."""
        new = _rebuild(type(self), dict(self.__dict__))
        new.message = f"{prefix}{self.message}"
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


class SpeedMismatch(ConnectionRefused):
    """The link speed is not one both port groups can run at."""


class RailMismatch(ConnectionRefused):
    """Rail wiring needs one rail leaf per compute port of every node."""


class NoCompatiblePorts(ConnectionRefused):
    """Two devices have no port groups that can be joined at all."""


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


def device_name(device: Device) -> str:
    """'qm9700 leaf-3': catalog id and device id, as messages name a device."""
    return f"{device.catalog_id} {device.id}"


def budget_error(
    device: Device,
    group: PortGroupSpec,
    capacity: int,
    in_use: int,
    needed: int,
    what: str = "this link",
    link_id: str | None = None,
) -> PortBudgetExceeded:
    """The standard "has N ports, M in use; this link needs K more" error."""
    return PortBudgetExceeded(
        f"{device_name(device)}: port group '{group.name}' has "
        f"{group.describe_count(capacity)}, {in_use} in use; {what} needs "
        f"{needed} more",
        device=device.id,
        port_group=group.name,
        capacity=capacity,
        in_use=in_use,
        needed=needed,
        link_id=link_id,
    )
