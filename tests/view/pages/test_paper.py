"""Paper by locale: US Letter in the CLDR US-Letter territories, A4 elsewhere."""

from __future__ import annotations

import pytest

from designer.view.pages.paper import (
    LETTER_TERRITORIES,
    paper_for_locale,
    paper_for_territory,
    paper_from_environ,
    territory_of,
)


def test_cldr_letter_territories() -> None:
    # CLDR supplemental measurementData, paperSize type="US-Letter"
    cldr = "BZ CA CL CO CR GT MX NI PA PH PR SV US VE"
    assert set(cldr.split(" ")) == LETTER_TERRITORIES
    for code in ("US", "us", "CA", "MX", "PH"):
        assert paper_for_territory(code) == "Letter"
    for code in ("DE", "GB", "FR", "JP", "IN", "AU", "BR", "", None):
        assert paper_for_territory(code) == "A4"


@pytest.mark.parametrize(
    ("name", "territory", "paper"),
    [
        ("en_US.UTF-8", "US", "Letter"),
        ("en_CA", "CA", "Letter"),
        ("fr_CA.UTF-8@euro", "CA", "Letter"),
        ("es-MX", "MX", "Letter"),
        ("en_GB.UTF-8", "GB", "A4"),
        ("de_DE", "DE", "A4"),
        ("zh_Hans_CN", "CN", "A4"),
        ("es_419", "419", "A4"),
        ("C.UTF-8", None, "A4"),
        ("POSIX", None, "A4"),
        ("", None, "A4"),
    ],
)
def test_locale_names(name: str, territory: str | None, paper: str) -> None:
    assert territory_of(name) == territory
    assert paper_for_locale(name) == paper


def test_posix_precedence() -> None:
    us, de = "en_US.UTF-8", "de_DE.UTF-8"
    assert paper_from_environ({"LANG": us}) == "Letter"
    assert paper_from_environ({"LANG": us, "LC_PAPER": de}) == "A4"
    assert paper_from_environ({"LANG": de, "LC_PAPER": us, "LC_ALL": de}) == "A4"
    assert paper_from_environ({"LC_ALL": us, "LANG": de}) == "Letter"
    assert paper_from_environ({"LC_ALL": "", "LANG": us}) == "Letter"
    assert paper_from_environ({}) == "A4"
