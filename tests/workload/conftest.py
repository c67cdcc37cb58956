"""Designs and helpers shared by the workload tests (no Qt)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from designer.core.model import Design
from designer.core.workload import Workload
from designer.generate import fat_tree
from designer.workload import Estimate, estimate

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


@cache
def _tree(nodes: int, oversubscription: float) -> str:
    design = fat_tree("dgx-h100", nodes, "qm9700", oversubscription=(oversubscription,))
    return design.model_dump_json()


def dgx_tree(nodes: int, oversubscription: float = 1.0) -> Design:
    """A fresh rail-optimized fat tree of ``nodes`` DGX H100 on QM9700."""
    return Design.model_validate_json(_tree(nodes, oversubscription))


def run(design: Design, **fields: Any) -> Estimate:
    """Estimate ``design`` with these workload fields given on the command line."""
    return estimate(design, overrides=Workload(**fields))
