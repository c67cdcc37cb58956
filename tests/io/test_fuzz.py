"""Property test: mutated design files never make the loader raise anything but
DesignFileError (byte flips, truncation, key deletion, type swaps, deep nesting,
huge numbers), and every file it accepts saves and reopens identically."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.analysis import analyze
from designer.core.model import Design
from designer.io import DesignFileError, dumps_design, loads_design
from tests.hypo import examples
from tests.io.conftest import make_design

SAMPLES = Path(__file__).parents[2] / "samples"
V0 = Path(__file__).parent / "fixtures" / "v0-small.json"


def _seeds() -> list[str]:
    texts = [dumps_design(make_design()), V0.read_text(encoding="utf-8")]
    small = SAMPLES / "minimum-viable-enterprise.json"
    if small.exists():
        texts.append(small.read_text(encoding="utf-8"))
    return texts


SEEDS = _seeds()

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            out.extend(_paths(value, (*prefix, key)))
    elif isinstance(node, list):
        for i, value in enumerate(node[:8]):  # enough variety, bounded size
            out.extend(_paths(value, (*prefix, i)))
    return out


def _parent(root: Any, path: tuple[Any, ...]) -> Any:
    for key in path[:-1]:
        root = root[key]
    return root


def attempt(text: str | bytes) -> None:
    """Loading either succeeds with a Design or raises DesignFileError."""
    try:
        result = loads_design(text, "fuzz.json")  # the shipped catalog
    except DesignFileError as exc:
        message = str(exc)
        assert message.startswith("fuzz.json: ")
        assert "Traceback" not in message
    else:
        assert isinstance(result, Design)
        saved = dumps_design(result)
        again = loads_design(saved, "again.json")
        assert again.model_dump() == result.model_dump()
        assert dumps_design(again) == saved  # the same text: order included
        report = analyze(result)  # and what the program says about it is strict JSON
        json.dumps(report.model_dump(mode="json"), allow_nan=False)


SETTINGS = settings(
    max_examples=examples(120),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.slow
@SETTINGS
@given(st.data())
def test_byte_flips(data: st.DataObject) -> None:
    raw = bytearray(data.draw(st.sampled_from(SEEDS)).encode("utf-8"))
    flips = data.draw(
        st.lists(
            st.tuples(st.integers(0, len(raw) - 1), st.integers(0, 255)),
            min_size=1,
            max_size=8,
        )
    )
    for pos, byte in flips:
        raw[pos] = byte
    attempt(bytes(raw))


@pytest.mark.slow
@SETTINGS
@given(st.data())
def test_truncation(data: st.DataObject) -> None:
    text = data.draw(st.sampled_from(SEEDS))
    cut = data.draw(st.integers(0, len(text)))
    attempt(text[:cut])
    attempt(text.encode("utf-8")[:cut])  # may cut a multi-byte character


@pytest.mark.slow
@SETTINGS
@given(st.data())
def test_key_deletion(data: st.DataObject) -> None:
    doc = json.loads(data.draw(st.sampled_from(SEEDS)))
    keyed = [p for p in _paths(doc) if p and isinstance(p[-1], str)]
    for _ in range(data.draw(st.integers(1, 3))):
        keyed = [p for p in _paths(doc) if p and isinstance(p[-1], str)]
        if not keyed:
            break
        path = data.draw(st.sampled_from(keyed))
        del _parent(doc, path)[path[-1]]
    attempt(json.dumps(doc))


@pytest.mark.slow
@SETTINGS
@given(st.data())
def test_type_swaps(data: st.DataObject) -> None:
    doc = json.loads(data.draw(st.sampled_from(SEEDS)))
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(_paths(doc)))
        value = data.draw(JSON_VALUES)
        if not path:
            doc = value
            break
        _parent(doc, path)[path[-1]] = value
    attempt(json.dumps(doc))


@pytest.mark.slow
@SETTINGS
@given(st.data())
def test_deep_nesting(data: st.DataObject) -> None:
    doc = json.loads(data.draw(st.sampled_from(SEEDS)))
    depth = data.draw(st.sampled_from([10, 63, 64, 65, 200, 999, 1000, 5000, 50_000]))
    path = data.draw(st.sampled_from([p for p in _paths(doc) if p]))
    opener, closer = data.draw(st.sampled_from([("[", "]"), ('{"k":', "}")]))
    marker = "__DEEP__"
    _parent(doc, path)[path[-1]] = marker
    text = json.dumps(doc).replace(f'"{marker}"', opener * depth + "1" + closer * depth)
    attempt(text)
    attempt(text[: len(text) // 2])


@pytest.mark.slow
@pytest.mark.parametrize("depth", [100, 1000, 100_000])
def test_deep_nesting_at_top_level(depth: int) -> None:
    attempt("[" * depth + "]" * depth)
    attempt("{" + '"a":{' * depth + "}" * depth + "}")


@pytest.mark.slow
@SETTINGS
@given(st.data())
def test_huge_numbers(data: st.DataObject) -> None:
    """A number too large for a float (or written as one) anywhere a number is."""
    doc = json.loads(data.draw(st.sampled_from(SEEDS)))
    numeric = [
        p for p in _paths(doc) if p and isinstance(_get(doc, p), int | float)
    ] or [("schema_version",)]
    path = data.draw(st.sampled_from(numeric))
    marker = "__HUGE__"
    _parent(doc, path)[path[-1]] = marker
    digits = data.draw(st.integers(309, 4400))
    huge = data.draw(
        st.sampled_from(
            [f"-1{'0' * digits}", f"1{'0' * digits}", "1e400", "-1e400", "1e-400"]
        )
    )
    attempt(json.dumps(doc).replace(f'"{marker}"', huge))


def _get(root: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        root = root[key]
    return root
