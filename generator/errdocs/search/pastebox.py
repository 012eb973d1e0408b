"""The site's lookup data: the index split into small script files the paste box loads.

Each record is written into the shard of each of its keys (see :mod:`.index`); a shard is
chosen by a hash of the word, so the browser loads only the shards of the words of the pasted
message. Files are scripts that call ``__errdocsLookup(name, data)`` rather than JSON, because
``fetch`` does not work in a site opened from disk (``file://``) and a ``<script>`` does.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from errdocs.lookup.index import LookupIndex, Target
from errdocs.lookup.match import MAX_WORDS
from errdocs.lookup.tokens import fnv1a
from errdocs.pages.render import Page

FOLDER = "assets/lookup"
"""Where the data goes in the generated subtree (``assets`` is never a repository folder)."""
VERSION = 2
"""Format of the data; ``lookup.js`` refuses other versions."""
ENTRIES_PER_SHARD = 24
"""Average entries per shard (about 4 KB); the shard count is a power of two. A lookup loads
one shard per word of the message (see :data:`.match.MAX_WORDS`)."""


@dataclass(frozen=True)
class SiteData:
    """The data files and what did not convert."""

    pages: Iterator[Page]
    """The manifest and the shards, paths relative to the generated subtree, each made as it
    is taken (once)."""
    unconverted: int
    """Records whose pattern has no JavaScript form or is too slow there (see
    :mod:`.backtrack`); the browser matches their template."""


def shard_count(entries: int) -> int:
    """The smallest power of two giving at most :data:`ENTRIES_PER_SHARD` entries a shard."""
    count = 1
    while count * ENTRIES_PER_SHARD < entries:
        count *= 2
    return count


def shard_of(word: str, shards: int) -> int:
    """The shard holding the records filed under ``word``."""
    return fnv1a(word) % shards


def shard_path(shard: int) -> str:
    """The shard's file, relative to the generated subtree."""
    return f"{FOLDER}/s{shard:x}.js"


def site_data(index: LookupIndex) -> SiteData:
    """Every data file of the paste box for ``index`` (built with ``javascript=True``)."""
    total = sum(len(t.keys) for t in index.targets)
    shards = shard_count(total)
    # Per shard, the places of its records in the index (C ints); a shard's entries are made
    # when its file is: made for every shard first, they were +7 MB traced at 20,000 records.
    members = [array("i") for _ in range(shards)]
    unconverted = 0
    for number, target in enumerate(index.targets):
        unconverted += target.unconverted
        for shard in sorted({shard_of(k, shards) for k in target.keys}):
            members[shard].append(number)
    manifest = {"version": VERSION, "shards": shards, "records": len(index.targets),
                "maxWords": MAX_WORDS}
    return SiteData(_site_files(manifest, index.targets, members), unconverted)


def _site_files(manifest: Mapping[str, object], targets: Sequence[Target],
                members: list[array[int]]) -> Iterator[Page]:
    yield Page(f"{FOLDER}/manifest.js", _script("manifest", manifest))
    for n, numbers in enumerate(members):
        # The matching data of an entry -> its pages. Records with the same message, pattern
        # and keys (a generic message raised in many repositories) share one entry.
        entries: dict[tuple[object, ...], list[tuple[object, int]]] = {}
        for number in numbers:
            target = targets[number]
            js = target.javascript
            matching = (target.message, js.source if js else None, js.flags if js else "",
                        target.pattern_chars, tuple(target.keys))
            entries.setdefault(matching, []).append((_page(target), number))
        members[n] = array("i")
        yield Page(shard_path(n), _script(n, [_entry(m, p) for m, p in entries.items()]))


def _page(target: Target) -> str | list[str]:
    """The page path without ``.md``, with the repository's name when the path does not show
    it as written (``Owner/Repo`` is in folder ``owner/repo``)."""
    page = target.path.removesuffix(".md")
    return page if page.startswith(target.repo + "/") else [page, target.repo]


def _entry(matching: tuple[object, ...], pages: list[tuple[object, int]]) -> list[object]:
    """``[pages, message, js pattern, js flags, pattern chars, keys, numbers]``; the pattern is
    ``null`` when the record has none usable in JavaScript (the browser matches its template);
    ``numbers`` are the pages' records' places in the index, which the site's search uses to
    find what to show of them (:mod:`.searchdata`)."""
    message, source, flags, chars, keys = matching
    return [[p for p, _ in pages], message, source, flags, chars,
            list(keys), [n for _, n in pages]]  # type: ignore[call-overload]


def _script(name: str | int, data: Mapping[str, object] | Sequence[list[object]]) -> str:
    """A script registering ``data``, one entry a line (readable diffs). ``ensure_ascii``
    keeps it plain ASCII, so no charset question arises however the file is opened."""
    if isinstance(data, Mapping):
        body = _json(data)
    else:
        body = "[" + ",".join("\n" + _json(entry) for entry in data) + "\n]"
    return f"__errdocsLookup({json.dumps(name)},{body});\n"


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"))
