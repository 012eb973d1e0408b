"""Split the site into independent units of work, each with a hash of everything it depends on.

- ``root``: the hand-written pages, the catalogue's front page and the lists of all tags,
  categories and repositories, the theme's assets and the 404 page.
- ``hub-NNNN``: the listing pages of some tags, categories and repositories.
- ``rec-NNNN``: some record pages.
- ``changes``: the "what changed" pages of the dataset versions kept (see :mod:`.changes`), and
  ``past-NNNN``: data units of the other files made from the site's history (the feed, the
  pages at addresses records left, the 404 page's data). The merge builds these, not slices.
- ``data-NNNN``: some of the paste box's, the search box's and the 404 page's data files, and
  of the static files at site paths (the feed, ``/api/``, the pages at addresses records
  left): no MkDocs build, hard links, so a changed record re-links only the data units its
  files are in. A record's own ``/id/`` page and JSON are made by its record unit, with its
  page.

Assignment is stable: a record goes to ``rec-(hash(id) mod K)``, a group to
``hub-(hash(kind:key) mod H)``, with K and H powers of two chosen from the counts, so units
stay around :data:`UNIT_SIZE` pages (:func:`units_for`) and an added record moves no other
record. A unit's key hashes its inputs (record lines, paths, link targets, labels) and the
:func:`global_key` (errdocs' code and templates, the MkDocs config, theme overrides, tool
versions), so an unchanged key means an unchanged output.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path
from typing import Any, TypeVar

from errdocs.catalog import paging
from errdocs.catalog.entries import EntryTable
from errdocs.catalog.lights import Light
from errdocs.catalog.model import Catalog, Entry, Group, GroupKind, shown_tags
from errdocs.code import code_digest
from errdocs.pages.render import Page, group_charts
from errdocs.records.record import Record
from errdocs.units import engine
from errdocs.units.keys import NO_KEYS, KeysByPath, PathKeys, PathKeysBuilder, digest

UNIT_SIZE = 2048
"""Pages a record or hub unit aims at. Within a unit only the pages whose inputs changed are
built again, but each MkDocs build costs ~65 ms besides its pages (its config, templates and
nav), and a refresh builds nearly every unit (1% of the records changed lands in almost all):
in a 1% refresh at 310,000 records, 976 units of ~300 pages cost the workers ~60 s of CPU
that way (profiled; bench/README.md). At 20,000 records a 1% refresh took 8.8-11.4 s with
units of ~1,250 pages (12 runs) against 9.5-12.7 s with units of ~312 (4 runs). A worker
holds its unit's pages while MkDocs builds them: a cold build's processes took ~120 MB more
at 20,000 records."""
SMALL_UNIT, FEW_UNITS = 512, 4
"""A site of fewer than ``FEW_UNITS * UNIT_SIZE`` pages still has as many units as units of
``SMALL_UNIT`` pages would make, up to ``FEW_UNITS``: a small site's cold build keeps its
workers busy (2,000 records in one unit would use one core)."""
K = TypeVar("K")
DATA_UNIT_FILES = 1024
"""Data files a data unit aims at: a change links its unit's files again."""
ROOT = "root"
CHANGES = "changes"
PAST = "past"
"""The prefix of data units made from the site's history (``past-NNNN``)."""


class UnitKind(Enum):
    """What a unit holds."""

    ROOT = "root"
    HUB = "hub"
    RECORDS = "rec"
    SEARCH = "search"
    DATA = "data"
    CHANGES = "changes"


@dataclass(frozen=True)
class Unit:
    """One independent MkDocs build."""

    name: str
    """``root``, ``hub-0003``, ``rec-0042``: also its folder under the work folder."""
    kind: UnitKind
    """What it holds."""
    members: tuple[str, ...]
    """Record ids (records unit), group ids ``kind:key`` (hub unit), generated-tree paths of
    data files or, starting with ``/``, site paths of static files (data unit); empty for
    root."""
    key: str
    """Hash of every input of the unit's output."""
    page_keys: PathKeys = NO_KEYS
    """Generated-tree path and input hash of each page (records and hub units; each file of a
    data unit): a page whose hash did not change is not rendered or built again, its earlier
    output is reused."""


def bucket(value: str, count: int) -> int:
    """Stable bucket of ``value`` among ``count`` (same on every machine and Python run)."""
    return int.from_bytes(hashlib.blake2b(value.encode(), digest_size=8).digest()) % count


def unit_count(pages: int, size: int | None = None) -> int:
    """Smallest power of two giving units of at most ``size`` pages on average."""
    count = 1
    while count * (size or UNIT_SIZE) < pages:
        count *= 2
    return count


def units_for(pages: int) -> int:
    """How many record (or hub) units hold ``pages`` pages: units of :data:`UNIT_SIZE`
    pages, but no fewer than :data:`FEW_UNITS` units of :data:`SMALL_UNIT` pages."""
    return max(unit_count(pages), min(unit_count(pages, SMALL_UNIT), FEW_UNITS))


def group_id(group: Group) -> str:
    return f"{group.kind.value}:{group.key}"


def group_pages(group: Group) -> list[str]:
    """The paths of every page of a group's listing."""
    count = paging.page_count(len(group.entries))
    return [paging.page_path(group.path, n) for n in range(1, count + 1)]


FileKey = tuple[str, str]
"""A data file's path and the hash of its content (:func:`file_keys`)."""


def file_keys(pages: Iterable[Page]) -> list[FileKey]:
    """Each page's path and the hash of its content: what a data unit's key is made of."""
    return [(p.path, _hash(p.content)) for p in pages]


def file_digest(page: Page) -> bytes:
    """The hash of a page's content (:func:`file_keys`'), as bytes (:class:`PathKeys`')."""
    return digest(page.content)


def plan(lights: Sequence[Light], catalog: Catalog, root_inputs: Iterable[bytes],
         global_key: str, data: PathKeys = NO_KEYS, changes: Iterable[Page] = (),
         past: Iterable[Page] = (), pages: list[Unit] | None = None,
         data_units: list[Unit] | None = None) -> list[Unit]:
    """Every unit with its key: root, then hubs, then record units, then data units (of
    ``data``, given by :func:`file_keys`: the files themselves may not have been made again),
    then the units made from the site's history (:func:`from_history`): data units of
    ``past`` files and the "what changed" pages' unit (when there are such pages).
    ``pages``: what :func:`page_units` gives for the same records, catalogue and global key
    (a memo's); made here when ``None``; ``data_units`` likewise, what :func:`data_units`
    gives for ``data``."""
    units = [Unit(ROOT, UnitKind.ROOT, (), _hash(global_key, *root_inputs))]
    units += page_units(lights, catalog, global_key) if pages is None else pages
    units += _data_units(data, global_key) if data_units is None else data_units
    units += _data_units(PathKeys.of(file_keys(past)), global_key, PAST)
    keys = PathKeys.of(sorted((p.path, _hash(p.content)) for p in changes))
    if keys:  # a few pages, apart from the root: a new version does not rebuild the root
        units.append(Unit(CHANGES, UnitKind.CHANGES, keys.paths, _unit_key(global_key, keys),
                          keys))
    return units


@dataclass(frozen=True, slots=True)
class GroupThen:
    """What a group showed in an earlier build (:class:`Previous`): not its entries."""

    label: str
    """Its label then."""
    path: str
    """Its first page then."""
    ids: tuple[str, ...]
    """Its records' ids then, in its order."""
    repos: int
    """How many repositories its records were raised in then (a family's; 0 for any other
    kind): with the rest, what every page of it showed of the group (:func:`group_head`)."""


RelatedLists = tuple[Mapping[str, tuple[str, ...]], Mapping[tuple[str, str], tuple[str, ...]],
                     Mapping[tuple[str, str], tuple[str, ...]]]
"""The related lists of a model by family, file and category (:class:`Relations`' ``families``,
``files`` and ``categories``): record ids."""


@dataclass(frozen=True)
class Previous:
    """What an earlier build's page units were made from (the memo's, :mod:`errdocs.catalog.memo`):
    a page whose inputs are provably those it had then keeps its key, not hashed again. Not
    the earlier model itself (:class:`errdocs.catalog.memo.EarlierModel`)."""

    moved: set[str]
    """Ids of records whose entry changed since (against this build's model), came or went."""
    groups: dict[GroupKind, dict[str, GroupThen]]
    """The groups then, by kind and key."""
    lists: RelatedLists
    """The related lists then."""
    redone: set[str]
    """Ids of this build's records whose line changed since (or that came)."""
    keys: Mapping[str, bytes]
    """The key each record and listing page had then, by generated-tree path
    (:func:`page_keys_of` the page units then)."""

    @classmethod
    def between(cls, then: Catalog, now: Catalog, redone: set[str],
                keys: Mapping[str, bytes]) -> Previous:
        """What ``then`` (an earlier model, whole) tells against ``now``: what the memo reads
        from the earlier model's rows instead (:mod:`errdocs.catalog.memo`)."""
        entries = now.entries
        moved = {i for i, entry in entries.items() if then.entries.get(i) != entry}
        moved |= then.entries.keys() - entries.keys()
        groups = {kind: {key: GroupThen(g.label, g.path, tuple(map(_ID, g.entries)), _repos(g))
                         for key, g in then.groups[kind].items()} for kind in GroupKind}
        relations = then.relations
        return cls(moved, groups, (relations.families, relations.files, relations.categories),
                   redone, keys)


def page_keys_of(units: Iterable[Unit]) -> KeysByPath:
    """The key of each record and listing page of ``units``, by path (what :class:`Previous`
    keeps of them), packed (:class:`KeysByPath`)."""
    return KeysByPath(unit.page_keys for unit in units
                      if unit.kind in (UnitKind.RECORDS, UnitKind.HUB))


@dataclass(frozen=True)
class _Known:
    """The page keys of an earlier build, and which records' pages must be hashed again."""

    keys: Mapping[str, bytes]
    """Generated-tree path to the page's key then."""
    dirty: set[str]
    """Ids of records whose page's inputs may have changed (any other record page's inputs
    are those it had then)."""
    groups: dict[GroupKind, dict[str, GroupThen]]
    """The groups then."""
    moved: set[str]
    """Ids of records whose entry changed, was added or removed."""

    def group_keys(self, group: Group) -> list[tuple[str, bytes]] | None:
        """The page keys ``group``'s pages had, when it shows what it showed then: the same
        label and path, the same records in the same order, none of whose entry changed."""
        old = self.groups[group.kind].get(group.key)
        if old is None or (old.label, old.path) != (group.label, group.path) or (
                old.ids != tuple(map(_ID, group.entries))) or (
                not self.moved.isdisjoint(map(_ID, group.entries))):
            return None
        found = []
        for path in group_pages(group):
            key = self.keys.get(path)
            if key is None:
                return None
            found.append((path, key))
        return found


    def page_keys(self, group: Group,
                  head: str) -> Callable[[int, Sequence[Entry]], bytes | None] | None:
        """What gives the key then of a page of ``group`` (its number and rows) past the
        first, when it shows what it showed then: the group's :func:`_head` (so its page
        count) and the page's records are those then, none of whose entry changed. The first
        page shows the charts of every record: it is kept only with the whole group
        (:meth:`group_keys`)."""
        old = self.groups[group.kind].get(group.key)
        if old is None or group_head(group.kind, group.key, old.label, old.path, len(old.ids),
                                     old.repos) != head:
            return None

        def kept(number: int, rows: Sequence[Entry]) -> bytes | None:
            path = paging.page_path(group.path, number)
            was = paging.chunk(old.ids, number)
            if list(was) == list(map(_ID, rows)) and self.moved.isdisjoint(map(_ID, rows)):
                return self.keys.get(path)
            return None
        return kept


def _ID(entry: Entry) -> str:
    return entry.record_id


def page_units(lights: Sequence[Light], catalog: Catalog, global_key: str,
               previous: Previous | None = None) -> list[Unit]:
    """The hub units, then the record units, with their keys: made from every record (each
    page's inputs hashed), so a build keeps them between builds (:mod:`errdocs.catalog.memo`).
    With ``previous``, the pages whose inputs did not change keep their keys then; pass it
    unnamed: what no step after needs goes as the steps end (at 310,000 records, ~19 MB of
    related lists after :func:`_known`, ~31 MB of groups after the hub units)."""
    known = None if previous is None else _known(catalog, previous)
    del previous
    hubs = _hub_units(catalog, global_key, known)
    if known is not None:  # the record pages' keys read only the keys and what is dirty
        known = replace(known, groups={})
    return [*hubs, *_record_units(lights, catalog, global_key, known)]


def _dirty_lists(dirty: set[str], moved: set[str],
                 lists: tuple[Mapping[K, tuple[str, ...]], Mapping[K, tuple[str, ...]]]) -> None:
    """Add to ``dirty`` the records of each list (then and now) that changed or that holds a
    record of ``moved``. What a list's page shows besides its records (where a family's
    repositories start, a category's files) follows from its records' entries: the same
    records, none moved, show the same."""
    before, after = lists
    for key in before.keys() | after.keys():
        was, new = before.get(key, ()), after.get(key, ())
        if was != new or not moved.isdisjoint(new):
            dirty.update(was)
            dirty.update(new)


def _known(catalog: Catalog, previous: Previous) -> _Known:
    """What :class:`Previous` tells of this build's pages. A record page's inputs
    (:func:`_record_input`) are its line, its entry, the label and path of each group it is
    on and of its family's, and its related lists (:meth:`Catalog.related`), which read only
    the members of its family, file and category (and their entries) and those lists' order.
    So a record is dirty when its line or entry changed, when a group it was or is on changed
    label or path (or came or went), or when one of its lists changed or holds a record whose
    entry changed (or that came or went)."""
    # Listings and related lists show entries, not lines: a record whose line changed and
    # entry did not moves nothing (at 310,000 records, 1% changed reached every large tag's
    # listing when it did: 10 s of listings hashed again to the same keys).
    moved = previous.moved
    dirty = moved | previous.redone
    for kind in GroupKind:
        before, after = previous.groups[kind], catalog.groups[kind]
        for key in before.keys() | after.keys():
            was, new = before.get(key), after.get(key)
            if was is None or new is None or (was.label, was.path) != (new.label, new.path):
                dirty.update(was.ids if was else ())
                dirty.update(map(_ID, new.entries if new else ()))
    now = catalog.relations
    families, files, categories = previous.lists
    _dirty_lists(dirty, moved, (families, now.families))
    _dirty_lists(dirty, moved, (files, now.files))
    _dirty_lists(dirty, moved, (categories, now.categories))
    return _Known(previous.keys, dirty, previous.groups, moved)


UnitsData = tuple[tuple[str, str, tuple[str, ...], str, tuple[str, ...], bytes], ...]
"""Units as tuples of strings (:func:`units_data`), what the memo keeps."""


def units_data(units: list[Unit]) -> UnitsData:
    """``units`` as tuples of strings (name, kind, members, key, then the page keys' paths
    and digests)."""
    return tuple((u.name, u.kind.value, u.members, u.key, u.page_keys.paths,
                  u.page_keys.digests) for u in units)


def units_from(data: UnitsData) -> list[Unit]:
    """The units :func:`units_data` gave ``data`` for (ValueError or TypeError when it is not
    such a value)."""
    units = []
    for name, kind, members, key, paths, digests in data:
        if not (isinstance(name, str) and isinstance(key, str) and isinstance(members, tuple)):
            raise TypeError("not a unit")
        units.append(Unit(name, UnitKind(kind), members, key, PathKeys(paths, digests)))
    return units


def shared_strings(catalog: Catalog) -> Callable[[Any], Any]:
    """What the memo keeps of a unit's :func:`units_data`, as it is read, with the
    catalogue's own strings where it has them: a record unit's record ids and page paths, a
    hub unit's groups' first pages (an earlier build's units: where they are the same). Read
    as they were kept, a build that takes the units held a copy of each (~60 MB at 310,000
    records, at its preparation's peak) where a build that makes them holds the
    catalogue's."""
    entries, groups = catalog.entries, catalog.groups

    def shared(item: Any) -> Any:
        if not (isinstance(item, tuple) and len(item) == 6):
            return item  # (the lines key kept before the units)
        name, kind, members, key, paths, digests = item
        if kind == UnitKind.RECORDS.value and isinstance(entries, EntryTable):
            members, paths = entries.own(members, paths)
            return name, kind, members, key, paths, digests
        elif kind == UnitKind.HUB.value and isinstance(members, tuple):
            firsts = {}
            for member in members:
                group_kind, _, group_key = str(member).partition(":")
                group = groups.get(GroupKind(group_kind), {}).get(group_key) if (
                    group_kind in _GROUP_KINDS) else None
                if group is not None:
                    firsts[group.path] = group.path
            return (name, kind, members, key,
                    tuple(firsts.get(path, path) for path in paths), digests)
        return item
    return shared


_GROUP_KINDS = frozenset(kind.value for kind in GroupKind)


def data_units(files: PathKeys, global_key: str) -> list[Unit]:
    """The data units of ``files`` (made from every file, holding their path strings)."""
    return _data_units(files, global_key)


def from_history(unit: Unit) -> bool:
    """True for the units made from the site's history: the merge builds them (with the
    merging project's history), never a ``--shard`` slice, so slices need no history."""
    return unit.kind is UnitKind.CHANGES or unit.name.startswith(f"{PAST}-")


def _data_units(files: PathKeys, global_key: str, prefix: str = "data") -> list[Unit]:
    count = unit_count(len(files), DATA_UNIT_FILES)
    # Each unit's files by their number in ``files``: no pair nor hex key made for each.
    members: list[list[int]] = [[] for _ in range(count)]
    paths = files.paths
    for number, path in enumerate(paths):
        members[bucket(path, count)].append(number)
    units = []
    for number, chosen in enumerate(members):
        if chosen:
            made = PathKeysBuilder()
            for at in sorted(chosen, key=paths.__getitem__):
                made.add(paths[at], files.digest(at))
            keys = made.keys()
            units.append(Unit(f"{prefix}-{number:04d}", UnitKind.DATA, keys.paths,
                              _unit_key(global_key, keys), keys))
    return units


def _hub_units(catalog: Catalog, global_key: str, known: _Known | None) -> list[Unit]:
    groups = [g for kind in GroupKind for g in catalog.groups[kind].values()]
    count = units_for(sum(paging.page_count(len(g.entries)) for g in groups))
    members: list[list[Group]] = [[] for _ in range(count)]
    for group in groups:
        members[bucket(group_id(group), count)].append(group)
    units = []
    for number, chosen in enumerate(members):
        if chosen:
            keys = PathKeys.of(key for g in chosen for key in (
                (known.group_keys(g) if known else None) or _group_page_keys(g, known)))
            units.append(Unit(f"hub-{number:04d}", UnitKind.HUB,
                              tuple(group_id(g) for g in chosen), _unit_key(global_key, keys),
                              keys))
    return units


def _record_units(lights: Sequence[Light], catalog: Catalog, global_key: str,
                  known: _Known | None) -> list[Unit]:
    count = units_for(len(lights))
    # Each unit's members and page keys, in input order: not the light records themselves
    # (read one at a time, they are not all held). The ids and paths are the catalogue's
    # strings (a light copy's id is a new string each time it is read: 20 MB at 310,000).
    members: list[list[str]] = [[] for _ in range(count)]
    keys = [PathKeysBuilder() for _ in range(count)]
    for light in lights:
        entry = catalog.entries[light.record.id]
        number = bucket(entry.record_id, count)
        members[number].append(entry.record_id)
        keys[number].add(entry.path, _record_page_key(light, entry, catalog, known))
    units = []
    for number, chosen in enumerate(members):
        if chosen:
            page_keys = keys[number].keys()
            units.append(Unit(f"rec-{number:04d}", UnitKind.RECORDS, tuple(chosen),
                              _unit_key(global_key, page_keys), page_keys))
    return units


def _record_page_key(light: Light, entry: Entry, catalog: Catalog,
                     known: _Known | None) -> bytes:
    """A record page's key: its key then when its inputs did not change."""
    if known is not None and entry.record_id not in known.dirty:
        kept = known.keys.get(entry.path)
        if kept is not None:
            return kept
    return digest(_record_input(light, catalog))


def _unit_key(global_key: str, page_keys: PathKeys) -> str:
    return _hash(global_key, *(f"{path}\0{key}" for path, key in page_keys))


def _group_page_keys(group: Group, known: _Known | None = None
                     ) -> Iterator[tuple[str, str | bytes]]:
    """Each listing page's path and the hash of what it shows: the group's label and size,
    its page number and count (the pager), its own rows and, on the first, its charts.
    Linear in the group's size. With ``known``, a page past the first whose inputs did not
    change keeps its key then (:meth:`_Known.page_keys`)."""
    count = paging.page_count(len(group.entries))
    head = _head(group)
    charts = str(group_charts(group))  # the first page's, from all the group's records
    kept = known.page_keys(group, head) if known is not None else None
    for number in range(1, count + 1):
        rows = paging.chunk(group.entries, number)
        key = kept(number, rows) if kept is not None and number > 1 else None
        yield paging.page_path(group.path, number), key or _hash(
            head, charts if number == 1 else "", str(number), str(count), _rows_input(rows))


def _head(group: Group) -> str:
    return group_head(group.kind, group.key, group.label, group.path, len(group.entries),
                      _repos(group))


def _repos(group: Group) -> int:
    return group.repo_count if group.kind is GroupKind.FAMILY else 0


def group_head(kind: GroupKind, key: str, label: str, path: str, size: int,
               repos: int) -> str:
    """What every page of a listing shows of its group (the page count follows from it):
    ``repos`` is how many repositories a family's records are raised in (0 for any other
    kind)."""
    return repr((kind.value, key, label, path, size, repos))


def _rows_input(rows: Iterable[Entry]) -> str:
    """What a listing page shows of its rows, as one string (joined, not a ``repr``: it runs
    for every record on every build), each row's summary by its hash (what its entry holds).
    Validated text holds no control character, so U+0000 and U+0001 separate fields and rows,
    U+0002 stands for a missing value."""
    parts: list[str] = []
    for e in rows:
        parts += (e.path, e.message, e.repo, _text(e.error_class), _text(e.file),
                  _text(e.line), _text(e.summary_key), "\1")
    return "\0".join(parts)


def _text(value: object) -> str:
    return "\2" if value is None else str(value)


def _record_input(light: Light, catalog: Catalog) -> str:
    """What a record page shows besides its own line: its path, its title (which depends on
    the other records' messages), its links' labels/targets, and what its related lists show
    of other records (so a change to one of those changes this page's hash too). One string,
    as :func:`related_input` (which ends it; U+0003 separates it from the rest)."""
    record = light.record
    entry = catalog.entries[record.id]
    parts = [light.line_hash, entry.path, _text(entry.title)]
    for group in record_groups(record, catalog):
        parts += (group.label, group.path)
    parts += ("\3", related_input(record, catalog))
    return "\0".join(parts)


def related_input(record: Record, catalog: Catalog) -> str:
    """Everything a record page's related lists show (see partials/related.md.j2), as one
    string: joining is several times cheaper than a repr of tuples, and this runs for every
    record on every build. Validated text holds no control character, so U+0000 and U+0001
    separate fields and lists unambiguously (U+0002 stands for a missing file)."""
    lists = catalog.related(record)
    family = catalog.family_of(record)
    parts = [str(lists.family_size), str(lists.family_repos), family.path if family else "\2"]
    for ids in (lists.same_message, lists.same_file, lists.same_category):
        parts.append("\1")
        for e in map(catalog.entries.__getitem__, ids):
            parts += (e.path, e.message, e.repo, "\2" if e.file is None else e.file, str(e.line))
    return "\0".join(parts)


def related_targets(record: Record, catalog: Catalog) -> Iterator[str]:
    """The pages a record page's related lists link to: records and its family's page."""
    lists = catalog.related(record)
    for record_id in (*lists.same_message, *lists.same_file, *lists.same_category):
        yield catalog.entries[record_id].path
    family = catalog.family_of(record)
    if family is not None:
        yield family.path


def record_groups(record: Record, catalog: Catalog) -> Iterator[Group]:
    """The groups a record page links to: repository, category, the tags it shows."""
    yield catalog.group_of(GroupKind.REPO, record.repo)
    category = record.background_tag
    if category and category.strip():
        yield catalog.group_of(GroupKind.CATEGORY, category)
    for tag in shown_tags(record):
        yield catalog.group_of(GroupKind.TAG, tag)


def global_key(config_file: Path, extra: Iterable[bytes] = ()) -> str:
    """Hash of what every page depends on: code, templates, config, overrides, tool versions."""
    parts: list[bytes] = [config_file.read_bytes(), code_digest().encode()]
    parts.append(f"engine={engine.label()}".encode())  # MkDocs or ProperDocs built it
    parts += list(extra)
    return _hash(*parts)


def render_key(addresses: object) -> str:
    """Hash of what errdocs' rendering of a page's Markdown (and a record's ``/id/`` page and
    JSON) depends on besides the page's own inputs (its key): errdocs' code and templates, the
    tool versions and how pages are addressed. Not the MkDocs config or theme: a ``mkdocs.yml``
    edit builds every page again with MkDocs, from the Markdown already written."""
    return _hash(code_digest(), repr(addresses))


def files_key(directory: Path) -> Iterator[bytes]:
    """Names and contents of every file below ``directory`` (a theme override folder)."""
    if directory.is_dir():
        for path in sorted(directory.rglob("*")):
            if path.is_file():
                yield str(path.relative_to(directory)).encode()
                yield path.read_bytes()


def stable_hash(*parts: str | bytes) -> str:
    """A 128-bit BLAKE2b of the parts, each length-prefixed (so parts never run together),
    as 32 hex digits."""
    return _hash(*parts)


def _hash(*parts: str | bytes) -> str:
    return digest(*parts).hex()
