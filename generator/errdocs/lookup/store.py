"""The lookup index on disk, so ``errdocs lookup`` reads and checks 310,000 records once, not
on every call.

The index of a set of input files is kept in ``.errdocs/lookup/<name>.json.gz``, ``<name>``
derived from their paths; it holds a stamp (errdocs version, format, and each file's path, size
and modification time) and is rebuilt when the stamp differs. It is plain JSON: loading it runs
no code, whatever the file holds.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, overload

from errdocs import __version__
from errdocs.errors import ErrdocsError
from errdocs.lookup.index import LookupIndex, Target
from errdocs.lookup.patterns import Words, words_of
from errdocs.records.read import iter_files
from errdocs.records.record import Origin

FORMAT = 1
"""Version of the file layout; a file of another version is rebuilt."""
CACHE_DIR = Path(".errdocs") / "lookup"
"""Where indexes are kept, relative to the current folder (git-ignored)."""


def cache_file(paths: Iterable[Path], cache_dir: Path = CACHE_DIR) -> Path:
    """The file holding the index of ``paths`` (one file per set of inputs)."""
    names = sorted(str(p.resolve()) for p in paths)
    digest = hashlib.sha256("\n".join(names).encode("utf-8", "surrogateescape")).hexdigest()
    return cache_dir / f"{digest[:20]}.json.gz"


def stamp(paths: Iterable[Path]) -> list[object]:
    """What the index depends on: errdocs' version and every input file's size and mtime."""
    files = sorted(iter_files(paths))
    state = [[str(f.resolve()), f.stat().st_size, f.stat().st_mtime_ns] for f in files]
    return [__version__, FORMAT, state]


def load(file: Path, expected_stamp: list[object]) -> LookupIndex | None:
    """The index in ``file`` if it exists, is readable and has ``expected_stamp``."""
    try:
        with gzip.open(file, "rt", encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError, EOFError):
        return None
    if not isinstance(data, dict) or data.get("stamp") != expected_stamp:
        return None
    rows, postings = data.get("targets"), data.get("postings")
    if not isinstance(rows, list) or not isinstance(postings, dict):
        return None
    return LookupIndex(_Rows(rows), postings, [])


def save(index: LookupIndex, file: Path, file_stamp: list[object]) -> None:
    """Write ``index`` to ``file`` atomically (a reader never sees half a file)."""
    file.parent.mkdir(parents=True, exist_ok=True)
    data = {"stamp": file_stamp, "targets": [_row(t) for t in index.targets],
            "postings": index.postings}
    fd, tmp = tempfile.mkstemp(dir=file.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as raw, gzip.open(raw, "wt", encoding="utf-8",
                                                   compresslevel=1) as handle:
            json.dump(data, handle, separators=(",", ":"))
        os.replace(tmp, file)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class DamagedCache(ErrdocsError, ValueError):
    """A cached index whose content is not what errdocs wrote."""


class _Rows(Sequence[Target]):
    """The targets of a loaded index, each made from its row when a lookup needs it: a lookup
    looks at a few hundred of 310,000. They are not kept: a store of made targets would grow
    with every lookup and give the garbage collector ever more to scan."""

    def __init__(self, rows: list[list[Any]]) -> None:
        self._rows = rows

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, position: int) -> Target: ...
    @overload
    def __getitem__(self, position: slice) -> Sequence[Target]: ...

    def __getitem__(self, position: int | slice) -> Target | Sequence[Target]:
        if isinstance(position, slice):
            return [self[i] for i in range(*position.indices(len(self)))]
        try:
            return _target(self._rows[position])
        except (IndexError, TypeError, ValueError) as exc:
            raise DamagedCache(f"record {position} of the cached index: {exc}") from exc


def _row(t: Target) -> list[object]:
    same = t.pattern_words is t.words
    return [t.record_id, t.path, t.repo, t.message, t.pattern, t.pattern_chars,
            t.template_chars, sorted(t.words), None if same else sorted(t.pattern_words),
            list(t.keys), *((t.origin.path, t.origin.line) if t.origin else (None, None))]


def _target(row: list[Any]) -> Target:
    (record_id, path, repo, message, pattern, pattern_chars, template_chars, words,
     pattern_words, keys, origin_path, origin_line) = row
    word_set = _words(words)
    return Target(
        record_id=str(record_id), path=str(path), repo=str(repo), message=str(message),
        pattern=None if pattern is None else str(pattern), pattern_chars=int(pattern_chars),
        template_chars=int(template_chars), words=word_set,
        pattern_words=word_set if pattern_words is None else _words(pattern_words),
        keys=tuple(str(k) for k in keys),
        origin=None if origin_path is None else Origin(str(origin_path), int(origin_line)),
    )


def _words(values: list[Any]) -> Words:
    return words_of(str(v) for v in values)
