"""Pins in a design file: kept by save and open; a wrong one named by place."""

from __future__ import annotations

import json

import pytest

from designer.catalog import default_catalog
from designer.generate import fat_tree
from designer.io import DesignFileError, dumps_design, loads_design
from designer.io.export.cables import pinned_design

CAT = default_catalog()


def _text() -> dict[str, object]:
    design = pinned_design(fat_tree("dgx-h100", 8, "qm9700", catalog=CAT), CAT)
    data: dict[str, object] = json.loads(dumps_design(design))
    return data


def test_pins_are_the_files_text_and_reopen_the_same() -> None:
    data = _text()
    links = data["links"]
    assert isinstance(links, dict)
    assert links["a_pins"][:2] == ["osfp1/1", "osfp1/2"]
    again = loads_design(json.dumps(data), catalog=CAT)
    assert again.links.a_pins[0] == ("osfp1/1",)
    assert dumps_design(again) == dumps_design(loads_design(dumps_design(again)))


def test_a_port_held_twice_is_refused_naming_the_place_and_holder() -> None:
    data = _text()
    links = data["links"]
    assert isinstance(links, dict)
    links["b_pins"][1] = links["b_pins"][0]  # two node cables on one leaf port
    with pytest.raises(DesignFileError) as exc:
        loads_design(json.dumps(data), "x.json", catalog=CAT)
    text = str(exc.value)
    first = links["id"][0]
    assert text.startswith("x.json: links.b_pins[1]: ")
    assert f"leaf-01 port osfp1/1 is taken by link {first!r}" in text


def test_a_port_the_group_lacks_is_refused() -> None:
    data = _text()
    links = data["links"]
    assert isinstance(links, dict)
    links["a_pins"][0] = "osfp9/1"
    with pytest.raises(DesignFileError) as exc:
        loads_design(json.dumps(data), "x.json", catalog=CAT)
    assert "links.a_pins[0]" in str(exc.value)
    assert "has no port 'osfp9/1' in port group 'compute'" in str(exc.value)


def test_more_ports_than_cables_is_refused() -> None:
    data = _text()
    links = data["links"]
    assert isinstance(links, dict)
    links["a_pins"][0] = "osfp1/1 osfp1/2"
    with pytest.raises(DesignFileError) as exc:
        loads_design(json.dumps(data), "x.json", catalog=CAT)
    assert "2 ports listed, but the link has 1 cable" in str(exc.value)
