"""Short human formats for numbers shown in panels, status bar and charts."""

from __future__ import annotations

from designer.catalog.schema import CatalogEntry, Category


def gbps(value: float) -> str:
    """Bandwidth in Gb/s as "800 Gb/s", "51.2 Tb/s" or "3.28 Pb/s"."""
    if value >= 1e6:
        return f"{value / 1e6:.3g} Pb/s"
    if value >= 1e3:
        return f"{value / 1e3:,.4g} Tb/s"
    return f"{value:.4g} Gb/s"


def usd(value: float) -> str:
    """Money as "$850K", "$12.3M", "$500M", "$1.20B"."""
    if value >= 1e9:
        return f"${value / 1e9:.2f}B"
    if value >= 1e8:
        return f"${value / 1e6:.0f}M"
    if value >= 1e6:
        return f"${value / 1e6:.1f}M"
    if value >= 1e3:
        return f"${value / 1e3:.0f}K"
    return f"${value:.0f}"


def usd_range(low: float, high: float | None) -> str:
    """A typical cost range; open-ended when ``high`` is None."""
    return f"{usd(low)}+" if high is None else f"{usd(low)}–{usd(high)}"


def ratio(value: float | None) -> str:
    """Oversubscription as "1:1", "2:1", "1.5:1"; "top" when there is no uplink."""
    if value is None:
        return "top"
    return f"{value:.3g}:1"


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
