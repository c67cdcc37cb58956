"""Schema of one hardware catalog entry (``resources/catalog/**/*.yaml``).

Field names follow the NetBox device-type library where they fit
(``manufacturer``, ``model``, ``slug``, ``u_height``, ``interfaces``); what NetBox
has no field for lives in the ``x-designer`` extension block.
"""

from __future__ import annotations

import datetime
from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


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


class Interface(_Strict):
    """A port group: ``count`` ports of one native speed and cage type.

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

    @model_validator(mode="after")
    def _speeds(self) -> Interface:
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


def common_media(a: Interface, b: Interface) -> Media | None:
    """Link layer two port groups share (a's native first; None: incompatible)."""
    for media in (a.media, *a.alt_media):
        if b.supports_media(media):
            return media
    return None


class Gpu(_Strict):
    """GPUs of a compute entry."""

    model: str
    count: int = Field(ge=1)
    memory_gb: float = Field(gt=0)
    nvlink_gbytes_s: float = Field(
        ge=0, description="NVLink bandwidth per GPU, GB/s bidirectional"
    )
    nvlink_domain: int = Field(ge=1, description="GPUs in one NVLink domain")
    tdp_w: float | None = Field(default=None, gt=0)


class StorageSpec(_Strict):
    """Throughput and capacity of one storage unit."""

    kind: str = Field(pattern=r"^(parallel-fs|nfs|object)$")
    read_gbytes_s: float = Field(ge=0)
    write_gbytes_s: float = Field(ge=0)
    capacity_tb: float = Field(gt=0)


class Extension(_Strict):
    """Our additions to the NetBox device type."""

    category: Category
    family: str | None = None
    description: str = ""
    max_power_w: float = Field(gt=0)
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
    sources: list[Source] = Field(min_length=1)
    estimates: list[str] = Field(
        default_factory=list,
        description='"field: derivation" for every estimated number, said plainly',
    )


class CatalogEntry(_Strict):
    """One device type."""

    manufacturer: str
    model: str
    slug: str = Field(pattern=r"^[a-z0-9][a-z0-9\-]*$")
    part_number: str | None = None
    u_height: float = Field(ge=0, le=60)
    is_full_depth: bool = True
    interfaces: list[Interface] = Field(min_length=1)
    ext: Extension = Field(alias="x-designer")

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @model_validator(mode="after")
    def _consistent(self) -> CatalogEntry:
        names = [i.name for i in self.interfaces]
        if len(set(names)) != len(names):
            raise ValueError(f"interface names repeat: {names}")
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

    def _has_field(self, path: str) -> bool:
        """Whether a dotted estimate path names a field of this entry."""
        head, _, rest = path.partition(".")
        if head == "interfaces":
            name, _, attr = rest.partition(".")
            iface = self.interface(name)
            return iface is not None and (not attr or attr in Interface.model_fields)
        if not rest:
            return (
                head in CatalogEntry.model_fields and head != "ext"
            ) or head in Extension.model_fields
        if head == "gpu":
            return self.ext.gpu is not None and rest in Gpu.model_fields
        if head == "storage":
            return self.ext.storage is not None and rest in StorageSpec.model_fields
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
