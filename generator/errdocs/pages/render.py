"""Stage 4, render: Markdown for record pages and index pages, from Jinja templates.

Templates are safe by default: every plain string printed with ``{{ }}`` is escaped by
:func:`_finalize`; only values the filters below produce (``Markup``) are printed as they are.
"""

from __future__ import annotations

import heapq
import posixpath
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TypeVar

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from errdocs.catalog import facets, paging
from errdocs.catalog.model import Catalog, Entry, Group, GroupKind, relative_link, shown_tags
from errdocs.catalog.paging import PagerLink
from errdocs.catalog.texts import Texts
from errdocs.pages import escape, frontmatter
from errdocs.pages import parts as pageparts
from errdocs.pages.charts import bar_chart
from errdocs.pages.excerpt import excerpt_of, language_for
from errdocs.pages.meta import group_meta, iso_timestamp, list_meta, record_meta
from errdocs.pages.short import MESSAGE_CHARS, ROW_VALUE_CHARS, clip, shorten
from errdocs.records.record import Record
from errdocs.records.schema import MAX_LIST_ITEMS, MAX_TEXT_CHARS, SOURCE_HOST

T = TypeVar("T")


@dataclass(frozen=True)
class Page:
    """A generated Markdown file."""

    path: str
    """Relative to the generated subtree, POSIX separators."""
    content: str
    """The Markdown text."""


def _finalize(value: object) -> object:
    if isinstance(value, Markup) or value is None:
        return value if value is not None else ""
    if isinstance(value, str):
        return escape.text(_cut(value))
    return value


def warm() -> None:
    """Make what the first page a process renders makes, and every later page reuses: the
    templates compiled, and Pygments' ~930 file name patterns (compiled by the first call of
    :func:`language_for`). A build's workers do it as they start, while the build reads the
    records (else ~0.45 s of a worker's first unit, in a refresh at 20,000 records)."""
    env = environment()
    for name in env.list_templates(extensions=["j2"]):
        env.get_template(name)
    language_for("warm.py")


@cache
def environment() -> Environment:
    """The Jinja environment for Markdown templates (one per process)."""
    env = Environment(
        loader=PackageLoader("errdocs.pages", "templates"),
        finalize=_finalize,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        auto_reload=False,  # templates do not change while errdocs runs: no stat per page
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,  # Markdown, not HTML: _finalize does the escaping
    )
    env.filters.update(
        prose=lambda v: escape.prose(_cut(v)),
        inline=lambda v: escape.inline(_cut(v)),
        code_span=lambda v: escape.code_span(_cut(v)),
        fenced=_fenced,
        front_matter=_front_matter,
        short=lambda v: shorten(v, MESSAGE_CHARS),
        row_facts=row_facts,
    )
    return env


TOP_TAGS = 10
"""Tags shown in a record page's header; with more, all of them are listed at its end."""


def render_record(record: Record, catalog: Catalog) -> Page:
    """The page of one record."""
    entry = catalog.entries[record.id]
    source_url = escape.safe_url(record.github_url, host=SOURCE_HOST)
    tags = shown_tags(record)
    printed, shows_class = pageparts.printed_error(record)
    context = {
        "r": record,
        "meta": record_meta(record, tags, title=entry.title),
        "excerpt": excerpt_of(record),
        "language": language_for(record.file_path or ""),
        "printed": printed,
        "class_shown": shows_class,
        "source": pageparts.source_links(record),
        "source_text": record.github_url if source_url is None else None,
        "fix": pageparts.split_fix(record.example_fix) if record.example_fix else None,
        "commit_url": pageparts.commit_url(record),
        "analyzed": pageparts.readable_date(record.analyzed_at),
        "released": pageparts.readable_date(record.dataset_version),
        "solutions": record.solutions[:MAX_LIST_ITEMS],
        "tips": record.prevention_tips[:MAX_LIST_ITEMS],
        "more_solutions": max(0, len(record.solutions) - MAX_LIST_ITEMS),
        "more_tips": max(0, len(record.prevention_tips) - MAX_LIST_ITEMS),
        "tags": _links(entry, [catalog.group_of(GroupKind.TAG, t) for t in tags]),
        "top_tags": TOP_TAGS,
        "category": _category_link(record, entry, catalog),
        "repo_link": relative_link(entry.path, catalog.group_of(GroupKind.REPO, record.repo).path),
        "related": _related(record, entry, catalog),
        "catalogue_link": relative_link(entry.path, "index.md"),
        "handling": [(label, code) for label, code in (
            ("Validation", record.validation_code), ("Type guard", record.type_guard),
            ("Try / catch", record.try_catch_pattern)) if code],
    }
    return Page(entry.path, environment().get_template("record.md.j2").render(context))


def render_group(group: Group, texts: Texts) -> Iterator[Page]:
    """The index pages of one tag, category or repository (several when it is long), made
    one at a time: a unit writes each before the next is made (the largest hub unit's 3,215
    pages at 310,000 records hold 75.8 MB of Markdown as UTF-8, ~twice that as text).
    ``texts``: its records' summaries."""
    template = environment().get_template(f"{group.kind.value}.md.j2")
    charts = group_charts(group)
    for path, rows, links in _paginate(group.path, group.entries):
        summaries = texts.summaries(e.record_id for e in rows)
        yield Page(path, template.render(
            group=group, rows=[(e, relative_link(path, e.path), summaries[e.record_id])
                               for e in rows], pager=links,
            meta=group_meta(group), show_repo=group.kind is not GroupKind.REPO,
            filter=facets.group_filter(group),
            charts=charts if path == group.path else Markup("")))


CHARTED = (GroupKind.REPO, GroupKind.CATEGORY)
"""Groups whose first page charts its records by kind and severity."""


def group_charts(group: Group) -> Markup:
    """The charts of a repository's or category's first page (empty for other groups)."""
    if group.kind not in CHARTED:
        return Markup("")
    return Markup("").join(
        bar_chart(f"chart-{facet.name}", f"Errors by {facet.label}",
                  facets.counts(group.entries, facet))
        for facet in (facets.ERROR_TYPE, facets.SEVERITY))


BY_NAME = "index/by-name.md"
"""The listing of every tag / category / repository by name, beside ``index.md`` (by size):
``index`` is a reserved segment, so no group page takes this path."""


def render_group_list(kind: GroupKind, catalog: Catalog) -> list[Page]:
    """The pages listing every tag, category or repository as a table: most records first
    (``index.md``), and by name (:data:`BY_NAME`), each paged like every listing."""
    groups = list(catalog.groups[kind].values())
    by_size = sorted(groups, key=lambda g: (-len(g.entries), g.key))
    by_name = sorted(groups, key=lambda g: (g.label.casefold(), g.key))
    first = f"{kind.value}/index.md"
    other = f"{kind.value}/{BY_NAME}"
    return [*_group_table(kind, first, other, by_size, by_name=False),
            *_group_table(kind, other, first, by_name, by_name=True)]


def _group_table(kind: GroupKind, first: str, other: str, groups: list[Group], *,
                 by_name: bool) -> Iterator[Page]:
    template = environment().get_template("group_list.md.j2")
    for path, rows, links in _paginate(first, groups):
        yield Page(path, template.render(
            kind=kind.value, rows=[(g, relative_link(path, g.path)) for g in rows],
            pager=links, total=len(groups), meta=list_meta(kind, len(groups)),
            by_name=by_name, other=relative_link(path, other),
            repos=kind in (GroupKind.TAG, GroupKind.CATEGORY)))


def row_facts(entry: Entry, show_repo: bool) -> Markup:
    """The second line of a listing's row: class, ``file:line`` and, on pages spanning several
    repositories, the repository; what it lacks is left out."""
    parts = [escape.code_span(clip(entry.error_class, ROW_VALUE_CHARS))] if (
        entry.error_class) else []
    if entry.where:
        parts.append(escape.code_span(shorten(entry.where, WHERE_CHARS)))
    if show_repo:
        parts.append(escape.text(entry.repo))
    return Markup(" · ").join(parts)


WHERE_CHARS = 160
"""A row's ``file:line`` is cut to this (a path can be any length)."""


def _paginate(first: str, rows: Sequence[T]) -> Iterator[
        tuple[str, Sequence[T], list[tuple[PagerLink, Markup]]]]:
    """Path, rows and pager links of each page of a listing."""
    count = paging.page_count(len(rows))
    for number in range(1, count + 1):
        path = paging.page_path(first, number)
        links = [(link, relative_link(path, paging.page_path(first, link.number)))
                 for link in paging.pager(number, count)]
        yield path, paging.chunk(rows, number), links


def listed_kinds(catalog: Catalog) -> list[GroupKind]:
    """The kinds of group with a page listing them all: families only when there is one."""
    return [k for k in GroupKind if k is not GroupKind.FAMILY or catalog.groups[k]]


HOME_FRAGMENT = ".home.md"
"""The catalogue's summary for the site's home page, in the generated subtree: a dot file, so
MkDocs makes no page of it; the ``errdocs-home`` plugin puts it where the home page has
``<!-- errdocs-catalogue -->``."""
TOP = 10
"""Categories, repositories and recent records the home page shows."""


def render_home(catalog: Catalog, *, changes: bool = False) -> Page:
    """The catalogue's front page (``index.md``): counts, the largest categories and
    repositories, the records analysed last; ``changes`` adds a link to what each dataset
    version changed (``changes/index.md``, which ``errdocs build`` makes)."""
    return Page("index.md", _home(catalog, changes, "", full=True))


def render_home_fragment(catalog: Catalog, subtree: str, *, changes: bool = False) -> Page:
    """The same summary for the site's home page (:data:`HOME_FRAGMENT`), its links made
    from the docs folder's root (``subtree``: the generated subtree's folder there)."""
    return Page(HOME_FRAGMENT, _home(catalog, changes, f"{subtree}/", full=False))


def recent_entries(catalog: Catalog) -> list[Entry]:
    """The :data:`TOP` records analysed last (``analyzedAt``), which both home pages list:
    the only record pages the root unit links to."""
    entries = catalog.entries
    recent = heapq.nlargest(TOP, catalog.texts.times(), key=lambda item: (
        iso_timestamp(item[1]) or "", entries[item[0]].path))
    return [entries[record_id] for record_id, _at in recent]


def _home(catalog: Catalog, changes: bool, base: str, *, full: bool) -> str:
    """What both home pages show, bounded at any number of records: counts and the
    :data:`TOP` largest categories and repositories and most recently analysed records."""
    counts = {kind.value: len(catalog.groups[kind]) for kind in GroupKind}

    def largest(kind: GroupKind) -> list[tuple[Group, str]]:
        groups = heapq.nsmallest(TOP, catalog.groups[kind].values(),
                                 key=lambda g: (-len(g.entries), g.key))
        return [(g, Markup(base) + g.path) for g in groups]

    recent = recent_entries(catalog)
    summaries = catalog.texts.summaries(e.record_id for e in recent)
    per_category = Counter({g.label: len(g.entries)
                            for g in catalog.groups[GroupKind.CATEGORY].values()})
    chart = bar_chart("chart-categories", "Errors by category",
                      facets.top(per_category, TOP))
    template = environment().get_template("home.md.j2")
    return template.render(
        records=len(catalog.entries), counts=counts, base=Markup(base), full=full, chart=chart,
        categories=largest(GroupKind.CATEGORY), repos=largest(GroupKind.REPO),
        rows=[(e, Markup(base) + e.path, summaries[e.record_id]) for e in recent],
        show_repo=True, changes=changes,
        filter=facets.CATALOGUE if full else "")


def root_pages(catalog: Catalog, *, changes: bool) -> Iterator[Page]:
    """The generated pages of the root unit: the lists of all groups and the front page
    (``changes``: with a link to what each dataset version changed), made as they are read."""
    for kind in listed_kinds(catalog):
        yield from render_group_list(kind, catalog)  # the nav links tags, categories, repos
    yield render_home(catalog, changes=changes)


def _links(entry: Entry, groups: list[Group]) -> list[tuple[str, str]]:
    return [(g.label, relative_link(entry.path, g.path)) for g in groups]


def _related(record: Record, entry: Entry, catalog: Catalog) -> dict[str, object] | None:
    """The related lists of a record page (:mod:`errdocs.catalog.related`): entries and links."""
    lists = catalog.related(record)
    if not (lists.same_message or lists.same_file or lists.same_category):
        return None
    family = catalog.family_of(record)

    def rows(ids: tuple[str, ...]) -> list[tuple[Entry, Markup, bool]]:
        """Each entry, its link, and whether it is in another repository (folder)."""
        folder = posixpath.dirname(entry.path)
        return [(other, relative_link(entry.path, other.path),
                 posixpath.dirname(other.path) != folder)
                for other in map(catalog.entries.__getitem__, ids)]

    return {"same_message": rows(lists.same_message), "same_file": rows(lists.same_file),
            "same_category": rows(lists.same_category), "family_size": lists.family_size,
            "family_repos": lists.family_repos,
            "family_link": family and relative_link(entry.path, family.path)}


def _category_link(record: Record, entry: Entry, catalog: Catalog) -> tuple[str, str] | None:
    if not record.background_tag or not record.background_tag.strip():
        return None
    return _links(entry, [catalog.group_of(GroupKind.CATEGORY, record.background_tag)])[0]


def _cut(value: str) -> str:
    return value if len(value) <= MAX_TEXT_CHARS else value[:MAX_TEXT_CHARS] + " …"


def _fenced(code: str, language: str, options: str = "", *, exact: bool = False) -> Markup:
    """A fenced code block that nothing inside ``code`` can end early.

    With ``exact``, every line shows, blank ones at either end included (the highlighter keeps
    them: ``stripnl: false`` in mkdocs.yml), so numbered lines keep their numbers; the
    highlighter takes a final newline as the end of the last line, so a blank last line gets
    one more. Otherwise blank lines at either end are left out.
    """
    code = _cut(code)
    if not exact:
        code = _BLANK_ENDS.sub("", code)
    elif not code.rsplit("\n", 1)[-1].strip():
        code += "\n"
    fence = escape.fence_for(code)
    info = f"{language} {options}".strip()
    return Markup(f"{fence} {info}\n{code}\n{fence}")


_BLANK_ENDS = re.compile(r"\A(?:[^\S\n]*\n)+|(?:\n[^\S\n]*)+\Z")
"""Lines of white space only at the start or the end of a text."""


def _front_matter(data: dict[str, frontmatter.Tree]) -> Markup:
    """YAML front matter, never made by string formatting (see :mod:`errdocs.pages.frontmatter`)."""
    return Markup(f"---\n{frontmatter.dump(data)}---")
