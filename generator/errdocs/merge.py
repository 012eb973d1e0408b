"""Assemble the site from the units' outputs, atomically.

Files are hard-linked (copied when the work folder is on another file system) into a
temporary folder beside the site, which then replaces the site with two renames
(:func:`errdocs.build.swap_in`). Each unit's ``sitemap.xml`` is merged into one; a failed merge
leaves the previous site as it was.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

from .build import swap_in

SITEMAP = "sitemap.xml"
_URL = re.compile(r"<url>.*?</url>", re.DOTALL)
_LOC = re.compile(r"<loc>(.*?)</loc>", re.DOTALL)


class MergeError(Exception):
    """Two units produced the same file, or a unit's output is missing."""


def merge(unit_sites: Iterable[Path], target: Path) -> int:
    """Link every unit's files into a new site and swap it in; returns the number of files."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-new-", dir=target.parent))
    try:
        count, sitemaps = 0, []
        for site in unit_sites:
            if not site.is_dir():
                raise MergeError(f"{site}: a unit's output is missing; build it first")
            count += _link_tree(site, staging, sitemaps)
        if sitemaps:
            _write_sitemap(staging, sitemaps)
            count += 2
        swap_in(staging, target)
        return count
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _link_tree(source: Path, staging: Path, sitemaps: list[Path]) -> int:
    count = 0
    for folder, _dirs, files in os.walk(source):
        relative = os.path.relpath(folder, source)
        out = staging if relative == "." else staging / relative
        out.mkdir(exist_ok=True)
        for name in files:
            if relative == "." and name in (SITEMAP, SITEMAP + ".gz"):
                if name == SITEMAP:
                    sitemaps.append(Path(folder, name))
                continue
            _link(Path(folder, name), out / name)
            count += 1
    return count


def _link(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except FileExistsError as exc:
        raise MergeError(f"two units wrote {target.name} ({source})") from exc
    except OSError:
        shutil.copy2(source, target)  # another file system: copy instead


def _write_sitemap(staging: Path, sitemaps: list[Path]) -> None:
    """One sitemap holding every unit's URLs once, sorted; and its gzip twin (fixed mtime)."""
    urls: dict[str, str] = {}
    head = tail = ""
    texts = [path.read_text("utf-8") for path in sitemaps]
    for text in texts:
        found = list(_URL.finditer(text))
        if not head:
            cut = found[0].start() if found else text.find("</urlset>")
            head = text[:cut] if cut >= 0 else '<?xml version="1.0" encoding="UTF-8"?>\n<urlset>'
            tail = "</urlset>\n"
        for match in found:
            loc = _LOC.search(match.group(0))
            urls.setdefault(loc.group(1) if loc else match.group(0), match.group(0))
    # Without site_url MkDocs writes an empty sitemap: keep it as it is.
    body = head + "\n".join(urls[k] for k in sorted(urls)) + "\n" + tail if urls else texts[0]
    (staging / SITEMAP).write_text(body, "utf-8")
    with gzip.GzipFile(staging / (SITEMAP + ".gz"), "wb", mtime=0) as handle:
        handle.write(body.encode("utf-8"))
