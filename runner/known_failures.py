"""``--known-failures FILE``: vector ids (or globs) expected to fail, and how results are
matched against them (docs/adapter-protocol.md, "Known failures").

The file is a user's, written by hand or by a script, on any system: it is read as a
bounded regular file, a UTF-8 byte-order mark and CRLF line ends are accepted, and
matching costs about the same per vector whatever the file holds (a dictionary for ids,
and globs indexed by their literal start), so a list of 200,000 entries does not multiply
by the suite's 20,000 vectors.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from pathlib import Path

from fairvec.errors import FairvecError
from fairvec.regular_files import KNOWN_FAILURES_LIMIT, read_regular
from fairvec.runner.results import KnownFailure, Result

GLOB_CHARACTERS = "*?["
# Globs that begin with a wildcard are tried against every vector; more than this many
# would make matching cost (vectors x globs): 100 cost about 1 s over the whole suite.
# Ids, and globs with a literal start (an algorithm's id, say), cost next to nothing.
MAX_LEADING_WILDCARDS = 100


def read_known_failures(path: Path) -> list[KnownFailure]:
    """Entries ``ID-or-GLOB  # reason``, one a line; a line that is only a comment or
    blank is skipped."""
    option = f"--known-failures {path}"
    try:
        data = read_regular(path, "a known-failures list", KNOWN_FAILURES_LIMIT)
    except FairvecError as error:
        raise FairvecError(f"--known-failures {error}") from None
    try:
        text = data.decode("utf-8-sig")  # -sig: a byte-order mark (Windows editors) is dropped
    except UnicodeDecodeError as error:
        bad_line = data.count(b"\n", 0, error.start) + 1
        raise FairvecError(f"{option}:{bad_line}: not UTF-8 text; save it as UTF-8") from None
    entries = []
    # \n, \r\n and \r alike, and nothing else: splitlines() also broke lines at a form
    # feed or U+2028, so the line named in a message was not the editor's
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for number, line in enumerate(lines, 1):
        entry = _entry(option, number, line)
        if entry is not None:
            entries.append(entry)
    _check_leading_wildcards(option, entries)
    return entries


def _entry(option: str, number: int, line: str) -> KnownFailure | None:
    entry, _, reason = line.partition("#")
    entry = entry.strip()
    if not entry:
        return None
    if len(entry.split()) > 1:
        raise FairvecError(
            f"{option}:{number}: {entry!r} is more than one id; write one "
            "id or glob a line, then '# reason'"
        )
    if not entry.isprintable():  # a stray BOM or control character would match nothing
        raise FairvecError(
            f"{option}:{number}: {entry!r} holds an invisible or control character; "
            "remove it"
        )
    return KnownFailure(entry, reason.strip(), number)


def _check_leading_wildcards(option: str, entries: list[KnownFailure]) -> None:
    distinct = {entry.entry: entry for entry in reversed(entries)}  # each glob's first line
    leading = sorted(
        (entry for glob, entry in distinct.items() if _literal_start(glob) == ""),
        key=lambda entry: entry.line,
    )
    if len(leading) > MAX_LEADING_WILDCARDS:
        raise FairvecError(
            f"{option}: {len(leading):,} entries begin with a wildcard (the first on line "
            f"{leading[0].line}), more than {MAX_LEADING_WILDCARDS:,}; list the ids, or "
            "start each glob with its algorithm (e.g. 'casino.mines/*')"
        )


_GLOB_CHARACTER = re.compile(r"[*?[]")


def _literal_start(entry: str) -> str:
    """The part of ``entry`` before its first glob character (all of an id)."""
    found = _GLOB_CHARACTER.search(entry)
    return entry if found is None else entry[: found.start()]


# What separates a glob's literal runs: a wildcard, a class as fnmatch reads it (a "!" and a
# "]" right after the "[" belong to it), and a lone "[" or "]" (literal to fnmatch; ending a
# run here only makes the run shorter, never wrong)
_NOT_LITERAL = re.compile(r"[*?]|\[!?\]?[^\]]*\]|[\[\]]")


def _literal_runs(glob: str) -> list[str]:
    """The runs of ``glob`` that every id it matches holds verbatim, in order (the last is
    its literal end, empty when it ends with a wildcard or a class)."""
    return _NOT_LITERAL.split(glob)


class _Globs:
    """The globs sharing one literal start (in file order), indexed again by what follows
    it, the first time an id with that start is looked up and only when there are more
    than a few: by their literal end (an id is looked up by its own ends:
    ``casino.mines/*-17``) or their longest inner run when that is longer (looked up by the
    id's substrings of those lengths: ``casino.mines/*-17-*``), else tried on every id of
    that start (``casino.mines/*``). 200,000 globs of a few algorithms then cost a few
    lookups an id, not 200,000 matches (issue 34: 84 s before)."""

    FEW = 8  # globs tried one by one without an index: cheaper than building it

    def __init__(self, start: str) -> None:
        self.start = start
        self.entries: list[KnownFailure] = []
        self._ends: dict[str, list[KnownFailure]] | None = None  # None: not indexed yet
        self._inner: dict[str, list[KnownFailure]] = {}
        self._loose: list[KnownFailure] = []

    def candidates(self, vector_id: str) -> list[list[KnownFailure]]:
        """The lists (each in file order) that may hold a glob matching ``vector_id``."""
        if len(self.entries) <= self.FEW:
            return [self.entries]
        if self._ends is None:
            self._index()
        assert self._ends is not None
        found = [self._loose] if self._loose else []
        start, size = len(self.start), len(vector_id)
        for length in self._end_lengths:
            if length > size - start:
                break
            listed = self._ends.get(vector_id[size - length :])
            if listed is not None:
                found.append(listed)
        for length in self._inner_lengths:
            if length > size - start:
                break
            runs = {vector_id[at : at + length] for at in range(start, size - length + 1)}
            found += [self._inner[run] for run in runs if run in self._inner]
        return found

    def _index(self) -> None:
        self._ends = {}
        for entry in self.entries:
            runs = _literal_runs(entry.entry[len(self.start) :])
            end, longest = runs[-1], max(runs[:-1], key=len)
            if end and len(end) >= len(longest):  # the longer key: fewer globs share it
                self._ends.setdefault(end, []).append(entry)
            elif longest:
                self._inner.setdefault(longest, []).append(entry)
            else:
                self._loose.append(entry)
        self._end_lengths = sorted(set(map(len, self._ends)))
        self._inner_lengths = sorted(set(map(len, self._inner)))


class KnownFailureIndex:
    """Finds the first entry (in file order) that lists a vector id. An id is looked up
    directly; a glob is tried only on ids that begin with its literal start and hold what
    _Globs indexes it by, and compiled the first time it is tried."""

    def __init__(self, entries: Iterable[KnownFailure]) -> None:
        self._ids: dict[str, KnownFailure] = {}
        self._globs: dict[str, _Globs] = {}  # by literal start
        seen: set[str] = set()
        for entry in entries:
            start = _literal_start(entry.entry)
            if start == entry.entry:
                self._ids.setdefault(entry.entry, entry)
            elif entry.entry not in seen:  # a glob listed twice matches as its first
                seen.add(entry.entry)
                globs = self._globs.get(start)
                if globs is None:
                    globs = self._globs[start] = _Globs(start)
                globs.entries.append(entry)
        self._lengths = sorted({len(start) for start in self._globs})
        self._compiled: dict[str, re.Pattern[str]] = {}

    def find(self, vector_id: str) -> KnownFailure | None:
        found = self._ids.get(vector_id)
        for length in self._lengths:
            if length > len(vector_id):
                break
            globs = self._globs.get(vector_id[:length])
            if globs is None:
                continue
            for listed in globs.candidates(vector_id):
                found = self._first_match(listed, vector_id, found)
        return found

    def _first_match(
        self, listed: list[KnownFailure], vector_id: str, found: KnownFailure | None
    ) -> KnownFailure | None:
        """``found``, or the first entry of ``listed`` matching ``vector_id`` that comes
        before it in the file."""
        for entry in listed:
            if found is not None and entry.line > found.line:
                break  # in file order: no later entry of this list can come first
            if self._pattern(entry.entry).match(vector_id):
                return entry
        return found

    @property
    def globs_tried(self) -> int:
        """How many distinct globs some lookup has matched an id against (each is compiled
        once, when first tried): what the index saves, counted (tests/test_known_failures.py)."""
        return len(self._compiled)

    def _pattern(self, glob: str) -> re.Pattern[str]:
        pattern = self._compiled.get(glob)
        if pattern is None:
            pattern = self._compiled[glob] = re.compile(fnmatch.translate(glob))
        return pattern


def apply_known_failures(results: list[Result], known: list[KnownFailure]) -> None:
    """Each matched vector is judged on its own (docs/adapter-protocol.md, Known failures):
    a glob is shorthand for the ids it matches, so a passing one is an unexpected pass."""
    if not known:
        return
    index = KnownFailureIndex(known)
    for result in results:
        entry = index.find(result.id)
        if entry is None:
            continue
        result.known = entry
        if result.status in ("fail", "error"):
            result.known_failure = True
        elif result.status == "pass":
            result.unexpected_pass = True
