"""Short number formats shown in the panels."""

from __future__ import annotations

from designer.catalog.loader import default_catalog
from designer.qt import formatting as fmt


def test_bandwidth_money_and_ratio_formats() -> None:
    assert fmt.gbps(800) == "800 Gb/s"
    assert fmt.gbps(51_200) == "51.2 Tb/s"
    assert fmt.gbps(20_000_000) == "20 Pb/s"
    assert fmt.usd(850_000) == "$850K"
    assert fmt.usd(12_340_000) == "$12.3M"
    assert fmt.usd(500_000_000) == "$500M"
    assert fmt.usd(4_050_000_000) == "$4.05B"
    assert fmt.usd_range(5e5, 3e6) == "$500K–$3.0M"
    assert fmt.usd_range(5e8, None) == "$500M+"
    assert fmt.ratio(2.0) == "2:1"
    assert fmt.ratio(None) == "top"


def test_palette_specs_of_golden_entries() -> None:
    catalog = default_catalog()
    # hardware.md: DGX H100 = 8 GPUs, 8x 400G NDR, ~10.2 kW; QM9700 = 64x 400G NDR
    assert fmt.entry_specs(catalog["dgx-h100"]) == "8x H100 SXM · 8x400G IB · 10.2 kW"
    assert fmt.entry_specs(catalog["qm9700"]).startswith("64x400G IB · ")
