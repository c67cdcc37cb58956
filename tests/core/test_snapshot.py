"""A snapshot keeps every part of the design as it was (a worker reads it)."""

from __future__ import annotations

from designer.core.commands import SetSettings, SetWorkload
from designer.core.device_commands import AddDevices
from designer.core.link_commands import RemoveLinks
from designer.core.model import Design, Device
from designer.core.snapshot import snapshot, with_links
from designer.core.workload import Workload
from designer.generate import superpod
from designer.physical import place


def test_a_snapshot_is_the_design_as_it_was_and_later_edits_do_not_reach_it() -> None:
    design = place(superpod("dgx-h100", 1))
    design.workload = Workload.model_validate({"model": "llama3-8b", "job": "lora"})
    before = design.model_dump()
    light, links = snapshot(design)
    assert with_links(light, links).model_dump() == before
    # every field of the model is carried (a new one must be too)
    assert set(light.model_fields_set) >= set(Design.model_fields) - {"links"}
    RemoveLinks(design.links.id[:3]).do(design)
    AddDevices([Device(id="extra", catalog_id="dgx-h100")]).do(design)
    SetSettings(design.settings.model_copy(update={"name": "renamed"})).do(design)
    SetWorkload(None).do(design)
    assert with_links(light, links).model_dump() == before
