"""Catalog search for the palette: names, roles and the words people use for them.

An architect looking for the out-of-band switch types "oob", "BMC" or
"management"; none of those is in "NVIDIA Spectrum SN2201". Each entry gets
role tags derived from its catalog facts (category, the link layer and speed
of its main ports, GPUs and NVLink, storage kind, cooling), and
:data:`SYNONYMS` maps the words of a query to those tags. A query matches an
entry when every word matches. A word of the synonym table matches through
the tags only: the facts decide, not the prose ("nvlink" must not find the L40S
server whose description says "no NVLink"). Any other word matches as text: a
substring of the name, id, family, description or specs (a word under three
letters must start a word there, so "8x" finds "8x400G" but "ai" does not find
"chain").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from designer.catalog.schema import CatalogEntry, Category, Interface, Media, Role
from designer.view.catalog.specs import entry_specs

#: Switches at or below this native speed are management (out-of-band) switches.
OOB_SWITCH_MAX_GBPS = 10
#: Ethernet ports at or above this speed carry RDMA over Converged Ethernet in
#: the catalog's parts (ConnectX NICs, Spectrum and Tomahawk-class switches).
ROCE_MIN_GBPS = 100

#: Query word -> the role tags it stands for (an entry with any of them matches).
SYNONYMS: dict[str, frozenset[str]] = {
    word: frozenset(tags)
    for words, tags in (
        (("oob", "out-of-band", "bmc", "ipmi", "redfish", "idrac", "ilo"), ("oob",)),
        (("management", "mgmt", "manage"), ("management",)),
        (("inband", "in-band"), ("inband",)),
        (("storage", "disk", "flash"), ("storage",)),
        (("nfs", "nas", "filer"), ("nfs",)),
        (("parallel", "pfs", "parallel-fs", "scratch"), ("parallel-fs",)),
        (("infiniband", "ib"), ("infiniband",)),
        (("ethernet", "eth", "gbe"), ("ethernet",)),
        (("roce", "roce2", "rocev2"), ("roce",)),
        (("rdma",), ("infiniband", "roce")),
        (("nvlink", "nvl", "nvswitch"), ("nvlink",)),
        (("gpu", "accelerator"), ("gpu",)),
        (("compute",), ("compute",)),
        (("switch",), ("switch",)),
        (("spine", "leaf", "tor", "core", "aggregation", "fabric"), ("fabric",)),
        (("ufm", "subnet", "sm"), ("fabric-manager",)),
        (("head", "login", "bcm", "provisioning", "scheduler"), ("head-node",)),
        (("liquid", "dlc"), ("liquid",)),
        (("air",), ("air",)),
    )
    for word in words
}

# Phrases become one word before the query is split.
_PHRASES = (
    (re.compile(r"\bout[\s-]+of[\s-]+band\b"), "out-of-band"),
    (re.compile(r"\bin[\s-]+band\b"), "in-band"),
    (re.compile(r"\bparallel[\s-]+(file[\s-]*system|fs)\b"), "parallel-fs"),
    (re.compile(r"\b(fabric|subnet)[\s-]+manager\b"), "ufm"),
)
_IRREGULAR = {"leaves": "leaf", "switches": "switch", "gpus": "gpu"}
_TOKEN = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class SearchEntry:
    """What the search knows of one catalog entry."""

    slug: str
    category: Category
    text: str
    tokens: tuple[str, ...]
    tags: frozenset[str]


def _main_ports(entry: CatalogEntry) -> list[Interface]:
    """The port groups that say what the entry is for (never the BMC port)."""
    groups = [g for g in entry.interfaces if g.role is not Role.OOB]
    if entry.category is Category.COMPUTE:
        compute = [g for g in groups if g.role is Role.COMPUTE]
        return compute or groups
    if entry.category is Category.STORAGE:
        storage = [g for g in groups if g.role is Role.STORAGE]
        return storage or groups
    return groups


def entry_tags(entry: CatalogEntry) -> frozenset[str]:
    """Role tags of an entry from its catalog facts (see :data:`SYNONYMS`)."""
    ext = entry.ext
    tags = {entry.category.value}
    main = _main_ports(entry)
    for group in main:
        # the native link layer only: a VPI NIC that could run Ethernet is
        # still an InfiniBand part to someone looking for Ethernet kit
        tags.add(group.media.value)
        fast_ethernet = (
            group.media is Media.ETHERNET and group.speed_gbps >= ROCE_MIN_GBPS
        )
        if fast_ethernet and entry.category in (Category.SWITCH, Category.COMPUTE):
            tags.add("roce")
    if ext.gpu is not None:
        tags.add("gpu")
        if ext.gpu.nvlink_gbytes_s > 0 and ext.gpu.nvlink_domain > 1:
            tags.add("nvlink")
    if entry.category is Category.SWITCH:
        fastest = max((g.speed_gbps for g in main), default=0)
        if fastest <= OOB_SWITCH_MAX_GBPS:
            tags |= {"oob", "management"}
        else:
            tags.add("fabric")
    if entry.category is Category.MANAGEMENT:
        tags.add("management")
        serves_fabric = any(g.role is Role.COMPUTE for g in main)
        tags.add("fabric-manager" if serves_fabric else "head-node")
    if ext.storage is not None:
        tags.add(ext.storage.kind)
    words = f"{ext.family or ''} {ext.description}".lower()
    if "nfs" in words:
        tags.add("nfs")
    if "in-band" in words:
        tags.add("inband")
    if "management" in words:  # "in-band management / 100G ToR"
        tags.add("management")
    tags.add(ext.cooling.value)
    return frozenset(tags)


def search_entry(entry: CatalogEntry) -> SearchEntry:
    """The searchable text and tags of ``entry``."""
    ext = entry.ext
    parts = [
        entry.manufacturer,
        entry.model,
        entry.slug,
        ext.family or "",
        ext.description,
        entry_specs(entry),
    ]
    text = " ".join(p for p in parts if p).lower()
    return SearchEntry(
        slug=entry.slug,
        category=entry.category,
        text=text,
        tokens=tuple(_TOKEN.findall(text)),
        tags=entry_tags(entry),
    )


def query_words(query: str) -> list[str]:
    """The words of a query, lower case, known phrases joined ("out of band")."""
    text = query.lower()
    for pattern, joined in _PHRASES:
        text = pattern.sub(joined, text)
    return [w for w in re.split(r"[\s,;]+", text) if w]


def _tags_of(word: str) -> frozenset[str]:
    if word in SYNONYMS:
        return SYNONYMS[word]
    singular = _IRREGULAR.get(word)
    if singular is None and len(word) > 3 and word.endswith("s"):
        singular = word[:-1]
    return SYNONYMS.get(singular or "", frozenset())


def word_matches(entry: SearchEntry, word: str) -> bool:
    """Whether one query word matches ``entry`` (through its tags when the word
    is a synonym, else as text)."""
    tags = _tags_of(word)
    if tags:
        return bool(tags & entry.tags)
    if len(word) >= 3:
        return word in entry.text
    return any(t.startswith(word) for t in entry.tokens)


def matches(entry: SearchEntry, query: str) -> bool:
    """Whether every word of ``query`` matches ``entry`` (an empty query does)."""
    return all(word_matches(entry, w) for w in query_words(query))


def search(entries: Iterable[SearchEntry], query: str) -> list[str]:
    """Catalog ids of the entries ``query`` matches, in the given order."""
    return [e.slug for e in entries if matches(e, query)]


def group_title(title: str, shown: int, total: int, filtered: bool) -> str:
    """A palette group header: "Switches (9)", or "Switches (3 of 9)" while
    a search hides some."""
    return f"{title} ({shown} of {total})" if filtered else f"{title} ({total})"


NO_MATCH_HINT = "a model (H100, QM9700), a role (oob, storage, spine) or a speed (400G)"


def no_match_text(query: str) -> str:
    """The line the palette shows when nothing matches ``query``."""
    return f"Nothing in the catalog matches “{query.strip()}”. Try {NO_MATCH_HINT}."


__all__ = [
    "SYNONYMS",
    "SearchEntry",
    "entry_tags",
    "group_title",
    "matches",
    "no_match_text",
    "query_words",
    "search",
    "search_entry",
    "word_matches",
]
