"""Schema of one hardware catalog entry (``resources/catalog/**/*.yaml``).

Field names follow the NetBox device-type library where they fit
(``manufacturer``, ``model``, ``slug``, ``u_height``, ``interfaces``); what NetBox
has no field for lives in the ``x-designer`` extension block.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator


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


class Interface(_Strict):
    """A port group: ``count`` ports of one speed and cage type.

    ``speeds_gbps`` lists every speed a port can run at (first = native).
    ``ports_per_cage`` is 2 for twin-port OSFP cages (QM9700: 32 cages, 64 ports).
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
    transceiver: str | None = Field(
        default=None, description="optic/cable type used by this port group"
    )

    @property
    def speed_gbps(self) -> int:
        """Native (highest) speed of the port group."""
        return self.speeds_gbps[0]

    @property
    def cages(self) -> int:
        """Physical cages (connectors) of the group."""
        return -(-self.count // self.ports_per_cage)


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
    switch_radix: int | None = Field(default=None, ge=2)
    cpus: int | None = Field(default=None, ge=0)
    sources: list[Source] = Field(min_length=1)
    estimates: list[str] = Field(
        default_factory=list, description="fields that are estimates, said plainly"
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
        cat = self.ext.category
        if cat is Category.COMPUTE and self.ext.gpu is None:
            raise ValueError("a compute entry needs x-designer.gpu")
        if cat is Category.SWITCH and self.ext.switch_radix is None:
            raise ValueError("a switch entry needs x-designer.switch_radix")
        if cat is Category.STORAGE and self.ext.storage is None:
            raise ValueError("a storage entry needs x-designer.storage")
        return self

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
