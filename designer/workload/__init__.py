"""Workload fit for a design: memory, time, goodput, N-1 and TCO (no Qt).

Entry point: :func:`estimate` (design -> :class:`Estimate`, the documented
``estimate --json`` object, see docs/estimate-json.md). Inputs come from the
design's ``workload`` block (:class:`designer.core.workload.Workload`) with
optional overrides; every default carries its source (:mod:`.facts`), and
:meth:`Estimate.rows` lists every figure with its unit, source and estimate
mark. The analysis is read through :mod:`.fabric` only.
"""

from designer.workload.engine import EstimateInputError, estimate
from designer.workload.fabric import DesignFacts, read_design
from designer.workload.presets import PRESETS, ModelSpec, preset
from designer.workload.result import Estimate, Row

__all__ = [
    "PRESETS",
    "DesignFacts",
    "Estimate",
    "EstimateInputError",
    "ModelSpec",
    "Row",
    "estimate",
    "preset",
    "read_design",
]
