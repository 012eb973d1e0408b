"""The hosted site's search index: Pagefind, run over the built site.

Material's lunr search puts the text of every page into one JSON file that each visitor
downloads (about 4 KB a page: over 1 GB at 310,000 records). Pagefind instead writes a chunked
index into ``site/pagefind/`` that the browser fetches piece by piece as a query needs it.
Pagefind indexes only the elements marked ``data-pagefind-body`` (``overrides/main.html`` marks
record pages and hand-written pages), and cannot run from ``file://``, so the offline bundle
keeps Material's own search instead.

One function, :func:`index_site`, so the build can swap in another way of indexing (per-shard
indexes merged in the browser, say) without touching anything else.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path

OUTPUT = "pagefind"
"""Folder of the index inside the site; errdocs-search.js loads ``<base>/pagefind/pagefind.js``."""
EXCLUDED = (".headerlink", ".md-clipboard", ".linenos", ".md-search")
"""Parts of a page that are not its text: permalinks, copy buttons, line numbers."""


class SearchIndexError(Exception):
    """Pagefind is missing or failed; the site is not usable without its index."""


@dataclass(frozen=True)
class IndexReport:
    """What the indexer did."""

    pages: int
    """Pages in the index."""
    output: Path
    """The index folder."""


def index_site(site_dir: Path) -> IndexReport:
    """Index the finished site in ``site_dir`` into ``site_dir/pagefind/``."""
    try:
        from pagefind.index import IndexConfig, PagefindIndex
        from pagefind.service import get_executable
    except ImportError as exc:
        raise SearchIndexError("Pagefind is not installed; reinstall errdocs (it depends on "
                               "'pagefind[extended]')") from exc
    if get_executable() is None:
        raise SearchIndexError("the Pagefind binary was not found; install 'pagefind[extended]'")
    output = site_dir / OUTPUT
    config = IndexConfig(exclude_selectors=list(EXCLUDED), force_language="en",
                         output_path=str(output))

    async def run() -> None:
        async with PagefindIndex(config=config) as index:
            await index.add_directory(str(site_dir))

    try:
        asyncio.run(run())
        entry = json.loads((output / "pagefind-entry.json").read_text("utf-8"))
        # One index, no pieces to merge (the sharded build writes the list of its pieces).
        (output / "errdocs-pieces.json").write_text("[]", "utf-8")
        # add_directory counts every HTML file it read; the entry counts the pages indexed.
        pages = sum(int(lang["page_count"]) for lang in entry["languages"].values())
    except Exception as exc:  # the service reports its failures as plain exceptions
        raise SearchIndexError(f"Pagefind failed to index {site_dir}: {exc}") from exc
    return IndexReport(pages, output)
