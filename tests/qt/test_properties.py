"""Properties panel: each edit is one command, one undo step, and shows the model."""

from __future__ import annotations

from typing import Any

import pytest

from designer.core.link_commands import AddLinks
from designer.core.model import Link
from tests.qt.helpers import add_dgx


def _leaf_and_link(window: Any) -> str:
    from designer.core.device_commands import AddDevices
    from designer.core.model import Device

    window.document.execute(
        AddDevices([Device(id="leaf", catalog_id="qm9700", label="Leaf", y=100.0)])
    )
    window.document.execute(
        AddLinks(
            [
                Link(
                    id="l1",
                    a="dgx-0",
                    a_port="compute",
                    b="leaf",
                    b_port="ports",
                    cables=2,
                    speed_gbps=400,
                )
            ]
        )
    )
    return "l1"


@pytest.mark.slow
def test_device_label_edit_is_one_undo_step(main_window: Any) -> None:
    window = main_window()
    add_dgx(window, 2)
    panel = window.properties_panel
    window.canvas.select_ids(["dgx-1"], center=False)
    assert panel.stack.currentWidget() is panel.device_page
    assert panel.label_edit.text() == "DGX 1"
    steps = len(window.document.history.done)
    panel.label_edit.setText("node-b")
    panel.label_edit.editingFinished.emit()
    assert window.document.design.device_map()["dgx-1"].label == "node-b"
    assert len(window.document.history.done) == steps + 1
    # The history names what changed, not just the kind of edit.
    assert window.actions_.undo.statusTip() == "Undo Rename DGX 1 to node-b"
    window.document.undo()
    assert panel.label_edit.text() == "DGX 1"  # the panel follows undo


@pytest.mark.slow
def test_model_swap_offers_compatible_entries_only(main_window: Any) -> None:
    window = main_window()
    add_dgx(window, 1)
    _leaf_and_link(window)
    panel = window.properties_panel
    window.canvas.select_ids(["dgx-0"], center=False)
    offered = [panel.model_combo.itemData(i) for i in range(panel.model_combo.count())]
    assert "dgx-h100" in offered and "dgx-h200" in offered
    assert "qm9700" not in offered  # a switch is no compute node
    panel.model_combo.setCurrentIndex(panel.model_combo.findData("dgx-h200"))
    panel.model_combo.activated.emit(panel.model_combo.currentIndex())
    assert window.document.design.device_map()["dgx-0"].catalog_id == "dgx-h200"
    assert window.document.history.undo_label == "Swap DGX 0 to DGX H200"


@pytest.mark.slow
def test_link_cables_speed_and_fabric(main_window: Any) -> None:
    from designer.core.device_commands import AddDevices
    from designer.core.model import Device

    window = main_window()
    add_dgx(window, 1)
    link_id = _leaf_and_link(window)
    panel = window.properties_panel
    window.canvas.select_ids([link_id], center=False)
    assert panel.stack.currentWidget() is panel.link_page
    assert panel.cables_spin.value() == 2
    speeds = [panel.speed_combo.itemData(i) for i in range(panel.speed_combo.count())]
    assert speeds == [400, 200]  # what both port groups can run at
    # a DGX's compute ports are for the compute fabric: no other is offered
    fabrics = [
        panel.fabric_combo.itemData(i) for i in range(panel.fabric_combo.count())
    ]
    assert fabrics == ["compute"]
    panel.cables_spin.setValue(4)
    assert window.document.design.links.get(link_id).cables == 4
    panel.speed_combo.setCurrentIndex(1)
    panel.speed_combo.activated.emit(1)
    assert window.document.design.links.get(link_id).speed_gbps == 200
    # switch to switch: ports of role "any" run every fabric
    window.document.execute(
        AddDevices([Device(id="spine", catalog_id="qm9700", label="Spine", y=-100.0)])
    )
    window.document.execute(
        AddLinks(
            [
                Link(
                    id="up",
                    a="leaf",
                    a_port="ports",
                    b="spine",
                    b_port="ports",
                    cables=2,
                    speed_gbps=400,
                )
            ]
        )
    )
    window.canvas.select_ids(["up"], center=False)
    fabrics = [
        panel.fabric_combo.itemData(i) for i in range(panel.fabric_combo.count())
    ]
    assert fabrics == ["compute", "storage", "inband", "oob"]
    panel.fabric_combo.setCurrentIndex(panel.fabric_combo.findData("storage"))
    panel.fabric_combo.activated.emit(panel.fabric_combo.currentIndex())
    assert window.document.design.links.get("up").fabric.value == "storage"
    labels = [c.label for c in window.document.history.done]
    assert labels[-5:-2] == [
        "Set cables of dgx-0–leaf to 4",
        "Set speed of dgx-0–leaf to 200 Gb/s",
        "Add Spine",
    ]
    assert labels[-1] == "Move leaf–spine to the storage fabric"


@pytest.mark.slow
def test_design_settings_and_price_override(main_window: Any) -> None:
    window = main_window()
    panel = window.properties_panel
    window.canvas.select_ids([], center=False)
    assert panel.stack.currentWidget() is panel.design_page
    panel.name_edit.setText("Pod A")
    panel.name_edit.editingFinished.emit()
    panel.purpose_combo.setCurrentIndex(panel.purpose_combo.findData("inference"))
    panel.purpose_combo.activated.emit(panel.purpose_combo.currentIndex())
    panel.scheduler_combo.setEditText("Slurm")
    panel.scheduler_combo.lineEdit().editingFinished.emit()
    panel.monitoring_edit.setText("Prometheus, DCGM")
    panel.monitoring_edit.editingFinished.emit()
    panel.price_id_combo.setCurrentText("dgx-h100")
    assert panel.price_spin.value() == window.catalog["dgx-h100"].ext.price.usd
    panel.price_spin.setValue(250_000)
    panel._set_price_override()
    s = window.document.design.settings
    assert (s.name, s.purpose.value, s.scheduler) == ("Pod A", "inference", "Slurm")
    assert s.monitoring == ["Prometheus", "DCGM"]
    assert s.price_overrides == {"dgx-h100": 250_000.0}
    assert len(window.document.history.done) == 5
    assert window.windowTitle().startswith("Pod A[*]")
    assert panel.price_table.item(0, 0).text() == "dgx-h100"


@pytest.mark.slow
def test_price_override_changes_the_cost_on_screen(
    qtbot: Any, main_window: Any
) -> None:
    from tests.qt.helpers import settle

    window = main_window()
    add_dgx(window, 2)
    before = settle(qtbot, window)
    assert before.cost_usd.compute == 2 * window.catalog["dgx-h100"].ext.price.usd
    panel = window.properties_panel
    window.canvas.select_ids([], center=False)
    panel.price_id_combo.setCurrentText("dgx-h100")
    panel.price_spin.setValue(250_000)
    panel._set_price_override()
    after = settle(qtbot, window)
    assert after.cost_usd.compute == 500_000
    assert "compute $500K" in window.validator_panel.values["breakdown"].text()


def test_the_tray_rule_example_is_worked_out_when_shown_not_on_every_edit(
    main_window: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding the first rack's hostnames reads every device (20-24 ms a step at
    100K GPUs): edits leave it alone; the tooltip works it out when asked."""
    import designer.qt.properties as properties
    from designer.core.commands import SetSettings
    from designer.core.device_commands import AddDevices
    from designer.core.model import Device

    calls: list[int] = []
    real = properties.device_hostnames

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(properties, "device_hostnames", counted)
    window = main_window()
    panel = window.properties_panel
    window.document.execute(
        AddDevices([Device(id="nvl72-0001", catalog_id="gb200-nvl72", label="")])
    )
    window.canvas.select_ids([], center=False)
    settings = window.document.design.settings
    for name in ("a", "b", "c"):
        window.document.execute(SetSettings(settings.model_copy(update={"name": name})))
    assert calls == []
    assert "nvl72-0001-t01 ... nvl72-0001-t18" in panel.tray_rule_edit.toolTip()
    assert calls == [1]


@pytest.mark.slow
def test_tray_hostname_rule_is_one_step_and_a_bad_rule_is_refused(
    main_window: Any,
) -> None:
    from designer.core.device_commands import AddDevices
    from designer.core.model import Device

    window = main_window()
    panel = window.properties_panel
    window.document.execute(
        AddDevices([Device(id="nvl72-0001", catalog_id="gb200-nvl72", label="")])
    )
    window.canvas.select_ids([], center=False)
    assert panel.tray_rule_edit.text() == "{rack}-t{tray:02}"
    assert "nvl72-0001-t01 ... nvl72-0001-t18" in panel.tray_rule_edit.toolTip()
    steps = len(window.document.history.done)
    refused: list[str] = []
    panel.edit_refused.connect(refused.append)
    panel.tray_rule_edit.setText("{rack}_{tray}")
    panel.tray_rule_edit.editingFinished.emit()
    assert refused and "'_'" in refused[0]
    assert "Not changed" in panel.tray_rule_edit.toolTip()
    assert panel.tray_rule_edit.text() == "{rack}-t{tray:02}"
    assert len(window.document.history.done) == steps
    panel.tray_rule_edit.setText("gpu-{rack}-{tray:03}")
    panel.tray_rule_edit.editingFinished.emit()
    assert window.document.design.settings.tray_hostnames == "gpu-{rack}-{tray:03}"
    assert len(window.document.history.done) == steps + 1
    assert "gpu-nvl72-0001-001 ... gpu-nvl72-0001-018" in panel.tray_rule_edit.toolTip()
    window.canvas.select_ids(["nvl72-0001"], center=False)
    assert "Hosts: gpu-nvl72-0001-[001-018] (18 trays, 4 GPUs each)" in (
        panel.device_info.text()
    )
    window.document.undo()
    assert window.document.design.settings.tray_hostnames == "{rack}-t{tray:02}"
