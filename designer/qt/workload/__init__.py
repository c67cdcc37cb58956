"""The Workload panel: inputs of the design's workload block, live estimate
results (computed off the GUI thread), findings and charts."""

from designer.qt.workload.panel import WorkloadPanel
from designer.qt.workload.runner import EstimateRunner

__all__ = ["EstimateRunner", "WorkloadPanel"]
