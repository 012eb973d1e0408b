"""Stage 3, model: place every record at a stable URL, group records by tag, category,
repository and family (the same error in several repositories, :mod:`errdocs.catalog.family`), and
index which records each page lists as related (:mod:`errdocs.catalog.related`). Everything here is
light (no record text), so it stays small at any scale."""

from __future__ import annotations

import heapq
import posixpath
from array import array
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import lru_cache

from markupsafe import Markup

from errdocs.catalog.entries import Entry, EntryList, EntryTable
from errdocs.catalog.family import family_label, message_key
from errdocs.catalog.paths import disambiguate, segment, unique_segment
from errdocs.catalog.related import Related, Relations, build_relations
from errdocs.catalog.texts import HeldTexts, Texts, summary_key
from errdocs.pages.excerpt import language_for
from errdocs.pages.short import MESSAGE_CHARS, shorten, summary_of
from errdocs.records.record import Record
from errdocs.records.schema import MAX_LIST_ITEMS


class GroupKind(Enum):
    """What an index page groups by; the value is its folder in the generated tree."""

    TAG = "tags"
    CATEGORY = "categories"
    REPO = "repos"
    FAMILY = "families"


@dataclass(frozen=True, slots=True)
class Group:
    """The records sharing one tag, category or repository."""

    kind: GroupKind
    """What it groups by."""
    key: str
    """Normalised value (case-folded, blanks collapsed) that records are grouped on."""
    label: str
    """The value as written most often in the data."""
    path: str
    """Its index page, relative to the generated subtree."""
    entries: Sequence[Entry]
    """Its records, sorted by message, repository and path (a catalogue's: rows of its
    :class:`~errdocs.catalog.entries.EntryTable`)."""

    @property
    def repo_count(self) -> int:
        """How many repositories its records are raised in."""
        return len({group_key(GroupKind.REPO, e.repo) for e in self.entries})


@dataclass(frozen=True)
class Catalog:
    """Where every page goes and what every index page lists."""

    entries: Mapping[str, Entry]
    """Record id to its entry (a catalogue's: an :class:`~errdocs.catalog.entries.EntryTable`)."""
    groups: dict[GroupKind, dict[str, Group]]
    """Kind, then group key, to group. Families have a group only when they span two or
    more repositories."""
    relations: Relations = field(default_factory=Relations)
    """Which records each record page lists as related."""
    texts: Texts = field(default_factory=HeldTexts)
    """Each record's summary and analysis time (not in its entry: :mod:`errdocs.catalog.texts`)."""

    def listing(self) -> Sequence[Entry]:
        """Every entry, in a listing's order (:attr:`Entry.sort_key`): the repositories'
        groups merged (each is in that order), one entry made at a time."""
        repos = self.groups[GroupKind.REPO].values()
        if sum(len(g.entries) for g in repos) != len(self.entries):
            return sorted(self.entries.values(), key=lambda e: e.sort_key)
        merged = heapq.merge(*(g.entries for g in repos), key=lambda e: e.sort_key)
        if isinstance(self.entries, EntryTable):
            return self.entries.members(e.record_id for e in merged)
        return list(merged)

    def group_of(self, kind: GroupKind, value: str) -> Group:
        """The group a raw tag / category / repository value belongs to."""
        return self.groups[kind][group_key(kind, value)]

    def related(self, record: Record) -> Related:
        """The related lists of ``record``'s page."""
        category = group_key(GroupKind.CATEGORY, record.background_tag or "")
        return self.relations.of(record.id, self.entries[record.id].family, category,
                                 self.entries)

    def family_of(self, record: Record) -> Group | None:
        """The family page ``record`` is listed on, if its family has one."""
        family = self.entries[record.id].family
        return None if family is None else self.groups[GroupKind.FAMILY].get(family)

    @property
    def repo_count(self) -> int:
        return len(self.groups[GroupKind.REPO])


@lru_cache(maxsize=1 << 16)
def group_key(kind: GroupKind, value: str) -> str:
    """Tags and categories group case- and blank-insensitively; repositories by name;
    families by message, placeholders and values left out. Cached: the same few repositories,
    tags and categories are keyed several times a record on every build (catalogue, plan)."""
    if kind is GroupKind.FAMILY:
        return message_key(value)
    return " ".join(value.split()).casefold()


def shown_tags(record: Record) -> list[str]:
    """The tags a record's page shows and is listed under: in order, without blanks or repeats
    of one normalised tag, at most :data:`MAX_LIST_ITEMS` of them."""
    seen: dict[str, str] = {}
    for value in record.tags:
        key = group_key(GroupKind.TAG, value)
        if key and key not in seen:
            seen[key] = value
            if len(seen) == MAX_LIST_ITEMS:
                break
    return list(seen.values())


def build_catalog(records: Iterable[Record], known: Mapping[str, Entry] | None = None,
                  texts: Texts | None = None) -> Catalog:
    """Assign paths and collect groups. Deterministic for the same set of records (each id
    once). ``known``: entries an earlier catalogue made of some of the same records (the same
    lines read by the same errdocs), by id: what :func:`entry_of` gives them is theirs, not
    made again. ``records`` are read once, and not held: each record's entry is packed as it
    is read (:class:`~errdocs.catalog.entries.EntryTable`; as objects, a record's entry and
    what placed it were ~1 KB at the catalogue's top, whose room the rest of the preparation
    could not reuse), with what places it beside. ``texts``: where the records' summaries and
    analysis times are read from (a build's light copies,
    :class:`~errdocs.catalog.texts.LightTexts`); ``None``: held by the catalogue."""
    table = EntryTable()
    held = texts is None
    placing = [_placing(r, known, table, held=held) for r in records]
    placing.sort(key=lambda p: (p.repo.casefold(), p.analyzed_at or "", p.record_id))
    repo_dirs = _repo_dirs(p.repo for p in placing)
    taken: dict[str, set[str]] = defaultdict(set)
    # Oldest analysis first: a record added later never takes an existing record's URL.
    for item in placing:
        repo_dir = repo_dirs[group_key(GroupKind.REPO, item.repo)]
        suffix = unique_segment(item.record_id)[:8].rstrip("-.")
        name = disambiguate(unique_segment(item.slug), taken[repo_dir], suffix)
        table.place(item.record_id, path=f"{repo_dir}/{name}.md")
    del taken
    for record_id, title in record_titles(table.values()).items():
        table.place(record_id, title=title)
    relations = build_relations(
        ((p.record_id, message_key(table[p.record_id].message),
          group_key(GroupKind.CATEGORY, p.category or "")) for p in placing), table)
    for key, members in relations.families.items():
        for record_id in members:
            table.place(record_id, family=key)
    table.settle()
    if texts is None:
        texts = HeldTexts({p.record_id: p.summary or "" for p in placing},
                          {p.record_id: p.analyzed_at for p in placing})
    memberships = {kind: _members(kind, placing) for kind in GroupKind
                   if kind is not GroupKind.FAMILY}
    del placing
    groups: dict[GroupKind, dict[str, Group]] = {
        kind: _groups(kind, *memberships.pop(kind), table, repo_dirs) for kind in GroupKind
        if kind is not GroupKind.FAMILY}
    groups[GroupKind.FAMILY] = family_groups(relations, table)
    return Catalog(table, groups, relations, texts)


@dataclass(frozen=True, slots=True)
class _Placing:
    """What the catalogue needs of a record while it places and groups them, beside its
    entry (in the table, its path not yet chosen)."""

    record_id: str
    """The record's id."""
    repo: str
    """Its repository, as written."""
    slug: str
    """The record's slug: its page's name."""
    tags: tuple[str, ...]
    """The tags it is listed under (:func:`shown_tags`)."""
    category: str | None
    """Its ``backgroundTag``."""
    summary: str | None
    """Its summary (:func:`summary_of`), when the catalogue is to hold it."""
    analyzed_at: str | None
    """Its ``analyzedAt``: the records analysed first take their URL first."""


def _placing(record: Record, known: Mapping[str, Entry] | None, table: EntryTable, *,
             held: bool) -> _Placing:
    """Add ``record``'s entry to ``table`` (at no path: placed later), and say what places
    it."""
    kept = known.get(record.id) if known else None
    summary = summary_of(record) if held or kept is None else None
    if kept is None:
        table.add(entry_of(record, "", summary))
    else:  # what entry_of gives the record, but its path, title and family: placed later
        table.add(replace(kept, path="", title=None, family=None))
    return _Placing(record.id, record.repo, record.slug, tuple(shown_tags(record)),
                    record.background_tag, summary if held else None, record.analyzed_at)


def entry_of(record: Record, path: str, summary: str | None = None) -> Entry:
    """What listings show of ``record`` (a full or a light one: both give the same entry)
    but its summary (``summary``, when :func:`summary_of` gave it already) and analysis time,
    which :attr:`Catalog.texts` holds."""
    file = record.file_path
    return Entry(record.id, path, record.error_message, record.repo, file, record.line_number,
                 error_class=record.error_class,
                 summary_key=summary_key(summary_of(record) if summary is None else summary),
                 error_type=record.error_type, severity=record.severity,
                 handling=record.handling_strategy,
                 language=language_for(file) if file else "text")


def record_titles(entries: Collection[Entry]) -> dict[str, str]:
    """Page titles for the records whose message alone is not unique: the message, then the
    repository, then the file and line, then the record's id, as far as needed to tell them
    apart. Records missing from the result are titled by their message alone.

    Each record's title depends on the other records: a page's input hash holds its title
    (:func:`errdocs.units.plan._record_input`), so adding a record with the same message rebuilds
    the pages whose titles change. Linear in the number of records.
    """
    counts = Counter(_title(e, 0) for e in entries)
    pending = [e for e in entries if counts[_title(e, 0)] > 1]
    titles = {e.record_id: _title(e, 0) for e in pending}
    levels = dict.fromkeys(titles, 0)
    for _ in range(_MAX_ROUNDS):
        clashing = [e for e in pending if counts[titles[e.record_id]] > 1
                    and levels[e.record_id] < 3]
        if not clashing:
            break
        for entry in clashing:  # all of a clashing title move on, none keeps it
            counts[titles[entry.record_id]] -= 1
        for entry in clashing:
            levels[entry.record_id] += 1
            titles[entry.record_id] = _title(entry, levels[entry.record_id])
            counts[titles[entry.record_id]] += 1
    return {i: title for i, title in titles.items() if levels[i]}


_MAX_ROUNDS = 8
"""Rounds of :func:`record_titles`: three suffice unless a message spells another's title."""


def _title(entry: Entry, level: int) -> str:
    """The title at one level of detail (0: the message alone)."""
    base = shorten(entry.message, MESSAGE_CHARS)
    if level == 0:
        return base
    where = [" ".join(entry.repo.split())]
    if level == 2 and (entry.file or entry.line is not None):
        path = " ".join((entry.file or "").split())
        line = "" if entry.line is None else f"line {entry.line}"
        where.append(f"{path}:{entry.line}" if path and line else path or line)
    elif level >= 2:
        where.append(f"record {' '.join(entry.record_id.split())}")
    return f"{base} ({', '.join(where)})"


def _repo_dirs(repos: Iterable[str]) -> dict[str, str]:
    """``owner/name`` folder per repository key, distinct even for hostile names."""
    taken: set[str] = set()
    dirs: dict[str, str] = {}
    for key in sorted({group_key(GroupKind.REPO, r) for r in repos}):
        owner, name = key.split("/", 1)
        wanted = f"{segment(owner)}/{segment(name, reserved=frozenset({'index'}))}"
        dirs[key] = disambiguate(wanted, taken, segment(key))
    return dirs


_Members = tuple[dict[str, list[str]], dict[str, Counter[str]]]
"""A kind's groups' records (ids, in the catalogue's order) and the spellings of each
group's value, by group key."""


def _members(kind: GroupKind, placing: list[_Placing]) -> _Members:
    members: dict[str, list[str]] = defaultdict(list)
    spellings: dict[str, Counter[str]] = defaultdict(Counter)
    for item in placing:
        for value in _values(kind, item):
            key = group_key(kind, value)
            if not key:
                continue  # a blank tag groups nothing
            members[key].append(item.record_id)
            spellings[key][" ".join(value.split())] += 1
    return members, spellings


def _groups(kind: GroupKind, members: dict[str, list[str]], spellings: dict[str, Counter[str]],
            entries: EntryTable, repo_dirs: dict[str, str]) -> dict[str, Group]:
    taken: set[str] = set()
    groups = {}
    for key in sorted(members):
        if kind is GroupKind.REPO:
            path = f"{repo_dirs[key]}/index.md"
        else:
            path = f"{kind.value}/{disambiguate(segment(key), taken, segment(key + '#'))}.md"
        label = min(spellings.pop(key).items(), key=lambda item: (-item[1], item[0]))[0]
        # One entry a record (by id, not by hashing every field of the entry).
        groups[key] = Group(kind, key, label, path, _ordered(entries, members.pop(key)))
    return groups


def _ordered(entries: EntryTable, record_ids: Iterable[str]) -> EntryList:
    """The entries of ``record_ids`` (each once) in a listing's order (:attr:`Entry.sort_key`)."""
    rows = map(entries.row_of, dict.fromkeys(record_ids))
    return EntryList(entries, array("I", sorted(rows, key=lambda n: entries.row(n).sort_key)))


def family_groups(relations: Relations, entries: EntryTable) -> dict[str, Group]:
    """A group for each family over two or more repositories, labelled with its most
    common message, variable parts shown as "…"."""
    taken: set[str] = set()
    groups = {}
    for key in sorted(relations.family_repos):
        ids = relations.families[key]
        spellings: Counter[str] = Counter()
        for message, count in Counter(entries[i].message for i in ids).items():
            spellings[family_label(message)] += count  # each distinct message masked once
        label = min(spellings.items(), key=lambda item: (-item[1], item[0]))[0]
        name = disambiguate(segment(key), taken, segment(key + "#"))
        path = f"{GroupKind.FAMILY.value}/{name}.md"
        groups[key] = Group(GroupKind.FAMILY, key, label, path, _ordered(entries, ids))
    return groups


def _values(kind: GroupKind, item: _Placing) -> tuple[str, ...]:
    if kind is GroupKind.TAG:
        return item.tags
    if kind is GroupKind.CATEGORY:
        return (item.category,) if item.category else ()
    return (item.repo,)


def relative_link(source: str, target: str) -> Markup:
    """Relative Markdown link from one page to another (both relative to the same root).

    Paths are built from safe segments only (:mod:`errdocs.catalog.paths`), so the link is safe
    as is.
    """
    return Markup(posixpath.relpath(target, posixpath.dirname(source) or "."))
