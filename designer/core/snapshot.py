"""A state of a design that later edits do not change, taken in well under a
millisecond: what a worker thread (analysis, estimate, autosave) reads while the
editor goes on.

Commands replace settings, the workload block, groups, devices and the physical
block's lists rather than change them in place, so copying the containers is
enough; the link table's arrays are never written (:mod:`designer.core.links`),
so the state of the links is just the current :class:`LinkArrays`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from designer.core.link_arrays import LinkArrays
from designer.core.links import LinkTable
from designer.core.model import Design


def snapshot(design: Design) -> tuple[Design, LinkArrays]:
    """(the design without its links, the state of its link table)."""
    fields: dict[str, Any] = {}
    for name in Design.model_fields:
        if name == "links":
            continue
        value = getattr(design, name)
        if isinstance(value, list):
            value = list(value)
        elif isinstance(value, BaseModel) and name == "physical":
            value = value.model_copy()  # its lists are replaced, not changed
        fields[name] = value
    return Design.model_construct(**fields, links=LinkTable()), design.links.arrays


def copy(design: Design) -> Design:
    """An independent design with the same content (the link arrays shared)."""
    light, _ = snapshot(design)
    fields = {name: getattr(light, name) for name in Design.model_fields}
    fields["links"] = design.links.copy()
    return Design.model_construct(**fields)


def with_links(light: Design, links: LinkArrays) -> Design:
    """A whole design again from a snapshot (a table of its own: the worker's)."""
    fields = {name: getattr(light, name) for name in Design.model_fields}
    fields["links"] = LinkTable.from_arrays(links)
    return Design.model_construct(**fields)


__all__ = ["copy", "snapshot", "with_links"]
