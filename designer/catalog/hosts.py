"""Hosts as the cluster will have them: one per server, one per compute tray.

A design places devices; the cluster runs hosts. A DGX or HGX server is one
host. A rack of compute trays (GB200/GB300 and Vera Rubin NVL72, catalog
entries with ``x-designer.trays``) is one device but one host per tray: each
tray runs its own OS and ``slurmd`` with its share of the rack's GPUs, CPUs and
memory (``x-designer.host`` is per tray), and owns the interfaces whose names
start with its prefix (``tray3-osfp1`` ... ``tray3-qsfp112-2`` are tray 3's).

Every hand-off that names hosts takes the names from here, so they agree:
Slurm (node names, ``topology.conf``, blocks), the cabling plan's host
columns, NetBox device names and InfiniBand node descriptions.

Names
    A compute device's own name is its label, when every compute label of
    the design already is a distinct hostname (``gpu-node-07``) and no other
    device's id, else its id cleaned to a hostname (``dgx-0001``); a clash left
    after cleaning, with another compute device or with the id of a switch or
    other device, gets ``-2``, ``-3``. A tray is named by the design's rule
    ``Settings.tray_hostnames`` (:mod:`designer.core.hostnames`; default
    ``{rack}-t{tray:02}``: ``nvl72-0001-t01`` ... ``-t18``), the rack's own
    name standing for ``{rack}``. Every name is a valid hostname (at most 63
    characters: a long rack name is shortened inside the rule) and unique
    across the design, device ids included: a tray name that another device or
    tray already has gets ``-2``, ``-3``.

Use::

    hosts = design_hosts(design, catalog)
    hosts.of_device("nvl72-0001")              # 18 Host, tray 1..18
    hosts.host_of_port("nvl72-0001", "tray3-osfp2").name  # 'nvl72-0001-t03'
    hosts.hostname("nvl72-0001", tray=3)       # 'nvl72-0001-t03'
    hosts.hostname("dgx-0001")                 # 'dgx-0001'
    hosts.device_name("nvl72-0001")            # 'nvl72-0001' (the rack)
    hosts.nvlink_domains()                     # one per NVL72 rack

Everything is pure (no Qt, no I/O) and costs one pass over the devices.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from designer.catalog.schema import CatalogEntry, Category
from designer.catalog.specs import HostSpec
from designer.core.hostnames import (
    HOSTNAME_MAX,
    is_hostname,
    sanitize_hostname,
    tray_name_format,
)
from designer.core.model import Design

__all__ = [
    "DesignHosts",
    "Host",
    "NvlinkDomain",
    "design_hosts",
    "device_hostnames",
]

Catalog = Mapping[str, CatalogEntry]


@dataclass(frozen=True, slots=True)
class Host:
    """One host: a server, or one compute tray of a rack.

    ``tray`` is the tray number (1-based) inside device ``device``, None when
    the device is one host. ``spec`` is the catalog's per-host CPUs and memory
    (None when the catalog entry has no ``x-designer.host``).
    """

    name: str
    device: str
    tray: int | None
    gpus: int
    spec: HostSpec | None

    @property
    def cpus(self) -> int | None:
        """Logical CPUs (hardware threads), as Slurm's ``CPUs``; None: unknown."""
        return self.spec.cpus if self.spec is not None else None

    @property
    def memory_gb(self) -> float | None:
        """Installed system memory in GB; None: unknown."""
        return self.spec.memory_gb if self.spec is not None else None


@dataclass(frozen=True, slots=True)
class NvlinkDomain:
    """GPUs joined by NVLink: a set of hosts of one device.

    An NVL72 rack is one domain of 18 hosts (72 GPUs); a DGX is one domain of
    one host (8 GPUs); a PCIe server without NVLink gives domains of one GPU,
    smaller than its host (``gpus`` 1, its one host listed).
    """

    device: str
    hosts: tuple[Host, ...]
    gpus: int


def device_hostnames(design: Design, catalog: Catalog) -> dict[str, str]:
    """Hostname of every compute device (a rack's own name, not its trays').

    The labels, when every compute label already is a distinct hostname and
    none is the id of another device; otherwise the device ids, cleaned. A
    clash left after cleaning (with another compute device, or with the id of
    a switch or other device, which NetBox and the InfiniBand tools list beside
    the hosts) gets ``-2``, ``-3`` (in design order).
    """
    compute: list[tuple[str, str]] = []
    others: set[str] = set()
    for d in design.devices:
        entry = catalog.get(d.catalog_id)
        if entry is not None and entry.category is Category.COMPUTE:
            compute.append((d.id, d.label))
        else:
            others.add(d.id)
    labels = [label.lower() for _, label in compute]
    use_labels = (
        all(is_hostname(x) for x in labels)
        and len(set(labels)) == len(labels)
        and not others.intersection(labels)
    )
    names = (
        labels if use_labels else [sanitize_hostname(dev, "node") for dev, _ in compute]
    )
    out: dict[str, str] = {}
    taken = set(others)
    for (dev, _), name in zip(compute, names, strict=True):
        candidate = _unique(name, taken)
        taken.add(candidate)
        out[dev] = candidate
    return out


def _unique(name: str, taken: set[str]) -> str:
    """``name``, or ``name-2``, ``name-3`` ... (shortened to fit) not in ``taken``."""
    if name not in taken:
        return name
    k = 2
    while True:
        suffix = f"-{k}"
        candidate = name[: HOSTNAME_MAX - len(suffix)].rstrip("-") + suffix
        if candidate not in taken:
            return candidate
        k += 1


def _tray_name(template: str, rack: str, tray: int) -> str:
    """The rule's name for a tray (``template``: :func:`tray_name_format`), the
    rack part shortened to fit 63 characters."""
    name = template.format(rack=rack, tray=tray)
    over = len(name) - HOSTNAME_MAX
    if over > 0:
        short = rack[: max(1, len(rack) - over)].rstrip("-") or rack[:1]
        name = template.format(rack=short, tray=tray)
    return name


class DesignHosts:
    """The hosts of one design, and which device, tray and port each is.

    Build it with :func:`design_hosts`. Iterating gives every host in design
    order (a rack's trays in tray order).
    """

    def __init__(self, design: Design, catalog: Catalog) -> None:
        self._entries: dict[str, CatalogEntry] = {}
        for d in design.devices:
            entry = catalog.get(d.catalog_id)
            if entry is not None and entry.category is Category.COMPUTE:
                self._entries[d.id] = entry
        self._device_names = device_hostnames(design, catalog)
        taken = set(self._device_names.values()) | {
            d.id for d in design.devices if d.id not in self._entries
        }
        template = tray_name_format(design.settings.tray_hostnames)
        self._of: dict[str, tuple[Host, ...]] = {}
        ordered: list[Host] = []
        for dev, entry in self._entries.items():
            gpus = entry.gpus
            trays = entry.ext.trays
            spec = entry.ext.host
            if trays is None:
                hosts: tuple[Host, ...] = (
                    Host(self._device_names[dev], dev, None, gpus, spec),
                )
            else:
                per = gpus // trays.count
                made: list[Host] = []
                for n in range(1, trays.count + 1):
                    rack = self._device_names[dev]
                    name = _unique(_tray_name(template, rack, n), taken)
                    taken.add(name)
                    made.append(Host(name, dev, n, per, spec))
                hosts = tuple(made)
            self._of[dev] = hosts
            ordered.extend(hosts)
        self._hosts = tuple(ordered)
        self._by_name = {h.name: h for h in ordered}

    def __iter__(self) -> Iterator[Host]:
        return iter(self._hosts)

    def __len__(self) -> int:
        return len(self._hosts)

    @property
    def hosts(self) -> tuple[Host, ...]:
        """Every host, in design order (a rack's trays in tray order)."""
        return self._hosts

    def of_device(self, device: str) -> tuple[Host, ...]:
        """The hosts of ``device``: one for a server, one per tray for a rack of
        trays, none for a device that is not compute (or unknown)."""
        return self._of.get(device, ())

    def has_trays(self, device: str) -> bool:
        """Whether ``device`` is a rack of trays (several hosts)."""
        entry = self._entries.get(device)
        return entry is not None and entry.ext.trays is not None

    def host_of_port(self, device: str, port: str) -> Host | None:
        """The host whose interface ``port`` of ``device`` is.

        ``port`` is a NetBox interface name (``tray3-osfp2``; a breakout lane
        suffix such as ``:2`` allowed). A server's every port is its one host's;
        a tray's port is that tray's host; a rack's own port (``oob1``), an
        unknown device or a device that is not compute gives None.
        """
        hosts = self._of.get(device)
        if not hosts:
            return None
        entry = self._entries[device]
        if entry.ext.trays is None:
            return hosts[0]
        tray = entry.tray_of_port(port)
        return hosts[tray - 1] if tray is not None else None

    def hostname(self, device: str, tray: int | None = None) -> str:
        """The hostname of server ``device``, or of tray ``tray`` (1-based) of a
        rack of trays. KeyError: no such compute device, a rack without a tray
        number, a tray number the rack does not have, or a tray of a server.
        """
        hosts = self._of.get(device)
        if not hosts:
            raise KeyError(f"{device!r} is not a compute device of the design")
        if not self.has_trays(device):
            if tray is not None:
                raise KeyError(f"{device!r} has no trays")
            return hosts[0].name
        if tray is None:
            raise KeyError(f"{device!r} is a rack of trays: give a tray number")
        if not 1 <= tray <= len(hosts):
            raise KeyError(f"{device!r} has trays 1 to {len(hosts)}, not {tray}")
        return hosts[tray - 1].name

    def device_name(self, device: str) -> str | None:
        """A compute device's own hostname (a rack's, which its trays' names
        build on); None for a device that is not compute."""
        return self._device_names.get(device)

    @property
    def device_names(self) -> Mapping[str, str]:
        """Every compute device's own hostname, by device id."""
        return self._device_names

    def by_name(self, name: str) -> Host | None:
        """The host called ``name`` (None: no such host)."""
        return self._by_name.get(name)

    def nvlink_domains(self) -> list[NvlinkDomain]:
        """The NVLink domains of the design, in design order.

        A domain is ``gpu.nvlink_domain`` GPUs of one device: for a rack of
        trays, consecutive trays whose GPUs make one domain (all 18 of an NVL72);
        for a server, the server (its domain may be smaller than the host, as on
        PCIe servers, where ``gpus`` says so). NVLink never spans devices here.
        """
        out: list[NvlinkDomain] = []
        for dev, hosts in self._of.items():
            gpu = self._entries[dev].ext.gpu
            if gpu is None or not hosts:
                continue
            per_host = hosts[0].gpus
            if per_host <= 0:
                continue
            size = min(gpu.nvlink_domain, gpu.count)
            span = max(1, size // per_host)
            for i in range(0, len(hosts), span):
                chunk = hosts[i : i + span]
                out.append(NvlinkDomain(dev, chunk, min(size, per_host * len(chunk))))
        return out


def design_hosts(design: Design, catalog: Catalog | None = None) -> DesignHosts:
    """The hosts of ``design`` (``catalog`` None: the shipped catalog)."""
    if catalog is None:
        from designer.catalog.loader import default_catalog

        catalog = default_catalog()
    return DesignHosts(design, catalog)
