"""A Pagefind index of the record pages, made from the records' text, in bounded pieces.

Indexing the finished HTML costs Pagefind memory in proportion to the site (3.2 GB for 14,900
pages). Instead, each record is fed through Pagefind's Python API as a custom record holding
only what a reader searches for — the message, the class, the repository, the tags and the
prose — so the index is smaller and is built without parsing any HTML. Records are split into
``pieces`` indexes by the same stable hash as the build's units; each is built by its own
Pagefind process (memory bounded by one piece) into ``pagefind/`` (piece 0) and
``pagefind/more/N/``, and the site's search merges them in the browser with ``mergeIndex``.
"""

from __future__ import annotations

import base64
import json
import select
import shutil
import subprocess
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from errdocs.catalog.lights import Light
from errdocs.catalog.model import Catalog
from errdocs.catalog.scan import read_records
from errdocs.errors import BuildFailed
from errdocs.pages.meta import describe_record
from errdocs.records.record import Record
from errdocs.units.plan import bucket

LANGUAGE = "en"
MAX_CHARS = 4_000
"""Text indexed per record: enough for every field a reader would type, bounded."""


PIECES_JSON = "errdocs-pieces.json"
"""In piece 0's folder: the folders of the other pieces, which the site's search merges."""


class SearchIndexFailed(BuildFailed):
    """Pagefind is missing or failed; the previous site is kept."""


@dataclass(frozen=True)
class SearchRecord:
    """What Pagefind gets for one record page."""

    url: str
    """The page's URL, relative to the site root (``/errors/o/r/slug/``)."""
    meta: dict[str, str]
    """What a result shows: ``title`` (the message), ``repo``, ``description``."""
    content: str
    """The searchable text."""


def search_record(record: Record, catalog: Catalog, subtree: str = "errors") -> SearchRecord:
    """The searchable text of one record page (plain text: Pagefind escapes it).

    Not the message's pattern: its words are the message's, and a regular expression is no
    teaser for a result (Pagefind shows a result's best-matching stretch of this text).
    """
    path = catalog.entries[record.id].path.removesuffix(".md")
    fields = [record.error_message, record.error_class,
              record.error_code, record.repo, record.file_path, record.background_tag,
              " ".join(record.tags), record.documentation, record.trigger_scenarios,
              record.common_situations, *record.solutions[:10]]
    text = "\n".join(f for f in fields if f)
    meta = {"title": record.error_message, "repo": record.repo,
            "description": describe_record(record)}
    return SearchRecord(f"/{subtree}/{path}/", {k: v for k, v in meta.items() if v},
                        text[:MAX_CHARS])


def piece_count(record_units: int) -> int:
    """Indexes for ``record_units`` record units: one per 8 units (~4,000 records), so a
    changed record re-indexes one piece, and a query merges few indexes."""
    return max(1, record_units // 8)


def write_piece(records: Iterable[SearchRecord], folder: Path, pieces: int,
                html: Iterable[tuple[str, str]] = ()) -> int:
    """Index ``records`` (and the ``(url, html)`` pages) into ``folder``; the page count.

    Piece 0 also lists the other pieces' folders (``more/1/`` ...) in :data:`PIECES_JSON`.
    """
    try:
        count = _write(records, folder, html)
    except (OSError, PagefindError) as exc:
        raise SearchIndexFailed(f"Pagefind failed to index the records: {exc}") from exc
    except ImportError as exc:
        raise SearchIndexFailed("Pagefind is not installed; reinstall errdocs (it depends on "
                                "'pagefind[extended]')") from exc
    if folder.name == "pagefind":
        extra = [f"more/{n}/" for n in range(1, pieces)]
        (folder / PIECES_JSON).write_text(json.dumps(extra), "utf-8")
    return count


def piece_of(record_id: str, pieces: int) -> int:
    """Which index a record goes to (stable, like the build's units)."""
    return bucket(record_id, pieces)


def piece_dir(out: Path, piece: int) -> Path:
    """``pagefind/`` for piece 0 (what the UI loads), ``pagefind/more/N/`` for the others."""
    return out if piece == 0 else out / "more" / str(piece)


def build_index(sources: list[str], lights: Sequence[Light], catalog: Catalog, out: Path,
                pieces: int = 1) -> list[Path]:
    """Write ``pieces`` Pagefind indexes of the records into ``out``; returns their folders."""
    shutil.rmtree(out, ignore_errors=True)
    folders = []
    for piece in range(pieces):
        chosen = [x for x in lights if piece_of(x.record.id, pieces) == piece]
        folder = piece_dir(out, piece)
        records = (search_record(r, catalog) for r in read_records(sources, chosen))
        write_piece(records, folder, pieces)
        folders.append(folder)
    return folders


def _write(records: Iterable[SearchRecord], folder: Path,
           html: Iterable[tuple[str, str]]) -> int:
    """Feed one Pagefind service process, then write its index to ``folder``."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    count = 0

    def requests(index_id: int) -> Iterator[dict[str, Any]]:
        nonlocal count
        for url, text in html:
            count += 1
            yield {"type": "AddFile", "index_id": index_id, "file_path": None, "url": url,
                   "file_contents": text}
        for r in records:
            count += 1
            yield {"type": "AddRecord", "index_id": index_id, "url": r.url, "content": r.content,
                   "language": LANGUAGE, "meta": r.meta}

    with PagefindService() as service:
        index_id = service.call({"type": "NewIndex", "config": {
            "force_language": LANGUAGE, "output_path": str(folder)}})["index_id"]
        service.pipeline(requests(index_id))
        # GetFiles, not WriteFiles: the service answers WriteFiles before its last files are
        # on disk, and exits at once when its input closes, leaving some of them empty.
        files = service.call({"type": "GetFiles", "index_id": index_id})["files"]
    for file in files:
        relative = PurePosixPath(file["path"])
        if relative.is_absolute() or ".." in relative.parts:
            raise PagefindError(f"unexpected file name from Pagefind: {file['path']!r}")
        target = folder.joinpath(*relative.parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(base64.b64decode(file["content"]))
    return count


class PagefindError(Exception):
    """The Pagefind service reported an error."""


ANSWER_TIMEOUT = 300
"""Seconds to wait for one answer of the Pagefind service before giving up."""


def _write_all(stream: Any, data: bytes) -> None:
    """An unbuffered pipe may take part of a write; give it the rest."""
    view = memoryview(data)
    while view:
        view = view[stream.write(view):]


class PagefindService:
    """The ``pagefind --service`` process, spoken to directly.

    The protocol is base64-encoded JSON messages, each followed by a comma, answered the same
    way. The ``pagefind`` Python package speaks it too, but waits 0.1 s before reading each
    answer (10 records a second: 9 hours for 310,000), so requests are pipelined here: a thread
    writes while the caller reads the answers.
    """

    def __init__(self) -> None:
        from pagefind.service import _must_get_executable  # the optional "search" extra

        # Unbuffered, so select() on stdout sees exactly what has not been read yet.
        self._process = subprocess.Popen([str(_must_get_executable()), "--service"], bufsize=0,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self._next_id = 0
        self._buffer = bytearray()

    def __enter__(self) -> PagefindService:
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._process.stdin is not None
        self._process.stdin.close()
        self._process.wait(timeout=60)

    def call(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Send one request and wait for its answer."""
        return self.pipeline([payload])[-1]

    def pipeline(self, payloads: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        """Send every request (from a thread) while reading the answers; the last answer."""
        stdin = self._process.stdin
        assert stdin is not None
        sent: list[int] = []
        done = threading.Event()
        failure: list[BaseException] = []

        def write() -> None:
            try:
                for payload in payloads:
                    self._next_id += 1
                    sent.append(self._next_id)
                    message = {"message_id": self._next_id, "payload": payload}
                    _write_all(stdin, base64.b64encode(json.dumps(message).encode()) + b",")
                stdin.flush()
            except BaseException as exc:  # reported by the reader below
                failure.append(exc)
            finally:
                done.set()

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        answered, last = 0, {}
        while not done.is_set() or answered < len(sent):
            if answered < len(sent):
                last = self._read()
                answered += 1
            else:
                # Every request sent so far is answered: wait for the writer to send another or
                # finish. Reading here instead waited forever for an answer to nothing when the
                # writer had sent its last request but not yet said so (seen as a 300 s stall).
                done.wait(0.01)
        writer.join()
        if failure:
            raise failure[0]
        return [last]

    def _read(self) -> dict[str, Any]:
        """The next answer (answers are separated by commas; base64 has none)."""
        stdout = self._process.stdout
        assert stdout is not None
        while b"," not in self._buffer:
            # The service has been seen to stall without a word: never wait on it forever.
            if not select.select([stdout], [], [], ANSWER_TIMEOUT)[0]:
                self._process.kill()
                raise PagefindError(f"the Pagefind service gave no answer in {ANSWER_TIMEOUT} s")
            chunk = stdout.read(1 << 16)
            if not chunk:
                raise PagefindError("the Pagefind service stopped")
            self._buffer += chunk
        message, _, rest = bytes(self._buffer).partition(b",")
        self._buffer = bytearray(rest)
        payload = json.loads(base64.b64decode(message)).get("payload", {})
        if payload.get("type") == "Error":
            raise PagefindError(payload.get("message", "unknown error"))
        return payload
