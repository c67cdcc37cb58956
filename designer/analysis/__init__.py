"""Analysis: bisection, oversubscription, cost, power, tier class and findings.

Entry points: :func:`analyze` (design -> :class:`Report`), or :func:`build_index`
(derived from the design's column store in a few ms) and :func:`analyze_index`;
:class:`~designer.analysis.ledger.BoundLedger` carries a proven bisection lower
bound to later states of a design. Finding codes are listed in
:mod:`designer.analysis.findings`; the bisection method in
:mod:`designer.analysis.bisection`.
"""

from designer.analysis.engine import analyze, analyze_index
from designer.analysis.index import DesignIndex, build_index
from designer.analysis.ledger import BoundLedger
from designer.analysis.report import Report

__all__ = [
    "BoundLedger",
    "DesignIndex",
    "Report",
    "analyze",
    "analyze_index",
    "build_index",
]
