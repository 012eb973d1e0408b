"""What errdocs may replace: a site folder it made, or an empty or missing one. Nothing else.

A build replaces the site folder whole (by renames, see :mod:`errdocs.site.merge`), so whatever the
folder held is gone afterwards. errdocs therefore marks every site it makes with a file,
:data:`MARKER`, and replaces a folder only when it holds that file or holds nothing. Some
places are refused even when empty or marked: the root folder, the home folder, a mount
point, the project folder or a folder holding it, MkDocs' ``docs_dir`` (and anything inside
it or holding it) and errdocs' work folder. :func:`check_site_dir` runs before a build touches
anything; :func:`check_replaceable` runs again right before the merge replaces the folder.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
from pathlib import Path

from errdocs.errors import InputError
from errdocs.project import Settings

MARKER = ".errdocs-site"
"""The file inside every site errdocs makes: its presence says errdocs may replace the folder."""
MARKER_TEXT = ("errdocs-site 1\n"
               "errdocs built this folder and replaces it whole on every build; "
               "do not keep other files here.\n")
"""The marker's content: the same in every site, so two builds of one input stay identical."""
_MAGIC = MARKER_TEXT.split("\n", 1)[0]


class SiteRefused(InputError):
    """The site folder is not one errdocs may replace; nothing was touched."""

    consequence = "nothing was touched"


def check_site_dir(settings: Settings, work: Path) -> None:
    """Refuse a site folder errdocs must not replace (see the module's docstring).

    ``settings.site_dir`` is absolute and resolved (symbolic links followed) by
    :func:`errdocs.project.load_settings`.
    """
    site = settings.site_dir
    reason = _forbidden_place(site, settings, work)
    if reason:
        raise SiteRefused(f"{site}: {reason}; {_ADVICE}")
    check_replaceable(site)


_ADVICE = ("errdocs replaces the site folder whole: give a new or empty folder, or one "
           f"errdocs built (it holds {MARKER}), e.g. --site-dir site")


def check_replaceable(site: Path) -> None:
    """Refuse to replace ``site`` unless it is missing, an empty folder or an errdocs site."""
    reason = _not_ours(site)
    if reason:
        raise SiteRefused(f"{site}: {reason}; {_ADVICE}")


def _forbidden_place(site: Path, settings: Settings, work: Path) -> str | None:
    """Why ``site`` is a place no build may replace, or None."""
    places = [(Path(site.anchor), "the root folder"),
              (settings.project_dir, "the project folder (it holds mkdocs.yml)"),
              (settings.docs_dir, "MkDocs' docs_dir (hand-written pages)"),
              (work, "errdocs' work folder"),
              *((home, "your home folder") for home in _homes())]
    for place, name in places:
        if site == place:
            return f"is {name}"
    for place, name in places:
        if site in place.parents:
            return f"holds {name} ({place})"
    if settings.docs_dir in site.parents:
        return f"is inside MkDocs' docs_dir ({settings.docs_dir})"
    if work in site.parents:
        return f"is inside errdocs' work folder ({work})"
    if os.path.ismount(site):
        return "is a mount point"
    return None


def _homes() -> list[Path]:
    """The home folder: $HOME, and the user's entry in the password database if different."""
    found = []
    with contextlib.suppress(RuntimeError):  # no HOME and no password entry
        found.append(Path.home().resolve())
    with contextlib.suppress(KeyError):
        found.append(Path(pwd.getpwuid(os.getuid()).pw_dir).resolve())
    return list(dict.fromkeys(found))


def _not_ours(site: Path) -> str | None:
    """Why errdocs may not replace ``site`` (exists and is not its own), or None."""
    if not os.path.lexists(site):
        return None
    if site.is_symlink() or not site.is_dir():
        return "is a file, not a folder" if site.is_file() else "is not a folder"
    if is_ours(site):
        return None
    with os.scandir(site) as entries:
        if next(entries, None) is None:
            return None
    return f"is not empty and errdocs did not build it (no {MARKER} in it)"


def is_ours(tree: Path) -> bool:
    """True when ``tree`` is a folder holding errdocs' marker."""
    try:
        with open(tree / MARKER, encoding="utf-8") as handle:
            return handle.readline().rstrip("\n") == _MAGIC
    except (OSError, UnicodeDecodeError):
        return False


def mark(tree: Path) -> None:
    """Put the marker in a site tree errdocs is making."""
    (tree / MARKER).write_text(MARKER_TEXT, "utf-8")


def discard(tree: Path, work: Path) -> None:
    """Remove a tree errdocs made: one inside its work folder, or one holding its marker.

    Anything else at that path (a user's folder that happens to have the name errdocs uses
    beside a site on another file system) is refused, not removed.
    """
    if not os.path.lexists(tree):
        return
    if work not in tree.parents and not is_ours(tree):
        raise SiteRefused(f"{tree}: errdocs needs this name for its spare site tree, but "
                          f"errdocs did not make what is there (no {MARKER} in it); move it away")
    shutil.rmtree(tree)
