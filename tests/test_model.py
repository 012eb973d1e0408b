"""URLs are stable, distinct and safe; groups are normalised and sorted."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from errdocs.catalog.model import GroupKind, build_catalog, entry_of, relative_link, shown_tags
from errdocs.catalog.paths import RESERVED, WINDOWS_DEVICES, segment, unique_segment
from errdocs.catalog.texts import summary_key
from errdocs.pages.short import describe_record, first_sentence

from .helpers import record


def test_record_ids_and_slugs_are_not_kept_in_the_segment_cache() -> None:
    # One a record would only push out the repositories and tags that repeat (a memory
    # figure, bench/README: session 33); the segments are segment()'s all the same.
    records = [record(f"Id/{n}", slug=f"Slug {n}", repo=f"o/r{n % 2}", tags=("t",))
               for n in range(50)]
    segment.cache_clear()
    catalog = build_catalog(records)
    assert segment.cache_info().currsize < 10  # the repositories, the tag, their groups
    assert {e.path for e in catalog.entries.values()} == {
        f"o/r{n % 2}/{segment(f'Slug {n}')}.md" for n in range(50)}
    for text in ("Id/7", "a..b", "Ünïcode", "index", "con"):
        assert unique_segment(text) == segment(text)


def test_slug_collision_newest_analysis_gets_the_suffix() -> None:
    old = record("aaaa1111", slug="boom", analyzed_at="2026-01-01")
    new = record("0000ffff", slug="boom", analyzed_at="2026-06-01")
    catalog = build_catalog([new, old])
    assert catalog.entries["aaaa1111"].path == "o/r/boom.md"
    assert catalog.entries["0000ffff"].path == "o/r/boom-0000ffff.md"


def test_adding_records_never_moves_an_existing_page() -> None:
    before = build_catalog([record("a1", slug="x", analyzed_at="2026-01-01")])
    after = build_catalog([record("a1", slug="x", analyzed_at="2026-01-01"),
                           record("b2", slug="x", analyzed_at="2026-02-01"),
                           record("c3", slug="y", repo="p/q")])
    assert after.entries["a1"].path == before.entries["a1"].path


def test_hostile_names_become_safe_distinct_segments() -> None:
    hostile = ["../../etc", "a/b", "a\\\\b", "?#%", "", "ünï", "index", "tags", ".."]
    segments = [segment(v) for v in hostile]
    assert len(set(segments)) == len(segments)
    for seg in segments:
        assert seg and "/" not in seg and "\\\\" not in seg and seg not in (".", "..")
        assert set(seg) <= set("abcdefghijklmnopqrstuvwxyz0123456789._-")


def test_hostile_repo_and_slug_stay_inside_their_folders() -> None:
    catalog = build_catalog([record("a1", repo="../x", slug="../../etc/passwd"),
                             record("b2", repo="tags/index", slug="index")])
    paths = {e.path for e in catalog.entries.values()}
    assert all(".." not in p.split("/") for p in paths)
    assert catalog.entries["b2"].path.split("/")[0] != "tags"
    assert not catalog.entries["b2"].path.endswith("/index.md")


def test_tags_group_case_and_blank_insensitively_showing_the_commonest_spelling() -> None:
    catalog = build_catalog([record("a1", tags=("Config",)), record("b2", tags=(" config ",)),
                             record("c3", tags=("config",)), record("d4", tags=("config",))])
    [group] = catalog.groups[GroupKind.TAG].values()
    assert (group.key, group.label, group.path) == ("config", "config", "tags/config.md")
    assert [e.record_id for e in group.entries] == ["a1", "b2", "c3", "d4"]


def test_groups_whose_names_clean_up_alike_stay_distinct() -> None:
    catalog = build_catalog([record("a1", tags=("c++",)), record("b2", tags=("c",)),
                             record("c3", tags=("c--",))])
    paths = [g.path for g in catalog.groups[GroupKind.TAG].values()]
    assert len(set(paths)) == 3


def test_relative_link() -> None:
    assert relative_link("o/r/s.md", "tags/t.md") == "../../tags/t.md"
    assert relative_link("tags/t.md", "o/r/s.md") == "../o/r/s.md"
    assert relative_link("index.md", "tags/index.md") == "tags/index.md"


@pytest.mark.parametrize("value", ["index.md", "con", "NUL", "aux.md", "com1", "lpt9.txt"])
def test_names_the_site_or_windows_needs_are_never_taken(value: str) -> None:
    seg = segment(value)
    assert seg not in RESERVED and seg.split(".")[0] not in WINDOWS_DEVICES
    assert seg.startswith(value.lower().split(".")[0])


def test_names_merely_like_reserved_ones_are_kept() -> None:
    assert [segment(v) for v in ["console", "index.html", "nullable"]] == [
        "console", "index.html", "nullable"]


def test_a_collision_suffix_never_ends_in_a_hyphen() -> None:
    catalog = build_catalog([record("collide-1", slug="same"), record("collide-2", slug="same")])
    paths = sorted(e.path for e in catalog.entries.values())
    assert paths == ["o/r/same-collide.md", "o/r/same.md"]


def test_a_page_shows_and_is_listed_under_at_most_100_tags() -> None:
    many = (" ", "TAG0", *(f"tag{n}" for n in range(150)))
    catalog = build_catalog([record("a1", tags=many)])
    assert shown_tags(record("a1", tags=many)) == ["TAG0", *(f"tag{n}" for n in range(1, 100))]
    assert len(catalog.groups[GroupKind.TAG]) == 100


@given(st.text(max_size=400), st.booleans())
def test_a_listing_shows_its_records_first_sentence_which_its_entry_keeps_a_hash_of(
        documentation: str, ascii_only: bool) -> None:
    """The summary a listing shows is the description's first sentence, cut or not, whatever
    it holds (a "…" of its own is kept): the catalogue's texts give it, the entry holds its
    hash only."""
    if ascii_only:
        documentation = documentation.encode("ascii", "replace").decode()
    catalog = build_catalog([record("a", documentation=documentation)])
    wanted = first_sentence(describe_record(record("a", documentation=documentation)))
    assert catalog.texts.summaries(["a"]) == {"a": wanted}
    assert catalog.entries["a"].summary_key == summary_key(wanted)
    assert entry_of(record("a", documentation=documentation), "x").summary_key == summary_key(
        wanted)
