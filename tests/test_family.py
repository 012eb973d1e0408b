"""The same error in several projects: messages equal once placeholders and values are left
out (errdocs.catalog.family)."""

from __future__ import annotations

import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from errdocs.catalog.family import MARK, family_label, fold_case, message_key


@pytest.mark.parametrize("message", [
    "Unknown MLX async mode: {launch.mode}",
    "unknown MLX async mode: %s",
    "Unknown MLX async mode: {}",
    "Unknown MLX async mode: {0}",
    "Unknown MLX async mode: {0!r}",
    "Unknown MLX async mode: ${mode}",
    "Unknown MLX async mode: %(mode)s",
    "Unknown MLX async mode: %v",
    "Unknown MLX async mode: 'speculative'",
    'Unknown MLX async mode: "speculative"',
    "Unknown MLX async mode: `speculative`",
    "Unknown MLX async mode: “speculative”",
    "Unknown MLX async mode: 42",
    "Unknown  MLX\tasync mode:\n{mode}",
])
def test_placeholders_values_blanks_and_first_letter_case_are_left_out(message: str) -> None:
    assert message_key(message) == f"unknown MLX async mode: {MARK}"


@pytest.mark.parametrize(("one", "other"), [
    ("accepts between %d and %d arg(s), received %d", "accepts between 1 and 2 arg(s), received 3"),
    ("choice '{unk}' is unrecognized", "choice {value} is unrecognized"),
    ("unsupported dtype tag {0:#04x}", "unsupported dtype tag 0x1f"),
    ("timeout after %5.2fs", "timeout after 1.5s"),
    ("value is {a}{b}", "value is {x}"),  # marks next to each other count as one
])
def test_messages_differing_only_in_values_share_a_key(one: str, other: str) -> None:
    assert message_key(one) == message_key(other)


@pytest.mark.parametrize(("one", "other"), [
    ("Unsupported dtype {dtype}", "Unsupported dtype: {dtype}"),  # punctuation is wording
    ("gemm_fp16: K must be even", "gemm_fp32: K must be even"),  # digits inside a word stay
    ("can't open {path}", "cannot open {path}"),
    ("Unknown mode: {m}", "Unknown MODE: {m}"),  # only the first character's case is left out
    ("key {k} not found", "key {k} {v} not found"),
])
def test_different_wording_keeps_messages_apart(one: str, other: str) -> None:
    assert message_key(one) != message_key(other)


def test_an_apostrophe_inside_a_word_opens_no_quoted_value() -> None:
    assert message_key("can't read 'x', don't retry") == f"can't read {MARK}, don't retry"


def test_a_family_label_shows_variable_parts_as_an_ellipsis_and_keeps_case() -> None:
    assert family_label("Unknown MLX async mode: {launch.mode}") == "Unknown MLX async mode: …"
    assert family_label("retry %d of %d failed") == "retry … of … failed"


def test_folding_the_first_character_twice_changes_nothing_for_any_code_point() -> None:
    chars = (chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    assert [c for c in chars if fold_case(fold_case(c)[:1]) != fold_case(c)[:1]] == []
    assert fold_case("I") == fold_case("ı") == fold_case("i") == "i"


# --- properties -------------------------------------------------------------------------------

TRICKY = ["{", "}", "{}", "{0}", "%", "%s", "%%", "'", '"', "`", "“", "”", "$", ".", "0", "9",
          "0x", "1.5", " ", "\t", "\n", "\r\n", "\f", "İ", "ǅ", "ß", "a", "Z", "_", MARK, "…"]
MESSAGES = st.lists(st.one_of(st.sampled_from(TRICKY), st.text(max_size=5)),
                    max_size=12).map("".join)


@given(MESSAGES)
def test_normalising_is_idempotent(message: str) -> None:
    key = message_key(message)
    assert message_key(key) == key


PLACEHOLDERS = st.sampled_from(["{mode}", "{}", "{0}", "{0:#04x}", "{x!r}", "${x}", "%s", "%d",
                                "%-5.2f", "%(name)s", "%v", "%q"])
VALUES = st.one_of(
    st.integers(0, 10**9).map(str), st.floats(0, 1e6, allow_nan=False).map(lambda f: f"{f:.3f}"),
    st.integers(0, 2**32).map(hex),
    st.tuples(st.sampled_from(["'", '"', "`"]),
              st.text(st.characters(categories=("L", "N", "Zs")), max_size=20))
    .map(lambda q: f"{q[0]}{q[1].replace(q[0], '')}{q[0]}"))
WORDS = st.lists(st.text(st.characters(categories=["L"]), min_size=1, max_size=8), min_size=1,
                 max_size=4).map(" ".join)
SEPARATORS = st.sampled_from([" ", ": ", " (", ") ", ", ", " = ", " - "])


@st.composite
def same_error(draw: st.DrawFn) -> tuple[str, str]:
    """Two messages with the same wording, each variable part a placeholder in one and any
    placeholder or value in the other, the first letter's case maybe changed."""
    one, other = [], []
    for _ in range(draw(st.integers(1, 4))):
        words, separator = draw(WORDS), draw(SEPARATORS)
        one += [words, separator, draw(PLACEHOLDERS)]
        other += [words, separator, draw(st.one_of(PLACEHOLDERS, VALUES))]
        tail = draw(SEPARATORS)
        one.append(tail)
        other.append(tail)
    first, second = "".join(one), "".join(other)
    if draw(st.booleans()) and len(second[:1].upper()) == 1:  # 'ŉ' upper is 'ʼN': two
        second = second[:1].upper() + second[1:]
    return first, second


@given(same_error())
def test_messages_that_differ_only_in_placeholders_and_values_normalise_equal(
        pair: tuple[str, str]) -> None:
    one, other = pair
    assert message_key(one) == message_key(other)
