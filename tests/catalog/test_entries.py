"""Every shipped entry loads, follows the conventions and matches hardware.md."""

from __future__ import annotations

import subprocess
import sys

import pytest

from designer.catalog import (
    Catalog,
    CatalogEntry,
    Category,
    Media,
    Role,
    default_catalog,
    default_catalog_dir,
)

FIXED_IDS = {
    Category.COMPUTE: [
        "dgx-h100",
        "dgx-h200",
        "dgx-b200",
        "dgx-b300",
        "hgx-h100",
        "l40s-server",
        "gb200-nvl72",
        "gb300-nvl72",
        "vr-nvl72",
        "generic-host",
        "dgx-a100",
    ],
    Category.SWITCH: [
        "qm8700",
        "qm9700",
        "q3400",
        "sn5600",
        "sn4600c",
        "sn2201",
        "generic-400g-64",
        "tor-100g-32",
        "generic-switch",
    ],
    Category.STORAGE: [
        "lustre-appliance",
        "weka-appliance",
        "vast-appliance",
        "gpfs-appliance",
        "nfs-filer",
    ],
    Category.MANAGEMENT: ["head-node", "ufm-appliance"],
}
ALL_IDS = [slug for ids in FIXED_IDS.values() for slug in ids]


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return default_catalog()


def test_every_fixed_id_is_present_in_its_category(cat: Catalog) -> None:
    for category, ids in FIXED_IDS.items():
        assert sorted(e.slug for e in cat.by_category(category)) == sorted(ids)
    assert len(cat) == len(ALL_IDS)


def test_files_follow_the_layout(cat: Catalog) -> None:
    root = default_catalog_dir()
    for slug, entry in cat.items():
        assert (root / entry.category.value / f"{slug}.yaml").is_file()
        assert entry.id == slug


def test_default_catalog_is_cached() -> None:
    assert default_catalog() is default_catalog()


@pytest.mark.parametrize("slug", ALL_IDS)
def test_port_group_naming_convention(cat: Catalog, slug: str) -> None:
    e = cat[slug]
    names = {i.name for i in e.interfaces}
    if e.category is Category.COMPUTE:
        assert e.interface("compute") is not None
        assert e.interface("compute").role is Role.COMPUTE  # type: ignore[union-attr]
        assert names <= {"compute", "storage", "inband", "bmc"}
    elif e.category is Category.SWITCH:
        assert e.interface("ports").role is Role.ANY  # type: ignore[union-attr]
        assert e.radix == e.interface("ports").count == e.ext.switch_radix  # type: ignore[union-attr]
    elif e.category is Category.STORAGE:
        assert e.interface("data").role is Role.STORAGE  # type: ignore[union-attr]
        assert names <= {"data", "bmc"}
    for i in e.interfaces:
        if i.name == "bmc" or i.name == "mgmt":
            assert i.role is Role.OOB and i.speeds_gbps == [1]
    if e.category is not Category.SWITCH:
        assert e.radix is None


@pytest.mark.parametrize("slug", ALL_IDS)
def test_price_has_source_date_and_estimates(cat: Catalog, slug: str) -> None:
    e = cat[slug]
    p = e.ext.price
    assert p.usd > 0
    assert len(p.source) > 10
    assert p.date[:2] == "20"
    # NVIDIA publishes no list prices (hardware.md §3): everything is an estimate
    assert p.estimate is True
    assert "price" in e.estimated_fields
    assert e.ext.sources, slug
    for line in e.ext.estimates:
        _, _, why = line.partition(":")
        assert len(why.strip()) > 5, line


# Numbers hardware.md marks [NOT FOUND] must be listed as estimates.
NOT_FOUND = {
    "qm9700": ["max_power_w"],
    "q3400": ["max_power_w", "price"],
    "sn5600": ["max_power_w", "price"],
    "sn4600c": ["max_power_w"],
    "l40s-server": ["u_height", "max_power_w", "price"],
    "hgx-h100": ["u_height", "max_power_w"],
    "dgx-b300": ["u_height", "price"],
    "vr-nvl72": ["price", "max_power_w"],
    **{
        s: ["storage.read_gbytes_s", "storage.write_gbytes_s", "storage.capacity_tb"]
        for s in FIXED_IDS[Category.STORAGE]
    },
}


@pytest.mark.parametrize(("slug", "fields"), sorted(NOT_FOUND.items()))
def test_not_found_numbers_are_labelled_estimates(
    cat: Catalog, slug: str, fields: list[str]
) -> None:
    assert set(fields) <= set(cat[slug].estimated_fields)


def _ports(e: CatalogEntry, name: str = "ports") -> tuple[int, int, int]:
    i = e.interface(name)
    assert i is not None
    return i.count, i.speed_gbps, i.cages


def test_switch_golden_specs(cat: Catalog) -> None:
    """hardware.md §2.3."""
    assert _ports(cat["qm8700"]) == (40, 200, 40)
    assert cat["qm8700"].interface("ports").media is Media.INFINIBAND  # type: ignore[union-attr]
    assert _ports(cat["qm9700"]) == (64, 400, 32)
    assert cat["qm9700"].u_height == 1
    assert cat["qm9700"].interface("ports").ports_at(200) == 128  # type: ignore[union-attr]
    q = cat["q3400"]
    assert (_ports(q)[:2], q.u_height, q.radix) == ((144, 800), 4, 144)
    sn = cat["sn5600"].interface("ports")
    assert sn is not None and sn.media is Media.ETHERNET
    assert (sn.ports_at(800), sn.ports_at(400), sn.ports_at(200)) == (64, 128, 256)
    assert sn.ports_at(100) == 256 and cat["sn5600"].u_height == 2
    assert _ports(cat["sn4600c"])[:2] == (64, 100)
    assert _ports(cat["sn2201"])[:2] == (48, 1)
    assert _ports(cat["generic-400g-64"])[:2] == (64, 400)
    assert _ports(cat["tor-100g-32"])[:2] == (32, 100)


def test_dgx_golden_specs(cat: Catalog) -> None:
    """hardware.md §2.1-2.2 and §6.4."""
    h = cat["dgx-h100"]
    g = h.ext.gpu
    assert g is not None and (g.count, g.memory_gb, g.nvlink_gbytes_s) == (8, 80, 900)
    assert h.ext.max_power_w == 10200 and h.u_height == 8
    assert _ports(h, "compute") == (8, 400, 4)
    assert h.interface("compute").media is Media.INFINIBAND  # type: ignore[union-attr]
    assert h.ext.max_power_w * 32 / 1000 == pytest.approx(326.4)  # per SU, DGX only
    assert cat["dgx-h200"].ext.gpu.memory_gb == 141  # type: ignore[union-attr]
    assert cat["dgx-h200"].gpus * 141 == 1128
    b = cat["dgx-b200"]
    assert (b.gpus, b.ext.gpu.memory_gb) == (8, 180)  # type: ignore[union-attr]
    assert (b.ext.max_power_w, b.u_height) == (14300, 10)
    assert b.gpus * b.ext.gpu.memory_gb == 1440  # type: ignore[union-attr]
    assert _ports(b, "compute") == (8, 400, 4)
    b3 = cat["dgx-b300"]
    assert (b3.gpus, b3.ext.max_power_w, _ports(b3, "compute")[:2]) == (
        8,
        14500,
        (8, 800),
    )


@pytest.mark.parametrize("slug", ["gb200-nvl72", "gb300-nvl72", "vr-nvl72"])
def test_nvl72_racks_are_one_nvlink_domain(cat: Catalog, slug: str) -> None:
    e = cat[slug]
    g = e.ext.gpu
    assert g is not None
    assert (g.count, g.nvlink_domain, e.ext.cpus) == (72, 72, 36)
    assert e.interface("compute").count == 72  # type: ignore[union-attr]  # 1 NIC/GPU


def test_rack_scale_golden_specs(cat: Catalog) -> None:
    assert cat["gb300-nvl72"].ext.max_power_w <= 142_000
    assert cat["gb300-nvl72"].interface("compute").speed_gbps == 800  # type: ignore[union-attr]
    assert cat["gb200-nvl72"].ext.gpu.nvlink_gbytes_s == 1800  # type: ignore[union-attr]
    assert cat["gb200-nvl72"].interface("compute").speed_gbps == 400  # type: ignore[union-attr]
    vr = cat["vr-nvl72"].ext.gpu
    assert vr is not None and vr.model == "Rubin"
    assert (vr.memory_gb, vr.nvlink_gbytes_s) == (288, 3600)
    assert 72 * vr.nvlink_gbytes_s / 1000 == pytest.approx(259.2)  # ~260 TB/s


def test_pcie_and_generic_entries(cat: Catalog) -> None:
    l40s = cat["l40s-server"]
    assert l40s.ext.gpu is not None and l40s.ext.gpu.nvlink_domain == 1
    assert l40s.ext.gpu.memory_gb == 48
    assert l40s.interface("compute").supports_speed(100)  # type: ignore[union-attr]
    assert l40s.interface("compute").media is Media.ETHERNET  # type: ignore[union-attr]
    assert cat["generic-switch"].configurable and cat["generic-host"].configurable
    assert cat["generic-host"].gpus == 1
    fixed = [s for s in ALL_IDS if s not in ("generic-switch", "generic-host")]
    assert not any(cat[s].configurable for s in fixed)


def test_storage_units_and_nvidia_per_su_guidance(cat: Catalog) -> None:
    """RA-H100 Table 6: one SU 'better' read is 40 GB/s, 'best' 125 GB/s."""
    for slug in FIXED_IDS[Category.STORAGE]:
        s = cat[slug].ext.storage
        assert s is not None
        assert 0 < s.write_gbytes_s <= s.read_gbytes_s and s.capacity_tb > 0
        data = cat[slug].interface("data")
        assert data is not None
        # throughput cannot exceed the data ports' line rate (Gb/s -> GB/s)
        assert s.read_gbytes_s <= data.count * data.speed_gbps / 8
    assert cat["nfs-filer"].ext.storage.kind == "nfs"  # type: ignore[union-attr]
    lustre = cat["lustre-appliance"].ext.storage
    assert lustre is not None and 40 <= lustre.read_gbytes_s < 125
    assert cat["nfs-filer"].ext.storage.read_gbytes_s < 40  # type: ignore[union-attr]


def test_management_entries(cat: Catalog) -> None:
    ufm = cat["ufm-appliance"].interface("compute")
    assert ufm is not None and (ufm.count, ufm.speed_gbps) == (1, 200)
    assert cat["qm9700"].interface("ports").supports_speed(200)  # type: ignore[union-attr]
    assert cat["head-node"].interface("bmc") is not None


def test_catalog_imports_no_qt() -> None:
    code = (
        "import sys, designer.catalog as c; c.default_catalog(); "
        "print([m for m in sys.modules if m.split('.')[0] in "
        "('PySide6', 'pyqtgraph', 'shiboken6')])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
