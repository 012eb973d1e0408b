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
before it was looked at could change again without its stat changing, so a build that saw one
writes no row, and so does a build whose sources changed while it ran. Any build that does not
take the row removes it first, committed before it writes anything, and only a build that
completed writes one: a row always names a complete site.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
import time
from collections.abc import Iterable, Sequence
from contextlib import closing
from dataclasses import asdict, dataclass
from pathlib import Path

from errdocs.catalog.store import FILE, RACY_NS
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
    outputs: list[tuple[str, list[int]]]
    """Paths under ``docs_dir`` errdocs wrote that a hand edit could change, with their stat
    when the build ended."""
    units: list[tuple[str, str]]
    """The units the site was merged from: name and key."""
    outcome: Outcome
    """What the build reported."""


def sources_key(docs_dir: Path, subtree: str, paths: Iterable[Path], extra: str) -> str:
    """Hash of the inputs' stats, of every hand-written file and folder's stat under
    ``docs_dir`` (all but the generated ``subtree``) and of ``extra`` (the global key and the
    options). Raises :class:`Racy` when a stat cannot be trusted."""
    at_ns = time.time_ns()
    digest = hashlib.sha256(f"{extra}\0{sys.version}\0".encode())
    for data in iter_files(paths):
        digest.update(f"input\0{data}\0{_stat(str(data), at_ns)}\0".encode())
    for path, stat in _hand_written(str(docs_dir), subtree, at_ns):
        digest.update(f"docs\0{path}\0{stat}\0".encode())
    return digest.hexdigest()


def _stat(path: str, at_ns: int) -> list[int]:
    """Size, times, inode and device of ``path``, when they can be trusted."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise Racy(path) from exc
    if max(info.st_mtime_ns, info.st_ctime_ns) > at_ns - RACY_NS:
        raise Racy(path)
    return [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev]


def _hand_written(docs: str, subtree: str, at_ns: int) -> list[tuple[str, list[int]]]:
    """Every folder and file under ``docs`` but the generated subtree, with its stat."""
    found = [("", _stat(docs, at_ns))]
    stack = [""]
    while stack:
        relative = stack.pop()
        with os.scandir(os.path.join(docs, relative)) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                path = f"{relative}/{entry.name}" if relative else entry.name
                if path == subtree:
                    continue
                found.append((path, _stat(entry.path, at_ns)))
                if entry.is_dir(follow_symlinks=True):
                    stack.append(path)
    return found


def output_stats(docs_dir: Path, paths: Iterable[str]) -> list[tuple[str, list[int]]]:
    """The stat of each of ``paths`` (relative to ``docs_dir``), as a build leaves them.
    Raises :class:`Racy` when one cannot be trusted."""
    at_ns = time.time_ns()
    return [(path, _stat(os.path.join(docs_dir, path), at_ns)) for path in sorted(paths)]


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


def outputs_unchanged(docs_dir: Path, outputs: Sequence[tuple[str, list[int]]]) -> bool:
    """True when every output still has the stat the build left it with."""
    for path, stat in outputs:
        try:
            info = os.stat(os.path.join(docs_dir, path))
        except OSError:
            return False
        if [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino,
                info.st_dev] != stat:
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
        str(data["sources"]), [(str(p), [int(x) for x in s]) for p, s in data["outputs"]],
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
