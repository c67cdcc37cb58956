"""The JSON Schema printed by ``cluster-designer schema``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from designer.core.model import SCHEMA_VERSION, Design
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
    assert schema["properties"]["schema_version"]["const"] == SCHEMA_VERSION
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
    links = _resolve(schema, schema["properties"]["links"])
    assert set(data["links"]) == set(links["properties"])


# A small validator for the JSON Schema keywords pydantic emits, so the schema is
# checked against real files without a jsonschema dependency.
_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}
_IGNORED = {"title", "description", "default", "$schema", "$id", "$defs"}


def _errors(
    root: dict[str, Any], node: dict[str, Any], value: Any, path: str
) -> list[str]:
    import re

    out: list[str] = []
    for key, arg in node.items():
        if key in _IGNORED:
            continue
        if key == "$ref":
            out += _errors(root, root["$defs"][arg.rsplit("/", 1)[-1]], value, path)
        elif key == "anyOf":
            if all(_errors(root, alt, value, path) for alt in arg):
                out.append(f"{path}: matches no alternative")
        elif key == "type":
            ok = isinstance(value, _TYPES[arg]) and not (
                arg in ("integer", "number") and isinstance(value, bool)
            )
            if not ok:
                out.append(f"{path}: not {arg}")
                return out
        elif key == "enum" and value not in arg:
            out.append(f"{path}: not in enum")
        elif key == "const" and value != arg:
            out.append(f"{path}: not {arg!r}")
        elif key == "properties" and isinstance(value, dict):
            for name, sub in arg.items():
                if name in value:
                    out += _errors(root, sub, value[name], f"{path}.{name}")
        elif key == "required" and isinstance(value, dict):
            out += [f"{path}: missing {n}" for n in arg if n not in value]
        elif key == "additionalProperties" and isinstance(value, dict):
            known = set(node.get("properties", {}))
            for name, item in value.items():
                if name in known:
                    continue
                if arg is False:
                    out.append(f"{path}.{name}: not allowed")
                elif isinstance(arg, dict):
                    out += _errors(root, arg, item, f"{path}.{name}")
        elif key == "patternProperties" and isinstance(value, dict):
            for pattern, sub in arg.items():
                for name, item in value.items():
                    if re.search(pattern, name):
                        out += _errors(root, sub, item, f"{path}.{name}")
        elif key == "propertyNames" and isinstance(value, dict):
            for name in value:
                out += _errors(root, arg, name, f"{path}[{name!r}]")
        elif key == "items" and isinstance(value, list):
            for i, item in enumerate(value):
                out += _errors(root, arg, item, f"{path}[{i}]")
        elif key == "minLength" and isinstance(value, str) and len(value) < arg:
            out.append(f"{path}: too short")
        elif key == "maxLength" and isinstance(value, str) and len(value) > arg:
            out.append(f"{path}: too long")
        elif key == "pattern" and isinstance(value, str) and not re.search(arg, value):
            out.append(f"{path}: does not match {arg}")
        elif key == "minimum" and isinstance(value, int | float) and value < arg:
            out.append(f"{path}: below {arg}")
        elif key == "maximum" and isinstance(value, int | float) and value > arg:
            out.append(f"{path}: above {arg}")
        elif (
            key == "exclusiveMinimum"
            and isinstance(value, int | float)
            and value <= arg
        ):
            out.append(f"{path}: not above {arg}")
        elif (
            key == "exclusiveMaximum"
            and isinstance(value, int | float)
            and value >= arg
        ):
            out.append(f"{path}: not below {arg}")
        elif key == "maxItems" and isinstance(value, list) and len(value) > arg:
            out.append(f"{path}: too many items")
        elif key == "maxProperties" and isinstance(value, dict) and len(value) > arg:
            out.append(f"{path}: too many properties")
        elif key not in {
            "enum", "const", "properties", "required", "additionalProperties",
            "patternProperties", "propertyNames", "items", "minLength", "maxLength",
            "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
            "maxItems", "maxProperties",
        }:  # fmt: skip
            raise AssertionError(f"schema keyword {key!r} not handled by this test")
    return out


@pytest.mark.slow
def test_samples_and_test_design_validate_against_the_schema() -> None:
    from pathlib import Path

    schema = design_json_schema()
    samples = Path(__file__).parents[2] / "samples"
    docs = [json.loads(dumps_design(make_design()))]
    docs += [json.loads(p.read_text(encoding="utf-8")) for p in samples.glob("*.json")]
    assert len(docs) >= 2
    for doc in docs:
        assert _errors(schema, schema, doc, "$") == []


def test_schema_rejects_what_the_loader_rejects() -> None:
    schema = design_json_schema()
    good = json.loads(dumps_design(make_design()))
    bad = [
        {**good, "schema_version": SCHEMA_VERSION + 1},
        {**good, "colour": "red"},
        {**good, "devices": [{**good["devices"][0], "x": "left"}]},
        {**good, "devices": [{**good["devices"][0], "id": "has space"}]},
        {**good, "links": {**good["links"], "fabric": ["sas"] * 4}},
        {**good, "links": {**good["links"], "cables": [0, 1, 1, 1]}},
    ]
    for doc in bad:
        assert _errors(schema, schema, doc, "$") != [], doc
