"""Whether a pattern can make a backtracking engine (the browser's) take exponential time.

A backtracking matcher tries every way a pattern can match a text before it says no. When a
repeated part can match the same text in two ways (``(a+)+``: one ``a+`` of two letters, or two
of one; ``(a|aa)+``; ``(\\w+\\s?)*``), the ways multiply with each repeat: a near-miss of 30
characters takes seconds, of 40 hours. The browser runs each record's pattern against what a
reader pastes, so such a pattern is found here, when the site is built, and left out of the
browser's data (the record is matched by its message template there).

The test is the classic one for *exponential degree of ambiguity* (Allauzen, Mohri and
Rastogi 2008; Weideman et al. 2016, who showed it predicts backtracking blow-up): a state of the
pattern's automaton that two different paths of the same text lead back to. The automaton is
the position (Glushkov) automaton of Python's parse tree with its transitions *counted* (an
``a`` of ``(a+)+`` follows itself in two ways: the inner repeat and the outer one), and two
paths of the same text are found in its product with itself: the pattern is ambiguous so
iff a strongly connected part of the product holds a pair (q, q) and a step taken in two
different ways.

Bounded repeats count as unbounded (``(.*a){12}`` as ``(.*a)+``): its 12 nested choices
already cost a near-miss of 1,000 characters 10^30 steps. Polynomial cases (``.*.*``,
``(.*) in (.*)``) are not flagged: with messages cut to 1,000 characters a square costs about a
million steps, and the browser's time budget bounds the rest (see ``lookup.js``).
Character sets are exact for ASCII and for Python's ``\\d``, ``\\w`` and ``\\s``;
case-insensitive overlap is taken generously (a flag too many costs a record its pattern in
the browser, never a freeze).
"""

from __future__ import annotations

import array
import re
import re._constants as sre  # opcodes of the parse tree (see patterns.py)
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache

from errdocs.lookup.patterns import Argument, Item, SubPattern, children

Intervals = tuple[tuple[int, int], ...]
"""A set of code points, as sorted disjoint ``(low, high)`` ranges."""
MAX_CODE = 0x10FFFF
MAX_PAIRS = 200_000
"""Pairs of positions explored at most; a pattern needing more is flagged (none of the kind
seen in real data comes near)."""
_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT)
_CONTAINERS = frozenset({*_REPEATS, sre.SUBPATTERN, sre.BRANCH, sre.ASSERT, sre.ASSERT_NOT,
                         sre.ATOMIC_GROUP, sre.GROUPREF_EXISTS})
"""Items holding sequences."""


def exponential(tree: SubPattern) -> bool:
    """Whether a backtracking engine can take exponential time matching the parsed pattern
    (see the module's docstring)."""
    bodies = [list(tree)]
    while bodies:
        items = bodies.pop()
        if _may_loop_ambiguously(items):
            automaton = _Automaton()
            automaton.fragment(items, tree.state.flags)
            if automaton.ambiguous():
                return True
        bodies.extend(_assertion_bodies(items))
    return False


def _may_loop_ambiguously(items: list[Item]) -> bool:
    """Cheap pre-check: only a repeat of more than one character matcher can be ambiguous."""
    for op, av in items:
        if op not in _CONTAINERS:
            continue  # most items are literal characters
        if op in _REPEATS:
            _low, high, sub = av
            body = list(sub)
            if high not in (0, 1) and not (len(body) == 1 and body[0][0] in _ATOMS):
                return True
        if any(_may_loop_ambiguously(list(child)) for child in children(op, av)):
            return True
    return False


def _assertion_bodies(items: list[Item]) -> list[list[Item]]:
    """Look-around bodies, each matched on its own (they are zero-width in the automaton)."""
    found: list[list[Item]] = []
    for op, av in items:
        if op not in _CONTAINERS:
            continue
        if op in (sre.ASSERT, sre.ASSERT_NOT):
            found.append(list(av[1]))
        for child in children(op, av):
            found.extend(_assertion_bodies(list(child)))
    return found


_ATOMS = (sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN)

Counts = dict[int, int]
"""Positions with the number of ways (1, or 2 for "more than one") to reach them."""


@dataclass
class _Fragment:
    first: Counts
    last: Counts
    nullable: bool


@dataclass
class _Automaton:
    """Positions (character matchers) with their character sets and counted transitions."""

    labels: list[Intervals] = field(default_factory=list)
    follow: defaultdict[int, Counts] = field(default_factory=lambda: defaultdict(dict))

    def fragment(self, items: list[Item], flags: int) -> _Fragment:
        """Add a sequence's positions; its first and last positions."""
        result = _Fragment({}, {}, True)
        for op, av in items:
            result = self._concat(result, self._item(op, av, flags))
        return result

    def _item(self, op: object, av: Argument, flags: int) -> _Fragment:
        if op in _ATOMS:
            self.labels.append(_label(op, av, flags))
            position = len(self.labels) - 1
            return _Fragment({position: 1}, {position: 1}, False)
        if op is sre.SUBPATTERN:
            _number, add, remove, sub = av
            return self.fragment(list(sub), (flags | add) & ~remove)
        if op is sre.ATOMIC_GROUP:
            return self.fragment(list(av), flags)
        if op is sre.BRANCH:
            return self._either([self.fragment(list(b), flags) for b in av[1]])
        if op is sre.GROUPREF_EXISTS:
            arms = [self.fragment(list(a), flags) for a in av[1:] if a is not None]
            return self._either(arms + [_Fragment({}, {}, True)] * (len(arms) < 2))
        if op in _REPEATS:
            return self._repeat(av, flags)
        if op is sre.GROUPREF:  # any text, of any length: a repeated "anything"
            return self._repeat((0, sre.MAXREPEAT, [(sre.ANY, None)]), sre.SRE_FLAG_DOTALL)
        return _Fragment({}, {}, True)  # zero-width: anchors, look-around

    def _repeat(self, av: Argument, flags: int) -> _Fragment:
        low, high, sub = av
        if high == 0:
            return _Fragment({}, {}, True)
        body = self.fragment(list(sub), flags)
        if high != 1:  # {2,5} like +: see the module's docstring
            self._link(body.last, body.first)
        return _Fragment(body.first, body.last, body.nullable or low == 0)

    def _concat(self, left: _Fragment, right: _Fragment) -> _Fragment:
        self._link(left.last, right.first)
        first = _merge(left.first, right.first) if left.nullable else left.first
        last = _merge(right.last, left.last) if right.nullable else right.last
        return _Fragment(first, last, left.nullable and right.nullable)

    @staticmethod
    def _either(arms: list[_Fragment]) -> _Fragment:
        first: Counts = {}
        last: Counts = {}
        for arm in arms:
            first, last = _merge(first, arm.first), _merge(last, arm.last)
        return _Fragment(first, last, any(a.nullable for a in arms))

    def _link(self, sources: Counts, targets: Counts) -> None:
        for source, ways in sources.items():
            edges = self.follow[source]
            for target, more in targets.items():
                edges[target] = min(2, edges.get(target, 0) + ways * more)

    def ambiguous(self) -> bool:
        """Whether two different paths spelling the same text lead from a position back to
        it (see the module's docstring)."""
        graph: dict[tuple[int, int], list[tuple[tuple[int, int], bool]]] = {}
        todo = [(p, p) for p in range(len(self.labels))]
        for node in todo:
            graph.setdefault(node, [])
        while todo:
            node = todo.pop()
            if len(graph) > MAX_PAIRS:
                return True
            p, q = node
            for p2, ways_p in self.follow[p].items():
                for q2, ways_q in self.follow[q].items():
                    if not _overlap(self.labels[p2], self.labels[q2]):
                        continue
                    distinct = p != q or p2 != q2 or min(ways_p, ways_q) > 1
                    target = (p2, q2)
                    graph[node].append((target, distinct))
                    if target not in graph:
                        graph[target] = []
                        todo.append(target)
        component = _components(graph)
        has_diagonal = {component[(p, q)] for (p, q) in graph if p == q}
        return any(distinct and component[node] == component[target]
                   and component[node] in has_diagonal
                   for node, edges in graph.items() for target, distinct in edges)


def _merge(a: Counts, b: Counts) -> Counts:
    merged = dict(a)
    for key, ways in b.items():
        merged[key] = min(2, merged.get(key, 0) + ways)
    return merged


def _components(graph: dict[tuple[int, int], list[tuple[tuple[int, int], bool]]]
                ) -> dict[tuple[int, int], int]:
    """Strongly connected components (Tarjan's algorithm, without recursion)."""
    index: dict[tuple[int, int], int] = {}
    low: dict[tuple[int, int], int] = {}
    component: dict[tuple[int, int], int] = {}
    stack: list[tuple[int, int]] = []
    on_stack: set[tuple[int, int]] = set()
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, edge = work.pop()
            if edge == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            edges = graph[node]
            if edge < len(edges):
                work.append((node, edge + 1))
                target = edges[edge][0]
                if target not in index:
                    work.append((target, 0))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            if low[node] == index[node]:
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component[member] = index[node]
                    if member == node:
                        break
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return component


# ---- character sets ------------------------------------------------------------------------

def _label(op: object, av: Argument, flags: int) -> Intervals:
    """The characters one matcher of the parse tree accepts."""
    ignore_case = bool(flags & sre.SRE_FLAG_IGNORECASE)
    if op is sre.LITERAL:
        return _cased(((av, av),), ignore_case)
    if op is sre.NOT_LITERAL:
        return _complement(_cased(((av, av),), ignore_case))
    if op is sre.ANY:
        return ((0, MAX_CODE),) if flags & sre.SRE_FLAG_DOTALL else ((0, 9), (11, MAX_CODE))
    items = list(av)
    negate = bool(items) and items[0][0] is sre.NEGATE
    ranges: list[tuple[int, int]] = []
    for member, value in items[1:] if negate else items:
        if member is sre.LITERAL:
            ranges.append((value, value))
        elif member is sre.RANGE:
            ranges.append(value)
        elif member is sre.CATEGORY:
            ranges.extend(_category(value, bool(flags & sre.SRE_FLAG_ASCII)))
    found = _cased(_normal(ranges), ignore_case)
    return _complement(found) if negate else found


def _category(category: object, ascii_only: bool) -> Intervals:
    positive = {sre.CATEGORY_DIGIT: r"\d", sre.CATEGORY_WORD: r"\w", sre.CATEGORY_SPACE: r"\s",
                sre.CATEGORY_NOT_DIGIT: r"\D", sre.CATEGORY_NOT_WORD: r"\W",
                sre.CATEGORY_NOT_SPACE: r"\S"}[category]
    return _class_of(positive, ascii_only)


@lru_cache(maxsize=12)
def _class_of(source: str, ascii_only: bool) -> Intervals:
    """Python's own ``\\d``, ``\\w``, ``\\s`` (or their complements), found by running them
    over every code point once."""
    compiled = re.compile(source + "+", re.ASCII if ascii_only else 0)
    return tuple((m.start(), m.end() - 1) for m in compiled.finditer(_every()))


@lru_cache(maxsize=1)
def _every() -> str:
    """Every code point, in order (so a character's index is its code point)."""
    codes = array.array("I", range(MAX_CODE + 1))
    return codes.tobytes().decode("utf-32-le" if sys.byteorder == "little" else "utf-32-be",
                                  "surrogatepass")


def _cased(ranges: Intervals, ignore_case: bool) -> Intervals:
    """``ranges`` with the other case of their ASCII letters, and of other letters when the
    range is short (generous: see the module's docstring)."""
    if not ignore_case:
        return ranges
    extra: list[tuple[int, int]] = list(ranges)
    for low, high in ranges:
        for start, end, shift in ((65, 90, 32), (97, 122, -32)):
            if low <= end and high >= start:
                extra.append((max(low, start) + shift, min(high, end) + shift))
        if high >= 128 and high - low < 256:
            for code in range(max(low, 128), high + 1):
                for other in {chr(code).lower(), chr(code).upper()}:
                    if len(other) == 1:
                        extra.append((ord(other), ord(other)))
    return _normal(extra)


def _normal(ranges: list[tuple[int, int]] | Intervals) -> Intervals:
    merged: list[tuple[int, int]] = []
    for low, high in sorted(ranges):
        if merged and low <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    return tuple(merged)


def _complement(ranges: Intervals) -> Intervals:
    out: list[tuple[int, int]] = []
    start = 0
    for low, high in ranges:
        if low > start:
            out.append((start, low - 1))
        start = high + 1
    if start <= MAX_CODE:
        out.append((start, MAX_CODE))
    return tuple(out)


def _overlap(a: Intervals, b: Intervals) -> bool:
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i][1] < b[j][0]:
            i += 1
        elif b[j][1] < a[i][0]:
            j += 1
        else:
            return True
    return False
