"""The catalog palette: entries by category, searchable, draggable onto the canvas.

The search itself (names, roles, synonyms such as "oob" or "IB") is
:mod:`designer.view.catalog.search`; this panel shows its result.
"""

from __future__ import annotations

import json

from PySide6.QtCore import QMimeData, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from designer.catalog.loader import Catalog
from designer.catalog.schema import Category
from designer.qt.resources import icon
from designer.view.catalog.search import (
    SearchEntry,
    group_title,
    matches,
    no_match_text,
    search_entry,
)
from designer.view.catalog.specs import entry_specs

CATALOG_MIME = "application/x-gcd-catalog-item"

_GROUPS: tuple[tuple[Category, str, str], ...] = (
    (Category.COMPUTE, "Compute", "compute"),
    (Category.SWITCH, "Switches", "switch"),
    (Category.STORAGE, "Storage", "storage"),
    (Category.MANAGEMENT, "Management", "management"),
)

PALETTE_LINE = 28  # characters of name + power that fit a 310 px palette
PALETTE_NAME = 34  # longer names with a "(qualifier)" put it on its own line
_ID_ROLE = Qt.ItemDataRole.UserRole
_TITLE_ROLE = Qt.ItemDataRole.UserRole + 1


def catalog_mime(catalog_id: str, count: int) -> QMimeData:
    """The drag payload the canvas accepts: UTF-8 JSON with catalog id and count."""
    mime = QMimeData()
    payload = json.dumps({"catalog_id": catalog_id, "count": count})
    mime.setData(CATALOG_MIME, payload.encode("utf-8"))
    return mime


def palette_text(model: str, specs: str) -> str:
    """Short lines (power beside a short name) so a 310 px palette shows them whole."""
    if len(model) > PALETTE_NAME and " (" in model:  # "Long name (qualifier)"
        head, _, tail = model.partition(" (")
        model = f"{head}\n({tail}"
    *rest, power = specs.split(" · ")
    if not rest or "\n" in model or len(model) + len(power) > PALETTE_LINE:
        return f"{model}\n{specs}"  # a long name: the power stays with the specs
    return f"{model} · {power}\n{' · '.join(rest)}"


class _PaletteTree(QTreeWidget):
    """Tree whose drags carry the catalog MIME type with the panel's count."""

    def __init__(self, panel: PalettePanel) -> None:
        super().__init__()
        self._panel = panel

    def mimeTypes(self) -> list[str]:
        return [CATALOG_MIME]

    def mimeData(self, items: list[QTreeWidgetItem]) -> QMimeData:  # type: ignore[override]
        catalog_id = next(
            (i.data(0, _ID_ROLE) for i in items if i.data(0, _ID_ROLE)), ""
        )
        return catalog_mime(str(catalog_id), self._panel.count())


class PalettePanel(QWidget):
    """Searchable, grouped list of catalog entries with a count for multi-placement.

    ``item_activated(catalog_id, count)`` fires on double-click or Enter.
    """

    item_activated = Signal(str, int)

    def __init__(self, catalog: Catalog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        self.search = QLineEdit()
        self.search.setObjectName("paletteSearch")
        self.search.setPlaceholderText("Search: name, role (oob, storage), speed…")
        self.search.setToolTip(
            "Words match names, ids, specs and roles: oob, management, BMC, "
            "storage, NFS, InfiniBand / IB, RoCE, Ethernet, NVLink, GPU, spine, "
            "leaf, liquid…; every word must match"
        )
        self.search.setClearButtonEnabled(True)
        self.no_match = QLabel("")
        self.no_match.setObjectName("hint")
        self.no_match.setWordWrap(True)
        self.no_match.hide()
        self._search: dict[str, SearchEntry] = {}
        self.tree = _PaletteTree(self)
        self.tree.setObjectName("palette")
        self.tree.setHeaderHidden(True)
        self.tree.setIconSize(QSize(28, 28))
        self.tree.setDragEnabled(True)
        self.tree.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setIndentation(12)
        self.tree.setUniformRowHeights(False)
        self.count_spin = QSpinBox()
        self.count_spin.setRange(1, 4096)
        self.count_spin.setToolTip("How many devices one drop places")
        count_row = QHBoxLayout()
        count_row.addWidget(QLabel("Place"))
        count_row.addWidget(self.count_spin, 1)
        count_row.addWidget(QLabel("per drop"))
        hint = QLabel("Drag onto the canvas, or double-click to add.")
        hint.setObjectName("hint")
        hint.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.search)
        layout.addWidget(self.no_match)
        layout.addWidget(self.tree, 1)
        layout.addLayout(count_row)
        layout.addWidget(hint)
        self._populate()
        self.search.textChanged.connect(self.apply_filter)
        self.tree.itemActivated.connect(self._on_item_activated)

    def _populate(self) -> None:
        for category, title, icon_name in _GROUPS:
            entries = self.catalog.by_category(category)
            if not entries:
                continue
            top = QTreeWidgetItem(
                [group_title(title, len(entries), len(entries), False)]
            )
            top.setData(0, _TITLE_ROLE, title)
            top.setFlags(Qt.ItemFlag.ItemIsEnabled)
            font = top.font(0)
            font.setBold(True)
            top.setFont(0, font)
            self.tree.addTopLevelItem(top)
            for entry in entries:
                specs = entry_specs(entry)
                child = QTreeWidgetItem([palette_text(entry.model, specs)])
                child.setIcon(0, icon(icon_name))
                child.setData(0, _ID_ROLE, entry.slug)
                self._search[entry.slug] = search_entry(entry)
                child.setToolTip(
                    0,
                    f"<b>{entry.manufacturer} {entry.model}</b> ({entry.slug})<br>"
                    f"{entry.ext.description or specs}<br>{entry.u_height:g} U",
                )
                child.setFlags(
                    Qt.ItemFlag.ItemIsEnabled
                    | Qt.ItemFlag.ItemIsSelectable
                    | Qt.ItemFlag.ItemIsDragEnabled
                )
                top.addChild(child)
            top.setExpanded(True)

    def count(self) -> int:
        """Devices placed per drop."""
        return self.count_spin.value()

    def apply_filter(self, text: str) -> None:
        """Show only the entries every word of ``text`` matches (by name, specs or
        role); group headers count what is shown; say so when nothing is."""
        filtered = bool(text.strip())
        shown_total = 0
        for top, children in self._groups():
            visible = 0
            for child in children:
                entry = self._search.get(str(child.data(0, _ID_ROLE)))
                hide = entry is None or not matches(entry, text)
                child.setHidden(hide)
                visible += not hide
            top.setHidden(visible == 0)
            title = str(top.data(0, _TITLE_ROLE))
            top.setText(0, group_title(title, visible, len(children), filtered))
            shown_total += visible
        self.no_match.setText(no_match_text(text) if not shown_total else "")
        self.no_match.setVisible(shown_total == 0)

    def visible_ids(self) -> list[str]:
        """Catalog ids currently shown (after the search filter)."""
        out: list[str] = []
        for top, children in self._groups():
            for child in children:
                if not child.isHidden() and not top.isHidden():
                    out.append(str(child.data(0, _ID_ROLE)))
        return out

    def find_item(self, catalog_id: str) -> QTreeWidgetItem | None:
        """The tree item of a catalog entry."""
        for _, children in self._groups():
            for child in children:
                if child.data(0, _ID_ROLE) == catalog_id:
                    return child
        return None

    def _groups(self) -> list[tuple[QTreeWidgetItem, list[QTreeWidgetItem]]]:
        """Each category row with its entry rows."""
        out = []
        for t in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(t)
            if top is None:
                continue
            children = [top.child(c) for c in range(top.childCount())]
            out.append((top, [c for c in children if c is not None]))
        return out

    def _on_item_activated(self, item: QTreeWidgetItem, column: int) -> None:
        catalog_id = item.data(0, _ID_ROLE)
        if catalog_id:
            self.item_activated.emit(str(catalog_id), self.count())
