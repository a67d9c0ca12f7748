"""Which mutants a run judges: a shard of them (``--shard K/N``), and, incrementally,
only those in code changed since a base revision (``--since REV``)."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)


class ScopeError(Exception):
    """A shard or base revision that cannot be used: one line for the user."""


@dataclass(frozen=True)
class Settings:
    """What one run of either port's campaign judges, and where (mutation/cli.py)."""

    repo: Path
    work: Path
    vectors: Path
    fuzz_seed: int
    fuzz_count: int
    shard: Shard | None
    since: str | None
    sample: int | None = None  # only the first N mutants of each Python file (the tests')
    # only these mutants, by the report's key (--mutant: re-judging chosen mutants)
    mutants: frozenset[str] | None = None
    # the Python campaign's stop and restart (--stop-after, --resume): the time.monotonic()
    # at which judging stops, and whether a session already in the work folder goes on
    deadline: float | None = None
    resume: bool = False
    source: str = ""  # the source digest (mutation/cli.py): a resumed session must match it

    def chooses(self, key: str) -> bool:
        return self.mutants is None or key in self.mutants


@dataclass(frozen=True)
class Shard:
    index: int  # 1 to count
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def takes(self, position: int) -> bool:
        """Mutant number ``position`` (0, 1, 2... in the tool's own fixed order) belongs to
        this shard: round robin, so every shard gets a share of every file."""
        return position % self.count == self.index - 1


def parse_shard(text: str) -> Shard:
    try:
        index, count = (int(part) for part in text.split("/"))
    except ValueError:
        raise ScopeError(f"--shard {text}: give K/N, e.g. --shard 2/8") from None
    if not 1 <= index <= count:
        raise ScopeError(f"--shard {text}: K must be 1 to N, e.g. --shard 1/{max(count, 1)}")
    return Shard(index, count)


def changed_lines(repo: Path, base: str, path: str) -> set[int]:
    """The lines of ``path`` (as it is now) added or changed since ``base``; where lines
    were only removed, the line after the removal (the code now standing there)."""
    finished = subprocess.run(
        ["git", "diff", "--no-color", "-U0", base, "--", path],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    if finished.returncode != 0:
        detail = finished.stderr.strip().splitlines()[:1]
        raise ScopeError(f"--since {base}: git diff failed ({' '.join(detail)}); give a revision")
    lines: set[int] = set()
    for match in HUNK.finditer(finished.stdout):
        start, count = int(match.group(1)), int(match.group(2) or "1")
        lines.update(range(start, start + max(count, 1)))
    return lines


def touches(lines: set[int] | None, first: int, last: int) -> bool:
    """Whether a mutant spanning lines first..last lies in changed code (None: every
    mutant does, a full run)."""
    return lines is None or any(line in lines for line in range(first, last + 1))


def line_ranges(lines: set[int]) -> list[tuple[int, int]]:
    """Consecutive lines as (first, last) ranges: Stryker's ``file:first-last``."""
    ranges: list[tuple[int, int]] = []
    for line in sorted(lines):
        if ranges and ranges[-1][1] == line - 1:
            ranges[-1] = (ranges[-1][0], line)
        else:
            ranges.append((line, line))
    return ranges


def key_place(key: str) -> tuple[str, str, int]:
    """A report key's port, file and line (``port:file:line:column:mutator:digest``)."""
    parts = key.split(":")
    if len(parts) < 6 or not parts[2].isdigit():
        raise ScopeError(
            f"--mutant {key}: not a mutant key (port:file:line:column:mutator:..., as the "
            "report lists them)"
        )
    return parts[0], parts[1], int(parts[2])
