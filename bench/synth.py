"""Seeded synthetic error records with realistic sizes and skew, for the benchmark.

Shape taken from the seed record (/work/shared/seed-record.json, ~5 KB of JSON): records per
repository are long-tailed (log-normal, median about 50), about 40 categories with skewed
weights, tags drawn from a Zipf-distributed vocabulary, excerpts of 20-40 lines in several
languages, prose and solutions of the seed's lengths. The same seed and N give the same bytes.

    python bench/synth.py N OUT.jsonl [--seed S]
"""

from __future__ import annotations

import argparse
import bisect
import hashlib
import itertools
import json
import math
import random
import sys
from collections.abc import Iterator
from pathlib import Path

WORDS = (  # noqa: SIM905 - one string reads better than 60 quoted words
    "buffer cache config device tensor worker token request session schema index stream "
    "socket thread queue batch model layer handle context module plugin driver kernel shard "
    "replica cluster router table column record field value vector matrix packet channel "
    "lock mutex signal frame parser lexer encoder decoder client server backend frontend "
    "scheduler executor runtime compiler allocator manifest registry resource account user"
).split()
VERBS = ("load", "parse", "decode", "open", "resolve", "allocate", "register", "fetch",
         "validate", "convert", "dispatch", "connect", "serialize", "initialize", "commit")
CLASSES = ("ValueError", "TypeError", "KeyError", "RuntimeError", "IOError", "Error",
           "IllegalArgumentException", "IllegalStateException", "NotImplementedError",
           "AssertionError", "panic", "std::runtime_error")
ERROR_TYPES = ("validation", "runtime", "configuration", "io", "network", "state", "internal")
PROSE = (*WORDS, *VERBS, "the", "a", "when", "is")
SEVERITIES = ("error", "error", "error", "warning", "fatal")
STRATEGIES = ("type-guard", "validate-input", "retry", "fail-fast", "fallback")
CATEGORIES = tuple(f"{a}-{b}" for a, b in itertools.product(
    ("invalid", "missing", "unsupported", "unhandled", "corrupt", "stale", "mismatched",
     "exceeded"),
    ("input", "config", "state", "dispatch-case", "dependency")))  # 40 categories

LANGUAGES = {  # extension: (comment, raise statement, statement templates)
    "py": ("#", 'raise {cls}(f"{msg}")', ("{a} = self.{b}({c})", "if {a} is None:",
                                          "    return {b}", "for {a} in {b}:",
                                          "{a}.append({b}[{c}])", "self.{a} = {b}")),
    "js": ("//", "throw new Error(`{msg}`);", ("const {a} = this.{b}({c});", "if (!{a}) {{",
                                              "  return {b};", "}}", "for (const {a} of {b}) {{",
                                              "{a}.push({b}[{c}]);")),
    "ts": ("//", "throw new TypeError(`{msg}`);", ("const {a}: number = {b}({c});",
                                                   "if ({a} === undefined) {{", "  return {b};",
                                                   "}}", "let {a} = await {b}.{c}();")),
    "go": ("//", 'return fmt.Errorf("{msg}")', ("{a}, err := {b}({c})", "if err != nil {{",
                                                "\treturn nil, err", "}}", "{a} := {b}[{c}]")),
    "rs": ("//", 'return Err(anyhow!("{msg}"));', ("let {a} = self.{b}(&{c})?;",
                                                   "if {a}.is_empty() {{", "    return Ok({b});",
                                                   "}}", "let mut {a} = Vec::new();")),
    "java": ("//", 'throw new {cls}("{msg}");', ("final var {a} = this.{b}({c});",
                                                 "if ({a} == null) {{", "    return {b};", "}}",
                                                 "for (var {a} : {b}) {{")),
}


class Synth:
    """Draws records; every choice comes from one seeded ``random.Random``."""

    def __init__(self, n: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.n = n
        self.seed = seed
        vocabulary = 300 + int(15 * math.sqrt(n))  # grows slowly with the dataset, as real tags do
        self.tags = [self._tag(i) for i in range(vocabulary)]
        self.tag_cdf = _cdf([1 / (rank + 1) ** 1.1 for rank in range(vocabulary)])
        self.category_cdf = _cdf([1 / (rank + 1) ** 0.8 for rank in range(len(CATEGORIES))])

    def records(self) -> Iterator[dict[str, object]]:
        """N records, repository by repository."""
        produced = 0
        for repo_number in itertools.count():
            size = min(self.n - produced, self._repo_size())
            repo = self._repo_name(repo_number)
            for _ in range(size):
                yield self.record(produced, repo)
                produced += 1
            if produced >= self.n:
                return

    def record(self, index: int, repo: str) -> dict[str, object]:
        rng = self.rng
        ext = rng.choice(tuple(LANGUAGES))
        subject, verb = rng.choice(WORDS), rng.choice(VERBS)
        message = f"Failed to {verb} {subject} {{{rng.choice(WORDS)}}}: {rng.choice(WORDS)} " \
                  f"{rng.choice(('is invalid', 'not found', 'out of range', 'unsupported'))}"
        cls = rng.choice(CLASSES)
        start = rng.randint(1, 2000)
        lines, raise_at = self._excerpt(ext, message, cls)
        sha = hashlib.sha1(f"{self.seed}-{repo}".encode()).hexdigest()
        path = f"{'/'.join(rng.sample(WORDS, rng.randint(1, 3)))}/{subject}_{verb}.{ext}"
        end = start + len(lines) - 1
        return {"record": {
            "id": hashlib.sha256(f"{self.seed}:{index}".encode()).hexdigest()[:16],
            "repo": repo,
            "slug": f"failed-to-{verb}-{subject}-{index % 7}",
            "errorCode": None,
            "errorMessage": message,
            "messagePattern": f"Failed to {verb} {subject} (.+?): .+",
            "errorType": rng.choice(ERROR_TYPES),
            "errorClass": cls,
            "httpStatus": rng.choice((None, None, None, 400, 404, 500)),
            "severity": rng.choice(SEVERITIES),
            "filePath": path,
            "lineNumber": start + raise_at,
            "sourceCode": "\n".join(lines),
            "sourceCodeStart": start,
            "sourceCodeEnd": end,
            "githubUrl": f"https://github.com/{repo}/blob/{sha}/{path}#L{start}-L{end}",
            "documentation": self._prose(300, 380),
            "triggerScenarios": self._prose(220, 300),
            "commonSituations": self._prose(150, 220),
            "solutions": [self._prose(70, 150) for _ in range(rng.randint(2, 5))],
            "exampleFix": self._code(ext, message, cls, 4, 8),
            "handlingStrategy": rng.choice(STRATEGIES),
            "validationCode": self._code(ext, message, cls, 2, 3),
            "typeGuard": self._code(ext, message, cls, 2, 3),
            "tryCatchPattern": self._code(ext, message, cls, 4, 6),
            "preventionTips": [self._prose(50, 90) for _ in range(rng.randint(2, 4))],
            "tags": self._record_tags(),
            "backgroundTag": CATEGORIES[bisect.bisect(self.category_cdf, rng.random())],
            "analyzedSha": sha,
            "analyzedAt": f"2026-{rng.randint(1, 8):02d}-{rng.randint(1, 28):02d}T"
                          f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00.000Z",
            "schemaVersion": 2,
        }, "datasetVersion": "2026-08-28T06:17:29.519Z"}

    def _repo_size(self) -> int:
        # Log-normal: median 50, a long tail of big repositories, many small ones.
        return max(1, min(3000, round(self.rng.lognormvariate(math.log(50), 1.1))))

    def _repo_name(self, number: int) -> str:
        return f"{self.rng.choice(WORDS)}-org{number % 997}/{self.rng.choice(WORDS)}-{number}"

    def _tag(self, rank: int) -> str:
        word = WORDS[rank % len(WORDS)]
        return word if rank < len(WORDS) else f"{word}-{rank // len(WORDS)}"

    def _record_tags(self) -> list[str]:
        count = self.rng.randint(2, 6)
        return list(dict.fromkeys(self.tags[bisect.bisect(self.tag_cdf, self.rng.random())]
                                  for _ in range(count)))

    def _prose(self, low: int, high: int) -> str:
        target = self.rng.randint(low, high)
        words: list[str] = []
        length = 0
        while length < target:
            word = self.rng.choice(PROSE)
            words.append(word)
            length += len(word) + 1
        return " ".join(words).capitalize() + "."

    def _excerpt(self, ext: str, message: str, cls: str) -> tuple[list[str], int]:
        count = self.rng.randint(20, 40)
        lines = self._statements(ext, count)
        raise_at = self.rng.randint(count // 3, count - 3)
        lines[raise_at] = "    " + LANGUAGES[ext][1].format(cls=cls, msg=message)
        return lines, raise_at

    def _code(self, ext: str, message: str, cls: str, low: int, high: int) -> str:
        comment = LANGUAGES[ext][0]
        lines = [f"{comment} {self._prose(20, 40)}"]
        lines += self._statements(ext, self.rng.randint(low, high))
        return "\n".join(lines)

    def _statements(self, ext: str, count: int) -> list[str]:
        templates = LANGUAGES[ext][2]
        rng = self.rng
        return ["    " * rng.randint(0, 2) + rng.choice(templates).format(
            a=rng.choice(WORDS), b=f"{rng.choice(WORDS)}_{rng.choice(WORDS)}",
            c=f"{rng.choice(WORDS)}, {rng.choice(WORDS)}_{rng.choice(VERBS)}")
            for _ in range(count)]


def _cdf(weights: list[float]) -> list[float]:
    total = sum(weights)
    return list(itertools.accumulate(w / total for w in weights))


def write(n: int, out: Path, seed: int = 1) -> Path:
    """Write N records as JSON Lines (the producer's format) to ``out``."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as handle:
        for record in Synth(n, seed).records():
            handle.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int)
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    write(args.n, args.out, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
