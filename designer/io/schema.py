"""The JSON Schema of the design file (``cluster-designer schema``)."""

from __future__ import annotations

from typing import Any

from designer.core.model import SCHEMA_VERSION, Design
from designer.io.migrate import OLDEST_VERSION

SCHEMA_ID = "https://gpu-cluster-designer.invalid/schema/design-v{version}.json"


def design_json_schema() -> dict[str, Any]:
    """JSON Schema (draft 2020-12) of a design file at the current schema version."""
    schema = Design.model_json_schema(mode="validation")
    out: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID.format(version=SCHEMA_VERSION),
        "title": "GPU Cluster Designer design file",
        "description": (
            f"A cluster design, schema_version {SCHEMA_VERSION}. Links are stored "
            "column-wise: every list under 'links' has one entry per link. Ids must "
            "be unique and every reference (group, parent, link endpoint) must "
            "resolve; catalog ids must exist in the hardware catalog. Older files "
            f"(schema_version {OLDEST_VERSION} to {SCHEMA_VERSION - 1}) are migrated "
            "on load."
        ),
    }
    out.update({k: v for k, v in schema.items() if k not in ("title", "description")})
    return out
