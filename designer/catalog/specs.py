"""What a catalog entry says of the hardware inside a device (``x-designer``):
its GPUs and their dense peaks, one host's CPUs and memory, a rack's compute
trays, a storage unit's throughput, and the RDMA device names of its
InfiniBand ports. :class:`designer.catalog.schema.Extension` holds them.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Gpu", "HcaNames", "HostSpec", "PeakTflops", "StorageSpec", "Trays"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PeakTflops(_Strict):
    """Dense (no sparsity) peak TFLOP/s of one GPU per precision, with a source."""

    bf16: float | None = Field(default=None, gt=0)
    fp8: float | None = Field(default=None, gt=0)
    fp4: float | None = Field(default=None, gt=0)
    source: str = Field(min_length=1)


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
    peak_tflops: PeakTflops | None = Field(
        default=None, description="dense peak per GPU and precision (no sparsity)"
    )


class HostSpec(_Strict):
    """One host as its ``slurmd`` reports it: a server, or one compute tray.

    ``memory_gb`` is the installed system memory (not GPU memory) in GB as
    memory is sold (a 64 GB DIMM holds 64 GiB). For a rack of trays
    (:class:`Trays`) every figure is per tray.
    """

    sockets: int = Field(ge=1, le=16)
    cores_per_socket: int = Field(ge=1, le=1024)
    threads_per_core: int = Field(default=1, ge=1, le=8)
    memory_gb: float = Field(gt=0, le=1_000_000)

    @property
    def cores(self) -> int:
        """CPU cores of the host."""
        return self.sockets * self.cores_per_socket

    @property
    def cpus(self) -> int:
        """Logical CPUs (hardware threads): Slurm's ``CPUs``."""
        return self.cores * self.threads_per_core


class Trays(_Strict):
    """A rack of compute trays, each its own host (GB200/GB300, Vera Rubin NVL72).

    ``port_prefix`` names the interfaces of tray ``n`` (``tray{n}-``: the
    ports of tray 3 are ``tray3-osfp1``, ``tray3-qsfp112-1``, ...). Ports of
    no tray (the rack's OOB uplinks) belong to the rack, not to a host.
    """

    count: int = Field(ge=2, le=256)
    port_prefix: str = Field(default="tray{n}-", pattern=r"^[^{}]*\{n\}[^{}]*$")

    def prefix(self, tray: int) -> str:
        """Interface-name prefix of tray ``tray`` (1-based)."""
        return self.port_prefix.format(n=tray)


class StorageSpec(_Strict):
    """Throughput and capacity of one storage unit."""

    kind: str = Field(pattern=r"^(parallel-fs|nfs|object)$")
    read_gbytes_s: float = Field(ge=0)
    write_gbytes_s: float = Field(ge=0)
    capacity_tb: float = Field(gt=0)


class HcaNames(_Strict):
    """The RDMA device names a host reports for its InfiniBand ports.

    ``names`` maps a NetBox interface name to the device (``osfp1/1: mlx5_11``
    on a DGX H100, as its user guide's network-module table gives it); in a
    rack of trays the keys leave out the tray prefix (``osfp1: mlx5_0``) and
    hold for every tray. ``assumed`` says the map is not published and taken
    by analogy (``source`` says from what). An InfiniBand port missing from
    the map is ``mlx5_<k>`` in interface order, also assumed.
    """

    names: dict[str, Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]{1,32}$")]] = Field(
        min_length=1
    )
    source: str = Field(min_length=1)
    assumed: bool = False
