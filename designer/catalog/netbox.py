"""The NetBox part of a catalog file: a device type as NetBox's library writes it.

Every catalog file without its ``x-designer`` block is a NetBox device-type
file (netbox-community/devicetype-library schema): ``manufacturer``, ``model``,
``slug``, ``u_height`` and ``is_full_depth`` are required, no other top-level
keys than NetBox's, and ONE ``interfaces`` entry per physical port. The models
here accept exactly that (unknown keys are refused, types are NetBox's values)
so a file NetBox would refuse fails at load with the place named.

Port names may be written as patterns in ``x-designer.port_groups[].ports``:
``osfp[1-32]/[1-2]`` expands, leftmost range outermost, to ``osfp1/1,
osfp1/2, osfp2/1, ..., osfp32/2`` (:func:`expand_names`).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from designer.catalog.netbox_types import (
    AIRFLOWS,
    CONSOLE_PORT_TYPES,
    INTERFACE_TYPES,
    POE_MODES,
    POE_TYPES,
    POWER_PORT_TYPES,
    WEIGHT_UNITS,
)

MAX_EXPANDED = 4096
"""Most names one pattern may expand to (the largest port group is far below)."""

_RANGE = re.compile(r"\[(\d+)-(\d+)\]")

Airflow = Literal[
    "front-to-rear",
    "rear-to-front",
    "left-to-right",
    "right-to-left",
    "side-to-rear",
    "passive",
    "mixed",
]
WeightUnit = Literal["kg", "g", "lb", "oz"]


def expand_names(pattern: str) -> list[str]:
    """Names a pattern stands for: each ``[a-b]`` is the numbers a..b, in order.

    ``osfp[1-2]/[1-2]`` -> ``osfp1/1, osfp1/2, osfp2/1, osfp2/2``; a name
    without brackets is itself. ValueError says what is wrong with a pattern.
    """
    parts = _RANGE.split(pattern)
    texts, ranges = parts[0::3], list(zip(parts[1::3], parts[2::3], strict=True))
    if any("[" in t or "]" in t for t in texts):
        raise ValueError(
            f"{pattern!r}: brackets must hold a number range such as [1-32]"
        )
    names = [texts[0]]
    for (lo, hi), text in zip(ranges, texts[1:], strict=True):
        a, b = int(lo), int(hi)
        if a > b:
            raise ValueError(f"{pattern!r}: range [{lo}-{hi}] runs backwards")
        if len(names) * (b - a + 1) > MAX_EXPANDED:
            raise ValueError(f"{pattern!r}: expands to more than {MAX_EXPANDED} names")
        names = [f"{n}{i}{text}" for n in names for i in range(a, b + 1)]
    return names


def _one_of(value: str, allowed: frozenset[str] | tuple[str, ...], what: str) -> str:
    if value in allowed:
        return value
    near = sorted(v for v in allowed if value.split("-")[0] in v)[:6]
    hint = f" (close: {', '.join(near)})" if near else ""
    raise ValueError(f"{value!r} is not a NetBox {what}{hint}")


class _NetboxStrict(BaseModel):
    # strict: YAML already types its values, and NetBox's schema takes no "yes"
    # for a boolean or "1" for a number, so neither do we
    model_config = ConfigDict(
        extra="forbid", frozen=True, populate_by_name=True, strict=True
    )

    @model_validator(mode="before")
    @classmethod
    def _no_nulls(cls, data: Any) -> Any:
        """NetBox has no null values: an optional field is left out, not empty."""
        if isinstance(data, dict):
            empty = [str(k) for k, v in data.items() if v is None]
            if empty:
                raise ValueError(
                    f"{', '.join(empty)}: empty (null); give a value or leave "
                    "the field out"
                )
        return data


class NetboxInterface(_NetboxStrict):
    """One physical port (NetBox ``interfaces`` entry)."""

    name: str = Field(min_length=1, max_length=64)
    type: str = Field(description="NetBox interface type, e.g. 400gbase-x-osfp")
    label: str | None = Field(default=None, max_length=64)
    description: str | None = Field(default=None, max_length=200)
    enabled: bool | None = None
    mgmt_only: bool | None = None
    bridge: str | None = Field(default=None, max_length=64)
    poe_mode: str | None = None
    poe_type: str | None = None

    @field_validator("type")
    @classmethod
    def _type(cls, value: str) -> str:
        return _one_of(value, INTERFACE_TYPES, "interface type")

    @field_validator("poe_mode")
    @classmethod
    def _poe_mode(cls, value: str | None) -> str | None:
        return None if value is None else _one_of(value, POE_MODES, "PoE mode")

    @field_validator("poe_type")
    @classmethod
    def _poe_type(cls, value: str | None) -> str | None:
        return None if value is None else _one_of(value, POE_TYPES, "PoE type")


class PowerPort(_NetboxStrict):
    """A power inlet; ``maximum_draw`` in W (see resources/catalog/README.md)."""

    name: str = Field(min_length=1, max_length=64)
    type: str
    label: str | None = Field(default=None, max_length=64)
    description: str | None = Field(default=None, max_length=200)
    maximum_draw: int | None = Field(default=None, ge=1)
    allocated_draw: int | None = Field(default=None, ge=1)

    @field_validator("type")
    @classmethod
    def _type(cls, value: str) -> str:
        return _one_of(value, POWER_PORT_TYPES, "power-port type")


class ConsolePort(_NetboxStrict):
    """A serial console port."""

    name: str = Field(min_length=1, max_length=64)
    type: str
    label: str | None = Field(default=None, max_length=64)
    description: str | None = Field(default=None, max_length=200)

    @field_validator("type")
    @classmethod
    def _type(cls, value: str) -> str:
        return _one_of(value, CONSOLE_PORT_TYPES, "console-port type")


# Components the designer does not read; kept as given (NetBox checks them).
_Opaque = list[dict[str, Any]]


class NetboxDeviceType(_NetboxStrict):
    """The NetBox device-type fields of a catalog file (everything but x-designer)."""

    manufacturer: str = Field(min_length=1, max_length=100)
    model: str = Field(min_length=1, max_length=100)
    slug: str = Field(pattern=r"^[a-z0-9][a-z0-9\-]*$", max_length=100)
    part_number: str | None = Field(default=None, max_length=50)
    u_height: float = Field(ge=0, le=60, multiple_of=0.5)
    is_full_depth: bool
    airflow: Airflow | None = None
    weight: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    weight_unit: WeightUnit | None = None
    front_image: bool | None = None
    rear_image: bool | None = None
    subdevice_role: Literal["parent", "child"] | None = None
    is_powered: bool | None = None
    description: str | None = Field(default=None, max_length=200)
    comments: str | None = None
    console_ports: list[ConsolePort] = Field(
        default_factory=list, alias="console-ports"
    )
    power_ports: list[PowerPort] = Field(default_factory=list, alias="power-ports")
    netbox_interfaces: list[NetboxInterface] = Field(
        default_factory=list, alias="interfaces"
    )
    console_server_ports: _Opaque = Field(
        default_factory=list, alias="console-server-ports"
    )
    power_outlets: _Opaque = Field(default_factory=list, alias="power-outlets")
    front_ports: _Opaque = Field(default_factory=list, alias="front-ports")
    rear_ports: _Opaque = Field(default_factory=list, alias="rear-ports")
    module_bays: _Opaque = Field(default_factory=list, alias="module-bays")
    device_bays: _Opaque = Field(default_factory=list, alias="device-bays")
    inventory_items: _Opaque = Field(default_factory=list, alias="inventory-items")

    @field_validator("weight")
    @classmethod
    def _weight(cls, value: float | None) -> float | None:
        # NetBox's schema: multipleOf 0.01, checked as its validator does
        if value is not None and value / 0.01 != int(value / 0.01):
            raise ValueError(f"{value} must be a multiple of 0.01")
        return value

    @model_validator(mode="after")
    def _netbox_rules(self) -> NetboxDeviceType:
        if (self.weight is None) != (self.weight_unit is None):
            raise ValueError("weight and weight_unit go together: give both or neither")
        if self.device_bays and self.subdevice_role != "parent":
            raise ValueError("device-bays need subdevice_role: parent")
        for kind, items in (
            ("interfaces", self.netbox_interfaces),
            ("power-ports", self.power_ports),
            ("console-ports", self.console_ports),
        ):
            names = [i.name for i in items]
            dup = sorted({n for n in names if names.count(n) > 1})
            if dup:
                raise ValueError(f"{kind}: names repeat: {', '.join(dup[:5])}")
        return self

    def netbox_interface(self, name: str) -> NetboxInterface | None:
        """The physical port called ``name`` (None if the file lists none)."""
        for i in self.netbox_interfaces:
            if i.name == name:
                return i
        return None


__all__ = [
    "AIRFLOWS",
    "WEIGHT_UNITS",
    "ConsolePort",
    "NetboxDeviceType",
    "NetboxInterface",
    "PowerPort",
    "expand_names",
]
