"""The data units' memo key (:func:`errdocs.units.plan.files_hash`) is fed a string at a time
(joined whole, its text and bytes were ~100 MB at 310,000 records, at the preparation's
peak): the same key as the joined text's, so a build after this change reuses the kept
units."""

from __future__ import annotations

import hashlib
from itertools import chain

from hypothesis import given
from hypothesis import strategies as st

from errdocs.units.plan import files_hash

_TEXT = st.text(st.characters(codec="utf-8", blacklist_characters="\0"),
                max_size=40)
_FILES = st.lists(st.tuples(_TEXT, _TEXT), max_size=30)


def _joined(files: list[tuple[str, str]], global_key: str) -> str:
    """The key as it was made: every string joined, then hashed."""
    joined = "\0".join(chain.from_iterable(files))
    return hashlib.sha256(f"{global_key}\1{joined}".encode()).hexdigest()


@given(_FILES, _TEXT)
def test_the_key_is_the_joined_texts(files: list[tuple[str, str]], global_key: str) -> None:
    assert files_hash(files, global_key) == _joined(files, global_key)


@given(_FILES, _TEXT, _TEXT)
def test_another_hash_of_a_file_gives_another_key(files: list[tuple[str, str]],
                                                  global_key: str, other: str) -> None:
    changed = [*files, ("data/x.js", "a" * 64)]
    again = [*files, ("data/x.js", other)]
    assert (files_hash(changed, global_key) == files_hash(again, global_key)) == (
        other == "a" * 64)
