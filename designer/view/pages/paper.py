"""Which paper a report is printed on: US Letter where people use it, else A4.

The territories come from the Unicode CLDR supplemental measurement data
(``<paperSize type="US-Letter" territories="BZ CA CL CO CR GT MX NI PA PH PR SV
US VE"/>``, every other territory "001" A4; Unicode Technical Standard #35,
Part 2 General, "Measurement System Data"). The window reads the territory
from the Qt locale, the command line from the POSIX locale variables.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

A4 = "A4"
LETTER = "Letter"
PAGE_SIZES = (A4, LETTER)

#: CLDR ``paperSize type="US-Letter"`` territories (ISO 3166 codes).
LETTER_TERRITORIES = frozenset(
    ["BZ", "CA", "CL", "CO", "CR", "GT", "MX", "NI", "PA", "PH", "PR", "SV", "US", "VE"]
)

# "en_US.UTF-8", "es-MX", "fr_CA@euro": language, then the territory
_LOCALE = re.compile(r"^[A-Za-z]{2,3}(?:[_-][A-Za-z]{4})?[_-]([A-Za-z]{2}|\d{3})\b")


def paper_for_territory(code: str | None) -> str:
    """``Letter`` for a CLDR US-Letter territory, else ``A4`` (unknown: A4)."""
    return LETTER if (code or "").upper() in LETTER_TERRITORIES else A4


def territory_of(locale_name: str) -> str | None:
    """The territory of a locale name ("en_US.UTF-8" -> "US"; "C" -> None)."""
    m = _LOCALE.match(locale_name.strip())
    return m.group(1).upper() if m else None


def paper_for_locale(locale_name: str) -> str:
    """Paper for a locale name such as ``en_US.UTF-8`` or ``de-DE``."""
    return paper_for_territory(territory_of(locale_name))


def paper_from_environ(environ: Mapping[str, str]) -> str:
    """Paper from the POSIX locale variables, in their order of precedence
    (``LC_ALL``, then ``LC_PAPER``, then ``LANG``)."""
    for key in ("LC_ALL", "LC_PAPER", "LANG"):
        value = environ.get(key, "")
        if value:
            return paper_for_locale(value)
    return A4


__all__ = [
    "A4",
    "LETTER",
    "LETTER_TERRITORIES",
    "PAGE_SIZES",
    "paper_for_locale",
    "paper_for_territory",
    "paper_from_environ",
    "territory_of",
]
