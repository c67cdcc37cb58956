"""Catalog-like specs for core tests (numbers from reference/hardware.md).

Core must not import the catalog, so tests describe the hardware the way a
catalog entry does (duck typing) and adapt it with ``spec_from_entry``.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from designer.core.specs import DeviceSpec, spec_from_entry


def _iface(
    name: str,
    count: int,
    speeds: list[int],
    media: str,
    role: str,
    *,
    per_cage: int = 1,
    breakout: dict[int, int] | None = None,
    alt_media: tuple[str, ...] = (),
) -> Any:
    return SimpleNamespace(
        name=name,
        count=count,
        speeds_gbps=speeds,
        media=media,
        role=role,
        ports_per_cage=per_cage,
        breakout=breakout or {},
        alt_media=list(alt_media),
    )


def _entry(slug: str, category: str, interfaces: list[Any], **kw: Any) -> Any:
    return SimpleNamespace(
        slug=slug,
        interfaces=interfaces,
        ext=SimpleNamespace(
            category=category, configurable=kw.get("configurable", False)
        ),
    )


ENTRIES: dict[str, Any] = {
    # DGX H100: 8 x 400G NDR in 4 twin-port OSFP cages, storage, in-band, BMC.
    "dgx-h100": _entry(
        "dgx-h100",
        "compute",
        [
            _iface("compute", 8, [400, 200], "infiniband", "compute", per_cage=2),
            _iface("storage", 2, [400, 200], "infiniband", "storage"),
            _iface("inband", 2, [200, 100], "ethernet", "inband"),
            _iface("bmc", 1, [1], "ethernet", "oob"),
        ],
    ),
    # QM9700: 64 x 400G in 32 twin-port cages.
    "qm9700": _entry(
        "qm9700",
        "switch",
        [
            _iface("ports", 64, [400, 200], "infiniband", "any", per_cage=2),
            _iface("mgmt", 1, [1], "ethernet", "oob"),
        ],
    ),
    # QM8700: 40 x 200G HDR.
    "qm8700": _entry(
        "qm8700", "switch", [_iface("ports", 40, [200, 100], "infiniband", "any")]
    ),
    # SN5600: 64 x 800GbE, or 128 x 400GbE / 256 x 200GbE on breakout.
    "sn5600": _entry(
        "sn5600",
        "switch",
        [
            _iface(
                "ports",
                64,
                [800, 400, 200],
                "ethernet",
                "any",
                breakout={400: 2, 200: 4},
            )
        ],
    ),
    "sn2201": _entry("sn2201", "switch", [_iface("ports", 48, [1], "ethernet", "any")]),
    "lustre-appliance": _entry(
        "lustre-appliance",
        "storage",
        [
            _iface("data", 8, [400, 200], "infiniband", "storage"),
            _iface("bmc", 1, [1], "ethernet", "oob"),
        ],
    ),
    # A VPI NIC (InfiniBand native, Ethernet possible).
    "vpi-host": _entry(
        "vpi-host",
        "compute",
        [_iface("compute", 1, [400], "infiniband", "compute", alt_media=("ethernet",))],
    ),
    "generic-switch": _entry(
        "generic-switch",
        "switch",
        [_iface("ports", 64, [400], "ethernet", "any")],
        configurable=True,
    ),
    "generic-host": _entry(
        "generic-host",
        "compute",
        [_iface("compute", 1, [400], "ethernet", "compute")],
        configurable=True,
    ),
}

SPECS: dict[str, DeviceSpec] = {k: spec_from_entry(v) for k, v in ENTRIES.items()}


def lookup(catalog_id: str) -> DeviceSpec | None:
    """Specs by catalog id."""
    return SPECS.get(catalog_id)
