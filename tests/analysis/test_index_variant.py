"""A variant of an index (some link rows only) equals the index of that design."""

from __future__ import annotations

import numpy as np

from designer.analysis import analyze_index, build_index
from designer.analysis.index import with_links_at
from designer.catalog import default_catalog
from designer.generate import fat_tree


def test_a_variant_is_the_index_of_the_design_with_those_links() -> None:
    catalog = default_catalog()
    design = fat_tree("dgx-h100", 16, "qm9700")
    index = build_index(design, catalog)
    spine = next(i for i, d in enumerate(index.device_ids) if "spine" in d)
    keep = np.flatnonzero((index.a != spine) & (index.b != spine))
    assert 0 < len(keep) < index.n_links
    variant = with_links_at(index, design, keep)
    cut = design.model_copy(update={"links": design.links.take(keep.tolist())})
    fresh = build_index(cut, catalog)
    assert list(variant.link_ids) == list(fresh.link_ids)
    for name in ("a", "b", "cables", "speed", "cap", "fabric", "rail"):
        assert np.array_equal(getattr(variant, name), getattr(fresh, name)), name
    assert variant.device_ids is index.device_ids  # the devices are not read again
    assert variant.row_of_name is index.row_of_name  # nor their rows by name
    assert variant.endpoint_order.keys() == fresh.endpoint_order.keys()
    for name, order in fresh.endpoint_order.items():
        assert np.array_equal(variant.endpoint_order[name], order), name
    ours, theirs = analyze_index(variant, cut), analyze_index(fresh, cut)
    assert ours.bisection.lower_gbps == theirs.bisection.lower_gbps
    assert ours.bisection.upper_gbps == theirs.bisection.upper_gbps
    assert ours.oversubscription == theirs.oversubscription
    # the variant is not the whole design: the spine's capacity is gone
    assert variant.cap.sum() < index.cap.sum()
    assert ours.switches == theirs.switches
