"""One-line specs of a catalog entry, for the palette, Properties and tooltips."""

from __future__ import annotations

from designer.catalog.schema import CatalogEntry, Category


def _speed(entry: CatalogEntry, name: str) -> str | None:
    iface = entry.interface(name)
    if iface is None:
        return None
    media = "IB" if iface.media.value == "infiniband" else "GbE"
    return f"{iface.count}x{iface.speed_gbps}G {media}".replace("G GbE", "GbE")


def entry_specs(entry: CatalogEntry) -> str:
    """Key specs of a catalog entry in one line: "8x H100 SXM · 8x400G IB · 10.2 kW"."""
    parts: list[str] = []
    ext = entry.ext
    if ext.gpu is not None:
        parts.append(f"{ext.gpu.count}x {ext.gpu.model}")
    if entry.category is Category.COMPUTE:
        speed = _speed(entry, "compute")
        if speed:
            parts.append(speed)
    elif entry.category is Category.SWITCH:
        speed = _speed(entry, "ports")
        if speed:
            parts.append(speed)
    elif ext.storage is not None:
        parts.append(f"{ext.storage.read_gbytes_s:g} GB/s read")
        parts.append(f"{ext.storage.capacity_tb:,.0f} TB")
    else:
        main = next((i for i in entry.interfaces if i.role.value != "oob"), None)
        if main is not None:
            speed = _speed(entry, main.name)
            if speed:
                parts.append(speed)
    parts.append(f"{ext.max_power_w / 1000:.3g} kW")
    return " · ".join(parts)
