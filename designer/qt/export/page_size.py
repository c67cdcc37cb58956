"""Page size of the PDF report: the locale's paper unless the user chose one.

The rule (Letter in the CLDR US-Letter territories, A4 elsewhere) is
:mod:`designer.view.pages.paper`; here it meets the Qt locale, the page layouts and
the export dialog's remembered choice (QSettings ``export/page_size``).
"""

from __future__ import annotations

from PySide6.QtCore import QLocale, QMarginsF, QSettings
from PySide6.QtGui import QPageLayout, QPageSize

from designer.view.pages.paper import A4, LETTER, PAGE_SIZES, paper_for_territory

PAGE_SIZE_IDS = {A4: QPageSize.PageSizeId.A4, LETTER: QPageSize.PageSizeId.Letter}
MARGIN_PT = 36.0
SETTINGS_KEY = "export/page_size"


def locale_page_size(locale: QLocale | None = None) -> str:
    """The paper of ``locale`` (default: the application's locale)."""
    loc = locale if locale is not None else QLocale()
    return paper_for_territory(QLocale.territoryToCode(loc.territory()))


def remembered_page_size() -> str | None:
    """The page size last chosen in the export dialog (None: never chosen)."""
    value = QSettings().value(SETTINGS_KEY)
    return str(value) if value in PAGE_SIZES else None


def remember_page_size(page_size: str) -> None:
    """Keep the export dialog's choice for the next export."""
    if page_size in PAGE_SIZES:
        QSettings().setValue(SETTINGS_KEY, page_size)


def default_page_size() -> str:
    """The remembered choice, else the locale's paper."""
    return remembered_page_size() or locale_page_size()


def page_layouts(page_size: str) -> dict[bool, QPageLayout]:
    """Portrait (False) and landscape (True) layouts of ``page_size`` with margins."""
    if page_size not in PAGE_SIZE_IDS:
        raise ValueError(
            f"page size {page_size!r} is not supported (use {', '.join(PAGE_SIZES)})"
        )
    size = QPageSize(PAGE_SIZE_IDS[page_size])
    margins = QMarginsF(MARGIN_PT, MARGIN_PT, MARGIN_PT, MARGIN_PT)
    return {
        landscape: QPageLayout(
            size,
            QPageLayout.Orientation.Landscape
            if landscape
            else QPageLayout.Orientation.Portrait,
            margins,
            QPageLayout.Unit.Point,
        )
        for landscape in (False, True)
    }


__all__ = [
    "MARGIN_PT",
    "PAGE_SIZE_IDS",
    "default_page_size",
    "locale_page_size",
    "page_layouts",
    "remember_page_size",
    "remembered_page_size",
]
