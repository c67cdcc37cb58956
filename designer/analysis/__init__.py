"""Analysis: bisection, oversubscription, cost, power, tier class and findings.

Entry points: :func:`analyze` (design -> :class:`Report`), or :func:`build_index`
once and :func:`analyze_index` after each edit; :class:`IncrementalIndex` keeps
the index in step with a document's edits (and carries a bisection lower bound).
Finding codes are listed in :mod:`designer.analysis.findings`; the bisection
method in
:mod:`designer.analysis.bisection`.
"""

from designer.analysis.engine import analyze, analyze_index
from designer.analysis.incremental import IncrementalIndex
from designer.analysis.index import DesignIndex, build_index
from designer.analysis.report import Report

__all__ = [
    "DesignIndex",
    "IncrementalIndex",
    "Report",
    "analyze",
    "analyze_index",
    "build_index",
]
