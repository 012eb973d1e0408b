"""The site's lookup data: the index split into small script files the paste box loads.

Each record is written into the shard of each of its keys (see :mod:`.index`); a shard is
chosen by a hash of the word, so the browser loads only the shards of the words of the pasted
message. Files are scripts that call ``__errdocsLookup(name, data)`` rather than JSON, because
``fetch`` does not work in a site opened from disk (``file://``) and a ``<script>`` does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ..render import Page
from .index import LookupIndex, Target
from .match import MAX_WORDS
from .tokens import fnv1a

FOLDER = "assets/lookup"
"""Where the data goes in the generated subtree (``assets`` is never a repository folder)."""
VERSION = 1
"""Format of the data; ``lookup.js`` refuses other versions."""
ENTRIES_PER_SHARD = 48
"""Average entries per shard (about 10 KB); the shard count is a power of two."""


@dataclass(frozen=True)
class SiteData:
    """The data files and what did not convert."""

    pages: list[Page]
    """The manifest and the shards, paths relative to the generated subtree."""
    unconverted: int
    """Records whose pattern has no JavaScript form; the browser matches their template."""


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
    contents: list[list[list[object]]] = [[] for _ in range(shards)]
    unconverted = 0
    for target in index.targets:
        entry, converted = _entry(target)
        unconverted += not converted
        for shard in sorted({shard_of(k, shards) for k in target.keys}):
            contents[shard].append(entry)
    manifest = {"version": VERSION, "shards": shards, "records": len(index.targets),
                "maxWords": MAX_WORDS}
    pages = [Page(f"{FOLDER}/manifest.js", _script("manifest", manifest))]
    pages += [Page(shard_path(n), _script(n, entries)) for n, entries in enumerate(contents)]
    return SiteData(pages, unconverted)


def _entry(target: Target) -> tuple[list[object], bool]:
    """``[page, repo, message, js pattern, js flags, pattern chars, keys]``; the pattern is
    ``null`` when the record has none usable in JavaScript."""
    js = target.javascript
    source, flags = (js.source, js.flags) if js is not None else (None, "")
    page = target.path.removesuffix(".md")
    return [page, target.repo, target.message, source, flags, target.pattern_chars,
            list(target.keys)], target.pattern is None or js is not None


def _script(name: str | int, data: dict[str, object] | list[list[object]]) -> str:
    """A script registering ``data``, one entry a line (readable diffs). ``ensure_ascii``
    keeps it plain ASCII, so no charset question arises however the file is opened."""
    if isinstance(data, dict):
        body = _json(data)
    else:
        body = "[" + ",".join("\n" + _json(entry) for entry in data) + "\n]"
    return f"__errdocsLookup({json.dumps(name)},{body});\n"


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"))
