"""A unit's keys held compactly (errdocs.units.keys): read back as the pairs they were made of."""

from __future__ import annotations

import marshal
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from errdocs.units import keys as keys_module
from errdocs.units.keys import KEY_BYTES, KeysByPath, PathKeys, PathKeysBuilder
from errdocs.units.plan import Unit, UnitKind, units_data, units_from

_PAIRS = st.lists(st.tuples(st.text(max_size=30), st.binary(min_size=KEY_BYTES,
                                                            max_size=KEY_BYTES)), max_size=40)


@given(_PAIRS)
def test_keys_read_back_as_the_pairs_they_were_made_of(pairs: list[tuple[str, bytes]]) -> None:
    expected = [(path, digest.hex()) for path, digest in pairs]
    keys = PathKeys.of(pairs)
    built = PathKeysBuilder()
    for path, digest in pairs:
        built.add(path, digest)
    assert list(keys) == expected
    assert built.keys() == keys == PathKeys.of(expected)
    assert len(keys) == len(built) == len(pairs)
    assert [keys[n] for n in range(len(pairs))] == expected
    assert [keys[-n - 1] for n in range(len(pairs))] == expected[::-1]
    assert list(keys[1:3]) == expected[1:3]
    assert dict(keys) == dict(expected)
    with pytest.raises(IndexError):
        keys[len(pairs)]


@given(_PAIRS)
def test_a_units_keys_go_through_the_memos_rows(pairs: list[tuple[str, bytes]]) -> None:
    keys = PathKeys.of(pairs)
    unit = Unit("rec-0001", UnitKind.RECORDS, keys.paths, "k", keys)
    assert units_from(marshal.loads(marshal.dumps(units_data([unit])))) == [unit]


@pytest.mark.parametrize("paths, digests", [(("a",), b""), (("a",), b"x" * 17), ((), b"x"),
                                            (["a"], b"x" * 16), (("a",), "x" * 16)])
def test_keys_of_another_shape_are_refused(paths: object, digests: object) -> None:
    with pytest.raises(ValueError, match="one key of 16 bytes a path"):
        PathKeys(paths, digests)  # type: ignore[arg-type]


_UNIQUE = st.dictionaries(st.text(max_size=12), st.binary(min_size=KEY_BYTES, max_size=KEY_BYTES),
                          max_size=40)


@given(_UNIQUE, st.integers(1, 4), st.sampled_from([hash, lambda path: len(path) % 3]),
       st.lists(st.text(max_size=12), max_size=10))
def test_keys_by_path_are_the_dict_of_their_pairs(
        pairs: dict[str, bytes], parts: int, hashed: object, others: list[str]) -> None:
    # With a hash that makes most paths collide too: a path is told by itself, not its hash.
    items = list(pairs.items())
    many = [PathKeys.of(items[n::parts]) for n in range(parts)]
    keys_module.hash = hashed  # type: ignore[attr-defined]
    try:
        held = KeysByPath(many)
        assert dict(held.items()) == pairs and len(held) == len(pairs)
        for path in [*pairs, *others]:
            assert held.get(path) == pairs.get(path)
            assert (path in held) == (path in pairs)
        assert 7 not in held
    finally:
        del keys_module.hash  # type: ignore[attr-defined]  # (the builtin again)
    again = pickle.loads(pickle.dumps(held))  # hashed anew where it is read
    assert again == pairs and all(again[path] == key for path, key in pairs.items())
    with pytest.raises(KeyError):
        held[next((o for o in others if o not in pairs), "\0missing")]
