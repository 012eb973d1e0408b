"""The header search box's data: every record's words, in small files a query loads a few of.

The paste box's data (:mod:`.sitedata`) files each record under one or two rare words of its
message: enough to find it from a message, not from a tag, a class, a repository or a couple of
typed words. The search box loads that data *and* this:

- word shards (``assets/search/w<hex>.js``): for each word of a record's message template,
  class, tags, category and repository, the records holding it, as their places in the lookup
  index (:attr:`.index.LookupIndex.targets`, the order :mod:`.sitedata` numbers them in),
  written as gaps from the previous place. A word held by more than :data:`MAX_POSTINGS`
  records keeps only the first ones and its count: such a word alone does not tell records
  apart, and a full list of it would make one query download megabytes. A word's shard is
  chosen by the hash the lookup data uses, so a query loads one shard a word.
- record chunks (``assets/search/r<hex>.js``): what a result shows of :data:`CHUNK` records in
  a row (page, repository, message, class, what the error means), loaded for the results only.
- the manifest (``assets/search/manifest.js``): the counts, the words too common to look up,
  whether the site has a full-text index, and the hand-written pages (a short list, searched
  whole).

Files call ``__errdocsLookup(name, data)`` like the lookup data (see :mod:`.sitedata`).
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice

from errdocs.catalog.model import shown_tags
from errdocs.lookup.index import LookupIndex, Target
from errdocs.lookup.tokens import fnv1a, tokens
from errdocs.pages.meta import describe_record
from errdocs.pages.render import Page
from errdocs.records.record import Record

FOLDER = "assets/search"
"""Where the data goes in the generated subtree, next to the lookup data."""
VERSION = 1
"""Format of the data; ``errdocs-search.js`` refuses other versions."""
MAX_POSTINGS = 400
"""Records listed for one word (about 2 KB); more are only counted."""
CHUNK = 16
"""Records per record chunk (about 5 KB): a page of ten results loads at most ten chunks."""
SHARD_BYTES = 6_000
"""Average size of a word shard; the shard count is the smallest power of two giving it."""
MAX_WORDS = 10
"""Words of a query looked up (the browser stops there)."""
LOOKUP_WORDS = 4
"""The search box loads the lookup shards of at most this many of a query's words: the rarest
of those whose word list is complete. A lookup shard holds every record filed under a word,
so the shard of a word held by more than :data:`MAX_POSTINGS` records may be big (the paste
box loads it all the same); a record is filed under its rarest words, so its rarest are
enough."""
STOP_WORDS = ("a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "is", "it",
              "of", "on", "or", "the", "this", "to", "was", "with")
"""Words neither indexed nor looked up: in nearly every message, they find nothing."""
PAGE_WORDS = 400
"""Distinct words kept of a hand-written page."""


@dataclass(frozen=True)
class HandPage:
    """A hand-written page the search finds by its words (home, about)."""

    url: str
    """Its URL relative to the site root (``""``, ``about/``)."""
    title: str
    """Its heading."""
    text: str
    """Its text (Markdown is fine: only its words are kept)."""


def record_words(target: Target, record: Record) -> set[str]:
    """The words a record is found by: its message template's and pattern's (so each of its
    lookup keys is counted here), its class's, shown tags', category's and repository's, without
    :data:`STOP_WORDS`."""
    found = set(target.words) | set(target.pattern_words) | set(tokens(record.repo))
    for text in (record.error_class, record.background_tag, *shown_tags(record)):
        if text:
            found.update(tokens(text))
    return found - set(STOP_WORDS)


RecordsById = Callable[[Sequence[str]], Iterable[Record]]
"""The records of some ids, in that order (a build reads them from their light copies, a
batch at a time: :meth:`errdocs.catalog.lights.Lights.many`)."""


def records_by_id(records: Iterable[Record]) -> RecordsById:
    """``records``, held in memory, as :data:`RecordsById`."""
    by_id = {r.id: r for r in records}
    return lambda ids: [by_id[i] for i in ids]


def search_data(index: LookupIndex, records: RecordsById, pages: Sequence[HandPage] = (),
                *, full_text: bool = False) -> Iterator[Page]:
    """The manifest, the word shards and the record chunks for ``index`` and its ``records``
    (full or light records: the class, tags, category and what the error means are read),
    made one at a time as they are taken (a build writes each as it comes). The records are
    read twice, in the index's order, a block at a time: never all held."""
    # Places as arrays of C ints (4 bytes each), not lists of int objects (~36 with the list's
    # slot): the box data step's peak at 310,000 records 851 -> 839 MB (sampled). The posting
    # a file shows is made when the file is (:func:`_word_shards`), not held for every word.
    postings: dict[str, array[int]] = {}
    for number, (target, record) in enumerate(_in_order(index.targets, records)):
        for word in record_words(target, record):
            places = postings.get(word)
            if places is None:
                places = postings[word] = array("i")
            places.append(number)
    shards = _shard_count(sum(len(w) + len(_json(_posting(p))) + 4 for w, p in postings.items()))
    manifest = {"version": VERSION, "records": len(index.targets), "shards": shards,
                "chunk": CHUNK, "maxPostings": MAX_POSTINGS, "maxWords": MAX_WORDS,
                "lookupWords": LOOKUP_WORDS, "stop": list(STOP_WORDS),
                "fullText": full_text, "pages": [_hand(p) for p in pages]}
    yield Page(f"{FOLDER}/manifest.js", _script("search", _json(manifest)))
    yield from _word_shards(postings, shards)
    del postings
    yield from _chunks(index.targets, records)


_BLOCK = 32 * CHUNK
"""Records read at a time (:func:`_in_order`): whole chunks."""


def _in_order(targets: Sequence[Target], records: RecordsById
              ) -> Iterator[tuple[Target, Record]]:
    """Each target with its record, read :data:`_BLOCK` at a time."""
    for start in range(0, len(targets), _BLOCK):
        block = targets[start:start + _BLOCK]
        yield from zip(block, records([t.record_id for t in block]), strict=True)


def _posting(numbers: Sequence[int]) -> list[int]:
    """``[count, gap, gap, ...]``: the first :data:`MAX_POSTINGS` places, as gaps."""
    kept = numbers[:MAX_POSTINGS]
    return [len(numbers), *(b - a for a, b in zip([0, *kept], kept, strict=False))]


def _shard_count(total_bytes: int) -> int:
    count = 1
    while count * SHARD_BYTES < total_bytes:
        count *= 2
    return count


def _word_shards(postings: dict[str, array[int]], shards: int) -> Iterator[Page]:
    contents: list[dict[str, array[int]]] = [{} for _ in range(shards)]
    for word in sorted(postings):
        contents[fnv1a(word) % shards][word] = postings[word]
    return (Page(f"{FOLDER}/w{n:x}.js", _script(f"w{n}", "{" + ",".join(
                f"\n{_json(word)}:{_json(_posting(places))}" for word, places in words.items())
                + "\n}")) for n, words in enumerate(contents))


def _chunks(targets: Sequence[Target], records: RecordsById) -> Iterator[Page]:
    """``[page, repository, message, class, what it means]`` per record, :data:`CHUNK` a file."""
    pairs = _in_order(targets, records)
    for number in range((len(targets) + CHUNK - 1) // CHUNK):
        yield chunk_file(number, [(t.path, r) for t, r in islice(pairs, CHUNK)])


def chunk_file(number: int, records: Sequence[tuple[str, Record]]) -> Page:
    """Record chunk ``number``: what a result shows of ``records`` (each with its page's path,
    in lookup index order). It reads nothing else, so it can be made alone
    (:mod:`.boxdata`)."""
    rows = [[path.removesuffix(".md"), r.repo, r.error_message, r.error_class or "",
             describe_record(r)] for path, r in records]
    return Page(chunk_path(number), _script(f"r{number}", "[" + ",".join(
        f"\n{_json(row)}" for row in rows) + "\n]"))


def chunk_path(number: int) -> str:
    """Record chunk ``number``'s file, relative to the generated subtree."""
    return f"{FOLDER}/r{number:x}.js"


def _hand(page: HandPage) -> list[str]:
    words = dict.fromkeys(t for t in tokens(f"{page.title} {page.text}") if t not in STOP_WORDS)
    return [page.url, page.title, " ".join(list(words)[:PAGE_WORDS])]


def _script(name: str, body: str) -> str:
    """A script registering the JSON ``body`` (shards: one word or record a line, for
    readable diffs)."""
    return f"__errdocsLookup({json.dumps(name)},{body});\n"


def _json(value: object) -> str:
    """Compact JSON, ASCII only (see :func:`.sitedata._script`)."""
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"))

