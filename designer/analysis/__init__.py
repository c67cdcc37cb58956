"""Analysis: bisection, oversubscription, cost, power, tier class and findings.

Entry points: :func:`analyze` (design -> :class:`Report`), or :func:`build_index`
once and :func:`analyze_index` after each edit. Finding codes are listed in
:mod:`designer.analysis.findings`; the bisection method in
:mod:`designer.analysis.bisection`.
"""

from designer.analysis.engine import analyze, analyze_index
from designer.analysis.index import DesignIndex, build_index
from designer.analysis.report import Report

__all__ = ["DesignIndex", "Report", "analyze", "analyze_index", "build_index"]
