"""The JSON Schema printed by ``cluster-designer schema``."""

from __future__ import annotations

import json
from typing import Any

from designer.core.model import Design
from designer.io import design_json_schema, dumps_design
from tests.io.conftest import make_design


def test_schema_is_json_and_names_its_dialect() -> None:
    schema = design_json_schema()
    assert json.loads(json.dumps(schema)) == schema
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["type"] == "object"
    assert schema["title"] == "GPU Cluster Designer design file"


def test_schema_describes_every_top_level_key() -> None:
    schema = design_json_schema()
    assert set(schema["properties"]) == set(Design.model_fields)
    assert schema["properties"]["schema_version"]["const"] == 1
    assert schema["additionalProperties"] is False


def _resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if ref:
        name = ref.rsplit("/", 1)[-1]
        return dict(schema["$defs"][name])
    return node


def test_link_table_is_column_wise() -> None:
    schema = design_json_schema()
    links = _resolve(schema, schema["properties"]["links"])
    for column in ("id", "a", "a_port", "b", "b_port", "cables", "speed_gbps"):
        assert links["properties"][column]["type"] == "array"


def test_saved_file_keys_match_the_schema() -> None:
    """Every key the saver writes is allowed by the schema (additionalProperties)."""
    schema = design_json_schema()
    data = json.loads(dumps_design(make_design()))
    assert set(data) <= set(schema["properties"])
    for key, ref_key in (("devices", "Device"), ("groups", "Group")):
        allowed = set(schema["$defs"][ref_key]["properties"])
        for item in data[key]:
            assert set(item) <= allowed
    assert set(data["links"]) == set(schema["$defs"]["LinkTable"]["properties"])
