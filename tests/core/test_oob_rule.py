"""The out-of-band rule: one reason from the canvas, Properties, paste, bulk
wiring and the validator (issue 16, item 1).

An out-of-band link joins a management port (a BMC, a switch's mgmt port) to a
management switch's access port; a management switch's uplinks may go to
another switch (the generator spreads SN2201 uplinks over the in-band spines)
and two management switches may be chained. Anything else is refused.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from designer.catalog.loader import default_catalog
from designer.core.checks import check_design, check_link_update
from designer.core.connect import plan_connection
from designer.core.edits import copy_selection, paste
from designer.core.errors import ConnectionRefused, OutOfBandMismatch
from designer.core.model import Design, Device, Fabric, Link, Tier
from designer.core.rules import OOB_RULE, end_kind, oob_problem
from designer.core.specs import as_lookup
from designer.core.wiring import connect_all_to_all

CATALOG = default_catalog()
OOB = Fabric.OOB


def pod() -> Design:
    return Design(
        devices=[
            Device(id="dgx-1", catalog_id="dgx-h100"),
            Device(id="dgx-2", catalog_id="dgx-h100"),
            Device(id="leaf-1", catalog_id="qm9700", tier=Tier.LEAF),
            Device(id="leaf-2", catalog_id="qm9700", tier=Tier.LEAF),
            Device(id="oob-1", catalog_id="sn2201"),
            Device(id="oob-2", catalog_id="sn2201"),
            Device(id="spine", catalog_id="sn4600c"),
            Device(id="gen", catalog_id="generic-switch"),
        ]
    )


def refusal(build: Callable[[], object]) -> ConnectionRefused:
    with pytest.raises(ConnectionRefused) as info:
        build()
    assert type(info.value) is OutOfBandMismatch
    return info.value


def _link(a: str, ap: str, b: str, bp: str, speed: int = 1, cables: int = 1) -> Link:
    return Link(
        id=f"{a}--{b}", a=a, a_port=ap, b=b, b_port=bp, cables=cables,
        speed_gbps=speed, fabric=OOB,
    )  # fmt: skip


BOTH_BMC = (
    f"{OOB_RULE}: dgx-h100 dgx-1 port group 'bmc' and dgx-h100 dgx-2 port group "
    "'bmc' are both management ports; cable each to a management switch (such as "
    "an SN2201)"
)
BMC_TO_LEAF_MGMT = (
    f"{OOB_RULE}: dgx-h100 dgx-1 port group 'bmc' and qm9700 leaf-1 port group "
    "'mgmt' are both management ports; cable each to a management switch (such "
    "as an SN2201)"
)
LEAF_TO_LEAF = (
    f"{OOB_RULE}: qm9700 leaf-1 port group 'ports' and qm9700 leaf-2 port group "
    "'ports' are data ports, and neither device is a management switch; link "
    "them on the compute, storage or in-band fabric"
)


@pytest.mark.parametrize(
    ("a", "b", "link", "want"),
    [
        ("dgx-1", "dgx-2", _link("dgx-1", "bmc", "dgx-2", "bmc"), BOTH_BMC),
        ("dgx-1", "leaf-1", _link("dgx-1", "bmc", "leaf-1", "mgmt"), BMC_TO_LEAF_MGMT),
        (
            "leaf-1",
            "leaf-2",
            _link("leaf-1", "ports", "leaf-2", "ports", 400, 52),
            LEAF_TO_LEAF,
        ),
    ],
)
def test_the_issue_cases_read_the_same_everywhere(
    a: str, b: str, link: Link, want: str
) -> None:
    d = pod()
    with_link = pod()
    with_link.links.append(link)
    clip = copy_selection(with_link, [a, b])
    # Properties: an existing compute link turned into an oob one
    data = pod()
    data.links.append(link.model_copy(update={"fabric": Fabric.COMPUTE}))
    errors = {
        "canvas (Ctrl)": refusal(lambda: plan_connection(d, a, b, CATALOG, fabric=OOB)),
        "bulk": refusal(
            lambda: connect_all_to_all(d, [a], [b], 1, CATALOG, fabric=OOB)
        ),
        "paste": refusal(lambda: paste(Design(), clip, lookup=CATALOG)),
    }
    texts = {k: str(e) for k, e in errors.items()}
    assert texts == dict.fromkeys(errors, want)
    if link.a_port != "bmc":  # a BMC's compute twin would be a role refusal
        props = refusal(
            lambda: check_link_update(data, link.id, {"fabric": OOB}, CATALOG)
        )
        assert str(props) == want
    # the validator (and the CLI's OOB_LINK_INVALID finding) gives it too
    (problem,) = check_design(with_link, CATALOG)
    assert str(problem) == want


def test_management_ports_join_management_switches() -> None:
    d = pod()
    ok = [
        ("dgx-1", "oob-1", None, "1 cable, oob, 1G: dgx-1 bmc -> oob-1 ports"),
        ("dgx-1", "oob-1", OOB, "1 cable, oob, 1G: dgx-1 bmc -> oob-1 ports"),
        ("leaf-1", "oob-1", None, "1 cable, oob, 1G: leaf-1 mgmt -> oob-1 ports"),
        ("oob-1", "spine", None, "4 cables, oob, 100G: oob-1 uplinks -> spine ports"),
    ]
    for a, b, fabric, text in ok:
        assert plan_connection(d, a, b, CATALOG, fabric=fabric).description == text
    chained = plan_connection(d, "oob-1", "oob-2", CATALOG, cables=1)
    assert chained.link.fabric is OOB


def test_a_bmc_on_a_fabric_switch_at_1g_is_refused() -> None:
    e = refusal(lambda: plan_connection(pod(), "dgx-1", "gen", CATALOG, fabric=OOB))
    assert str(e) == (
        f"{OOB_RULE}: dgx-h100 dgx-1 port group 'bmc' is a management port but "
        "generic-switch gen is not a management switch (its ports carry data)"
    )


def test_uplinks_go_to_switches_only() -> None:
    """The rule alone (speeds keep a 100G uplink off a 1G BMC before it)."""
    look = as_lookup(CATALOG)
    d = pod().device_map()
    up = look("sn2201").port_group("uplinks")  # type: ignore[union-attr]
    bmc = look("dgx-h100").port_group("bmc")  # type: ignore[union-attr]
    compute = look("dgx-h100").port_group("compute")  # type: ignore[union-attr]
    sw, node = look("sn2201"), look("dgx-h100")
    to_bmc = oob_problem(d["oob-1"], sw, up, d["dgx-1"], node, bmc)  # type: ignore[arg-type]
    assert str(to_bmc).endswith(
        "sn2201 oob-1 port group 'uplinks' is an uplink; cable dgx-h100 dgx-1 "
        "port group 'bmc' to the management switch's access ports"
    )
    to_node = oob_problem(d["oob-1"], sw, up, d["dgx-1"], node, compute)  # type: ignore[arg-type]
    assert str(to_node).endswith(
        "dgx-h100 dgx-1 is not a switch: a management switch's uplinks go to "
        "another switch"
    )
    spine = look("sn4600c")
    ports = spine.port_group("ports")  # type: ignore[union-attr]
    assert oob_problem(d["oob-1"], sw, up, d["spine"], spine, ports) is None  # type: ignore[arg-type]


def test_end_kinds() -> None:
    look = as_lookup(CATALOG)
    kinds = {
        (slug, group): end_kind(look(slug), look(slug).port_group(group))  # type: ignore[union-attr, arg-type]
        for slug, group in [
            ("dgx-h100", "bmc"),
            ("qm9700", "mgmt"),
            ("sn2201", "ports"),
            ("sn2201", "uplinks"),
            ("qm9700", "ports"),
        ]
    }
    assert list(kinds.values()) == [
        "management",
        "management",
        "access",
        "uplink",
        "data",
    ]


def test_the_cli_reports_the_same_reason(
    tmp_path: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    """validate: an OOB_LINK_INVALID error (exit 1) with the canvas's words."""
    import json

    from designer.cli.main import main
    from designer.io import save_design

    d = pod()
    d.links.append(_link("dgx-1", "bmc", "dgx-2", "bmc"))
    path = tmp_path / "bmc-to-bmc.json"  # type: ignore[operator]
    save_design(d, path)
    assert main(["validate", str(path), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    found = {f["code"]: f for f in report["findings"]}
    assert found["OOB_LINK_INVALID"]["severity"] == "error"
    assert f"dgx-1--dgx-2: {BOTH_BMC}" in found["OOB_LINK_INVALID"]["message"]
    assert "NO_OOB_NETWORK" in found  # the bad link no longer hides it
