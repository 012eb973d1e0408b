"""Stage 5, write: put generated pages on disk, touching only what changed.

A manifest lists the files errdocs wrote, so stale pages are removed while any file errdocs
did not write (a hand-written page) is never touched. A file is listed *before* it is written
(:func:`claim`): a run killed half-way leaves no page that looks hand-written, and the next
run removes what it does not make again.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
from array import array
from bisect import bisect_left
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from errdocs.pages.render import Page

MANIFEST = ".errdocs-manifest.json"
TEMPORARY = ".tmp-"
"""How the temporary files of :func:`atomic_write` begin: a killed run leaves them behind, and
the next run removes them (:func:`remove_temporaries`)."""


@dataclass(frozen=True)
class WriteReport:
    """What a write changed."""

    written: int
    """Files created or whose content changed."""
    unchanged: int
    """Files left as they were (same content)."""
    removed: int
    """Stale files from an earlier run, deleted."""


def write_pages(out_dir: Path, pages: Iterable[Page]) -> WriteReport:
    """Write ``pages`` below ``out_dir``; remove pages an earlier run wrote that are gone now."""
    pages = list(pages)
    remove_temporaries(out_dir)
    known = claim(out_dir, (p.path for p in pages))
    current: list[str] = []
    written, unchanged = write_changed(out_dir, pages, current)
    removed = update_manifest(out_dir, current, known)
    return WriteReport(written, unchanged, removed)


def claim(out_dir: Path, paths: Iterable[str]) -> set[str]:
    """List ``paths`` in the manifest as errdocs' own before any of them is written; return
    the manifest as it now stands. Written only when something is new."""
    out_dir.mkdir(parents=True, exist_ok=True)
    known = read_manifest(out_dir)
    wanted = set(paths)
    if not wanted <= known:
        known |= wanted
        _write_manifest(out_dir, known)
    return known


@dataclass(frozen=True)
class SortedPaths(Collection[str]):
    """Paths, sorted and each once, tested by bisection: a tuple takes 8 bytes a path, where a
    set's table of every path a build generates (~760,000 at 310,000 records) was 32 MB at the
    preparation's peak. :meth:`position` numbers them, for flags kept beside."""

    paths: tuple[str, ...]
    """The paths, sorted, without repeats."""

    @classmethod
    def of(cls, paths: Iterable[str]) -> SortedPaths:
        ordered = sorted(paths)
        return cls(tuple(path for n, path in enumerate(ordered)
                         if n == 0 or path != ordered[n - 1]))

    def position(self, path: object) -> int | None:
        """Where ``path`` is among :attr:`paths`, or ``None``."""
        if not isinstance(path, str):
            return None
        at = bisect_left(self.paths, path)
        return at if at < len(self.paths) and self.paths[at] == path else None

    def __contains__(self, path: object) -> bool:
        return self.position(path) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self.paths)

    def __len__(self) -> int:
        return len(self.paths)


def claim_beyond(out_dir: Path, wanted: Collection[str]) -> set[str]:
    """:func:`claim` for ``wanted``, returning only what the manifest lists beyond it (what
    an earlier run wrote and this one will not: a few paths). The manifest is read a path at
    a time (:func:`_listed`): read whole, it was a set of strings of its own (~400,000 paths
    at 310,000 records), held at the build's preparation."""
    out_dir.mkdir(parents=True, exist_ok=True)
    beyond: set[str] = set()
    listed = 0
    try:
        for path in _listed(out_dir / MANIFEST):
            if path in wanted:
                listed += 1
            else:
                beyond.add(path)
    except ValueError:  # not as _write_manifest writes it: read as read_manifest reads it
        known = read_manifest(out_dir)
        beyond = {path for path in known if path not in wanted}
        listed = len(known) - len(beyond)
    if listed < len(wanted):  # something is new (a manifest lists a path once)
        _write_manifest(out_dir, itertools.chain(wanted, beyond))
    return beyond


def _listed(manifest: Path) -> Iterator[str]:
    """The paths of a manifest as :func:`_write_manifest` writes it, a line each; none when
    there is none; ValueError when it is not such a manifest."""
    try:
        lines = manifest.open("rb")
    except FileNotFoundError:
        return
    except OSError as exc:
        raise ValueError("unreadable") from exc
    with lines:
        if next(lines, b"") + next(lines, b"") != b'{\n"files": [\n':
            raise ValueError("not a manifest of one path a line")
        for line in lines:
            if line == b"]\n":
                if lines.read() != b"}":
                    raise ValueError("not the manifest's end")
                return
            path = json.loads(line.rstrip(b"\n").removesuffix(b","))
            if not isinstance(path, str):
                raise ValueError("not a path")
            yield path
        raise ValueError("cut short")


def remove_temporaries(out_dir: Path) -> int:
    """Delete the temporary files killed runs left below ``out_dir`` (errdocs names them
    :data:`TEMPORARY`...); return how many. See also ``sitebuild._hand_written``, which finds
    them on its walk of the docs folder."""
    found = [os.path.join(folder, name) for folder, _dirs, files in os.walk(out_dir)
             for name in files if name.startswith(TEMPORARY)]
    for path in found:
        Path(path).unlink(missing_ok=True)
    return len(found)


def write_changed(out_dir: Path, pages: Iterable[Page],
                  paths: list[str] | None = None) -> tuple[int, int]:
    """Write the pages whose content changed; (written, unchanged). Appends paths to ``paths``.

    Safe to call from several processes for disjoint pages (each file is written atomically);
    the manifest is left to :func:`update_manifest`.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    written = unchanged = 0
    for page in pages:
        target = _inside(out_dir, page.path)
        if paths is not None:
            paths.append(page.path)
        if _write_if_changed(target, page.content.encode("utf-8")):
            written += 1
        else:
            unchanged += 1
    return written, unchanged


def update_manifest(out_dir: Path, current: Iterable[str], known: set[str] | None = None) -> int:
    """Record ``current`` as what errdocs wrote; delete what it wrote before and is gone now.
    ``known``: the manifest as :func:`claim` returned it (saves reading it again)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    files = set(current)
    before = read_manifest(out_dir) if known is None else known
    removed = _remove_stale(out_dir, before - files)
    if files != before:  # else the manifest on disk already says so (a no-op writes nothing)
        _write_manifest(out_dir, files)
    return removed


def drop_stale(out_dir: Path, stale: Iterable[str]) -> int:
    """:func:`update_manifest` when ``stale`` is what the manifest lists beyond what this
    build makes (:func:`claim_beyond`): those files are deleted and the manifest lists the
    rest (not written when nothing is stale: it does already), read and written a path at a
    time. A build holds the few stale paths, not the whole manifest (~100 MB at 310,000
    records), nor the paths of what it makes."""
    stale = set(stale)
    if not stale:
        return 0
    out_dir.mkdir(parents=True, exist_ok=True)
    removed = _remove_stale(out_dir, stale)
    try:
        atomic_write(out_dir / MANIFEST, _manifest_parts(_ascending(
            path for path in _listed(out_dir / MANIFEST) if path not in stale)))
    except ValueError:  # not as _write_manifest writes it (sorted): read whole
        _write_manifest(out_dir, read_manifest(out_dir) - stale)
    return removed


def _ascending(paths: Iterable[str]) -> Iterator[str]:
    """``paths``; ValueError when one is not after the one before."""
    last = None
    for path in paths:
        if last is not None and path <= last:
            raise ValueError("not sorted")
        yield path
        last = path


def read_manifest(out_dir: Path) -> set[str]:
    """Paths written by the previous run (empty when there was none)."""
    try:
        return set(json.loads((out_dir / MANIFEST).read_text("utf-8"))["files"])
    except (OSError, ValueError, KeyError, TypeError):
        return set()


def _inside(out_dir: Path, relative: str) -> Path:
    """The file for ``relative``, refusing anything that could land outside ``out_dir``."""
    parts = PurePosixPath(relative).parts
    if not parts or PurePosixPath(relative).is_absolute() or any(
        p in ("", ".", "..") or "\\" in p or "\0" in p for p in parts
    ):
        raise ValueError(f"refusing to write outside the generated tree: {relative!r}")
    return out_dir.joinpath(*parts)


def _write_if_changed(target: Path, data: bytes) -> bool:
    if not _differs(target, data):
        return False
    atomic_write(target, data)
    return True


def _differs(target: Path, data: bytes) -> bool:
    """Whether ``target`` does not hold ``data`` (its folder is made when it cannot be read)."""
    try:
        if target.read_bytes() == data:
            return False
    except OSError:
        target.parent.mkdir(parents=True, exist_ok=True)
    return True


class Staged:
    """Pages written as they are made, each beside its place under a temporary name
    (:data:`TEMPORARY`...), and put in place later (:meth:`place`): files are claimed before
    they are written (:func:`claim`), and a build that makes a few hundred thousand data files
    before it can claim them all holds none of their text, only each one's path (the page's
    own string) and the number in its temporary name. A kill or failure before :meth:`place`
    leaves temporary files only, which the next run removes (as it removes
    :func:`atomic_write`'s); :meth:`discard`, or leaving a ``with`` block by an exception,
    removes them at once."""

    def __init__(self, out_dir: Path) -> None:
        self._out_dir = out_dir
        self._paths: list[str] = []
        self._numbers = array("Q")

    def add(self, page: Page) -> bool:
        """Write ``page`` under a temporary name unless its file holds the same bytes already
        (then False)."""
        target = _inside(self._out_dir, page.path)
        data = page.content.encode("utf-8")
        if not _differs(target, data):
            return False
        tmp = _write_temporary(target, data)
        self._paths.append(page.path)
        # Its number alone is kept: :meth:`_files` names it again (_temporary_name).
        self._numbers.append(int(tmp.rpartition("-")[2]))
        return True

    def place(self) -> int:
        """Put every page written since the last call in its place; how many."""
        placed = 0
        for target, tmp in self._files():
            try:
                os.replace(tmp, target)
            except BaseException as exc:
                del self._paths[:placed + 1], self._numbers[:placed + 1]  # the rest: discard
                _failed(exc, tmp, Path(target))
                raise
            placed += 1
        self._paths, self._numbers = [], array("Q")
        return placed

    def discard(self) -> None:
        """Remove the temporary files not placed."""
        for _target, tmp in self._files():
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        self._paths, self._numbers = [], array("Q")

    def _files(self) -> Iterator[tuple[str, str]]:
        """Each staged page's file and its temporary file (:meth:`add` checked the paths)."""
        out = str(self._out_dir)
        for path, number in zip(self._paths, self._numbers, strict=True):
            target = os.path.join(out, path)
            yield target, os.path.join(os.path.dirname(target), _temporary_name(number))

    def __enter__(self) -> Staged:
        return self

    def __exit__(self, *exc: object) -> None:
        self.discard()


def json_members(mapping: Mapping[str, object], size: int, separator: bytes
                 ) -> Iterator[bytes]:
    """The members of ``mapping`` as a JSON object writes them (keys sorted, no braces),
    ``size`` keys at a time, parts after the first led by ``separator``: a large object
    written with :func:`atomic_write` is never whole text in memory."""
    yield from json_parts(((key, mapping[key]) for key in sorted(mapping)), size, separator)


def json_parts(members: Iterable[tuple[str, object]], size: int, separator: bytes
               ) -> Iterator[bytes]:
    """:func:`json_members` of members given in order, read ``size`` at a time: the members
    are never all in memory either."""
    first = True
    iterator = iter(members)
    while part := dict(itertools.islice(iterator, size)):
        text = json.dumps(part)[1:-1]
        yield (b"" if first else separator) + text.encode("utf-8")
        first = False


def atomic_write(target: Path, data: bytes | Iterable[bytes]) -> None:
    """Write via a temporary file and rename, so a reader never sees half a file and a killed
    run leaves the old one (and a temporary file, named :data:`TEMPORARY`...). ``data``: the
    bytes, or their parts in order (a large file is then never whole in memory)."""
    tmp = _write_temporary(target, data)
    try:
        os.replace(tmp, target)
    except BaseException as exc:
        _failed(exc, tmp, target)
        raise


def _write_temporary(target: Path, data: bytes | Iterable[bytes]) -> str:
    """``data`` in a new temporary file beside ``target``; its path."""
    tmp = ""
    try:
        fd, tmp = _temporary(target.parent)
        with os.fdopen(fd, "wb") as handle:
            if isinstance(data, bytes):
                handle.write(data)
            else:
                handle.writelines(data)
        return tmp
    except BaseException as exc:
        _failed(exc, tmp, target)
        raise


def _failed(exc: BaseException, tmp: str, target: Path) -> None:
    """After ``exc`` writing ``target`` through ``tmp``: the temporary file goes, and an
    OSError about it (or about no file) is raised as one about ``target``, the file a person
    knows of."""
    if tmp:
        Path(tmp).unlink(missing_ok=True)
    if isinstance(exc, OSError) and (exc.filename is None or os.path.basename(
            os.fsdecode(exc.filename)).startswith(TEMPORARY)):
        raise OSError(exc.errno, exc.strerror, str(target)) from exc


_NAMES = itertools.count()


def _temporary_name(number: int) -> str:
    """:data:`TEMPORARY`, this process's id and ``number``."""
    return f"{TEMPORARY}{os.getpid()}-{number}"


def _temporary(folder: Path) -> tuple[int, str]:
    """A new file in ``folder`` named :func:`_temporary_name` of a count, opened for writing
    as ``tempfile.mkstemp`` opens (created, never an existing file or link, mode 0600), but
    without its random name: half the cost of a page's write."""
    while True:
        path = os.path.join(folder, _temporary_name(next(_NAMES)))
        try:
            return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(
                os, "O_BINARY", 0), 0o600), path
        except FileExistsError:  # a killed run's, with this pid
            continue


def _remove_stale(out_dir: Path, stale: set[str]) -> int:
    removed = 0
    for relative in sorted(stale):
        try:
            target = _inside(out_dir, relative)
        except ValueError:
            continue  # a tampered manifest entry: never delete outside the tree
        if target.is_file():
            target.unlink()
            removed += 1
            _prune_empty_dirs(target.parent, out_dir)
    return removed


def _prune_empty_dirs(directory: Path, stop: Path) -> None:
    while directory != stop and directory.is_dir() and not any(directory.iterdir()):
        directory.rmdir()
        directory = directory.parent


def _write_manifest(out_dir: Path, files: Iterable[str]) -> None:
    """Write the manifest as ``json.dumps({"files": sorted(files)}, indent=0)`` would (one
    path a line), a part at a time: made whole, its text's pieces, the text and its bytes were
    held at once (at 50,000 paths, 2.8 times the file, traced); the claim that wrote it whole
    was the sampled top of a cold build at 310,000 records (+225 MB in 1.5 s)."""
    atomic_write(out_dir / MANIFEST, _manifest_parts(sorted(files)))


def _manifest_parts(files: Iterable[str]) -> Iterator[bytes]:
    """The manifest of ``files`` (sorted), read :data:`_MANIFEST_PART` at a time."""
    files = iter(files)
    part = list(itertools.islice(files, _MANIFEST_PART))
    if not part:
        yield b'{\n"files": []\n}'
        return
    yield b'{\n"files": [\n'
    first = True
    while part:
        text = ",\n".join(map(json.dumps, part))
        yield (b"" if first else b",\n") + text.encode("ascii")
        first = False
        part = list(itertools.islice(files, _MANIFEST_PART))
    yield b"\n]\n}"


_MANIFEST_PART = 4096
"""Paths of the manifest made into bytes at once."""
