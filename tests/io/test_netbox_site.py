"""import-netbox --site: a design rebuilt from NetBox's exports of a site."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pytest

from designer.catalog import default_catalog
from designer.catalog.hosts import device_hostnames
from designer.cli.main import main
from designer.core.model import Design
from designer.io import load_design
from designer.io.export.netbox import netbox_cables, write_netbox_csvs
from designer.io.netbox_rebuild import design_from_site
from designer.io.netbox_site import NetboxSiteError, read_folder

CAT = default_catalog()
SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def _names(design: Design) -> dict[str, str]:
    return {d.id: d.id for d in design.devices} | device_hostnames(design, CAT)


def _lanes(design: Design, names: dict[str, str]) -> Counter[tuple[object, ...]]:
    t = design.links
    out: Counter[tuple[object, ...]] = Counter()
    for i in range(len(t.id)):
        ends = frozenset(((names[t.a[i]], t.a_port[i]), (names[t.b[i]], t.b_port[i])))
        out[(ends, t.speed_gbps[i], str(t.fabric[i]))] += t.cables[i]
    return out


def _placements(design: Design, names: dict[str, str]) -> dict[str, object]:
    racks = (
        {r.id: r.label or r.id for r in design.physical.racks}
        if design.physical
        else {}
    )
    return {
        names[d.id]: (
            racks.get(d.placement.rack or "", d.placement.rack),
            d.placement.u,
        )
        for d in design.devices
        if d.placement is not None
    }


def _same(original: Design, rebuilt: Design) -> None:
    names = _names(original)
    ident = {d.id: d.id for d in rebuilt.devices}
    assert sorted(names.values()) == sorted(ident)
    by_name = {names[d.id]: d.catalog_id for d in original.devices}
    assert {d.id: d.catalog_id for d in rebuilt.devices} == by_name
    assert _lanes(rebuilt, ident) == _lanes(original, names)
    assert _placements(rebuilt, ident) == _placements(original, names)
    # the links hold NetBox's ports: the rebuilt design's cables are NetBox's
    assert _cable_ends(rebuilt, ident) == _cable_ends(original, names)


def _cable_ends(design: Design, names: dict[str, str]) -> set[frozenset[object]]:
    return {
        frozenset(
            (
                frozenset((names[d], p) for d, p in c.a),
                frozenset((names[d], p) for d, p in c.b),
            )
        )
        for c in netbox_cables(design, CAT)
    }


def test_our_export_folder_rebuilds_the_design(tmp_path: Path) -> None:
    design = load_design(SAMPLES / "minimum-viable-enterprise.json")
    write_netbox_csvs(design, tmp_path, CAT)
    rebuilt = design_from_site(read_folder(tmp_path, design.settings.name), CAT)
    assert rebuilt.netbox_cables == len(netbox_cables(design, CAT)) == 30
    assert rebuilt.lanes == sum(design.links.cables) == 35  # 5 splitters
    _same(design, rebuilt.design)
    assert not rebuilt.skipped


@pytest.mark.slow
@pytest.mark.parametrize("name", ["dgx-h100-superpod-4su.json", "gb200-nvl72-su.json"])
def test_samples_round_trip_to_the_same_figures(name: str, tmp_path: Path) -> None:
    """GPUs, switches by tier, cables by fabric, power and racks equal the
    original's (lengths, and so media, follow rows NetBox has no positions for)."""
    from designer.analysis import analyze

    design = load_design(SAMPLES / name)
    write_netbox_csvs(design, tmp_path / "nb", CAT)
    out = tmp_path / "back.json"
    assert main(["import-netbox", "--site", design.settings.name,
                 str(tmp_path / "nb"), "-o", str(out)]) == 0  # fmt: skip
    back = load_design(out)
    _same(design, back)
    a, b = analyze(design), analyze(back)
    for field in ("gpus", "compute_nodes", "switches", "cables", "racks", "power_kw"):
        assert getattr(a, field) == getattr(b, field), field
    assert a.bisection.gbps == b.bisection.gbps


def _table_export(folder: Path, out: Path) -> None:
    """Our import CSVs renamed to NetBox's list Export headers (all data)."""
    rename = {
        "devices.csv": {"name": "Name", "site": "Site", "manufacturer": "Manufacturer",
                        "device_type": "Type", "rack": "Rack",
                        "position": "Position (U)",
                        "location": "Location", "description": "Description"},
        "racks.csv": {"name": "Name", "site": "Site", "location": "Location",
                      "u_height": "Height (U)", "description": "Description"},
        "cables.csv": {"side_a_site": "Site A", "side_a_device": "Device A",
                       "side_a_name": "Termination A", "side_b_site": "Site B",
                       "side_b_device": "Device B", "side_b_name": "Termination B",
                       "description": "Description"},
    }  # fmt: skip
    out.mkdir()
    for name, cols in rename.items():
        with (folder / name).open(encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
        with (out / name).open("w", encoding="utf-8", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["ID", *cols.values()])
            for i, r in enumerate(rows, 1):
                w.writerow([i, *(r[k] for k in cols)])


def test_netbox_list_export_csv_is_read(tmp_path: Path) -> None:
    design = load_design(SAMPLES / "development.json")
    write_netbox_csvs(design, tmp_path / "ours", CAT)
    _table_export(tmp_path / "ours", tmp_path / "nb")
    rebuilt = design_from_site(read_folder(tmp_path / "nb", design.settings.name), CAT)
    _same(design, rebuilt.design)


def test_rest_json_of_two_sites_with_the_same_names(tmp_path: Path) -> None:
    """REST pages of devices and cables: another site's devices of the same
    names (NetBox ids differ) are left out."""
    design = load_design(SAMPLES / "development.json")
    names = _names(design)
    site = design.settings.name
    devices, ids = [], {}
    for n, d in enumerate(design.devices, 1):
        e = CAT[d.catalog_id]
        ids[d.id] = n
        for sid, sname in ((n, site), (1000 + n, "Other site")):
            devices.append(
                {
                    "id": sid,
                    "name": names[d.id],
                    "site": {"id": 1, "name": sname},
                    "device_type": {
                        "model": e.model,
                        "manufacturer": {"name": e.manufacturer},
                    },
                    "rack": None,
                    "position": None,
                }
            )
    cables = []
    for c in netbox_cables(design, CAT):

        def term(
            ends: list[tuple[str, str]], shift: int = 0
        ) -> list[dict[str, object]]:
            return [
                {
                    "object_type": "dcim.interface",
                    "object": {
                        "device": {"id": ids[d] + shift, "name": names[d]},
                        "name": p,
                    },
                }
                for d, p in ends
            ]

        cables.append({"a_terminations": term(c.a), "b_terminations": term(c.b)})
        cables.append(
            {"a_terminations": term(c.a, 1000), "b_terminations": term(c.b, 1000)}
        )
    (tmp_path / "devices.json").write_text(json.dumps({"results": devices}))
    (tmp_path / "cables.json").write_text(json.dumps(cables))
    rebuilt = design_from_site(read_folder(tmp_path, site), CAT)
    assert len(rebuilt.design.devices) == len(design.devices)
    assert rebuilt.netbox_cables == len(netbox_cables(design, CAT))
    assert _lanes(rebuilt.design, {d.id: d.id for d in rebuilt.design.devices}) == (
        _lanes(design, names)
    )


def test_a_type_the_catalog_lacks_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    design = load_design(SAMPLES / "development.json")
    write_netbox_csvs(design, tmp_path, CAT)
    text = (tmp_path / "devices.csv").read_text(encoding="utf-8")
    first = text.splitlines()[1].split(",")[0]
    lines = text.splitlines()
    cols = lines[1].split(",")
    cols[3] = "Widget 9000"
    lines[1] = ",".join(cols)
    (tmp_path / "devices.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(NetboxSiteError, match="Widget 9000"):
        design_from_site(read_folder(tmp_path, design.settings.name), CAT)
    code = main(["import-netbox", "--site", design.settings.name, str(tmp_path),
                 "-o", str(tmp_path / "x.json")])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "Widget 9000" in err and first in err
    assert "import-netbox first" in err
    assert main(["import-netbox", "--site", "No such site", str(tmp_path)]) == 2
    assert "no device of site 'No such site'" in capsys.readouterr().err
