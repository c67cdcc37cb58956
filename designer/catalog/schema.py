"""Schema of one hardware catalog entry (``resources/catalog/**/*.yaml``).

A catalog file is a NetBox device-type file (:mod:`designer.catalog.netbox`:
one ``interfaces`` entry per physical port) plus an ``x-designer`` block with
what NetBox has no field for. Its ``port_groups`` are what the analysis works
with: each group names its physical ports (NetBox interface names, patterns
allowed) and adds speeds, breakout, media, role, cages and transceiver; the
group's ``count`` and ``type`` come from the ports it lists
(:mod:`designer.catalog.group_ports`). The hardware inside a device (GPUs,
host, trays, storage, HCA names) is :mod:`designer.catalog.specs`.

In memory, ``CatalogEntry.interfaces`` and ``interface(name)`` are the port
groups (the API the rest of the designer uses); the physical ports are
``CatalogEntry.netbox_interfaces``.
"""

from __future__ import annotations

import datetime
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from designer.catalog.group_ports import interface_types, resolve_group
from designer.catalog.netbox import NetboxDeviceType
from designer.catalog.specs import Gpu, HcaNames, HostSpec, StorageSpec, Trays


class Category(StrEnum):
    """Palette group of an entry."""

    COMPUTE = "compute"
    SWITCH = "switch"
    STORAGE = "storage"
    MANAGEMENT = "management"


class Media(StrEnum):
    """Link layer of a port group."""

    INFINIBAND = "infiniband"
    ETHERNET = "ethernet"


class Role(StrEnum):
    """Which fabric a port group is meant for. ``any`` means switch ports."""

    COMPUTE = "compute"
    STORAGE = "storage"
    INBAND = "inband"
    OOB = "oob"
    ANY = "any"


class DeviceCooling(StrEnum):
    """How a device is cooled: by air, or by liquid through rack manifolds."""

    AIR = "air"
    LIQUID = "liquid"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Source(_Strict):
    """Where a number comes from: text (document, URL) and quality."""

    text: str = Field(min_length=3)
    quality: str = Field(
        pattern=r"^(P|S|E)$", description="P primary, S secondary, E estimate"
    )


class Price(_Strict):
    """Unit price in USD with its source, date and whether it is an estimate."""

    usd: float = Field(ge=0)
    source: str = Field(min_length=3)
    date: str = Field(pattern=r"^\d{4}(-\d{2}){0,2}$")
    estimate: bool = True

    @field_validator("date", mode="before")
    @classmethod
    def _yaml_date(cls, value: object) -> object:
        """YAML reads ``2024`` as int and ``2024-08-01`` as a date: keep text."""
        if isinstance(value, int | datetime.date) and not isinstance(value, bool):
            return str(value)
        return value


class IbNumbering(_Strict):
    """How a port group's front-panel ports map to InfiniBand port numbers, the
    numbers ``ibnetdiscover``, OpenSM and ``ibsim`` give a switch's ports.

    The group's ports, in their listed (cage) order, are IB ports ``first``,
    ``first + 1``, ... (QM9700: ``osfp1/1`` 1, ``osfp1/2`` 2, ``osfp2/1`` 3,
    ..., ``osfp32/2`` 64). ``assumed`` says the vendor does not publish the
    map (then ``source`` says what the assumption rests on).
    """

    first: int = Field(default=1, ge=1, le=4096)
    assumed: bool
    source: Source


class Interface(_Strict):
    """A port group: ``count`` ports of one native speed and cage type.

    ``ports`` are the NetBox interface names of the group's physical ports, in
    cage order: with ``ports_per_cage`` 2, ports 1-2 share cage 1, 3-4 cage 2.
    ``port_format`` (configurable entries only, e.g. ``port{n}``) names ports
    beyond the listed ones when a design sets a larger count.

    ``speeds_gbps`` lists every speed a port can run at, native (highest) first.
    ``ports_per_cage`` is 2 for twin-port OSFP cages (QM9700: 32 cages, 64 ports).
    ``breakout`` maps a lower speed to how many logical ports one native port
    splits into (SN5600 ``{400: 2, 200: 4, 100: 4}``: 64 x 800G = 128 x 400G =
    256 x 200G); a speed in ``speeds_gbps`` without a breakout runs one link
    per port. ``transceiver`` names the pluggable module of this port group in
    ``resources/catalog/optics.yaml`` (None: the speed class default, see
    :mod:`designer.catalog.optics`). ``alt_media`` lists other link layers the
    NIC can run (ConnectX VPI adapters speak InfiniBand and Ethernet).
    """

    name: str = Field(min_length=1, max_length=64)
    type: str = Field(
        min_length=1, description="NetBox-like interface type, e.g. 400gbase-x-osfp"
    )
    count: int = Field(ge=1, le=4096)
    speeds_gbps: list[Annotated[int, Field(ge=1)]] = Field(min_length=1)
    media: Media
    role: Role
    ports_per_cage: int = Field(default=1, ge=1, le=8)
    breakout: dict[Annotated[int, Field(ge=1)], Annotated[int, Field(ge=2, le=8)]] = (
        Field(default_factory=dict, description="speed -> ports per native port")
    )
    alt_media: list[Media] = Field(default_factory=list)
    transceiver: str | None = Field(
        default=None,
        pattern=r"^[a-z0-9][a-z0-9\-]*$",
        description="id of the pluggable module in optics.yaml",
    )
    ports: tuple[str, ...] = Field(
        default=(), description="NetBox interface names of the physical ports"
    )
    port_format: str | None = Field(
        default=None,
        pattern=r"^[^{}]*\{n\}[^{}]*$",
        description="name of port n beyond the listed ones (configurable entries)",
    )
    ib_numbering: IbNumbering | None = Field(
        default=None,
        description="InfiniBand port number of each port (switches; see "
        "designer.catalog.ib)",
    )

    @model_validator(mode="after")
    def _speeds(self) -> Interface:
        if self.ports and len(self.ports) != self.count:
            raise ValueError(
                f"count {self.count} but ports lists {len(self.ports)} port(s)"
            )
        if self.ports and self.count % self.ports_per_cage:
            raise ValueError(
                f"{self.count} ports do not fill whole cages of {self.ports_per_cage}"
            )
        if self.port_format is not None:
            for i, name in enumerate(self.ports):
                if name != self.port_format.format(n=i + 1):
                    raise ValueError(
                        f"port_format {self.port_format!r} names port {i + 1} "
                        f"{self.port_format.format(n=i + 1)!r}, but it is {name!r}"
                    )
        if len(set(self.speeds_gbps)) != len(self.speeds_gbps):
            raise ValueError(f"speeds_gbps repeat: {self.speeds_gbps}")
        if self.speeds_gbps != sorted(self.speeds_gbps, reverse=True):
            raise ValueError(
                f"speeds_gbps must list the native (highest) speed first, then "
                f"lower ones: {self.speeds_gbps}"
            )
        for speed in self.breakout:
            if speed not in self.speeds_gbps[1:]:
                raise ValueError(
                    f"breakout speed {speed} must be one of the lower speeds "
                    f"{self.speeds_gbps[1:]}"
                )
        if self.media in self.alt_media:
            raise ValueError(f"alt_media repeats the media {self.media.value!r}")
        return self

    @property
    def speed_gbps(self) -> int:
        """Native (highest) speed of the port group."""
        return self.speeds_gbps[0]

    @property
    def cages(self) -> int:
        """Physical cages (connectors) of the group."""
        return -(-self.count // self.ports_per_cage)

    def supports_speed(self, speed_gbps: int) -> bool:
        """Whether a port can run at ``speed_gbps``."""
        return speed_gbps in self.speeds_gbps

    def supports_media(self, media: Media) -> bool:
        """Whether the port group can run ``media`` (native or VPI alternative)."""
        return media is self.media or media in self.alt_media

    def split(self, speed_gbps: int) -> int:
        """Logical ports one native port gives at ``speed_gbps`` (0: unsupported)."""
        if speed_gbps not in self.speeds_gbps:
            return 0
        return self.breakout.get(speed_gbps, 1)

    def ports_at(self, speed_gbps: int, count: int | None = None) -> int:
        """Port budget at ``speed_gbps``: ``count`` (default own) x breakout split."""
        return (self.count if count is None else count) * self.split(speed_gbps)

    def links_per_cage(self, speed_gbps: int) -> int:
        """Links one cage (one pluggable module) carries at ``speed_gbps``."""
        return self.ports_per_cage * max(1, self.split(speed_gbps))

    def port_name(self, i: int) -> str | None:
        """NetBox name of the group's 0-based port ``i`` (None: no such port)."""
        if 0 <= i < len(self.ports):
            return self.ports[i]
        if i >= 0 and self.port_format is not None:
            return self.port_format.format(n=i + 1)
        return None


def common_media(a: Interface, b: Interface) -> Media | None:
    """Link layer two port groups share (a's native first; None: incompatible)."""
    for media in (a.media, *a.alt_media):
        if b.supports_media(media):
            return media
    return None


class Extension(_Strict):
    """Our additions to the NetBox device type."""

    category: Category
    family: str | None = None
    description: str = ""
    max_power_w: float = Field(gt=0)
    cooling: DeviceCooling = Field(
        default=DeviceCooling.AIR,
        description="liquid: needs a direct-liquid-cooled rack (NVL72 compute "
        "trays); NetBox has no field for it",
    )
    price: Price
    gpu: Gpu | None = None
    storage: StorageSpec | None = None
    switch_radix: int | None = Field(
        default=None, ge=2, description="ports of the `ports` group at native speed"
    )
    configurable: bool = Field(
        default=False,
        description="Device.ports may override the port counts (generic entries)",
    )
    cpus: int | None = Field(default=None, ge=0)
    host: HostSpec | None = Field(
        default=None, description="one host's CPUs and memory (per tray in a rack)"
    )
    trays: Trays | None = Field(
        default=None, description="a rack of compute trays, one host per tray"
    )
    sources: list[Source] = Field(min_length=1)
    estimates: list[str] = Field(
        default_factory=list,
        description='"field: derivation" for every estimated number, said plainly',
    )
    port_groups: list[Interface] = Field(
        min_length=1, description="port groups over the NetBox interfaces"
    )
    hca_names: HcaNames | None = Field(
        default=None,
        description="RDMA device name (mlx5_N) of each InfiniBand port, as the "
        "host reports it in its NodeDescription",
    )


class CatalogEntry(NetboxDeviceType):
    """One device type: the NetBox fields plus our ``x-designer`` block."""

    ext: Extension = Field(alias="x-designer")

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @model_validator(mode="before")
    @classmethod
    def _resolve_port_groups(cls, data: Any) -> Any:
        """Expand each group's ``ports`` against the NetBox interfaces."""
        if not isinstance(data, dict):
            return data
        key = "x-designer" if "x-designer" in data else "ext"
        ext = data.get(key)
        groups = ext.get("port_groups") if isinstance(ext, dict) else None
        if not isinstance(ext, dict) or not isinstance(groups, list):
            return data
        types = interface_types(data.get("interfaces", data.get("netbox_interfaces")))
        owner: dict[str, str] = {}
        resolved = [
            resolve_group(f"x-designer.port_groups[{i}]", g, types, owner)
            if isinstance(g, dict)
            else g
            for i, g in enumerate(groups)
        ]
        return {**data, key: {**ext, "port_groups": resolved}}

    @property
    def interfaces(self) -> list[Interface]:
        """The port groups (``x-designer.port_groups``)."""
        return self.ext.port_groups

    @property
    def port_groups(self) -> list[Interface]:
        """The port groups (same as :attr:`interfaces`)."""
        return self.ext.port_groups

    def with_port_groups(self, groups: list[Interface]) -> CatalogEntry:
        """A copy with other port groups (what-if entries in tests and tools)."""
        return self.model_copy(
            update={"ext": self.ext.model_copy(update={"port_groups": groups})}
        )

    @model_validator(mode="after")
    def _consistent(self) -> CatalogEntry:
        names = [i.name for i in self.interfaces]
        if len(set(names)) != len(names):
            raise ValueError(f"x-designer.port_groups: names repeat: {names}")
        for i, g in enumerate(self.interfaces):
            if g.port_format is not None and not self.ext.configurable:
                raise ValueError(
                    f"x-designer.port_groups[{i}].port_format: only configurable "
                    "entries name ports beyond the listed ones"
                )
        ext = self.ext
        cat = ext.category
        if cat is Category.COMPUTE:
            if ext.gpu is None:
                raise ValueError("a compute entry needs x-designer.gpu")
            if "compute" not in names:
                raise ValueError("a compute entry needs an interface named 'compute'")
        if cat is Category.SWITCH:
            ports = self.interface("ports")
            if ports is None:
                raise ValueError("a switch entry needs an interface named 'ports'")
            if ext.switch_radix is None:
                raise ValueError("a switch entry needs x-designer.switch_radix")
            if ext.switch_radix != ports.count:
                raise ValueError(
                    f"x-designer.switch_radix {ext.switch_radix} must equal the "
                    f"'ports' count {ports.count}"
                )
        elif ext.switch_radix is not None:
            raise ValueError("x-designer.switch_radix is only for switches")
        if cat is Category.STORAGE:
            if ext.storage is None:
                raise ValueError("a storage entry needs x-designer.storage")
            if "data" not in names:
                raise ValueError("a storage entry needs an interface named 'data'")
        self._check_trays()
        self._check_hca_names()
        if ext.price.estimate and "price" not in self.estimated_fields:
            raise ValueError(
                "x-designer.price.estimate is true: add a 'price: <derivation>' "
                "line to x-designer.estimates"
            )
        for line in ext.estimates:
            field, sep, why = line.partition(":")
            if not sep or not why.strip():
                raise ValueError(f"estimate {line!r} must read '<field>: <derivation>'")
            if not self._has_field(field.strip()):
                raise ValueError(f"estimate names an unknown field {field.strip()!r}")
        return self

    def _check_trays(self) -> None:
        """A rack of trays: compute entry, GPUs and CPUs split evenly, every
        compute port on a tray."""
        ext, trays = self.ext, self.ext.trays
        if ext.host is not None and ext.category is not Category.COMPUTE:
            raise ValueError("x-designer.host is only for compute entries")
        if trays is None:
            return
        if ext.category is not Category.COMPUTE or ext.gpu is None:
            raise ValueError("x-designer.trays is only for compute entries")
        if ext.gpu.count % trays.count:
            raise ValueError(
                f"x-designer.trays.count {trays.count} does not divide the "
                f"{ext.gpu.count} GPUs into equal trays"
            )
        host, cpus = ext.host, ext.cpus
        if host is not None and cpus is not None and cpus != host.sockets * trays.count:
            raise ValueError(
                f"x-designer.cpus {cpus} must be host.sockets {host.sockets} x "
                f"{trays.count} trays"
            )
        for group in self.interfaces_for(Role.COMPUTE):
            for port in group.ports:
                if self.tray_of_port(port) is None:
                    raise ValueError(
                        f"x-designer.trays: compute port {port!r} is on no tray "
                        f"(tray ports start with {trays.prefix(1)!r} ... "
                        f"{trays.prefix(trays.count)!r})"
                    )

    def _check_hca_names(self) -> None:
        """Every key of ``hca_names`` is an interface (of tray 1 in a rack of
        trays) and no device name repeats within a host."""
        hca = self.ext.hca_names
        if hca is None:
            return
        known = {i.name for i in self.netbox_interfaces}
        trays = self.ext.trays
        prefix = trays.prefix(1) if trays is not None else ""
        for key in hca.names:
            if prefix + key not in known:
                raise ValueError(
                    f"x-designer.hca_names.names: {key!r} is not an interface"
                    + (f" (of tray 1: {prefix + key!r})" if prefix else "")
                )
        values = list(hca.names.values())
        if len(set(values)) != len(values):
            raise ValueError(
                f"x-designer.hca_names.names: a device name repeats: {values}"
            )

    def hca_name(self, port: str) -> str | None:
        """The RDMA device name the catalog gives interface ``port`` (a tray's
        ``tray3-osfp1`` looks up ``osfp1``); None: not in ``hca_names``."""
        hca = self.ext.hca_names
        if hca is None:
            return None
        name = port.partition(":")[0]
        tray = self.tray_of_port(name)
        if tray is not None and self.ext.trays is not None:
            name = name[len(self.ext.trays.prefix(tray)) :]
        return hca.names.get(name)

    def tray_of_port(self, port: str) -> int | None:
        """The tray (1-based) whose interface ``port`` is; None: the port is the
        whole device's (no trays, or a port of no tray such as ``oob1``).

        ``port`` is a NetBox interface name, a breakout lane suffix (``:2``)
        allowed.
        """
        trays = self.ext.trays
        if trays is None:
            return None
        name = port.partition(":")[0]
        head, sep, _ = trays.port_prefix.partition("{n}")
        tail = trays.port_prefix[len(head) + len(sep) :]
        if not name.startswith(head):
            return None
        rest = name[len(head) :]
        digits = len(rest) - len(rest.lstrip("0123456789"))
        if digits == 0 or rest[digits : digits + len(tail)] != tail:
            return None
        n = int(rest[:digits])
        if not 1 <= n <= trays.count or rest[:digits] != str(n):
            return None
        return n

    def _has_field(self, path: str) -> bool:
        """Whether a dotted estimate path names a field of this entry."""
        head, _, rest = path.partition(".")
        if head == "port_groups":
            name, _, attr = rest.partition(".")
            iface = self.interface(name)
            return iface is not None and (not attr or attr in Interface.model_fields)
        if not rest:
            netbox = {
                f.alias or n for n, f in NetboxDeviceType.model_fields.items()
            } | set(NetboxDeviceType.model_fields)
            return head in netbox or head in Extension.model_fields
        if head == "gpu":
            return self.ext.gpu is not None and rest in Gpu.model_fields
        if head == "storage":
            return self.ext.storage is not None and rest in StorageSpec.model_fields
        if head == "host":
            return self.ext.host is not None and rest in HostSpec.model_fields
        if head == "trays":
            return self.ext.trays is not None and rest in Trays.model_fields
        return head == "price" and rest in Price.model_fields

    @property
    def estimated_fields(self) -> list[str]:
        """Field paths listed in ``x-designer.estimates`` (text before the colon)."""
        return [line.partition(":")[0].strip() for line in self.ext.estimates]

    @property
    def configurable(self) -> bool:
        """Whether ``Device.ports`` may override this entry's port counts."""
        return self.ext.configurable

    @property
    def radix(self) -> int | None:
        """Ports of the ``ports`` group at native speed (switches), else None."""
        if self.ext.category is not Category.SWITCH:
            return None
        ports = self.interface("ports")
        return ports.count if ports else None

    @property
    def id(self) -> str:
        """The catalog id used by designs (the slug)."""
        return self.slug

    @property
    def category(self) -> Category:
        """Palette group."""
        return self.ext.category

    @property
    def gpus(self) -> int:
        """GPUs in one unit (0 for non-compute)."""
        return self.ext.gpu.count if self.ext.gpu else 0

    def interface(self, name: str) -> Interface | None:
        """The port group called ``name``."""
        for i in self.interfaces:
            if i.name == name:
                return i
        return None

    def interfaces_for(self, role: Role) -> list[Interface]:
        """Port groups meant for a fabric role."""
        return [i for i in self.interfaces if i.role is role]
