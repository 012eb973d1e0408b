"""A build with nothing to do, known before any record is read (issue 17: a no-op's cost).

A build that found nothing changed still read every record back from the catalogue, decoded
the catalogue model, walked the generated tree and remade the plan: ~10 s at 100,000 records,
growing with N. Instead, a complete build ends by writing one *settled* row to the catalogue
(``.errdocs/catalog.sqlite``, table ``settled``):

- ``sources``: a hash of everything the site was made from that errdocs did not write: each
  input's stat, each hand-written file's and folder's stat under ``docs_dir``, the global key
  (errdocs' code, ``mkdocs.yml``, the theme overrides, the tool versions, the nav titles) and
  the build's options;
- ``outputs``: the stat of what the build left in the generated subtree that a hand edit could
  change (its folders, whose times change when a file in them is added, removed or replaced,
  and the root pages, which a build rewrites when they differ);
- the units the site was merged from, and what the build reported.

The next build whose sources hash the same and whose outputs are as they were takes the units
from the row and only merges them (the merge puts back a site edited by hand); it reads no
record. What it gives is what the build that wrote the row gave, which is what a cold build
gives.

Stats are trusted as the scan trusts an input's (:class:`~errdocs.catalog.store.Look`, git's
rule for its index): a file or folder changed within :data:`~errdocs.catalog.store.RACY_NS`
before it was looked at could change again without its stat changing. Each is then told by
what it holds, as git tells a racily clean entry:

- an output (the build has just written it): the row also keeps its *fingerprint*, a folder's
  entries (names and inodes: one added, removed or replaced changes it) or a file's bytes,
  looked at again by the next build;
- an input (written just before the build started, as a fetch-then-build job does): the row
  is written only if, once its stat can be trusted, its bytes are still those the scan read
  (the catalogue's hash of them, :func:`~errdocs.catalog.store.still_as_read`);
- a hand-written file: no row.

A build whose sources changed while it ran writes no row. Any build that does not take the
row removes it first, committed before it writes anything, and only a build that completed
writes one: a row always names a complete site.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import stat as stats
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import closing
from dataclasses import asdict, dataclass
from pathlib import Path

from errdocs.catalog.store import FILE, RACY_NS, blocks_of, still_as_read
from errdocs.errors import sqlite_failure
from errdocs.records.problems import Problem, Severity
from errdocs.records.read import iter_files

TABLE = "CREATE TABLE IF NOT EXISTS settled (id INTEGER PRIMARY KEY, data TEXT NOT NULL)"
ROW = 1
"""The one row."""


class Racy(Exception):
    """A stat that cannot be trusted: changed too close to the look, or unreadable."""


@dataclass(frozen=True)
class Outcome:
    """What a complete build reported, said again by a build that takes its row."""

    records: int
    """Good records."""
    problems: list[Problem]
    """Errors and warnings in the input (said on every build)."""
    lookup_problems: list[Problem]
    """Patterns the paste box's lookup could not use."""
    unconverted: int
    """Patterns with no JavaScript form."""
    generated: int
    """Files of the generated tree."""
    searchable: int | None
    """Pages in the full-text index (``--full-text``), else None."""
    units: int
    """Units in the plan (the full-text index's pieces not counted)."""


@dataclass(frozen=True)
class Settled:
    """The settled row: a complete build's sources, outputs, units and outcome."""

    sources: str
    """Hash of what the site was made from that errdocs did not write (:func:`sources_key`)."""
    outputs: list[Output]
    """Paths under ``docs_dir`` errdocs wrote that a hand edit could change, with their stat
    when the build ended."""
    units: list[tuple[str, str]]
    """The units the site was merged from: name and key."""
    outcome: Outcome
    """What the build reported."""


Output = tuple[str, list[int], str]
"""A path errdocs wrote (relative to ``docs_dir``), its stat, and its fingerprint when the
stat could not be trusted (:func:`fingerprint`; else empty)."""


@dataclass(frozen=True)
class Sources:
    """What the site is made from that errdocs did not write, as one build looked at it."""

    key: str
    """Hash of the inputs' and hand-written files' stats and of the global key and options."""
    racy: tuple[Path, ...] = ()
    """Inputs whose stat could not be trusted yet (changed within ``RACY_NS``): a row is
    neither taken nor written on this key unless their bytes are found unchanged."""


def sources_key(docs_dir: Path, subtree: str, paths: Iterable[Path], extra: str) -> Sources:
    """Hash of the inputs' stats, of every hand-written file and folder's stat under
    ``docs_dir`` (all but the generated ``subtree``) and of ``extra`` (the global key and the
    options), with the inputs whose stat is racy. Raises :class:`Racy` when a hand-written
    file's stat cannot be trusted or a stat cannot be read."""
    at_ns = time.time_ns()
    digest = hashlib.sha256(f"{extra}\0{sys.version}\0".encode())
    racy: list[Path] = []
    for data in iter_files(paths):
        info = _stat(str(data))
        if _racy(info, at_ns):
            racy.append(data)
        digest.update(f"input\0{data}\0{_fields(info)}\0".encode())
    for path, stat in _hand_written(str(docs_dir), subtree, at_ns):
        digest.update(f"docs\0{path}\0{stat}\0".encode())
    return Sources(digest.hexdigest(), tuple(racy))


def bytes_as_read(work: Path, sources: Sources) -> Callable[[], bool]:
    """Whether the inputs whose stat was racy as the build started still hold the bytes the
    scan read (:func:`~errdocs.catalog.store.still_as_read`): hashed on a thread once their
    stat can be trusted (a write in its tick is over by then), while the units build
    (hashlib lets go of the interpreter lock: 1.35 GB took 5 s here). What waits for the
    answer; a write after the hash began changes the stat, which the caller looks at after."""
    if not sources.racy:
        return lambda: True
    outcome: list[bool] = []

    def compare() -> None:
        try:
            newest = max(max(info.st_mtime_ns, info.st_ctime_ns)
                         for info in map(os.stat, sources.racy))
        except OSError:
            outcome.append(False)
            return
        time.sleep(max(0, newest + RACY_NS - time.time_ns()) / 1e9)
        outcome.append(still_as_read(work, sources.racy))

    thread = threading.Thread(target=compare, name="errdocs-inputs", daemon=True)
    thread.start()

    def answer() -> bool:
        thread.join()
        return outcome == [True]

    return answer


def _stat(path: str) -> os.stat_result:
    try:
        return os.stat(path)
    except OSError as exc:
        raise Racy(path) from exc


def _racy(info: os.stat_result, at_ns: int) -> bool:
    """Changed so close to ``at_ns`` that a next write may leave the same stat."""
    return max(info.st_mtime_ns, info.st_ctime_ns) > at_ns - RACY_NS


def _fields(info: os.stat_result) -> list[int]:
    return [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev]


def _trusted(path: str, at_ns: int) -> list[int]:
    """Size, times, inode and device of ``path``, when they can be trusted."""
    info = _stat(path)
    if _racy(info, at_ns):
        raise Racy(path)
    return _fields(info)


def _hand_written(docs: str, subtree: str, at_ns: int) -> list[tuple[str, list[int]]]:
    """Every folder and file under ``docs`` but the generated subtree, with its stat."""
    found = [("", _trusted(docs, at_ns))]
    stack = [""]
    while stack:
        relative = stack.pop()
        with os.scandir(os.path.join(docs, relative)) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                path = f"{relative}/{entry.name}" if relative else entry.name
                if path == subtree:
                    continue
                found.append((path, _trusted(entry.path, at_ns)))
                if entry.is_dir(follow_symlinks=True):
                    stack.append(path)
    return found


def output_stats(docs_dir: Path, paths: Iterable[str]) -> list[Output]:
    """The stat of each of ``paths`` (relative to ``docs_dir``), as a build leaves them, with
    the fingerprint of those just written (their stat cannot tell the next write in their
    tick). Raises :class:`Racy` when one cannot be read."""
    at_ns = time.time_ns()
    outputs = []
    for path in sorted(paths):
        full = os.path.join(docs_dir, path)
        info = _stat(full)
        outputs.append((path, _fields(info), fingerprint(full, info) if _racy(info, at_ns)
                        else ""))
    return outputs


def fingerprint(path: str, info: os.stat_result) -> str:
    """What ``path`` holds: a folder's entries (name and inode each: adding, removing or
    replacing a file changes them), a file's bytes. Raises :class:`Racy` when unreadable."""
    try:
        if not stats.S_ISDIR(info.st_mode):
            return blocks_of(Path(path)).hex()
        digest = hashlib.blake2b(digest_size=16)
        with os.scandir(path) as entries:
            for name, inode in sorted((e.name, e.inode()) for e in entries):
                digest.update(f"{name}\0{inode}\0".encode("utf-8", "surrogateescape"))
    except OSError as exc:
        raise Racy(path) from exc
    return digest.hexdigest()


def generated_outputs(subtree: str, generated: Iterable[str], root_files: Iterable[str]
                      ) -> set[str]:
    """What :attr:`Settled.outputs` watches: every folder holding a generated file, up to
    the subtree itself, and the root files (docs-relative paths)."""
    folders = {subtree}
    for path in generated:
        folder = os.path.dirname(path)
        while folder and f"{subtree}/{folder}" not in folders:
            folders.add(f"{subtree}/{folder}")
            folder = os.path.dirname(folder)
    return folders | {f"{subtree}/{path}" for path in root_files}


def outputs_unchanged(docs_dir: Path, outputs: Sequence[Output]) -> bool:
    """True when every output still has the stat the build left it with, and those kept
    with a fingerprint still hold what they held."""
    for path, stat, marks in outputs:
        full = os.path.join(docs_dir, path)
        try:
            info = os.stat(full)
            if _fields(info) != stat or (marks and fingerprint(full, info) != marks):
                return False
        except (OSError, Racy):
            return False
    return True


def read(work: Path) -> Settled | None:
    """The settled row; None when there is none or it cannot be read (then not taken)."""
    path = work / FILE
    if not path.is_file():
        return None
    try:
        with closing(sqlite3.connect(path)) as db:
            row = db.execute("SELECT data FROM settled WHERE id = ?", (ROW,)).fetchone()
    except sqlite3.Error:
        return None
    try:
        return _decode(row[0]) if row else None
    except (ValueError, TypeError, KeyError, IndexError):
        return None


def forget(work: Path) -> None:
    """Remove the row (committed), before a build that did not take it writes anything; the
    catalogue is not touched when it holds none (a failed ``--strict`` build changes
    nothing)."""
    if read(work) is not None:
        _write(work / FILE, None)


def keep(work: Path, settled: Settled) -> None:
    """Write the row, once the site is in place."""
    _write(work / FILE, json.dumps(_encode(settled)))


def _write(path: Path, data: str | None) -> None:
    try:
        with closing(sqlite3.connect(path, isolation_level=None)) as db:
            db.execute(TABLE)
            if data is None:
                db.execute("DELETE FROM settled")
            else:
                db.execute("INSERT OR REPLACE INTO settled VALUES (?, ?)", (ROW, data))
    except sqlite3.Error as exc:
        failure = sqlite_failure(exc, path)
        if failure is not None:
            raise failure from exc
        # Not a database (damaged): the catalogue makes it again on the build's scan, and a
        # build never takes a row it cannot read.


def _encode(settled: Settled) -> dict[str, object]:
    return {"sources": settled.sources, "outputs": settled.outputs, "units": settled.units,
            "outcome": asdict(settled.outcome)}


def _decode(text: str) -> Settled:
    data = json.loads(text)
    outcome = data["outcome"]
    return Settled(
        str(data["sources"]),
        [(str(p), [int(x) for x in s], str(f)) for p, s, f in data["outputs"]],
        [(str(n), str(k)) for n, k in data["units"]],
        Outcome(int(outcome["records"]), _problems(outcome["problems"]),
                _problems(outcome["lookup_problems"]), int(outcome["unconverted"]),
                int(outcome["generated"]),
                None if outcome["searchable"] is None else int(outcome["searchable"]),
                int(outcome["units"])))


def _problems(rows: list[dict[str, object]]) -> list[Problem]:
    return [Problem(str(r["path"]), int(str(r["line"])), str(r["message"]),
                    None if r["record_id"] is None else str(r["record_id"]),
                    None if r["field"] is None else str(r["field"]),
                    Severity(str(r["severity"]))) for r in rows]
