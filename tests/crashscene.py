"""The scene of the crash tests (:mod:`tests.test_crash`, :mod:`tests.test_crash_findings`):
two small datasets, a project with the first one's site built, cold builds to compare with.

Every project a test faults is a copy of the template at one path (:attr:`Scene.case`), the
path it was built at: unit configs and the template cache name the project's folder, and a
copy elsewhere would compile every template again, most of a small build's cost.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import re
import shutil
import sqlite3
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from errdocs.cli import main

from . import faults
from .sites import SAMPLE, copy_project

DATE = "1767225600"
"""SOURCE_DATE_EPOCH of every build of the crash tests."""


def steady(patch: pytest.MonkeyPatch) -> None:
    """The environment of the crash tests' builds: dated :data:`DATE`, and no progress lines
    on stderr (which must hold nothing, or a failure's one line)."""
    patch.setenv("SOURCE_DATE_EPOCH", DATE)
    patch.setenv("ERRDOCS_PROGRESS", "off")

LEFTOVER = re.compile(r"(^|/)(site\.new|\.tmp-[^/]*|[^/]*\.tmp|[^/]*\.new|\.[^/]*-new-[^/]*"
                      r"|\.[^/]*-previous|bundle-[^/]*)(/|$)")
"""What a killed or failed build may leave and the next build must have removed."""


@dataclass(frozen=True)
class Scene:
    """Datasets, a project with A's site built, cold builds to compare with."""

    base: Path
    """Where everything is (tmpfs when there is one: the sweep is mostly file operations)."""
    data: dict[str, Path]
    """``a`` and ``b``."""
    slots: tuple[tuple[Path, Path], ...]
    """A project with A's site built (the template), and where a case works on a copy of it:
    where it was built (unit configs and the template cache name the project's folder, and a
    copy elsewhere would compile every template again, most of a small build's cost). One
    slot a core, up to two: the sweep runs a case in each at once."""
    cold: dict[str, dict[str, bytes]]
    """Site and docs of a cold build of each dataset in a fresh project, sitemap dates out."""
    site_a: dict[str, bytes]
    """The template's site, exactly (the previous site of every case)."""
    footprint: tuple[dict[str, dict[str, int]], ...]
    """Of each slot: files in ``.errdocs`` and their sizes after a clean A then B (``b``), and
    A, B, A (``a``)."""

    @property
    def template(self) -> Path:
        """The first slot's template."""
        return self.slots[0][0]

    @property
    def case(self) -> Path:
        """The first slot's case folder."""
        return self.slots[0][1]


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


_LASTMOD = re.compile(rb"\s*<lastmod>[^<]*</lastmod>")


def undated(tree: dict[str, bytes]) -> dict[str, bytes]:
    """The tree with the sitemap's dates taken out (they are the build's date or the record's,
    as documented; everything else must be equal)."""
    out = dict(tree)
    for name in ("sitemap.xml", "sitemap.xml.gz"):
        if name in out:
            body = gzip.decompress(out[name]) if name.endswith(".gz") else out[name]
            out[name] = _LASTMOD.sub(b"", body)
    return out


def state(project: Path) -> dict[str, bytes]:
    """What a person sees: the site (dates out) and the docs folder."""
    site = {f"site/{k}": v for k, v in undated(tree(project / "site")).items()}
    return site | {f"docs/{k}": v for k, v in tree(project / "docs").items()}


def footprint(work: Path) -> dict[str, int]:
    """The files in ``work`` and their sizes; of a SQLite database, the bytes of its pages in
    use: a killed build's rows, deleted by the next, leave free pages that later writes
    take (the file does not shrink), not bytes that pile up."""
    return {p.relative_to(work).as_posix(): _in_use(p) if p.suffix == ".sqlite" else
            p.stat().st_size for p in work.rglob("*") if p.is_file()}


def _in_use(path: Path) -> int:
    with contextlib.closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as db:
        pages, free, size = (db.execute(f"PRAGMA {name}").fetchone()[0]
                             for name in ("page_count", "freelist_count", "page_size"))
    return int((pages - free) * size)


def copy(source: Path, target: Path) -> Path:
    """A copy keeping hard links (the spare tree shares its files with the units), as if
    built where it is: a site folder's state names the folder's inode, which a copy changes
    (and a merge would then make its spare tree afresh, never updating it)."""
    shutil.rmtree(target, ignore_errors=True)
    subprocess.run(["cp", "-a", str(source), str(target)], check=True)
    for path in target.glob(".errdocs/sites/*/state.json"):
        state = json.loads(path.read_text("utf-8"))
        site = os.stat(state["site"])
        state["live_id"] = [site.st_dev, site.st_ino]
        path.write_text(json.dumps(state), "utf-8")
    return target


def build(project: Path, data: Path, *extra: str) -> Callable[[], object]:
    return lambda: main(["build", str(data), "-f", str(project / "mkdocs.yml"), "-j", "1",
                         *extra], prog_name="errdocs")


def normal(project: Path, data: Path, scratch: Path) -> faults.Outcome:
    outcome = faults.run_forked(build(project, data), None, scratch)
    assert (outcome.code, outcome.stderr) == (0, ""), outcome
    return outcome


def datasets(base: Path) -> dict[str, Path]:
    """A: three sample records (one tag each, so a build makes few pages). B: the second
    record changed, the third replaced by the fourth, given the third's tags and category: a
    record page removed and one added, listings and data files changed, while the catalogue's
    counts stay and so does the root unit, whose theme files would double a case's cost."""
    values = [json.loads(line) for line in SAMPLE.read_text("utf-8").splitlines()[:4]]
    for value in values:
        value["record"]["tags"] = value["record"]["tags"][:1]
    a = base / "a.jsonl"
    a.write_text("".join(json.dumps(v) + "\n" for v in values[:3]), "utf-8")
    values[1]["record"]["solutions"] = ["Changed by the crash tests."]
    for field in ("tags", "backgroundTag"):
        values[3]["record"][field] = values[2]["record"][field]
    b = base / "b.jsonl"
    b.write_text("".join(json.dumps(v) + "\n" for v in (values[0], values[1], values[3])),
                 "utf-8")
    return {"a": a, "b": b}


def scene_in(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scene]:
    """Make the scene (in tmpfs when there is one), yield it, remove it."""
    shm = Path("/dev/shm")
    base = (Path(shm / f"errdocs-crash-{os.getpid()}") if shm.is_dir() and os.access(shm, os.W_OK)
            else tmp_path_factory.mktemp("crash"))
    base.mkdir(exist_ok=True)
    with pytest.MonkeyPatch.context() as patch:  # for the scene's builds only
        steady(patch)
        scene = _make(base)
    yield scene
    shutil.rmtree(base, ignore_errors=True)


def _make(base: Path) -> Scene:
    data = datasets(base)
    cold = {}
    for name, path in data.items():
        fresh = copy_project(base / f"cold-{name}")
        normal(fresh, path, base)
        cold[name] = state(fresh)
    slots = []
    for slot in range(min(2, len(os.sched_getaffinity(0)))):
        case = copy_project(base / f"slot{slot}")
        normal(case, data["a"], base)
        slots.append((case.rename(base / f"template{slot}"), case))
    sizes = []
    for template, case in slots:
        clean = copy(template, case)
        normal(clean, data["b"], base)
        after_b = footprint(clean / ".errdocs")
        normal(clean, data["a"], base)
        sizes.append({"b": after_b, "a": footprint(clean / ".errdocs")})
    return Scene(base, data, tuple(slots), cold, tree(slots[0][0] / "site"), tuple(sizes))
