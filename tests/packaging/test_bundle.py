"""The smoke checks of packaging/bundle_smoke.py on the built bundle in dist/.

Skipped, with the reason, when no bundle was built from these sources; build
one with ``.venv/bin/python packaging/build.py`` (about a minute). CI builds it
and runs the same checks through ``packaging/build.py --smoke``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import bundle_smoke
import pytest

BUNDLE = Path(os.environ.get("CLUSTER_DESIGNER_BUNDLE", str(bundle_smoke.BUNDLE)))
BUILD = ".venv/bin/python packaging/build.py"


def _why_not() -> str | None:
    if not (BUNDLE / "cluster-designer").is_file():
        return f"no built bundle in {BUNDLE} (build one: {BUILD})"
    if bundle_smoke.built_from(BUNDLE) != bundle_smoke.source_digest():
        return f"the bundle in {BUNDLE} was built from other sources (rebuild: {BUILD})"
    return None


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory) -> bundle_smoke.Context:
    why = _why_not()
    if why is not None:
        pytest.skip(why)
    return bundle_smoke.Context(BUNDLE, tmp_path_factory.mktemp("smoke"))


@pytest.mark.slow
@pytest.mark.parametrize(
    "check", bundle_smoke.CHECKS, ids=lambda c: c.__name__.removeprefix("check_")
)
def test_bundle(
    ctx: bundle_smoke.Context, check: Callable[[bundle_smoke.Context], None]
) -> None:
    try:
        check(ctx)
    except bundle_smoke.Skipped as why:
        pytest.skip(str(why))
