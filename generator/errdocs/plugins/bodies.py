"""Reuse a page's HTML body when nothing its conversion depends on changed.

A change that touches every page but no record (a ``mkdocs.yml`` edit, a new errdocs version)
rebuilds every page: the theme's template must be rendered again, but the Markdown conversion
(Python-Markdown, Pygments: about half of a page's cost) gives the same body whenever its inputs
are the same. Those inputs are, all of them in the key:

- the page's Markdown as MkDocs converts it (after the ``page_markdown`` plugin events);
- where the page is (its source path and URL: relative links are computed from it);
- the files the unit's build knows and their URLs (links are resolved against them);
- the Markdown extensions and their settings, the link validation settings, and the versions
  of the tools that convert (MkDocs, Python-Markdown, pymdown-extensions, Pygments, Material).

A page whose conversion logged a warning is not kept (a ``--strict`` build must see it again).
Each unit keeps its bodies in a small SQLite file (``bodies.sqlite`` in its folder), one row a
page: a refresh writes the rows of the pages it converted, not the unit's whole store.

A page whose Markdown changed is converted again, but most of its code blocks have not: a record
whose prose changed shows the same source excerpt and handling code. Highlighting them is ~37%
of a record page's conversion (pymdownx.highlight and Pygments). So the store also keeps each
page's highlighted blocks (table ``blocks``), by a hash of everything the highlighter is given
(the code, its language and options, the highlighter's settings, the tools' versions); a block
found there is not highlighted again. A page's blocks are replaced whenever it is converted, so
the store holds those of the pages it holds.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import sqlite3
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import AnchorLink, get_toc

FORMAT = 2
"""Changes when what a row holds changes."""
TOOLS = ("mkdocs", "properdocs", "markdown", "pymdown-extensions", "pygments",
         "mkdocs-material")


@dataclass
class Bodies:
    """The body store of one unit build, and what this build converted."""

    path: Path
    """The unit's ``bodies.sqlite``."""
    settings: str = ""
    """Hash of the conversion settings and the files known (same for every page of a build;
    made at the first page, when MkDocs hands over the files)."""
    made: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    """Page source path to (key, body as compressed JSON) converted this build, to store
    (compressed: HTML shrinks ~6x, and the store holds every page of the site)."""
    hits: int = 0
    """Pages whose body was reused."""
    page: str | None = None
    """The page being converted (its source path): the blocks highlighted go to it."""
    blocks: dict[str, bytes] = field(default_factory=dict)
    """The highlighted blocks of :attr:`page`, by key, compressed (kept with its body)."""
    made_blocks: dict[str, dict[str, bytes]] = field(default_factory=dict)
    """Page source path to its blocks, for the pages in :attr:`made`."""
    _db: sqlite3.Connection | None = None
    _empty: bool = False
    """The store held no row when opened: nothing to look up (a cold build's), since this
    build's rows are written only when it ends."""

    def key(self, page: Page) -> str:
        """What the page's body depends on."""
        markdown = page.markdown or ""
        return _hash(self.settings, page.file.src_uri, page.file.url, markdown)

    def get(self, page: Page, key: str) -> dict[str, Any] | None:
        # The body is read only when the key matches: a page that changed (every page a
        # refresh renders) reads none of the overflow pages that were most of a miss (with
        # the store out of the cache, 0.20 ms a page against 0.47-0.59, measured on ~310
        # pages of 40 units at 310,000 records); a hit stays one query.
        db = self._connection()
        if self._empty:
            return None
        row = db.execute(
            "SELECT CASE WHEN key = ? THEN body END FROM bodies WHERE page = ?",
            (key, page.file.src_uri)).fetchone()
        if row is None or row[0] is None:
            return None
        try:
            body = json.loads(zlib.decompress(row[0]))
        except (ValueError, zlib.error):  # a damaged row is only a miss
            return None
        return body if isinstance(body, dict) else None

    def block(self, key: str) -> str | None:
        """A code block highlighted before (for any page of the unit) whose key is ``key``."""
        db = self._connection()
        if self._empty:
            return None
        row = db.execute("SELECT html FROM blocks WHERE key = ? LIMIT 1", (key,)).fetchone()
        if row is None:
            return None
        try:
            html = zlib.decompress(row[0]).decode("utf-8")
        except (zlib.error, UnicodeDecodeError):  # a damaged row is only a miss
            return None
        self.blocks[key] = row[0]
        return html

    def save(self) -> None:
        """Store what was converted (one transaction): each page's body and its blocks, in
        place of those it had; close."""
        if self.made:
            db = self._connection()
            with db:
                db.executemany("INSERT OR REPLACE INTO bodies (page, key, body) VALUES (?, ?, ?)",
                               [(p, k, b) for p, (k, b) in self.made.items()])
                db.executemany("DELETE FROM blocks WHERE page = ?", [(p,) for p in self.made])
                db.executemany("INSERT OR REPLACE INTO blocks (page, key, html) VALUES (?, ?, ?)",
                               [(p, k, h) for p, found in self.made_blocks.items()
                                if p in self.made for k, h in found.items()])
        self.made, self.made_blocks = {}, {}
        if self._db is not None:
            self._db.close()
            self._db = None

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path)
            db.execute("CREATE TABLE IF NOT EXISTS bodies "
                       "(page TEXT PRIMARY KEY, key TEXT NOT NULL, body BLOB NOT NULL)")
            db.execute("CREATE TABLE IF NOT EXISTS blocks (page TEXT NOT NULL, key TEXT NOT "
                       "NULL, html BLOB NOT NULL, PRIMARY KEY (page, key)) WITHOUT ROWID")
            db.execute("CREATE INDEX IF NOT EXISTS blocks_by_key ON blocks (key)")
            self._empty = db.execute("SELECT NOT EXISTS (SELECT 1 FROM bodies) AND NOT "
                                     "EXISTS (SELECT 1 FROM blocks)").fetchone()[0] == 1
            self._db = db
        return self._db


_ACTIVE: Bodies | None = None
"""The store of the unit being built in this process (one build at a time per process)."""


def start(path: Path) -> Bodies:
    """Use the store ``path`` for the pages of the build starting in this process."""
    global _ACTIVE
    _patch()
    stop(keep=False)
    _ACTIVE = Bodies(path)
    return _ACTIVE


def stop(*, keep: bool = True) -> None:
    """The build ended: store its bodies (``keep``) and stop reusing."""
    global _ACTIVE
    if _ACTIVE is not None:
        if not keep:
            _ACTIVE.made = {}
        _ACTIVE.save()
    _ACTIVE = None


def settings_key(config: MkDocsConfig, files: Files) -> str:
    """Everything every body of the build depends on besides its page."""
    known = sorted((f.src_uri, f.url, f.inclusion.name) for f in files)
    hooks = sorted(str(getattr(m, "__file__", m)) for m in (config["hooks"] or {}).values())
    return _hash(str(FORMAT), *(f"{t}=={_version(t)}" for t in TOOLS),
                 _stable(config["markdown_extensions"]), _stable(config["mdx_configs"]),
                 _stable(config["validation"]), str(config["use_directory_urls"]),
                 repr(known), *hooks, *(_read(h) for h in hooks))


def _render(original: Callable[[Page, MkDocsConfig, Files], None]) -> Callable[..., None]:
    def render(page: Page, config: MkDocsConfig, files: Files) -> None:
        bodies = _ACTIVE
        if bodies is None or page.markdown is None:
            original(page, config, files)
            return
        if not bodies.settings:
            bodies.settings = settings_key(config, files)
        key = bodies.key(page)
        body = bodies.get(page, key)
        if body is not None:
            _restore(page, body, files)
            bodies.hits += 1
            return
        bodies.page, bodies.blocks = page.file.src_uri, {}
        try:
            with _Warnings() as warned:
                original(page, config, files)
        finally:
            bodies.page = None
        if not warned.count:
            bodies.made[page.file.src_uri] = (
                key, zlib.compress(json.dumps(_body(page)).encode("utf-8"), 1))
            bodies.made_blocks[page.file.src_uri] = bodies.blocks

    return render


def _body(page: Page) -> dict[str, Any]:
    anchors = page.links_to_anchors
    present = page.present_anchor_ids
    return {"content": page.content, "toc": [_token(a) for a in page.toc],
            "title": page._title_from_render,
            "present": None if present is None else sorted(present),
            "links": None if anchors is None else {f.src_uri: v for f, v in anchors.items()}}


def _token(link: AnchorLink) -> dict[str, Any]:
    """A table of contents entry as Python-Markdown's ``toc_tokens`` has it."""
    return {"level": link.level, "id": link.id, "name": link.title,
            "children": [_token(c) for c in link.children]}


def _restore(page: Page, body: dict[str, Any], files: Files) -> None:
    page.content = body["content"]
    page.toc = get_toc(body["toc"])
    page._title_from_render = body["title"]
    present = body["present"]
    page.present_anchor_ids = None if present is None else set(present)
    links = body["links"]
    if links is not None:
        found = {files.get_file_from_path(src): v for src, v in links.items()}
        page.links_to_anchors = {f: v for f, v in found.items() if f is not None}


class _Warnings(logging.Handler):
    """Counts the warnings MkDocs logs while it is installed (a ``with`` block)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1

    def __enter__(self) -> _Warnings:
        for name in _LOGGERS:
            logging.getLogger(name).addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        for name in _LOGGERS:
            logging.getLogger(name).removeHandler(self)


_LOGGERS = ("mkdocs", "properdocs")


def _highlight(original: Callable[..., Any]) -> Callable[..., Any]:
    """pymdownx.highlight's ``Highlight.highlight``, taking a code block from the store when
    it was highlighted before from the same input (see the module's docstring)."""
    def highlight(self: Any, src: str, language: str, *args: Any, **kwargs: Any) -> Any:
        bodies = _ACTIVE
        if bodies is None or bodies.page is None or not _repeatable(self, args, kwargs):
            return original(self, src, language, *args, **kwargs)
        key = _hash(_tools(), _stable({k: v for k, v in vars(self).items() if k != "md"}),
                    src, _stable(language), _stable(args), _stable(kwargs))
        html = bodies.block(key)
        if html is None:
            html = original(self, src, language, *args, **kwargs)
            if not isinstance(html, str):  # not a block (inline code is an element)
                return html
            bodies.blocks[key] = zlib.compress(html.encode("utf-8"), 1)
        return html

    return highlight


def _repeatable(highlighter: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether the block's HTML is all it makes: not inline code (an element), and no title
    written as HTML (the highlighter puts it in the page's stash, and the block refers to it
    by its place there)."""
    inline = kwargs.get("inline", args[5] if len(args) > 5 else False)
    titles = getattr(highlighter, "auto_title_map", None) or {}
    return (not inline and getattr(highlighter, "title_mode", None) == "text"
            and not any(isinstance(t, Mapping) for t in titles.values()))


@functools.cache
def _tools() -> str:
    """The format of the store and the versions of the tools that convert."""
    return _hash(str(FORMAT), *(f"{t}=={_version(t)}" for t in TOOLS))


def _patch() -> None:
    if getattr(Page, "_errdocs_bodies", False):
        return
    Page.render = _render(Page.render)  # type: ignore[method-assign]
    Page._errdocs_bodies = True  # type: ignore[attr-defined]
    try:
        from pymdownx.highlight import Highlight
    except ImportError:  # not installed: nothing highlights with it
        return
    Highlight.highlight = _highlight(Highlight.highlight)


_PLAIN = frozenset({str, int, bool, float, type(None)})


def _stable(value: object) -> str:
    """A repr that is the same in every process: functions and classes by their names
    (an emoji index given as ``!!python/name:``), not their addresses."""
    if type(value) in _PLAIN:  # most values: a quick way to the repr below
        return repr(value)
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{_stable(k)}:{_stable(v)}" for k, v in
                              sorted(value.items(), key=lambda kv: repr(kv[0]))) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_stable(v) for v in value) + "]"
    if callable(value):
        return f"<{getattr(value, '__module__', '?')}.{getattr(value, '__qualname__', '?')}>"
    return repr(value)


def _read(path: str) -> str:
    try:
        return Path(path).read_text("utf-8", "replace")
    except OSError:
        return ""


def _version(tool: str) -> str:
    try:
        return metadata.version(tool)
    except metadata.PackageNotFoundError:
        return "-"


def _hash(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return digest.hexdigest()
