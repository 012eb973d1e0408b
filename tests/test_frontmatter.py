"""errdocs.pages.frontmatter writes the very bytes yaml.safe_dump writes, and they read back."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from errdocs.pages.frontmatter import Tree, dump

KEYS = st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,20}", fullmatch=True)
LEAVES = st.one_of(st.text(), st.lists(st.text(), max_size=4))
TREES = st.recursive(
    st.dictionaries(KEYS, LEAVES, max_size=4),
    lambda inner: st.dictionaries(KEYS, st.one_of(LEAVES, inner), max_size=4),
    max_leaves=12,
)


def _pyyaml(data: object) -> str:
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=True, width=2**31, default_style='"')


@settings(max_examples=400, deadline=None)
@given(TREES.filter(bool))
def test_same_bytes_as_pyyaml_and_reads_back(data: dict[str, Tree]) -> None:
    text = dump(data)
    assert text == _pyyaml(data)
    assert yaml.safe_load(text) == data


@pytest.mark.parametrize(
    "value",
    [
        "line\nbreak",
        "nel\x85ls\u2028ps\u2029",
        "bom\ufeff",
        "astral 🐍",
        "nbsp\xa0",
        "ctl\x00\x07\x1b\x7f\x9f",
        'quote " back \\',
        "---",
        "key: value # x",
        "\ud7ff\ue000\ufffd",
    ],
)
def test_awkward_strings(value: str) -> None:
    data: dict[str, Tree] = {"errdocs": {"message": value, "keywords": [value, "plain"]},
                             "hide": ["navigation"]}
    assert dump(data) == _pyyaml(data)
    assert "\n---" not in dump(data)


def test_empty_containers_and_wrong_types() -> None:
    data: dict[str, Tree] = {"a": [], "b": {}}
    assert dump(data) == _pyyaml(data)
    with pytest.raises(TypeError, match="not 3"):
        dump({"a": 3})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match=r"not \[\['x'\]\]"):
        dump({"a": [["x"]]})  # type: ignore[list-item]
    with pytest.raises(ValueError, match="not 'a b'"):
        dump({"a b": "x"})
