"""Hosts of a design: one per server, one per compute tray, names valid and unique."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from designer.catalog import default_catalog
from designer.catalog.hosts import design_hosts, device_hostnames
from designer.core.hostnames import (
    DEFAULT_TRAY_RULE,
    is_hostname,
    render_tray_name,
    sanitize_hostname,
    tray_rule_problem,
)
from designer.core.model import Design, Device, Settings
from designer.io import load_design, loads_design
from tests.hypo import examples

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def _design(*devices: tuple[str, str, str], rule: str | None = None) -> Design:
    settings_ = Settings() if rule is None else Settings(tray_hostnames=rule)
    return Design(
        settings=settings_,
        devices=[Device(id=i, catalog_id=c, label=label) for i, c, label in devices],
    )


def test_an_nvl72_rack_is_18_hosts_of_4_gpus() -> None:
    design = _design(
        ("nvl72-0001", "gb200-nvl72", "GB200 rack #1"),
        ("dgx-01", "dgx-h100", "DGX 1"),
        ("leaf-1", "qm9700", "Leaf"),
    )
    hosts = design_hosts(design)
    trays = hosts.of_device("nvl72-0001")
    assert [h.name for h in trays] == [f"nvl72-0001-t{n:02d}" for n in range(1, 19)]
    assert [h.tray for h in trays] == list(range(1, 19))
    assert {h.gpus for h in trays} == {4}
    assert sum(h.gpus for h in trays) == 72
    # per tray: 2 Grace of 72 cores, 480 GB each (catalog, with sources)
    assert {h.cpus for h in trays} == {144}
    assert {h.memory_gb for h in trays} == {960}
    (dgx,) = hosts.of_device("dgx-01")
    assert (dgx.name, dgx.tray, dgx.gpus, dgx.cpus) == ("dgx-01", None, 8, 224)
    assert hosts.of_device("leaf-1") == ()
    assert len(hosts) == 19
    assert [h.name for h in hosts][-1] == "dgx-01"


def test_ports_belong_to_their_tray() -> None:
    design = _design(("r1", "vr-nvl72", ""), ("dgx-01", "dgx-h100", ""))
    hosts = design_hosts(design)
    t3 = hosts.host_of_port("r1", "tray3-osfp2")
    assert t3 is not None and (t3.name, t3.tray) == ("r1-t03", 3)
    assert hosts.host_of_port("r1", "tray3-osfp2:1") == t3  # breakout lane
    t18 = hosts.host_of_port("r1", "tray18-qsfp112-2")
    assert t18 is not None and t18.tray == 18
    assert hosts.host_of_port("r1", "oob1") is None  # the rack's own port
    assert hosts.host_of_port("r1", "tray19-osfp1") is None
    assert hosts.host_of_port("r1", "tray03-osfp1") is None  # not tray 3's name
    assert hosts.host_of_port("r1", "tray1osfp1") is None
    dgx = hosts.host_of_port("dgx-01", "osfp1/1")
    assert dgx is not None and dgx.name == "dgx-01"
    assert hosts.host_of_port("nope", "osfp1") is None


def test_every_compute_port_of_a_rack_entry_is_on_a_tray() -> None:
    cat = default_catalog()
    for slug in ("gb200-nvl72", "gb300-nvl72", "vr-nvl72"):
        entry = cat[slug]
        assert entry.ext.trays is not None and entry.ext.trays.count == 18
        compute = entry.interface("compute")
        assert compute is not None
        per_tray = [entry.tray_of_port(p) for p in compute.ports]
        assert sorted(set(per_tray)) == list(range(1, 19))  # type: ignore[type-var]
        assert all(per_tray.count(n) == 4 for n in range(1, 19))
        assert entry.ext.cpus == 36 == 2 * 18
    # every compute entry states its host (sources or estimates say where from)
    for entry in cat.values():
        if entry.category.value == "compute":
            assert entry.ext.host is not None, entry.id


def test_hostname_lookup() -> None:
    design = _design(("r1", "gb300-nvl72", ""), ("dgx-01", "dgx-b200", ""))
    hosts = design_hosts(design)
    assert hosts.hostname("r1", 7) == "r1-t07"
    assert hosts.hostname("dgx-01") == "dgx-01"
    assert hosts.device_name("r1") == "r1"
    assert hosts.has_trays("r1") and not hosts.has_trays("dgx-01")
    for bad in (("r1", None), ("r1", 19), ("r1", 0), ("dgx-01", 1), ("x", None)):
        with pytest.raises(KeyError):
            hosts.hostname(*bad)
    h = hosts.by_name("r1-t07")
    assert h is not None and (h.device, h.tray) == ("r1", 7)
    assert hosts.by_name("r1") is None  # the rack itself is no host


def test_the_rule_names_the_trays() -> None:
    design = _design(("nvl72-0001", "gb200-nvl72", ""), rule="gpu-{rack}-tray{tray}")
    names = [h.name for h in design_hosts(design).of_device("nvl72-0001")]
    assert names[0] == "gpu-nvl72-0001-tray1" and names[-1] == "gpu-nvl72-0001-tray18"
    design = _design(("nvl72-0001", "gb200-nvl72", ""), rule="{tray:03}-{rack}")
    assert design_hosts(design).hostname("nvl72-0001", 2) == "002-nvl72-0001"


@pytest.mark.parametrize(
    ("rule", "words"),
    [
        ("", "empty"),
        ("{rack}-t01", "{rack} and {tray} once each"),
        ("node-{tray}", "{rack} and {tray} once each"),
        ("{rack}-{tray}-{tray}", "{rack} and {tray} once each"),
        ("{rack}_t{tray}", "'_'"),
        ("{Rack}-{tray}", "unknown placeholder {Rack}"),
        ("{rack}-{tray:2}", "unknown placeholder {tray:2}"),
        ("{rack}-{tray:05}", "unknown placeholder"),
        ("{rack}-{tray", "unmatched"),
        ("-{rack}{tray}", "hyphen"),
        ("x" * 65 + "{rack}{tray}", "longer than 64"),
    ],
)
def test_bad_rules_are_refused_with_a_reason(rule: str, words: str) -> None:
    problem = tray_rule_problem(rule)
    assert problem is not None and words in problem
    with pytest.raises(ValidationError, match="tray_hostnames"):
        Settings(tray_hostnames=rule)


@pytest.mark.parametrize(
    "rule",
    [DEFAULT_TRAY_RULE, "{rack}{tray}", "n{tray:04}-{rack}", "a{tray:01}x{rack}"],
)
def test_the_fast_template_names_as_the_rule(rule: str) -> None:
    from designer.core.hostnames import tray_name_format

    if tray_rule_problem(rule) is not None:
        pytest.fail("not a rule")
    template = tray_name_format(rule)
    for rack, tray in (("nvl72-0001", 1), ("r", 18), ("x-9", 123)):
        assert template.format(rack=rack, tray=tray) == render_tray_name(
            rule, rack, tray
        )


def test_the_default_rule_is_good() -> None:
    assert tray_rule_problem(DEFAULT_TRAY_RULE) is None
    assert render_tray_name(DEFAULT_TRAY_RULE, "nvl72-0001", 3) == "nvl72-0001-t03"
    assert Settings().tray_hostnames == "{rack}-t{tray:02}"


def test_a_bad_rule_in_a_file_names_the_place() -> None:
    data = json.loads((SAMPLES / "gb200-nvl72-su.json").read_text(encoding="utf-8"))
    data["settings"]["tray_hostnames"] = "{rack}_{tray}"
    from designer.io import DesignFileError

    with pytest.raises(DesignFileError) as info:
        loads_design(json.dumps(data), "bad.json")
    text = str(info.value)
    assert "bad.json" in text and "tray_hostnames" in text and "'_'" in text


def test_names_stay_unique_when_a_server_is_called_like_a_tray() -> None:
    design = _design(
        ("r1", "gb200-nvl72", "r1"),
        ("r1-t02", "dgx-h100", "r1-t02"),
        ("r1-t02-2", "dgx-h100", "r1-t02-2"),
    )
    hosts = design_hosts(design)
    names = [h.name for h in hosts]
    assert len(names) == len(set(names)) == 20
    assert hosts.hostname("r1-t02") == "r1-t02"  # the server keeps its name
    assert hosts.hostname("r1", 2) == "r1-t02-3"  # the tray steps aside


def test_long_rack_names_are_shortened_inside_the_rule() -> None:
    rack = "a" * 63
    design = _design((rack, "gb200-nvl72", ""))
    names = [h.name for h in design_hosts(design)]
    assert all(is_hostname(n) and len(n) <= 63 for n in names)
    assert names[0].endswith("-t01") and len(set(names)) == 18


def test_device_hostnames_keep_the_rule_of_round_2() -> None:
    design = _design(("a", "dgx-h100", "GPU-Node-7"), ("b", "dgx-h100", "gpu-node-8"))
    assert device_hostnames(design, default_catalog()) == {
        "a": "gpu-node-7",
        "b": "gpu-node-8",
    }
    design = _design(("a_1", "dgx-h100", "same"), ("a-1", "dgx-h100", "same"))
    assert device_hostnames(design, default_catalog()) == {"a_1": "a-1", "a-1": "a-1-2"}


def test_nvlink_domains() -> None:
    design = _design(
        ("r1", "gb200-nvl72", ""),
        ("r2", "vr-nvl72", ""),
        ("dgx", "dgx-h100", ""),
        ("pcie", "l40s-server", ""),
    )
    domains = design_hosts(design).nvlink_domains()
    assert [(d.device, len(d.hosts), d.gpus) for d in domains] == [
        ("r1", 18, 72),
        ("r2", 18, 72),
        ("dgx", 1, 8),
        ("pcie", 1, 1),
    ]


@settings(max_examples=examples(60), deadline=None)
@given(
    labels=st.lists(
        st.text(alphabet="aZ0-_. t", min_size=0, max_size=70), min_size=1, max_size=6
    ),
    rule=st.sampled_from(
        [DEFAULT_TRAY_RULE, "{rack}{tray}", "{rack}-{tray:04}", "n{tray}-{rack}"]
    ),
)
def test_names_are_valid_and_unique_on_any_labels(labels: list[str], rule: str) -> None:
    kinds = ["gb200-nvl72", "dgx-h100", "vr-nvl72"]
    design = _design(
        *((f"d{i}", kinds[i % 3], label) for i, label in enumerate(labels)), rule=rule
    )
    hosts = design_hosts(design)
    names = [h.name for h in hosts]
    assert all(is_hostname(n) for n in names)
    assert len(names) == len(set(names))
    racks = set(hosts.device_names.values())
    assert len(racks) == len(labels)
    # a tray never takes a server's or a rack's name
    trays = {h.name for h in hosts if h.tray is not None}
    assert not trays & racks


def test_sanitize_hostname() -> None:
    assert sanitize_hostname("DGX B200 #1") == "dgx-b200-1"
    assert sanitize_hostname("--") == "host"
    assert sanitize_hostname("x" * 80) == "x" * 63


@pytest.mark.parametrize("name", ["gb200-nvl72-su.json", "vera-rubin-nvl72-pod.json"])
def test_nvl72_samples_have_18_hosts_per_rack(name: str) -> None:
    design = load_design(SAMPLES / name)
    hosts = design_hosts(design)
    racks = [d.id for d in design.devices if hosts.has_trays(d.id)]
    assert racks and all(len(hosts.of_device(r)) == 18 for r in racks)
    assert len(hosts) == 18 * len(racks)
    assert sum(h.gpus for h in hosts) == 72 * len(racks)
