"""Which messages are "the same error": equal once their placeholders and values are left out.

Records of different repositories often raise one message with different placeholder names
(``Unknown mode: {mode}``, ``unknown mode: %s``, ``Unknown mode: '{0}'``). As Sentry groups
events, a message is reduced to a key in which every variable part is one mark:

- placeholders: ``{mode}``, ``{}``, ``{0}``, ``{0:#04x}``, ``{x!r}``, ``${x}``, ``%s``, ``%d``,
  ``%-5.2f``, ``%(name)s``, Go's ``%v`` / ``%q`` / ``%w``;
- values: numbers (``3``, ``1.5``, ``0x1f``, ``5`` of ``5ms``; not the digits of a word such
  as ``fp16``) and
  quoted text (``'...'``, ``"..."``, backticks, curly quotes; a quote that follows a letter,
  as in ``can't``, opens nothing);
- blanks are collapsed, marks next to each other count as one, and the case of the first
  character is ignored.

Normalising is idempotent (a key is its own key): a Hypothesis test checks it.
"""

from __future__ import annotations

import re

MARK = "\ue000"
"""Stands for one variable part in a key: a private-use character, which no message shows."""
SHOWN_MARK = "…"
"""What a variable part looks like in a family's label."""

_QUOTED = "|".join(f"{open_}[^{close}\\n]{{0,200}}{close}" for open_, close in
                   (("'", "'"), ('"', '"'), ("`", "`"), ("‘", "’"), ("“", "”")))
_VARIABLE = re.compile(
    # Every part below starts with one of these: most positions of a message fail here, at
    # once, instead of trying each part (a third of the time of a key).
    r"(?=['\"`‘“${%\d])(?:"
    rf"(?<!\w)(?:{_QUOTED})(?!\w)"  # a quoted value
    r"|\$?\{[^{}\n]{0,80}\}"  # {name}, {}, {0}, {0:#04x}, ${x}
    r"|%(?:\([^()\n]{1,40}\))?[-+#0]*(?:\*|\d+)?(?:\.(?:\*|\d+))?(?:hh|h|ll|l|L|q|j|z|t)?"
    r"[diouxXeEfFgGcrsaApvqwTb]"  # printf: %s, %5.2f, %(name)s, %v
    r"|(?<![\w.])(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d+)*)"  # a number, maybe with a unit (5ms)
    r")"
)
_MARKS = re.compile(f"{MARK}+")


def message_key(message: str) -> str:
    """The key records raising "the same error" share (see the module's docstring)."""
    text = " ".join(message.split())
    # The first character's case is folded before masking: folding it after could change
    # what follows it ('İ' lowers to 'i' and a combining dot) and normalising would not be
    # idempotent.
    return _masked(fold_case(text[:1]) + text[1:])


def fold_case(char: str) -> str:
    """One character without its case: lower-upper-lower maps 'I', 'i' and 'ı' alike (lower()
    and casefold() keep 'ı' apart), and its first character folds to itself, for every code
    point (a test checks all of them), so folding twice changes nothing."""
    return char.lower().upper().lower()


def family_label(message: str) -> str:
    """``message`` as a family's title shows it: each variable part as "…", case kept."""
    return _masked(" ".join(message.split())).replace(MARK, SHOWN_MARK)


def _masked(text: str) -> str:
    """Every variable part of ``text`` (blanks collapsed) replaced by :data:`MARK`, until none
    is left (a quoted value can follow a number only one pass made a mark, ``5'x'``). Each
    pass that changes something turns characters other than marks into fewer marks, so it
    ends."""
    while True:
        masked = _VARIABLE.sub(MARK, text)
        if MARK + MARK in masked:
            masked = _MARKS.sub(MARK, masked)
        if masked == text:
            return masked
        text = masked
