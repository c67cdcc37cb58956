"""Generators that return laid-out designs: SuperPOD presets, fat trees, k-ary trees.

Every count is derived from first principles (see :mod:`designer.generate.plan`);
bad input raises :class:`GeneratorError` (a ``ValueError``) with a clear message.
"""

from designer.generate.fat_tree import fat_tree
from designer.generate.k_ary import k_ary
from designer.generate.plan import GeneratorError
from designer.generate.superpod import SUPERPOD_SYSTEMS, superpod

__all__ = ["SUPERPOD_SYSTEMS", "GeneratorError", "fat_tree", "k_ary", "superpod"]
