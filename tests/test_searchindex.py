"""The Pagefind index of record text: one fragment per record, in stable pieces."""

from __future__ import annotations

import gzip
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from errdocs.catalog.model import build_catalog
from errdocs.catalog.scan import read_records, scan
from errdocs.search import fulltext as searchindex
from errdocs.search.fulltext import PagefindError, PagefindService, build_index, search_record

from .conftest import SAMPLE

pytestmark = pytest.mark.slow


def test_every_record_is_indexed_once_across_pieces(tmp_path: Path) -> None:
    found = scan([SAMPLE], tmp_path / "work")
    catalog = build_catalog(x.record for x in found.lights)
    folders = build_index(found.sources, found.lights, catalog, tmp_path / "pagefind", pieces=3)
    assert folders == [tmp_path / "pagefind", tmp_path / "pagefind" / "more" / "1",
                       tmp_path / "pagefind" / "more" / "2"]
    fragments = [f for folder in folders for f in (folder / "fragment").iterdir()]
    assert len(fragments) == len(found.lights) == 40
    urls = {gzip.decompress(f.read_bytes()).split(b'"url":"')[1].split(b'"')[0].decode()
            for f in fragments}
    assert urls == {f"/errors/{e.path.removesuffix('.md')}/" for e in catalog.entries.values()}
    assert all(next(folder.glob("pagefind.en_*.pf_meta"), None) for folder in folders)


def test_search_text_is_the_records_words_bounded(tmp_path: Path) -> None:
    found = scan([SAMPLE], tmp_path / "work")
    catalog = build_catalog(x.record for x in found.lights)
    seed = next(read_records(found.sources, found.lights[:1]))
    text = search_record(seed, catalog)
    assert text.url == "/errors/sgl-project/sglang/unknown-mlx-async-mode-launch-mode/"
    assert text.meta["title"] == "Unknown MLX async mode: {launch.mode}"
    assert text.meta["repo"] == "sgl-project/sglang"
    assert text.meta["description"].startswith("finalize_mlx_result consumes")
    assert "unhandled-dispatch-case" in text.content and "mlx" in text.content
    assert seed.documentation and seed.documentation in text.content
    assert len(text.content) <= 4000
    assert "(.+?)" not in text.content  # the pattern is never a result's teaser


def test_service_errors_are_raised() -> None:
    with PagefindService() as service, pytest.raises(PagefindError):
        service.call({"type": "AddRecord", "index_id": 99, "url": "/x/", "content": "x",
                      "language": "en", "meta": {}})


def test_last_answer_read_before_the_writer_says_it_is_done(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The writer thread sends its last request, then is slow to see that no more come: the
    # reader must wait for it, not for a further answer that will never be sent.
    monkeypatch.setattr(searchindex, "ANSWER_TIMEOUT", 3)

    def slow_end(index_id: int) -> Iterator[dict[str, object]]:
        yield {"type": "AddRecord", "index_id": index_id, "url": "/a/", "content": "alpha",
               "language": "en", "meta": {"title": "a"}}
        time.sleep(1)

    with PagefindService() as service:
        index_id = service.call({"type": "NewIndex", "config": {"force_language": "en"}})[
            "index_id"]
        answer = service.pipeline(slow_end(index_id))[-1]
    assert answer["type"] == "IndexedFile"
    assert answer["page_url"] == "/a/"
