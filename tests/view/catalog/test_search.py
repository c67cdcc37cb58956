"""Catalog search over names, roles and synonyms, on the shipped catalog (no Qt)."""

from __future__ import annotations

import pytest

from designer.catalog.loader import default_catalog
from designer.catalog.schema import Category, Media, Role
from designer.view.catalog.search import (
    SYNONYMS,
    SearchEntry,
    group_title,
    no_match_text,
    query_words,
    search,
    search_entry,
)


@pytest.fixture(scope="module")
def entries() -> list[SearchEntry]:
    catalog = default_catalog()
    return [search_entry(catalog[k]) for k in catalog]


@pytest.fixture(scope="module")
def catalog():  # type: ignore[no-untyped-def]
    return default_catalog()


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("oob", {"sn2201"}),
        ("OOB", {"sn2201"}),
        ("BMC", {"sn2201"}),
        ("out of band", {"sn2201"}),
        ("oob switch", {"sn2201"}),
        ("management", {"head-node", "ufm-appliance", "sn2201", "sn4600c"}),
        ("NFS", {"nfs-filer", "vast-appliance"}),
        ("ib switch", {"q3400", "qm8700", "qm9700"}),
        ("fabric manager", {"ufm-appliance"}),
        ("head node", {"head-node"}),
        ("liquid", {"gb200-nvl72", "gb300-nvl72", "vr-nvl72"}),
        ("h100", {"dgx-h100", "hgx-h100"}),
        ("qm9700", {"qm9700"}),
        ("xyzzy", set()),
    ],
)
def test_queries(entries: list[SearchEntry], query: str, expected: set[str]) -> None:
    assert set(search(entries, query)) == expected


def test_every_word_must_match_and_empty_matches_all(
    entries: list[SearchEntry],
) -> None:
    everything = [e.slug for e in entries]
    assert search(entries, "") == everything
    assert search(entries, "   ") == everything
    assert set(search(entries, "storage ib")) < set(search(entries, "storage"))


def test_roles_follow_the_catalog_facts(catalog, entries: list[SearchEntry]) -> None:  # type: ignore[no-untyped-def]
    """Oracle: each role word against the facts it stands for, entry by entry."""
    by_slug = {e.slug: catalog[e.slug] for e in entries}

    def main_media(entry) -> set[Media]:  # type: ignore[no-untyped-def]
        role = {
            Category.COMPUTE: Role.COMPUTE,
            Category.STORAGE: Role.STORAGE,
        }.get(entry.category)
        groups = [g for g in entry.interfaces if g.role is not Role.OOB]
        if role is not None:
            groups = [g for g in groups if g.role is role] or groups
        return {g.media for g in groups}

    expected = {
        "storage": {s for s, e in by_slug.items() if e.category is Category.STORAGE},
        "gpu": {s for s, e in by_slug.items() if e.ext.gpu is not None},
        "nvlink": {
            s
            for s, e in by_slug.items()
            if e.ext.gpu is not None and e.ext.gpu.nvlink_gbytes_s > 0
        },
        "infiniband": {
            s for s, e in by_slug.items() if Media.INFINIBAND in main_media(e)
        },
        "ethernet": {s for s, e in by_slug.items() if Media.ETHERNET in main_media(e)},
        "spine": {
            s
            for s, e in by_slug.items()
            if e.category is Category.SWITCH
            and max(g.speed_gbps for g in e.interfaces if g.role is not Role.OOB) >= 100
        },
    }
    for word, slugs in expected.items():
        assert set(search(entries, word)) == slugs, word
    assert set(search(entries, "IB")) == expected["infiniband"]
    assert set(search(entries, "leaf")) == expected["spine"]
    assert set(search(entries, "GPUs")) == expected["gpu"]
    # NVLink comes from the GPU facts: the L40S (PCIe, "no NVLink") is not one
    assert "l40s-server" not in expected["nvlink"]
    # RoCE: fast Ethernet switches and NICs, never an InfiniBand switch
    roce = set(search(entries, "RoCE"))
    assert {"sn5600", "hgx-h100"} <= roce
    assert not roce & {"qm9700", "q3400", "sn2201"}


def test_every_synonym_finds_something(entries: list[SearchEntry]) -> None:
    for word in SYNONYMS:
        assert search(entries, word), word


def test_short_words_must_start_a_word(entries: list[SearchEntry]) -> None:
    assert set(search(entries, "8x")) >= {"dgx-h100", "dgx-b200"}
    # "ai" starts "AI400X2" and "air-cooled"; inside "domain" it does not count
    found = set(search(entries, "ai"))
    assert found == {"lustre-appliance", "q3400"}
    gb200 = next(e for e in entries if e.slug == "gb200-nvl72")
    assert "ai" in gb200.text


def test_phrases_and_texts() -> None:
    assert query_words("Out of  band, IB") == ["out-of-band", "ib"]
    assert group_title("Switches", 3, 9, True) == "Switches (3 of 9)"
    assert group_title("Switches", 9, 9, False) == "Switches (9)"
    assert no_match_text(" foo ").startswith("Nothing in the catalog matches “foo”")
