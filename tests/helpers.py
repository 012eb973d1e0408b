"""Small builders shared by tests."""

from __future__ import annotations

import json
import shutil
import tracemalloc
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

from errdocs.build import build_sharded
from errdocs.catalog import store
from errdocs.catalog.model import Catalog, GroupKind, build_catalog
from errdocs.lookup import build_index
from errdocs.pages.render import (
    Page,
    render_group,
    render_home_fragment,
    render_record,
    root_pages,
)
from errdocs.project import GENERATED_SUBTREE, load_settings
from errdocs.records.problems import Problem
from errdocs.records.read import read
from errdocs.records.record import Origin, Record
from errdocs.records.validate import Validator
from errdocs.search.pastebox import site_data


def record(id: str, repo: str = "o/r", slug: str = "s", **fields: object) -> Record:
    """A valid record with only the fields a test cares about."""
    fields.setdefault("error_message", f"message of {id}")
    return Record(id=id, repo=repo, slug=slug, origin=Origin("t.jsonl", 1), **fields)  # type: ignore[arg-type]


# Every page in memory, for tests of small inputs: errdocs itself builds unit by unit and holds
# no list of records (the one path in errdocs.pipeline).


@dataclass(frozen=True)
class Loaded:
    """Every good record of an input, in memory."""

    records: list[Record]
    """Valid records, in input order (duplicates merged)."""
    problems: list[Problem]
    """Errors and warnings, in input order."""


def read_all(paths: Iterable[Path]) -> Loaded:
    """Every good record of ``paths`` in a list, read and validated as every command does."""
    validator = Validator()
    records = list(validator.validate_all(read(paths)))
    return Loaded(records, validator.problems)


def render_all(records: list[Record], catalog: Catalog) -> list[Page]:
    """Every page of the generated subtree that the units render, in memory."""
    pages = [render_record(r, catalog) for r in records]
    for kind in GroupKind:
        for group in catalog.groups[kind].values():
            pages.extend(render_group(group, catalog.texts))
    return [*pages, *root_pages(catalog, changes=False),
            render_home_fragment(catalog, GENERATED_SUBTREE, changes=False)]


def pages_for(records: list[Record]) -> tuple[Catalog, list[Page]]:
    """Every page of the generated subtree and the paste box's data, in memory."""
    catalog = build_catalog(records)
    data = site_data(build_index(records, catalog, javascript=True))
    return catalog, [*render_all(records, catalog), *data.pages]


def site_tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` by its relative path, with its bytes."""
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def cold_site(project: Path, data: Path, fresh: Path) -> dict[str, bytes]:
    """The site a cold build of ``data`` gives, in a fresh copy of ``project``."""
    for name in ("docs", "overrides"):
        shutil.copytree(project / name, fresh / name, ignore=shutil.ignore_patterns("errors"))
    shutil.copy(project / "mkdocs.yml", fresh / "mkdocs.yml")
    build_sharded(load_settings(fresh / "mkdocs.yml"), [data], jobs=1, show_progress=False)
    return site_tree(fresh / "site")


def xml_attribute(parent: ET.Element, path: str, name: str, namespaces: dict[str, str]) -> str:
    """The attribute ``name`` of the first element at ``path`` under ``parent``; a missing
    element or attribute fails the test with what was looked for."""
    element = parent.find(path, namespaces)
    assert element is not None, f"no {path} in <{parent.tag}>"
    value = element.get(name)
    assert value is not None, f"<{element.tag}> has no {name}"
    return value


def xml_text(parent: ET.Element, path: str, namespaces: dict[str, str]) -> str:
    """The text of the first element at ``path`` under ``parent`` (it must be there)."""
    text = parent.findtext(path, namespaces=namespaces)
    assert text is not None, f"no {path} in <{parent.tag}>"
    return text


def build_project(project: Path, data: Path) -> None:
    """``errdocs build DATA`` in ``project``, one worker, quietly."""
    build_sharded(load_settings(project / "mkdocs.yml"), [data], jobs=1, show_progress=False)


def prefix_field(data: Path, number: int, field: str, text: str) -> None:
    """Put ``text`` in front of the ``field`` of the ``number``-th record of ``data``."""
    lines = data.read_text("utf-8").splitlines(keepends=True)
    value = json.loads(lines[number])
    value["record"][field] = text + value["record"][field]
    lines[number] = json.dumps(value, ensure_ascii=False) + "\n"
    data.write_text("".join(lines), "utf-8")


def traced_queries(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every SQL statement the catalogue runs from now on, as it runs them."""
    queries: list[str] = []
    opened = store.Catalogue._open

    def tracing(self: store.Catalogue, work_dir: Path) -> None:
        opened(self, work_dir)
        if self.db is not None:
            self.db.set_trace_callback(queries.append)

    monkeypatch.setattr(store.Catalogue, "_open", tracing)
    return queries


def traced_peak(call: Callable[[], object]) -> int:
    """The largest memory ``call`` held at once (bytes, traced by ``tracemalloc``)."""
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
