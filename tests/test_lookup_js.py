"""The browser's lookup (overrides/assets/errdocs/lookup.js), run in Node, against the Python
matcher: the same candidates, the same shards, the same ranking, and converted patterns that
match exactly what the Python patterns match."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from errdocs.catalog.model import build_catalog
from errdocs.lookup import build_index, lookup
from errdocs.lookup.extract import candidates, cut_notes
from errdocs.lookup.index import SiteTargets
from errdocs.lookup.jsregex import Unconvertible, convert
from errdocs.lookup.match import lookup_words
from errdocs.lookup.patterns import template_regex, template_requirements
from errdocs.lookup.tokens import fnv1a, tokens
from errdocs.search.pastebox import VERSION, shard_of, site_data

from .conftest import ROOT
from .helpers import record
from .nodejs import needs_node, run_node

pytestmark = needs_node
CASES = json.loads((ROOT / "tests" / "data" / "lookup_cases.json").read_text("utf-8"))
TEXTS = [c["text"] for c in CASES["cases"]] + CASES["no_match"] + [
    "unsupported dtype",  # many similar records: the whole ranking must agree
    "Unsupported dtype: x\nUnsupported dtype y\nstage 1 polled after completion",
    "Request queue full (12 pending) — rejecting r-1 ✓ 𝔘nicode",
]
LONG = ["x" * 20_001, "ok\n" * 7_000 + "ValueError: " + "𝔘" * 1_500, "Error: " + "y" * 993,
        "é" * 19_999 + "𝔘\n" * 2]
"""Pastes a lookup cuts (and one it just does not)."""

# Patterns with Python-only syntax, and messages that tell right from wrong conversions.
CONVERSIONS = [
    (r"(?P<a>\w+)-(?P=a)", ["ab-ab", "ab-ac", "é-é", "x ab-ab y"]),
    (r"end\Z", ["the end", "end\n", "end x"]),
    (r"end$", ["the end", "end\n", "end\n\n"]),
    (r"\Astart", ["start here", " start"]),
    (r"(?i)unknown MODE: (\S+)", ["Unknown mode: fast", "UNKNOWN MODE: x y", "unknown"]),
    (r"(?s)a.b", ["a\nb", "axb"]),
    (r"a.b", ["a\nb", "a\rb", "a\u2028b", "axb"]),
    (r"(?m)^line (\d+)$", ["x\nline 12\ny", "line 3", "xline 3"]),
    (r"(?x) key \s* = \s* (?P<v> \d+ )  # a comment", ["key = 12", "key=3", "k ey=1"]),
    (r"\bword\b", ["a word here", "swordfish", "wordé", "éword"]),
    (r"\Bor\B", ["word", "or"]),
    (r"\d+", ["abc ١٢٣ def", "42"]),
    (r"[\w.]+@[^\s]+", ["mail: é.x@host\u00a0end", "a@b\x1cc"]),
    (r"\s", ["a\x1cb", "a\u3000b", "ab"]),
    (r"[^\W\d]+", ["abc123 déf", "123"]),
    (r"[\S-]+|[\D]", ["ab- c", " 1"]),
    (r"[^\s\d.]+", ["12 ab.c"]),
    (r"(?a)[\D\W]+", ["1é2"]),
    (r"\W+", ["a é-!b"]),
    (r"x{,2}y", ["xxxy", "y", "x{,2}y"]),
    (r"(?<=\$)\d+(?!\d)", ["cost $120 now", "120"]),
    (r"(a)b\1", ["aba", "ab"]),
    (r"(?:(x)+)y\1", ["xxyx"]),
    (r"[{}\[\]^\-]+", ["{[^-]}", "abc"]),
    (r"(?a)\w+", ["été x"]),
    (r"(?a:\w)+", ["été"]),
    (r"(?s:.)(?m:^)x", ["\nx", "ax"]),
    (r"💥 (.+)", ["💥 boom", "boom"]),
    (r"\u00e9t\xe9 \N{BULLET}", ["été •"]),
    (r"\(\)\.\*\+\?\|/", ["().*+?|/"]),
    ("Sampling backend '(?P<backend>[^']+)' does not support min_p\\Z",
     ["Sampling backend 'x' does not support min_p",
      "Sampling backend 'x' does not support min_p\n"]),
]
UNCONVERTIBLE = [r"a++", r"x*+", r"(?>ab)c", r"(a)?(?(1)b|c)", r"a(?i:b)c",
                 r"(a)|b\1", r"(a)?b\1"]


def test_helpers_agree_with_python() -> None:
    templates = ["Unknown MLX async mode: {launch.mode}", "key {{raw}} {k}ms: a.b (x)",
                 "{a}{b}", "Plugin {name} must export a function, got {typeof mod}",
                 "Étape {n} — échec", "tab\there  spaces"]
    answer = run_node({"mode": "helpers", "templates": templates, "texts": [*TEXTS, *LONG]})
    assert answer["dataVersion"] == VERSION  # the data format both sides read
    assert answer["templates"] == [
        {"regex": template_regex(t), "words": sorted(template_requirements(t).words),
         "literalChars": template_requirements(t).literal_chars} for t in templates]
    assert answer["texts"] == [
        {"tokens": tokens(t), "fnv1a": [fnv1a(w) for w in tokens(t)], "candidates": candidates(t),
         "notes": cut_notes(t)}
        for t in [*TEXTS, *LONG]]
    assert [bool(t["notes"]) for t in answer["texts"][len(TEXTS):]] == [True, True, False, True]


def _write_data(records: list, root: Path) -> Path:
    data = site_data(build_index(records, build_catalog(records), javascript=True))
    assert data.unconverted == 0
    for page in data.pages:
        target = root / page.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page.content, "utf-8")
    return root / "assets" / "lookup"


@pytest.fixture(scope="module")
def data_dir(sample_checked, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write_data(sample_checked.records, tmp_path_factory.mktemp("data"))


def test_rankings_agree_with_python(sample_index, data_dir: Path) -> None:
    _assert_same_rankings(sample_index, data_dir, TEXTS)


def test_records_sharing_a_message_agree_with_python(tmp_path: Path) -> None:
    # One generic message in several repositories is one entry of the data with many pages;
    # "Big/Repo" is not spelled as its folder "big/repo".
    records = [record(f"g{n}", repo=repo, slug="refused", error_message="connection refused",
                      message_pattern="connection refused")
               for n, repo in enumerate(["a/one", "Big/Repo", "c/three", "d/four"])]
    records.append(record("x1", repo="a/one", slug="other", error_message="refused by {peer}"))
    data_dir = _write_data(records, tmp_path)
    assert "[\"big/repo/refused\",\"Big/Repo\"]" in "".join(
        p.read_text() for p in data_dir.glob("s*.js"))
    index = build_index(records, build_catalog(records))
    assert [m.target.repo for m in lookup(index, "connection refused")][:4] == [
        "a/one", "Big/Repo", "c/three", "d/four"]
    _assert_same_rankings(index, data_dir, ["connection refused", "refused by server",
                                            "Error: connection refused by peer"])


def _assert_same_rankings(index, data_dir: Path, texts: list[str]) -> None:
    answer = run_node({"mode": "rank", "dataDir": str(data_dir), "texts": texts, "limit": 10})
    found = re.search(r'"shards":(\d+)', (data_dir / "manifest.js").read_text())
    assert found is not None
    shards = json.loads(found[0].join("{}"))["shards"]
    for text, got in zip(texts, answer, strict=True):
        expected = [{"url": m.target.url, "how": m.how.value, "score": m.score,
                     "candidate": m.candidate, "message": m.message}
                    for m in lookup(index, text, limit=10)]
        assert got["matches"] == expected, text
        wanted = sorted({shard_of(w, shards) for w in lookup_words(candidates(text))})
        assert got["shards"] == wanted


def test_every_sample_pattern_converts_and_matches_like_python(sample_index) -> None:
    patterns = [t.pattern for t in sample_index.targets if t.pattern]
    messages = [c["text"] for c in CASES["cases"]] + [m for c in candidates_of_cases()
                                                       for m in c]
    _assert_same_matches([(p, messages) for p in patterns])


def candidates_of_cases() -> list[list[str]]:
    return [candidates(c["text"]) for c in CASES["cases"]]


def test_python_only_syntax_converts_and_matches_like_python() -> None:
    _assert_same_matches(CONVERSIONS)


@pytest.mark.parametrize("pattern", UNCONVERTIBLE)
def test_untranslatable_syntax_is_refused(pattern: str) -> None:
    re.compile(pattern)  # valid Python...
    with pytest.raises(Unconvertible):
        convert(pattern)  # ...with no JavaScript form: the browser uses the template


def _assert_same_matches(items: list[tuple[str, list[str]]]) -> None:
    converted = [convert(p) for p, _ in items]
    answer = run_node({"mode": "regex", "items": [
        {"source": js.source, "flags": js.flags, "messages": messages}
        for js, (_, messages) in zip(converted, items, strict=True)]})
    for (pattern, messages), js, got in zip(items, converted, answer, strict=True):
        assert "error" not in got, (pattern, js, got)
        compiled = re.compile(pattern)
        for message, result in zip(messages, got["results"], strict=True):
            found = compiled.search(message)
            expected = {
                "full": compiled.fullmatch(message) is not None,
                "search": found and {"start": found.start(), "text": found.group(),
                                     "groups": list(found.groups()),
                                     "named": found.groupdict()},
            }
            assert result == expected, (pattern, js.source, message)


def test_issue_16_patterns_answer_quickly_and_agree_with_python(tmp_path: Path) -> None:
    """The build leaves issue 16's patterns out of the browser's data; Node then finds what
    Python finds (Python by the pattern, with RE2; the browser by the template), at once."""
    from .test_lookup_linear import EVIL, NEAR_MISS_SIZES

    records = [record(rid, repo="acme/evil", slug=rid, error_message=message,
                      message_pattern=pattern) for rid, message, pattern, *_ in EVIL]
    records.append(record("ok", repo="acme/evil", slug="ok", error_message="Bad value in {k}",
                          message_pattern=r"Bad value in (\w+)"))
    data = site_data(build_index(records, build_catalog(records), javascript=True))
    assert data.unconverted == len(EVIL)
    for page in data.pages:
        (tmp_path / page.path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / page.path).write_text(page.content, "utf-8")
    texts = [shape.format(letter * size) for _, _, _, shape, letter, _ in EVIL
             for size in NEAR_MISS_SIZES] + [case[5] for case in EVIL] + ["Bad value in zone3"]
    answer = run_node({"mode": "rank", "dataDir": str(tmp_path / "assets" / "lookup"),
                       "texts": texts, "limit": 10})
    index = build_index(records, build_catalog(records))
    by_template = {"pattern": "template", "pattern-part": "template-part"}

    def in_browser(how: str, record_id: str) -> str:  # the browser has no pattern for EVIL's
        return how if record_id == "ok" else by_template.get(how, how)

    for text, got in zip(texts, answer, strict=True):
        assert got["seconds"] < 1.0, (text[:40], got["seconds"])
        expected = [{"url": m.target.url, "how": in_browser(m.how.value, m.target.record_id),
                     "candidate": m.candidate} for m in lookup(index, text, limit=10)]
        assert [{k: m[k] for k in ("url", "how", "candidate")} for m in got["matches"]] \
            == expected, text[:40]


def test_a_skipped_record_is_matched_without_its_pattern(data_dir: Path) -> None:
    """What the browser's worker is told after a record ran over its time budget."""
    text = "Unknown MLX async mode: speculative"
    seed = "sgl-project/sglang/unknown-mlx-async-mode-launch-mode"
    plain, skipped, neither = (
        run_node({"mode": "rank", "dataDir": str(data_dir), "texts": [text], "limit": 3,
                  "options": {"skip": skip}})[0]
        for skip in ({}, {seed: "pattern"}, {seed: "all"}))
    assert [seed, "pattern"] in plain["before"]
    assert [seed, "template"] in skipped["before"]  # told before its template runs
    assert seed not in [key for key, _ in neither["before"]]  # no regex of it runs
    hows = [{m["url"]: m["how"] for m in r["matches"]}.get(f"/errors/{seed}/")
            for r in (plain, skipped, neither)]
    assert hows == ["pattern", "template", "similar"]


def test_a_sites_index_makes_the_same_data_without_sources_or_origins(sample_checked) -> None:
    """A site's index (``site``: what the build makes its data files from) holds no
    pattern's source and no origin, and the paste box's files are those of a whole index,
    with the same count of patterns the browser matches by their template."""
    from .test_lookup_linear import EVIL

    records = [record(rid, repo="acme/evil", slug=rid, error_message=message,
                      message_pattern=pattern) for rid, message, pattern, *_ in EVIL]
    records += sample_checked.records
    catalog = build_catalog(records)
    whole = build_index(records, catalog, javascript=True)
    light = build_index(records, catalog, javascript=True, site=True)
    assert all(t.pattern is None and t.origin is None for t in light.targets)
    assert any(t.pattern is not None for t in whole.targets)
    # Packed (SiteTargets), each read back as the whole index's but for those two fields.
    assert isinstance(light.targets, SiteTargets) and len(light.targets) == len(whole.targets)
    assert list(light.targets) == [replace(t, pattern=None, origin=None) for t in whole.targets]
    assert light.targets[-1] == list(light.targets)[-1]
    assert light.targets[1:4] == list(light.targets)[1:4]
    with pytest.raises(IndexError):
        light.targets[len(whole.targets)]
    with pytest.raises(ValueError, match="neither its pattern nor its origin"):
        SiteTargets().append(next(t for t in whole.targets if t.pattern is not None))
    made, kept = site_data(whole), site_data(light)
    assert kept.unconverted == made.unconverted >= len(EVIL)
    assert [(p.path, p.content) for p in kept.pages] == [(p.path, p.content) for p in made.pages]
