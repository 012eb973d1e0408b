"""The whole flow as plain functions: read → validate → model → render → write.

The CLI is a thin shell over these; tests call them directly.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from errdocs.catalog.model import Catalog, build_catalog
from errdocs.lookup import LookupIndex, build_index, store
from errdocs.pages.render import Page, render_all
from errdocs.pages.write import WriteReport, write_pages
from errdocs.records.problems import Problem, Severity
from errdocs.records.read import Line, read, read_file
from errdocs.records.record import Origin, Record
from errdocs.records.validate import Validator
from errdocs.search.pastebox import site_data


@dataclass(frozen=True)
class Checked:
    """The good records of an input, and everything wrong with it."""

    records: list[Record]
    """Valid records, in input order (duplicates merged)."""
    problems: list[Problem]
    """Errors and warnings, in input order."""

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity is Severity.ERROR]


@dataclass(frozen=True)
class Generated:
    """The result of writing the Markdown tree."""

    checked: Checked
    """What was read."""
    catalog: Catalog
    """Where everything went."""
    report: WriteReport
    """What changed on disk."""
    lookup_problems: list[Problem]
    """Record patterns the lookup could not use (each record is matched by its template)."""
    unconverted: int
    """Patterns with no JavaScript form or too slow there: the site's paste box matches
    those by template."""


def check(paths: Iterable[Path]) -> Checked:
    """Read and validate every record of ``paths`` (the reader and validator ``build``'s scan
    uses, so both accept the same records with the same problems)."""
    validator = Validator()
    records = list(validator.validate_all(read(paths)))
    return Checked(records, validator.problems)


@dataclass(frozen=True)
class Tree:
    """Everything in the generated subtree, not yet written."""

    catalog: Catalog
    """Where everything goes."""
    pages: list[Page]
    """The Markdown pages, then the paste box's data files."""
    lookup_problems: list[Problem]
    """Record patterns the lookup could not use (each record is matched by its template)."""
    unconverted: int
    """Patterns with no JavaScript form or too slow there: the site's paste box matches
    those by template."""


def tree_for(records: list[Record]) -> Tree:
    """Model and render every page of the generated subtree, and the lookup data."""
    catalog = build_catalog(records)
    index = build_index(records, catalog, javascript=True)
    data = site_data(index)
    return Tree(catalog, [*render_all(records, catalog), *data.pages], index.problems,
                data.unconverted)


def pages_for(records: list[Record]) -> tuple[Catalog, list[Page]]:
    """Every file of the generated subtree (see :func:`tree_for`)."""
    tree = tree_for(records)
    return tree.catalog, tree.pages


def generate(checked: Checked, out_dir: Path) -> Generated:
    """Write the generated subtree for already checked records, with the paste box's data."""
    tree = tree_for(checked.records)
    report = write_pages(out_dir, tree.pages)
    return Generated(checked, tree.catalog, report, tree.lookup_problems, tree.unconverted)


def index_for_lookup(checked: Checked) -> LookupIndex:
    """The lookup index of already checked records (pages placed as the site places them)."""
    return build_index(checked.records, build_catalog(checked.records))


@dataclass(frozen=True)
class Opened:
    """A lookup index ready to use."""

    index: LookupIndex
    """The index; its ``problems`` are only set when it was just built."""
    record_problems: list[Problem]
    """What was wrong with the records, when they were just read (empty from the cache)."""
    cached: bool
    """True when it was read from the cache instead of built."""


def open_lookup_index(paths: Iterable[Path], cache_dir: Path | None) -> Opened:
    """The index of ``paths``: from ``cache_dir`` when it is up to date there, else built
    (and saved there). ``cache_dir=None`` always builds and saves nothing."""
    paths = list(paths)
    if cache_dir is not None:
        file, file_stamp = store.cache_file(paths, cache_dir), store.stamp(paths)
        cached = store.load(file, file_stamp)
        if cached is not None:
            return Opened(cached, [], cached=True)
    checked = check(paths)
    index = index_for_lookup(checked)
    if cache_dir is not None:
        store.save(index, file, file_stamp)
    return Opened(index, checked.problems, cached=False)


def record_at(origin: Origin) -> Record | None:
    """The record read from ``origin`` (file and line), read and checked again."""
    for item in read_file(Path(origin.path)):
        if isinstance(item, Line) and item.origin == origin:
            return Validator().take(item)
    return None
