"""Issue 16 item 11: one naming rule for devices (designer.core.names)."""

from __future__ import annotations

import pytest

from designer.core.names import device_name


@pytest.mark.parametrize(
    ("label", "device_id", "model", "name"),
    [
        ("DGX H100 #4", "dgx-0004", "DGX H100", "dgx-0004"),
        (
            "Lustre parallel-FS appliance (AI400X2-class) 1",
            "lustre-appliance-1",
            "Lustre parallel-FS appliance (AI400X2-class)",
            "lustre-appliance-1",
        ),
        (
            "x86 management / head node (BCM, Slurm controller) 1",
            "head-node-1",
            "x86 management / head node (BCM, Slurm controller)",
            "head-node-1",
        ),
        ("", "leaf-1", "Quantum-2 QM9700", "leaf-1"),
        ("Leaf SU1 rail 0", "leaf-su01-r0", "Quantum-2 QM9700", "Leaf SU1 rail 0"),
        ("DGX H100 #5", "dgx-0004", "DGX H100", "DGX H100 #5"),  # another number
        ("Login node", "head-node-2", "x86 management / head node", "Login node"),
    ],
)
def test_a_label_that_only_repeats_model_and_number_gives_way_to_the_id(
    label: str, device_id: str, model: str, name: str
) -> None:
    assert device_name(label, device_id, model) == name
