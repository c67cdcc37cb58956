"""One-line specs of catalog entries (palette, Properties, tooltips)."""

from __future__ import annotations

from designer.catalog.loader import default_catalog
from designer.view.catalog.specs import entry_specs


def test_palette_specs_of_golden_entries() -> None:
    catalog = default_catalog()
    # hardware.md: DGX H100 = 8 GPUs, 8x 400G NDR, ~10.2 kW; QM9700 = 64x 400G NDR
    assert entry_specs(catalog["dgx-h100"]) == "8x H100 SXM · 8x400G IB · 10.2 kW"
    assert entry_specs(catalog["qm9700"]).startswith("64x400G IB · ")
