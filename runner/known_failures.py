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


def _literal_start(entry: str) -> str:
    """The part of ``entry`` before its first glob character (all of an id)."""
    cut = min((entry.find(c) for c in GLOB_CHARACTERS if c in entry), default=len(entry))
    return entry[:cut]


class KnownFailureIndex:
    """Finds the first entry (in file order) that lists a vector id. An id is looked up
    directly; a glob is tried only on ids that begin with its literal start, and compiled
    the first time it is tried."""

    def __init__(self, entries: Iterable[KnownFailure]) -> None:
        self._ids: dict[str, KnownFailure] = {}
        self._globs: dict[str, list[KnownFailure]] = {}  # by literal start, in file order
        seen: set[str] = set()
        for entry in entries:
            start = _literal_start(entry.entry)
            if start == entry.entry:
                self._ids.setdefault(entry.entry, entry)
            elif entry.entry not in seen:  # a glob listed twice matches as its first
                seen.add(entry.entry)
                self._globs.setdefault(start, []).append(entry)
        self._lengths = sorted({len(start) for start in self._globs})
        self._compiled: dict[str, re.Pattern[str]] = {}

    def find(self, vector_id: str) -> KnownFailure | None:
        found = self._ids.get(vector_id)
        for length in self._lengths:
            if length > len(vector_id):
                break
            for entry in self._globs.get(vector_id[:length], ()):
                if found is not None and entry.line > found.line:
                    break  # in file order: no later entry of this start can come first
                if self._pattern(entry.entry).match(vector_id):
                    found = entry
                    break
        return found

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
