"""Our NetBox hand-offs imported into NetBox itself, and NetBox's exports back.

Needs the NetBox of ``scripts/netbox-up.sh up`` (marker ``netbox``; skipped
with the reason otherwise): ``CLUSTER_DESIGNER_NETBOX_ENV=<state>/netbox.env``
or the variables of that file in the environment. Every import goes through
NetBox's bulk-import views, as a user pastes a file; counts and cable ends are
read back through the REST API. NetBox keeps what the tests import, so every
design gets a site name of its own per run; device types, manufacturers and
roles are shared and imported when NetBox lacks them (as the README says).

The whole samples (thousands of cables, up to an hour on a busy machine) are
imported by ``test_both_samples_import_whole_into_one_netbox`` only when
``CLUSTER_DESIGNER_NETBOX_SAMPLES=1``.
"""

from __future__ import annotations

import os
import re
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from designer.catalog import default_catalog, default_catalog_dir
from designer.catalog.hosts import device_hostnames
from designer.cli.main import main
from designer.core.model import Design
from designer.io import load_design
from designer.io.export.netbox import netbox_cables, write_netbox_csvs
from tests.netbox.harness import NetBox

pytestmark = pytest.mark.netbox

CAT = default_catalog()
SAMPLES = Path(__file__).resolve().parents[2] / "samples"
RUN = uuid.uuid4().hex[:6]


@pytest.fixture(scope="module")
def nb() -> Iterator[NetBox]:
    try:
        got = NetBox.from_env()
    except OSError as exc:
        pytest.skip(f"NetBox does not answer ({exc}); scripts/netbox-up.sh up")
    if got is None:
        pytest.skip(
            "no NetBox: run scripts/netbox-up.sh up and set "
            "CLUSTER_DESIGNER_NETBOX_ENV to the env file it writes"
        )
    yield got


def _named(design: Design, name: str) -> Design:
    return design.model_copy(
        update={"settings": design.settings.model_copy(update={"name": name})}
    )


def _site(nb: NetBox, name: str) -> dict[str, object]:
    (site,) = nb.api("dcim/sites", name=name)["results"]
    return dict(site)


def _netbox_ends(nb: NetBox, site_id: object) -> Counter[frozenset[frozenset[str]]]:
    """Every cable at the site as {{A ends}, {B ends}}, an end 'device port'."""
    out: Counter[frozenset[frozenset[str]]] = Counter()
    for c in nb.all("dcim/cables", site_id=site_id):
        sides = []
        for side in ("a_terminations", "b_terminations"):
            sides.append(
                frozenset(
                    f"{t['object']['device']['name']} {t['object']['name']}"
                    for t in c[side]
                )
            )
        out[frozenset(sides)] += 1
    return out


def _design_ends(design: Design) -> Counter[frozenset[frozenset[str]]]:
    names = {d.id: d.id for d in design.devices} | device_hostnames(design, CAT)
    out: Counter[frozenset[frozenset[str]]] = Counter()
    for c in netbox_cables(design, CAT):
        a = frozenset(f"{names[d]} {p}" for d, p in c.a)
        b = frozenset(f"{names[d]} {p}" for d, p in c.b)
        out[frozenset((a, b))] += 1
    return out


def _import_and_check(nb: NetBox, design: Design, folder: Path) -> None:
    counts = write_netbox_csvs(design, folder, CAT)
    results = nb.import_folder(folder)
    failed = {k: r.message for k, r in results.items() if not r.ok}
    assert not failed, failed
    _check(nb, design, counts)


def _check(nb: NetBox, design: Design, counts: dict[str, int]) -> None:
    """NetBox's counts and cable ends at the design's site equal the design's."""
    site = _site(nb, design.settings.name)
    sid = site["id"]
    assert nb.count("dcim/devices", site_id=sid) == len(design.devices)
    assert nb.count("dcim/racks", site_id=sid) == counts["racks"]
    interfaces = sum(len(CAT[d.catalog_id].netbox_interfaces) for d in design.devices)
    assert nb.count("dcim/interfaces", site_id=sid) == interfaces
    assert nb.count("dcim/cables", site_id=sid) == counts["cables"]
    assert _netbox_ends(nb, sid) == _design_ends(design)
    profiles = Counter(c["profile"]["value"] for c in nb.all("dcim/cables", site_id=sid)
                       if c.get("profile"))  # fmt: skip
    assert sum(profiles.values()) == counts["breakouts"]


def test_a_design_imports_whole_and_reads_back_equal(
    nb: NetBox, tmp_path: Path
) -> None:
    """Every file in the README's order; the site's devices, racks, interfaces,
    cables (splitters included, with NetBox's breakout profile) and every
    cable's ends equal the design's."""
    design = _named(
        load_design(SAMPLES / "minimum-viable-enterprise.json"), f"MVE {RUN}"
    )
    assert sum(1 for c in netbox_cables(design, CAT) if c.is_breakout) == 5
    _import_and_check(nb, design, tmp_path / "a")


def test_a_second_design_with_the_same_device_names_imports_beside(
    nb: NetBox, tmp_path: Path
) -> None:
    """Two designs share device names ('leaf-1', hostnames): each site keeps its
    own, the cables find theirs through side_a_site / side_b_site."""
    base = load_design(SAMPLES / "development.json")
    first, second = _named(base, f"Dev A {RUN}"), _named(base, f"Dev B {RUN}")
    _import_and_check(nb, first, tmp_path / "a")
    _import_and_check(nb, second, tmp_path / "b")
    name = first.devices[0].id
    got = nb.api("dcim/devices", name=name)["results"]
    sites = {d["site"]["name"] for d in got}
    assert {first.settings.name, second.settings.name} <= sites


def _catalog_files() -> list[Path]:
    root = default_catalog_dir()
    return sorted(p for p in root.rglob("*.yaml") if p.name != "optics.yaml")


@pytest.fixture(scope="module")
def catalog_in_netbox(nb: NetBox) -> list[str]:
    """Every catalog file pasted as it is on the Device Types Import page,
    default format (those NetBox lacks; manufacturers first)."""
    texts = [p.read_text(encoding="utf-8") for p in _catalog_files()]
    assert len(texts) == len(CAT) and all(t.startswith("---\n") for t in texts)
    makers = "name,slug\n" + "".join(
        f"{m},{m.lower()}\n" for m in sorted({e.manufacturer for e in CAT.values()})
    )
    if (rows := nb.missing_rows("manufacturers.csv", makers)) is not None:
        r = nb.import_text("dcim/manufacturers", rows)
        assert r.ok, r.message
    missing = nb.missing_rows("device-types.yaml", "".join(texts))
    if missing is not None:
        r = nb.import_text("dcim/device-types", missing, fmt="auto")
        assert r.ok, r.message
    return texts


def test_catalog_files_import_on_the_default_format(
    nb: NetBox, catalog_in_netbox: list[str]
) -> None:
    """The Import page's default format (auto) takes a catalog file as it is
    (x-designer included, ignored by NetBox): each type NetBox has then has
    the file's interfaces and power ports. One file is imported under a new
    model name every run, so the detection is exercised every time."""
    texts = catalog_in_netbox
    fresh = re.sub(r"(?m)^model: (.*)$", rf"model: \1 {RUN}", texts[0])
    fresh = re.sub(r"(?m)^slug: (.*)$", rf"slug: \1-{RUN}", fresh)
    r = nb.import_text("dcim/device-types", fresh, fmt="auto")
    assert r.ok, r.message
    for e in CAT.values():
        (t,) = nb.api("dcim/device-types", model=e.model)["results"]
        assert t["interface_template_count"] == len(e.netbox_interfaces), e.slug
        assert nb.count("dcim/power-port-templates", device_type_id=t["id"]) == len(
            e.power_ports
        )


def test_rest_creates_a_type_without_components_until_they_are_posted(
    nb: NetBox,
) -> None:
    """What the catalog README says REST users must do, tried: the type alone
    has no interfaces; posting the interface templates gives all of them."""
    entry = CAT["qm9700"]
    status, made = nb.api_post(
        "dcim/device-types",
        {
            "manufacturer": {"name": entry.manufacturer},
            "model": f"{entry.model} REST {RUN}",
            "slug": f"{entry.slug}-rest-{RUN}",
            "u_height": entry.u_height,
            "is_full_depth": entry.is_full_depth,
            "interfaces": [
                {"name": i.name, "type": i.type} for i in entry.netbox_interfaces
            ],
        },
    )
    assert status == 201, made
    assert made["interface_template_count"] == 0  # components ignored
    status, got = nb.api_post(
        "dcim/interface-templates",
        [
            {"device_type": made["id"], "name": i.name, "type": i.type}
            for i in entry.netbox_interfaces
        ],
    )
    assert status == 201, got
    n = nb.count("dcim/interface-templates", device_type_id=made["id"])
    assert n == len(entry.netbox_interfaces) == 65


def test_netbox_yaml_export_of_our_types_comes_back(
    nb: NetBox,
    catalog_in_netbox: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """NetBox's Export > YAML of the device types (every catalog type) through
    import-netbox: each document written, each loads."""
    text = nb.export("dcim/device-types", manufacturer="nvidia")
    docs = [d for d in re.split(r"(?m)^---$", text) if d.strip()]
    src = tmp_path / "netbox_device_types.yaml"
    src.write_text(text, encoding="utf-8")
    out = tmp_path / "cat"
    code = main(["import-netbox", str(src), "-o", str(out)])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    ours = {e.model for e in CAT.values() if e.manufacturer == "NVIDIA"}
    written = {
        p.read_text(encoding="utf-8").split("\nmodel: ")[1].split("\n")[0]
        for p in out.rglob("*.yaml")
    }
    assert len(written) == len(docs) and ours <= written
    assert printed.out.count("; loads)") >= len(ours) - 1  # compute needs GPUs


@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get("CLUSTER_DESIGNER_NETBOX_SAMPLES") != "1",
    reason="the whole samples take up to an hour: CLUSTER_DESIGNER_NETBOX_SAMPLES=1",
)
def test_both_samples_import_whole_into_one_netbox(nb: NetBox, tmp_path: Path) -> None:
    """The 4-SU DGX H100 and the GB200 NVL72 samples (37 device names in common)
    side by side, every file in the README's order, nothing created by hand.
    A sample whose site NetBox has already (an earlier run) is checked, not
    imported again."""
    for i, name in enumerate(("dgx-h100-superpod-4su.json", "gb200-nvl72-su.json")):
        design = load_design(SAMPLES / name)
        if nb.exists("dcim/sites", name=design.settings.name):
            _check(nb, design, write_netbox_csvs(design, tmp_path / str(i), CAT))
            continue
        _import_and_check(nb, design, tmp_path / str(i))


def test_a_site_comes_back_from_netbox_csv_export_and_rest(
    nb: NetBox, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """import-netbox --site on NetBox's own list Export (CSV, all data) of the
    site's devices, racks, locations and cables, and on its REST API: the
    rebuilt design's devices, placements and cables equal the original's."""
    design = _named(
        load_design(SAMPLES / "minimum-viable-enterprise.json"), f"MVE back {RUN}"
    )
    _import_and_check(nb, design, tmp_path / "in")
    sid = _site(nb, design.settings.name)["id"]
    csv_dir = tmp_path / "netbox-export"
    csv_dir.mkdir()
    for model in ("devices", "racks", "locations", "cables"):
        text = nb.export(f"dcim/{model}", site_id=sid)
        (csv_dir / f"{model}.csv").write_text(text, encoding="utf-8")
    names = {d.id: d.id for d in design.devices} | device_hostnames(design, CAT)
    racks = {d.id: (d.placement.rack, d.placement.u) for d in design.devices
             if d.placement is not None}  # fmt: skip
    for source, extra in (
        (str(csv_dir), []),
        (nb.url, ["--token", nb.token]),
    ):
        out = tmp_path / f"back-{len(extra)}.json"
        code = main(
            ["import-netbox", "--site", design.settings.name, source, "-o", str(out),
             *extra]
        )  # fmt: skip
        printed = capsys.readouterr()
        assert code == 0, printed.err
        back = load_design(out)
        assert _design_ends(back) == _design_ends(design)
        got = {d.id: (d.placement.rack, d.placement.u) for d in back.devices
               if d.placement is not None}  # fmt: skip
        assert got == {names[k]: v for k, v in racks.items()}
        assert f"{len(design.devices)} devices" in printed.out
