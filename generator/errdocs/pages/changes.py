"""The history as the site shows it: a "what changed" page per dataset version, the Atom feed
of added and changed records, the pages left at addresses records left (a redirect, or a
"removed" page), and the data the 404 page resolves addresses with.

Everything is made from the history's :class:`~errdocs.catalog.history.Snapshot` and this build's
catalogue, and is bounded: lists of :data:`~errdocs.catalog.history.LIST_LIMIT` a version, versions
and removed records for ``keep`` versions, :data:`FEED_ENTRIES` feed entries, 404 data in
shards of ~:data:`RESOLVE_ENTRIES`.
"""

from __future__ import annotations

import html
import json
import re
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from markupsafe import Markup

from errdocs.catalog.family import message_key
from errdocs.catalog.history import Gone, Listed, Seen, Snapshot, Version
from errdocs.catalog.lights import Light
from errdocs.catalog.model import Catalog, GroupKind, group_key, relative_link
from errdocs.catalog.paths import exact_segment
from errdocs.pages import escape
from errdocs.pages.meta import iso_timestamp
from errdocs.pages.permalinks import (
    Addresses,
    Removed,
    fnv1a_utf16,
    id_file,
    id_url,
    redirect_page,
    relative_url,
    removed_page,
)
from errdocs.pages.render import Page, environment
from errdocs.units.plan import unit_count

CHANGES = "changes"
"""The "what changed" pages' folder in the generated subtree."""
CHANGES_INDEX = f"{CHANGES}/index.md"
"""The list of the versions kept, which the catalogue's front page links to."""
FEED_FILE = "feed.xml"
FEED_ENTRIES = 100
EPOCH = "1970-01-01T00:00:00Z"
"""The time of a version that names none and whose records name none."""
LIST_CHARS = 200
"""A message is cut to this in a list."""
RESOLVE_FOLDER = "assets/resolve"
"""The 404 page's data, in the generated subtree."""
RESOLVE_ENTRIES = 256
"""Addresses a 404 data file aims at (the 404 page loads one per address it tries)."""
RESOLVE_VERSION = 1
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""Characters XML 1.0 cannot hold, even escaped: dropped from the feed."""


def version_time(name: str, analyzed: Iterable[str | None]) -> str:
    """When version ``name`` was made: its name when that is a time (the producer's versions
    are), else its latest record analysis, else :data:`EPOCH` (never the build's clock: the
    same input gives the same site)."""
    named = iso_timestamp(name)
    if named:
        return named
    times = [t for t in map(iso_timestamp, analyzed) if t]
    return max(times, default=EPOCH)


def seen(lights: Iterable[Light], catalog: Catalog) -> Iterator[Seen]:
    """This build's records as the history compares them."""
    for light in lights:
        record = light.record
        yield Seen(record.id, light.digest, catalog.entries[record.id].path,
                   record.error_message, record.repo)


def changes_path(name: str) -> str:
    """The "what changed" page of version ``name``, in the generated subtree."""
    return f"{CHANGES}/{exact_segment(name)}.md"


def changes_pages(snapshot: Snapshot, catalog: Catalog, addresses: Addresses,
                  keep: int) -> list[Page]:
    """One page per version kept, and the list of them (``changes/index.md``)."""
    gone = {g.id for g in snapshot.gone}

    def feed(page: str) -> Markup:
        """The feed's address from ``page`` (raw HTML: relative to the page's URL)."""
        return Markup(html.escape(addresses.absolute(FEED_FILE) or relative_url(
            addresses.page_file(page), FEED_FILE)))

    index = CHANGES_INDEX
    pages = [Page(index, environment().get_template("changes_index.md.j2").render(
        meta=_meta(_versions_description(len(snapshot.versions))),
        rows=[(v, relative_link(index, changes_path(v.name))) for v in snapshot.versions],
        keep=keep, feed=feed(index)))]
    for version in snapshot.versions:
        path = changes_path(version.name)
        lists = [(title, [_row(item, path, catalog, gone, addresses)
                          for item in version.lists[kind]],
                  count - len(version.lists[kind]))
                 for kind, title, count in (("added", "Added", version.added),
                                            ("changed", "Changed", version.changed),
                                            ("removed", "Removed", version.removed)) if count]
        pages.append(Page(path, environment().get_template("changes.md.j2").render(
            meta=_meta(_summary(version)), version=version, summary=_summary(version),
            lists=lists, feed=feed(path))))
    return pages


def _versions_description(count: int) -> str:
    kept = "the last version" if count == 1 else f"each of the last {count} versions"
    return f"What {kept} of the dataset added, changed and removed."


def _meta(description: str) -> dict[str, object]:
    return {"kind": "changes", "description": description}


def _summary(version: Version) -> str:
    def count(n: int, what: str) -> str:
        return f"{n} error{'s' if n != 1 else ''} {what}"

    return (f"{count(version.added, 'added')}, {count(version.changed, 'changed')}, "
            f"{count(version.removed, 'removed')}.")


def _row(item: Listed, page: str, catalog: Catalog, gone: set[str],
         addresses: Addresses) -> Markup:
    """A listed record: linked to its page while it lives, to its "removed" page while the
    site keeps that, else shown as text."""
    entry = catalog.entries.get(item.id)
    if entry is not None:
        return Markup(f"[{escape.text(_cut(entry.message))}]({relative_link(page, entry.path)})"
                      f" — {escape.text(entry.repo)}")
    label = escape.text(_cut(item.message))
    target = id_url(item.id, addresses)
    href = addresses.absolute(target)
    if href is None and addresses.directory_urls:
        # A folder link MkDocs leaves as it is (a file link would be "not found"): relative
        # to the page's URL, not to its Markdown file.
        href = relative_url(addresses.page_file(page), target)
    if item.id in gone and href is not None:
        # Made of safe segments and the checked site address; parentheses would end the link.
        return Markup(f"[{label}]({href.replace('(', '%28').replace(')', '%29')}) — removed")
    return Markup(f"{label} ({escape.code_span(item.id)})")


@dataclass(frozen=True)
class FeedEntry:
    """One entry of the feed: a record a version added or changed."""

    version: Version
    """The version."""
    kind: str
    """``added`` or ``changed``."""
    item: Listed
    """The record as the version listed it."""


def feed_entries(snapshot: Snapshot) -> list[FeedEntry]:
    """The latest :data:`FEED_ENTRIES` records added or changed, newest version first."""
    found: list[FeedEntry] = []
    for version in snapshot.versions:
        for kind in ("changed", "added"):
            for item in version.lists[kind]:
                if len(found) == FEED_ENTRIES:
                    return found
                found.append(FeedEntry(version, kind, item))
    return found


def feed(snapshot: Snapshot, catalog: Catalog, addresses: Addresses, title: str) -> str:
    """``/feed.xml``: an Atom feed of :func:`feed_entries`, each linking its record's page
    (its "removed" page when it left since). Links are absolute when the site's address is
    known, else relative to the feed (at the site's root)."""
    entries = feed_entries(snapshot)
    updated = max((e.version.time for e in entries), default=snapshot.current.time)
    site = addresses.site_url or "errdocs:"
    parts = ['<?xml version="1.0" encoding="utf-8"?>\n',
             '<feed xmlns="http://www.w3.org/2005/Atom">\n',
             f"<id>{_urn(site, 'feed')}</id>\n",
             f"<title>{_xml(title)}: errors added and changed</title>\n",
             f"<updated>{updated}</updated>\n",
             f"<author><name>{_xml(title)}</name></author>\n",
             f'<link rel="alternate" type="text/html" href="'
             f'{_xml(_url(addresses.page_url(CHANGES_INDEX), addresses))}"/>\n']
    if addresses.site_url:
        parts.append(f'<link rel="self" href="{_xml(addresses.site_url + FEED_FILE)}"/>\n')
    for entry in entries:
        parts.append(_feed_entry(entry, catalog, addresses, site))
    parts.append("</feed>\n")
    return "".join(parts)


def _feed_entry(entry: FeedEntry, catalog: Catalog, addresses: Addresses, site: str) -> str:
    item, version = entry.item, entry.version
    live = catalog.entries.get(item.id)
    message = live.message if live else item.message
    target = addresses.page_url(live.path) if live else id_url(item.id, addresses)
    summary = f"{entry.kind.capitalize()} in version {version.name}"
    if live:
        summary += f", raised in {live.repo}"
    return (f"<entry>\n<id>{_urn(site, entry.kind, version.name, item.id)}</id>\n"
            f"<title>{_xml(_cut(message))}</title>\n"
            f'<link rel="alternate" type="text/html" href="{_xml(_url(target, addresses))}"/>\n'
            f"<updated>{version.time}</updated>\n"
            f'<category term="{entry.kind}"/>\n'
            f"<summary>{_xml(summary)}</summary>\n</entry>\n")


def _urn(*parts: str) -> str:
    """A stable IRI made from untrusted parts (Atom ids must be IRIs)."""
    return uuid.uuid5(uuid.NAMESPACE_URL, json.dumps(parts)).urn


def _url(url: str, addresses: Addresses) -> str:
    return addresses.absolute(url) or url


def _xml(text: str) -> str:
    """Text for XML: characters XML cannot hold dropped, the rest escaped."""
    return html.escape(_NOT_XML.sub("", text), quote=True)


def _cut(message: str) -> str:
    flat = " ".join(message.split())
    return flat if len(flat) <= LIST_CHARS else flat[:LIST_CHARS] + "…"


def left_pages(snapshot: Snapshot, catalog: Catalog, addresses: Addresses,
               site_name: str) -> list[Page]:
    """The files at addresses records left, paths relative to the site's root: ``/id/<id>/``
    of each removed record, and each address a record had (a redirect to its page, or its
    "removed" page). ``site_name`` names the site's search in "removed" pages."""
    gone = {g.id: g for g in snapshot.gone}
    live_pages = {e.path for e in catalog.entries.values()}
    kept = {v.name for v in snapshot.versions}

    def removed(where: str, record: Gone) -> Page:
        return Page(where, removed_page(where, _removed(record, catalog, addresses, kept),
                                        addresses, site_name=site_name))

    pages = [removed(id_file(g.id), g) for g in snapshot.gone]
    for path, record_id in snapshot.old_paths:
        if path in live_pages:
            continue
        where = addresses.page_file(path)
        entry = catalog.entries.get(record_id)
        if entry is not None:
            pages.append(Page(where, redirect_page(where, addresses.page_url(entry.path),
                                                   entry.message, addresses)))
        elif record_id in gone:
            pages.append(removed(where, gone[record_id]))
    return pages


def _removed(gone: Gone, catalog: Catalog, addresses: Addresses, kept: set[str]) -> Removed:
    repo = catalog.groups[GroupKind.REPO].get(group_key(GroupKind.REPO, gone.repo))
    repo_url = addresses.page_url(repo.path if repo else "repos/index.md")
    changes = addresses.page_url(changes_path(gone.version)) if gone.version in kept else None
    return Removed(gone.id, gone.message, gone.repo, gone.version, repo_url, changes,
                   family_url(gone.message, catalog, addresses))


def family_url(message: str, catalog: Catalog, addresses: Addresses) -> str | None:
    """The page of the same error in other repositories (its family's, :mod:`.family`), when
    the catalogue has one for ``message`` (a family over two or more repositories)."""
    family = catalog.groups[GroupKind.FAMILY].get(message_key(message))
    return None if family is None else addresses.page_url(family.path)


def resolve_data(catalog: Catalog, snapshot: Snapshot | None,
                 addresses: Addresses) -> list[Page]:
    """What the 404 page resolves a missing address with, in the generated subtree: a
    manifest, and shards by a hash (:func:`~errdocs.pages.permalinks.fnv1a_utf16`) of each key:
    ``id:<id, lowercase>`` (an id whose ``/id/`` page does not spell it as it is: ``ABC``,
    ``a/b``; the page of an id spelt as it is, such as the producer's hex ids, is found by a
    rule, the id in lowercase, with no data) and ``page:<address, lowercase, no trailing
    slash>`` (an address a record left). A key maps to its candidates ``[url from the site's
    root, message]``. So the data grows with the odd ids and the addresses left, not with
    the records."""
    found: dict[str, list[list[str]]] = {}

    def add(key: str, url: str, message: str) -> None:
        candidates = found.setdefault(key, [])
        if len(candidates) < 10:
            candidates.append([url, _cut(message[:120])[:80]])

    for entry in catalog.entries.values():
        if exact_segment(entry.record_id) != entry.record_id:  # else the 404 page's rule
            add(f"id:{entry.record_id.lower()}", addresses.page_url(entry.path), entry.message)
    if snapshot is not None:
        gone = {g.id: g.message for g in snapshot.gone}
        for record_id, message in gone.items():
            add(f"id:{record_id.lower()}", id_url(record_id, addresses), message)
        for path, record_id in snapshot.old_paths:
            live = catalog.entries.get(record_id)
            target = addresses.page_url(live.path) if live else id_url(record_id, addresses)
            add(f"page:{addresses.page_url(path).rstrip('/').lower()}", target,
                live.message if live else gone.get(record_id, ""))
    shards = unit_count(len(found), RESOLVE_ENTRIES)
    contents: list[dict[str, list[list[str]]]] = [{} for _ in range(shards)]
    for key in sorted(found):
        contents[fnv1a_utf16(key) % shards][key] = found[key]
    manifest = {"version": RESOLVE_VERSION, "shards": shards}
    pages = [Page(f"{RESOLVE_FOLDER}/manifest.js", _script("resolve", manifest))]
    pages += [Page(f"{RESOLVE_FOLDER}/r{n:x}.js", _script(f"resolve-{n}", data))
              for n, data in enumerate(contents)]
    return pages


def _script(name: str, data: object) -> str:
    """A data script for ``loader.js`` (ASCII: no charset question however it is opened)."""
    body = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    return f"__errdocsLookup({json.dumps(name)},{body});\n"
