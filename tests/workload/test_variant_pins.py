"""Compare variants that trim cables trim pins as an edit would (issue 18)."""

from __future__ import annotations

from designer.catalog.loader import default_catalog
from designer.core.pin_checks import pin_problems
from designer.generate import fat_tree
from designer.io.export.cables import pinned_design
from designer.workload.variants import apply_variant

CAT = default_catalog()


def test_leaf_2to1_keeps_each_trimmed_bundles_first_ports_and_every_other_link() -> (
    None
):
    design = pinned_design(fat_tree("dgx-h100", 32, "qm9700", catalog=CAT), CAT)
    t = design.links
    before = dict(
        zip(t.id, zip(t.a_pins, t.b_pins, t.cables, strict=True), strict=True)
    )
    variant, _ = apply_variant(design, "leaf-2:1", CAT)
    v = variant.links
    trimmed = 0
    for lid, a, b, c in zip(v.id, v.a_pins, v.b_pins, v.cables, strict=True):
        old_a, old_b, old_c = before[lid]
        assert a is not None and b is not None and len(a) == len(b) == c
        assert a == old_a[:c] and b == old_b[:c]  # the first ports, nothing moved
        trimmed += c < old_c
    assert trimmed > 0  # the variant did cut bundles
    assert not v.pins_pending()
    assert pin_problems(variant, CAT) == []
