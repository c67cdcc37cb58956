"""NetBox device-type files in: entries that load, guesses and gaps said plainly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from designer.catalog import Category, default_catalog, default_catalog_dir
from designer.catalog.loader import ENTRY_SUFFIXES, OPTICS_FILE, load_catalog
from designer.catalog.netbox import expand_names
from designer.catalog.netbox_import import (
    NetboxImportError,
    check_entry,
    import_device_type,
)
from designer.catalog.netbox_ports import speed_of
from designer.catalog.schema import Media
from designer.cli.main import main
from tests.catalog.test_netbox import validator

DATA = Path(__file__).parent / "data" / "netbox-devices"
CAT = default_catalog()


def _read(path: Path) -> dict[str, Any]:
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(raw, dict)
    return raw


def _ports(group: dict[str, Any]) -> list[str]:
    spec = group["ports"]
    return expand_names(spec) if isinstance(spec, str) else list(spec)


def test_netbox_types_give_speed_and_link_layer() -> None:
    assert speed_of("400gbase-x-osfp") == (400, Media.ETHERNET)
    assert speed_of("infiniband-xdr") == (800, Media.INFINIBAND)
    assert speed_of("1000base-t") == (1, Media.ETHERNET)
    assert speed_of("100base-tx") is None  # below 1G: not a data port here
    assert speed_of("virtual") is None


def test_twin_cage_switch_imports_and_loads() -> None:
    raw = _read(DATA / "acme" / "ax-6400.yml")
    r = import_device_type(raw, "ax-6400.yml")
    assert r.category is Category.SWITCH and r.loadable and check_entry(r) is None
    ext = r.data["x-designer"]
    ports = next(g for g in ext["port_groups"] if g["name"] == "ports")
    assert ports["ports"] == "osfp[1-32]/[1-2]"  # compressed back to a pattern
    assert ports["ports_per_cage"] == 2 and ports["transceiver"] == "osfp-2x400g"
    assert ext["switch_radix"] == 64
    mgmt = next(g for g in ext["port_groups"] if g["name"] == "mgmt")
    assert (mgmt["ports"], mgmt["role"]) == ("mgmt0", "oob")
    # 1,400 W per inlet, one of two carrying the load (N+N assumed, said so)
    assert ext["max_power_w"] == 1400
    assert any("N+N redundancy assumed" in e for e in ext["estimates"])
    assert ext["price"]["usd"] == 0 and "not set" in ext["price"]["source"]
    assert any(line.startswith("category: switch") for line in r.guessed)
    # the NetBox part is kept as given and still passes NetBox's schema
    netbox = {k: v for k, v in r.data.items() if k != "x-designer"}
    assert netbox == raw
    assert list(validator().iter_errors(netbox)) == []


def test_written_file_loads_with_the_catalog_loader(tmp_path: Path) -> None:
    r = import_device_type(_read(DATA / "acme" / "ax-6400.yml"), "ax-6400.yml")
    dest = tmp_path / r.path
    dest.parent.mkdir(parents=True)
    dest.write_text(r.text(), encoding="utf-8")
    assert r.text().startswith("# Imported by cluster-designer import-netbox")
    cat = load_catalog(tmp_path)
    entry = cat["acme-ax-6400"]
    assert entry.radix == 64 and entry.interface("ports").cages == 32  # type: ignore[union-attr]
    assert entry.ext.price.usd == 0 and entry.ext.price.estimate


def test_gpu_server_lists_what_the_analysis_needs() -> None:
    r = import_device_type(_read(DATA / "acme" / "sub" / "g8.yaml"), "g8.yaml")
    assert r.category is Category.COMPUTE and not r.loadable
    assert any(n.startswith("x-designer.gpu") for n in r.needs)
    groups = {g["name"]: g for g in r.data["x-designer"]["port_groups"]}
    assert _ports(groups["compute"]) == [f"nic{n}" for n in range(1, 9)]
    assert groups["compute"]["role"] == "compute"
    assert groups["storage"]["speeds_gbps"] == [100]  # the second-fastest group
    assert groups["bmc"]["role"] == "oob"
    # 3,000 W x 2 of 4 supplies
    assert r.data["x-designer"]["max_power_w"] == 6000
    assert check_entry(r) is not None  # the loader refuses it until GPUs are given


def test_a_file_that_skips_ports_says_so() -> None:
    r = import_device_type(_read(DATA / "acme" / "ax-48g.yaml"), "ax-48g.yaml")
    gaps = " ".join(r.gaps)
    assert "46 1000base-t ports listed" in gaps and "skips ge17, ge18" in gaps
    assert "no power port gives maximum_draw" in gaps
    assert any("max_power_w" in n for n in r.needs) and not r.loadable


def test_a_library_file_of_a_catalog_model_takes_its_facts_and_names_the_gap() -> None:
    """A QM9700 file with 62 of 64 ports (as the library's is) and no power."""
    lines = {
        "manufacturer": "Nvidia",
        "model": "QM9700",
        "slug": "nvidia-qm9700",
        "u_height": 1,
        "is_full_depth": True,
        "interfaces": [
            {"name": f"P{c}.{p}", "type": "400gbase-x-osfp"}
            for c in range(32)
            for p in range(2)
            if f"P{c}.{p}" not in ("P22.1", "P23.0")
        ],
    }
    r = import_device_type(lines, "QM9700.yaml", catalog=CAT)
    gaps = " ".join(r.gaps)
    assert "skips P22.1, P23.0" in gaps
    assert "the catalog's 'qm9700' of the same model has 64" in gaps
    assert "cages are not set" in gaps  # twin cages cannot pair with holes
    ports = next(g for g in r.data["x-designer"]["port_groups"] if g["name"] == "ports")
    assert ports["media"] == "infiniband" and ports["speeds_gbps"] == [400, 200]
    assert r.data["x-designer"]["price"]["usd"] == CAT["qm9700"].ext.price.usd
    assert r.loadable and check_entry(r) is None


def test_not_a_netbox_device_type() -> None:
    with pytest.raises(NetboxImportError, match=r"bad\.yaml: .*is_full_depth"):
        import_device_type({"manufacturer": "A", "model": "B", "slug": "b",
                            "u_height": 1}, "bad.yaml")  # fmt: skip
    with pytest.raises(NetboxImportError, match="count"):
        import_device_type(
            {"manufacturer": "A", "model": "B", "slug": "b", "u_height": 1,
             "is_full_depth": True, "interfaces": [{"name": "p", "type":
             "1000base-t", "count": 4}]},
            "extra.yaml",
        )  # fmt: skip


SHIPPED = sorted(
    p
    for p in default_catalog_dir().rglob("*")
    if p.suffix in ENTRY_SUFFIXES and p.name != OPTICS_FILE
)


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_round_trip_of_every_catalog_file(path: Path) -> None:
    """Catalog file -> NetBox file (x-designer removed) -> import, no catalog help."""
    original = _read(path)
    netbox = {k: v for k, v in original.items() if k != "x-designer"}
    r = import_device_type(netbox, path.name)
    assert {k: v for k, v in r.data.items() if k != "x-designer"} == netbox
    entry = CAT[original["slug"]]
    # every port with a speed is in exactly one imported group
    listed = [n for g in r.data["x-designer"]["port_groups"] for n in _ports(g)]
    typed = [i.name for i in entry.netbox_interfaces if speed_of(i.type) is not None]
    assert sorted(listed) == sorted(typed) and len(set(listed)) == len(listed)
    if entry.category is Category.SWITCH and entry.slug != "generic-switch":
        assert r.category is Category.SWITCH
        ports = next(
            g for g in r.data["x-designer"]["port_groups"] if g["name"] == "ports"
        )
        mine = entry.interface("ports")
        assert mine is not None
        assert _ports(ports) == list(mine.ports)
        assert ports.get("ports_per_cage", 1) == mine.ports_per_cage
        assert r.loadable and check_entry(r) is None
        assert r.data["x-designer"]["switch_radix"] == entry.radix


def test_cli_imports_a_folder_tree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "cat"
    assert main(["import-netbox", str(DATA), "-o", str(out_dir)]) == 0
    text = capsys.readouterr().out
    written = sorted(p.relative_to(out_dir).as_posix() for p in out_dir.rglob("*.yaml"))
    assert written == [
        "compute/acme-g8.yaml",
        "switch/acme-ax-48g.yaml",
        "switch/acme-ax-6400.yaml",
    ]
    assert "still needed: x-designer.gpu" in text
    assert "the NetBox file lacks: 46 1000base-t ports listed" in text
    assert "acme-ax-6400.yaml (switch; loads)" in text
    # a second run does not overwrite without --force
    assert main(["import-netbox", str(DATA), "-o", str(out_dir)]) == 2
    assert "exists; use --force" in capsys.readouterr().err
    assert main(["import-netbox", str(DATA), "-o", str(out_dir), "--force"]) == 0


def test_cli_refuses_what_it_cannot_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["import-netbox", str(tmp_path / "none.yaml")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    bad = tmp_path / "bad.yml"
    bad.write_text("manufacturer: [unclosed\n", encoding="utf-8")
    assert main(["import-netbox", str(bad), "-o", str(tmp_path / "o")]) == 2
    assert f"{bad}: line" in capsys.readouterr().err
    txt = tmp_path / "x.txt"
    txt.write_text("a: 1\n", encoding="utf-8")
    assert main(["import-netbox", str(txt)]) == 2
    assert "expected a .yaml or .yml" in capsys.readouterr().err


def _as_netbox_exports(slug: str) -> dict[str, Any]:
    """A catalog type as NetBox 4.7's Export > YAML writes it (DeviceType.to_yaml):
    every field, null or '' where there is no value, fields the library lacks."""
    from designer.io.export.netbox import device_type_document

    doc = device_type_document(CAT[slug])
    out: dict[str, Any] = {
        "manufacturer": doc["manufacturer"],
        "model": doc["model"],
        "slug": doc["slug"],
        "description": doc.get("description", ""),
        "default_platform": None,
        "part_number": doc.get("part_number", ""),
        "u_height": float(doc["u_height"]),
        "is_full_depth": doc["is_full_depth"],
        "subdevice_role": None,
        "airflow": doc.get("airflow"),
        "cooling_method": None,
        "weight": doc.get("weight"),
        "weight_unit": doc.get("weight_unit"),
        "end_of_life": None,
        "comments": doc.get("comments", ""),
    }
    out["power-ports"] = [
        {
            "name": p["name"],
            "type": p["type"],
            "maximum_draw": p.get("maximum_draw"),
            "allocated_draw": None,
            "label": "",
            "description": "",
        }
        for p in doc.get("power-ports", [])
    ]
    out["interfaces"] = [
        {
            "name": i["name"],
            "type": i["type"],
            "channels": None,
            "channel_id": None,
            "enabled": True,
            "mgmt_only": i.get("mgmt_only", False),
            "label": "",
            "description": "",
            "parent": None,
            "bridge": None,
            "poe_mode": "",
            "poe_type": "",
            "rf_role": "",
        }
        for i in doc["interfaces"]
    ]
    return out


def test_netbox_export_yaml_of_catalog_types_comes_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """NetBox joins the types with '---' (no leading one); nulls, '' and newer
    fields mean 'not given'; each document becomes an entry that loads, with
    the catalog entry's port groups."""
    slugs = ["qm9700", "dgx-h100", "sn5600"]
    text = "---\n".join(
        yaml.dump(_as_netbox_exports(s), sort_keys=False) for s in slugs
    )
    src = tmp_path / "netbox_device_types.yaml"
    src.write_text(text, encoding="utf-8")
    out_dir = tmp_path / "cat"
    assert main(["import-netbox", str(src), "-o", str(out_dir)]) == 0
    printed = capsys.readouterr().out
    assert printed.count("; loads)") == 3
    assert "(document 2 of 3)" in printed
    assert "dropped: cooling_method" not in printed  # null: not given, not a field
    written = load_catalog(out_dir)
    for s in slugs:
        (entry,) = [e for e in written.values() if e.model == CAT[s].model]
        assert [i.name for i in entry.netbox_interfaces] == [
            i.name for i in CAT[s].netbox_interfaces
        ]
        assert entry.category is CAT[s].category
        # the NetBox part is the catalog's again, nulls and '' gone
        from designer.io.export.netbox import device_type_document

        back, mine = device_type_document(entry), device_type_document(CAT[s])
        scalars = [k for k, v in mine.items() if not isinstance(v, list)]
        assert {k: back.get(k) for k in scalars if k != "slug"} == {
            k: mine[k] for k in scalars if k != "slug"
        }
        assert back["power-ports"] == mine["power-ports"]
        assert [(i["name"], i["type"]) for i in back["interfaces"]] == [
            (i["name"], i["type"]) for i in mine["interfaces"]
        ]


def test_a_field_of_newer_netbox_with_a_value_is_named() -> None:
    raw = _as_netbox_exports("qm9700")
    raw["default_platform"] = "Cumulus"
    raw["interfaces"][0]["rf_role"] = "ap"
    r = import_device_type(raw, "x.yaml", catalog=CAT)
    assert check_entry(r) is None
    (note,) = [c for c in r.cleaned if "dropped" in c]
    assert "default_platform" in note and "interfaces[].rf_role" in note
    assert "default_platform" not in r.data


@pytest.mark.parametrize(
    ("given", "mapped"),
    [("Nvidia", "NVIDIA"), ("nvidia", "NVIDIA"), ("Mellanox", "NVIDIA")],
)
def test_library_manufacturers_map_to_the_catalogs(given: str, mapped: str) -> None:
    raw = _read(DATA / "acme" / "ax-6400.yml")
    raw["manufacturer"] = given
    r = import_device_type(raw, "x.yml", catalog=CAT)
    assert r.data["manufacturer"] == mapped
    assert f"manufacturer {given!r} mapped to the catalog's 'NVIDIA'" in r.cleaned


def test_a_manufacturer_not_in_the_catalog_is_said() -> None:
    r = import_device_type(_read(DATA / "acme" / "ax-6400.yml"), "x.yml", catalog=CAT)
    assert r.data["manufacturer"] == "Acme"
    (note,) = [c for c in r.cleaned if "Acme" in c]
    assert "not one of the catalog's (" in note and "NVIDIA" in note
    assert note.endswith("kept as given")
