"""Assemble the site from the units' outputs, atomically, linking only the files that changed.

Two trees of hard links to the units' files exist: the live one (the site) and a spare one,
one build behind, kept with the site's own state in ``.errdocs/sites/ID/``
(:mod:`errdocs.site.state`; beside the site when that is on another file system). A merge
brings the spare up to date — removing the files of units that changed and linking their
new files, then putting right whatever was changed in it by hand while it was live — then
swaps it with the live site by renames, so readers never see a half-made
site and a failure leaves the previous site as it was. When the spare cannot be trusted
(first build, missing file lists, an interrupted merge, a live site that is not the one the
last merge put there), both trees are made afresh by linking every file.

The swap is one step where the system allows it (Linux's ``renameat2(RENAME_EXCHANGE)``), so
a kill leaves either site, never none; elsewhere it is two renames and the next build puts the
previous site back if a kill came between them. It is the merge's commit: what follows (keeping
a spare tree) cannot fail the build.

Each unit's ``sitemap.xml`` is merged into one, and the site gets errdocs' marker
(:mod:`errdocs.site.owner`). Files are copied instead of linked when the work folder is on
another file system.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import gzip
import os
import re
import secrets
import shutil
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from errdocs.errors import BuildFailed, naming
from errdocs.pages.write import atomic_write
from errdocs.site.owner import MARKER, check_replaceable, discard, is_ours, mark
from errdocs.site.state import Place, forget_others, live_is_known

SITEMAP = "sitemap.xml"
CANNOT_LINK = frozenset({errno.EXDEV, errno.EPERM, errno.EMLINK, errno.EOPNOTSUPP})
"""Why a hard link may fail where a copy works: another file system, one without links, a
file with too many links already."""
_URL = re.compile(r"<url>.*?</url>", re.DOTALL)
_LOC = re.compile(r"<loc>(.*?)</loc>", re.DOTALL)


class MergeError(BuildFailed):
    """Two units produced the same file, or a unit's output is missing."""


@dataclass(frozen=True)
class UnitOutput:
    """A built unit, as the merge sees it."""

    name: str
    """The unit."""
    key: str
    """The key it was built from."""
    folder: Path
    """Its folder: ``site/`` and ``files-KEY.txt`` (the files of each built version)."""

    @property
    def site(self) -> Path:
        return self.folder / "site"

    def files(self, key: str | None = None) -> list[str] | None:
        """Relative paths of the version built from ``key`` (this one by default)."""
        try:
            text = (self.folder / f"files-{key or self.key}.txt").read_text("utf-8")
        except OSError:
            return None
        return text.splitlines()


def record_files(folder: Path, key: str, site: Path, keep: int = 3,
                 names: list[str] | None = None) -> None:
    """List the files of a unit's output (for merges); keep the lists of recent versions.
    ``names``: the list, when the caller knows it (sorted; the output is not walked)."""
    if names is None:
        names = sorted(
            os.path.relpath(os.path.join(d, f), site) for d, _s, files in os.walk(site)
            for f in files if not (d == str(site) and f in (SITEMAP, SITEMAP + ".gz")))
    # By rename: a later merge removes exactly these files from the spare tree.
    atomic_write(folder / f"files-{key}.txt", "\n".join(names).encode("utf-8"))
    lists = sorted(folder.glob("files-*.txt"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
    for old in lists[keep:]:
        old.unlink(missing_ok=True)


def merge(units: Sequence[UnitOutput], target: Path, work: Path) -> None:
    """Make ``target`` hold exactly the units' files (and one sitemap), atomically.

    ``target`` must be missing, empty or a site errdocs built (:mod:`errdocs.site.owner`)."""
    for unit in units:
        if not unit.site.is_dir():
            raise MergeError(f"{unit.site}: a unit's output is missing; build it first")
    check_replaceable(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    place = Place.of(work, target)
    _recover(place)
    place.clear()
    forget_others(work, place)
    state = place.read()
    live_before = state.get("live") if live_is_known(place, state) else None
    place.write(live_before if isinstance(live_before, dict) else None, None)  # spare changing
    spare, spare_before = place.spare, state.get("spare")
    with naming(place.home):  # what fails to be written and names no file
        if isinstance(spare_before, dict) and is_ours(spare) and _updated(
                spare, spare_before, units, work):
            staging, fresh_spare = spare, False
        else:
            discard(spare, work)
            staging, fresh_spare = _fresh(units, place), True
        try:
            _finish_tree(staging, units)
            _swap(staging, place, work)  # the commit: from here on the new site is live
        except BaseException:
            _recover(place)
            if staging != spare:
                shutil.rmtree(staging, ignore_errors=True)
            raise
    # The site is built: a failure now only leaves no spare (the state says so), and the
    # next build makes one afresh.
    with contextlib.suppress(OSError):
        _keep_spare(staging, None if fresh_spare else live_before, units, place, work)


def _swap(staging: Path, place: Place, work: Path) -> None:
    """Put ``staging`` in the site's place; ``staging`` then holds the previous site (or
    nothing, on a first build)."""
    target, previous = place.target, place.previous
    if not os.path.lexists(target):
        staging.rename(target)
    elif not _exchange(staging, target):  # two renames: a kill between them is put right by
        discard(previous, work)            # the next merge (_recover)
        target.rename(previous)
        staging.rename(target)
        previous.rename(staging)


def _keep_spare(old: Path, old_units: object, units: Sequence[UnitOutput], place: Place,
                work: Path) -> None:
    """After the swap ``old`` holds the previous site: it becomes the spare when its units are
    known (it was the spare being updated), else a spare is made afresh."""
    wanted = {u.name: u.key for u in units}
    if isinstance(old_units, dict) and old == place.spare and is_ours(old):
        place.write(wanted, old_units)
        return
    if os.path.lexists(old):
        discard(old, work)
    made = _fresh(units, place)
    _finish_tree(made, units)
    made.rename(place.spare)
    place.write(wanted, wanted)


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


@functools.cache
def _renameat2() -> Callable[..., int] | None:
    try:
        return ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # not Linux with glibc 2.28 or later
        return None


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (``renameat2(RENAME_EXCHANGE)``); False where the system
    or the file system cannot."""
    call = _renameat2()
    if call is None:
        return False
    if call(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def _recover(place: Place) -> None:
    """Put the previous site back when a merge stopped between its two renames."""
    if not os.path.lexists(place.target) and is_ours(place.previous):
        place.previous.rename(place.target)


def _finish_tree(tree: Path, units: Sequence[UnitOutput]) -> None:
    """What a site tree holds besides the units' files: the merged sitemap and the marker."""
    _write_sitemap(tree, [u.site / SITEMAP for u in units if (u.site / SITEMAP).is_file()])
    mark(tree)


def _fresh(units: Iterable[UnitOutput], place: Place) -> Path:
    staging = _new_folder(place.home, place.staging_prefix)
    try:
        for unit in units:
            _link_all(unit, staging)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return staging


def _new_folder(home: Path, prefix: str) -> Path:
    """A new folder ``prefix`` + 8 hex digits, with the usual permissions (mkdtemp's are
    0700, and this one becomes the site a web server reads)."""
    while True:
        folder = home / f"{prefix}{secrets.token_hex(4)}"
        try:
            folder.mkdir()
            return folder
        except FileExistsError:
            continue


def _link_all(unit: UnitOutput, tree: Path) -> None:
    for folder, _dirs, files in os.walk(unit.site):
        relative = os.path.relpath(folder, unit.site)
        out = tree if relative == "." else tree / relative
        out.mkdir(exist_ok=True)
        for name in files:
            if relative == "." and name in (SITEMAP, SITEMAP + ".gz"):
                continue
            _link(Path(folder, name), out / name, unit.name)


def _updated(tree: Path, before: dict[str, str], units: Sequence[UnitOutput],
             work: Path) -> bool:
    """:func:`_update`, False also when the tree turns out not to hold what ``before`` says
    (a file already where a changed unit's file goes): then it is made afresh, where a
    clash does mean two units wrote one file."""
    try:
        if not _update(tree, before, units, work):
            return False
        _repair(tree, units)
        return True
    except MergeError:
        return False


def _repair(tree: Path, units: Sequence[UnitOutput]) -> None:
    """Make ``tree`` hold exactly the units' files, whatever befell it while it was the live
    site: a page deleted, replaced or added there by hand would otherwise be published again
    by the swap after next. Reading the directories is enough (a linked file has its unit
    file's inode), so this costs a walk of both trees, not a read of any file."""
    wanted: dict[str, tuple[str, int]] = {}
    for unit in units:
        for relative, entry in _files(str(unit.site)):
            if relative not in (SITEMAP, SITEMAP + ".gz"):
                wanted[relative] = (entry.path, entry.inode())
    emptied: set[Path] = set()
    for relative, entry in _files(str(tree)):
        if relative in (SITEMAP, SITEMAP + ".gz", MARKER):
            continue  # written afresh for every tree (_finish_tree)
        source = wanted.pop(relative, None)
        if source is not None and _same_content(entry, *source):
            continue
        os.unlink(entry.path)
        if source is None:
            emptied.add(Path(entry.path).parent)
        else:
            _link(Path(source[0]), Path(entry.path), relative)
    for relative, (path, _inode) in wanted.items():  # missing from the tree
        (tree / relative).parent.mkdir(parents=True, exist_ok=True)
        _link(Path(path), tree / relative, relative)
    _prune(emptied, tree)


def _files(root: str) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """Every entry under ``root`` that is not a folder (symbolic links included, not
    followed), by its relative path. Strings, not ``Path``s: a site has a folder per page."""
    cut, stack = len(root) + 1, [root]
    while stack:
        with os.scandir(stack.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                else:
                    yield entry.path[cut:], entry


def _same_content(entry: os.DirEntry[str], source: str, inode: int) -> bool:
    """``entry`` is the unit's file: its link, or its copy (another file system) with the
    same size and time."""
    if entry.inode() == inode:
        return True
    try:
        mine, theirs = entry.stat(follow_symlinks=False), os.stat(source)
    except OSError:
        return False
    return (entry.is_file(follow_symlinks=False) and mine.st_size == theirs.st_size
            and mine.st_mtime_ns == theirs.st_mtime_ns)


def _update(tree: Path, before: dict[str, str], units: Sequence[UnitOutput], work: Path) -> bool:
    """Bring ``tree`` from the units of ``before`` to ``units``; False when it cannot. A file
    the old and new version of one unit both list and the tree already links (the same file:
    a unit patched in place keeps its unchanged pages' files) is left as it is."""
    now = {u.name: u for u in units}
    changed = [u for u in units if before.get(u.name) != u.key]
    olds: dict[str, list[str]] = {}
    for name, key in before.items():
        unit = now.get(name)
        if unit is None or unit.key != key:
            folder = unit.folder if unit else work / "units" / name
            old = UnitOutput(name, key, folder).files(key)
            if old is None:
                return False
            olds[name] = old
    news: list[tuple[list[str], UnitOutput]] = []
    for unit in changed:
        new = unit.files()
        if new is None:
            return False
        news.append((new, unit))
    same = {r for new, unit in news for r in _kept(tree, olds.get(unit.name, []), new, unit)}
    emptied: set[Path] = set()
    for old in olds.values():
        for relative in old:
            if relative not in same:
                (tree / relative).unlink(missing_ok=True)
                emptied.add((tree / relative).parent)
    for new, unit in news:
        for relative in new:
            if relative in same:
                continue
            target = tree / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            _link(unit.site / relative, target, unit.name)
    _prune(emptied, tree)
    return True


def _kept(tree: Path, old: list[str], new: list[str], unit: UnitOutput) -> Iterable[str]:
    """The files of ``unit`` in both lists that ``tree`` already links."""
    before = set(old)
    for relative in new:
        if relative in before and _same_file(tree / relative, unit.site / relative):
            yield relative


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _prune(folders: set[Path], stop: Path) -> None:
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        while folder != stop and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
            folder = folder.parent


def _link(source: Path, target: Path, unit: str) -> None:
    try:
        os.link(source, target)
    except FileExistsError as exc:
        raise MergeError(f"unit {unit} and another unit both wrote {target}") from exc
    except OSError as exc:
        if exc.errno not in CANNOT_LINK:
            raise  # a full disk, a read-only folder: copying would not do better
        shutil.copy2(source, target)  # another file system: copy instead


def _write_sitemap(tree: Path, sitemaps: list[Path]) -> None:
    """One sitemap holding every unit's URLs once, sorted; and its gzip twin (fixed mtime)."""
    for name in (SITEMAP, SITEMAP + ".gz"):
        (tree / name).unlink(missing_ok=True)
    if not sitemaps:
        return
    urls: dict[str, str] = {}
    texts = [path.read_text("utf-8") for path in sitemaps]
    head = tail = ""
    for text in texts:
        found = list(_URL.finditer(text))
        if not head:
            cut = found[0].start() if found else text.find("</urlset>")
            head, tail = text[:cut], "</urlset>\n"
        for match in found:
            loc = _LOC.search(match.group(0))
            urls.setdefault(loc.group(1) if loc else match.group(0), match.group(0))
    # Without site_url MkDocs writes an empty sitemap: keep it as it is.
    body = head + "\n".join(urls[k] for k in sorted(urls)) + "\n" + tail if urls else texts[0]
    (tree / SITEMAP).write_text(body, "utf-8")
    with gzip.GzipFile(tree / (SITEMAP + ".gz"), "wb", mtime=0) as handle:
        handle.write(body.encode("utf-8"))


def keep_sitemap_entries(old: Path, new: Path, urls: set[str], site_url: str) -> None:
    """Add to ``new`` the entries of ``old`` for pages whose output was reused (by URL)."""
    if not old.is_file() or not new.is_file():
        return
    base = site_url.rstrip("/") + "/" if site_url else ""
    wanted = {base + url for url in urls}
    kept = [m.group(0) for m in _URL.finditer(old.read_text("utf-8"))
            if (loc := _LOC.search(m.group(0))) and loc.group(1) in wanted]
    if kept:
        text = new.read_text("utf-8")
        end = text.rfind("</urlset>")
        new.write_text(text[:end] + "\n".join(kept) + "\n" + text[end:], "utf-8")
