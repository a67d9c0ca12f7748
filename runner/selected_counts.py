"""How many vectors of a vector file a selection's filters pick, remembered by the file's
SHA-256 and the filters: so that ``fairvec run`` need not read the files of the algorithms
a port does not declare only to count their skipped vectors.

A port's author runs the whole suite: the 12,000 vectors of the 50 algorithms a port of
three families does not declare were each read from their file's index, made a work, a
skip and a result, and counted, which took a fast port's run 45 to 60 ms (a fifth of it;
docs/benchmarks.md). Once the hello is in (runner/run.py looks before each file is
loaded), such a file is only counted from here, and its skips are made only if a report
lists them (runner/unread_skips.py).

Each run that loads a file whole remembers its count here. Best effort and trusted as the
other caches (fairvec.vectorfiles): a malformed entry is a miss, an unwritable cache no
error; a count found wrong when the file is read after all (a report, the digest) stops
the run with the way out (delete it).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path
from typing import Any

from fairvec import __version__
from fairvec.errors import FairvecError
from fairvec.jsonio import write_atomically
from fairvec.runner.options import SelectionOptions
from fairvec.vectorfiles import cache_folder, read_cache

COUNTS_FORMAT = 1  # bump when what a count means changes
COUNTS_KEPT = 1024  # entries: a suite's 84 files under a dozen filters
NAME = f"selected-counts-{COUNTS_FORMAT}.json"


def filters_key(options: SelectionOptions) -> str:
    """What of the selection decides which of a file's vectors it picks (--algorithm picks
    whole files, and --tier only accumulated vectors): -k, --tag and --exclude-tag."""
    filters = {
        "fairvec": __version__,
        "keyword": list(options.keywords),
        "tag": sorted(options.tags),
        "exclude_tag": sorted(options.excluded_tags),
    }
    return hashlib.sha256(json.dumps(filters, sort_keys=True).encode()).hexdigest()[:32]


class SelectedCounts:
    """The counts remembered for one selection's filters, by file SHA-256."""

    def __init__(self, path: Path | None, filters: str, entries: dict[str, int]) -> None:
        self.path = path
        self.filters = filters
        self.entries = entries
        self.changed = False

    @classmethod
    def open(cls, options: SelectionOptions) -> SelectedCounts:
        folder = cache_folder()
        filters = filters_key(options)
        if folder is None:
            return cls(None, filters, {})
        path = folder / NAME
        return cls(path, filters, _read_counts(path))

    def get(self, sha256: str) -> int | None:
        """The count remembered for the file of ``sha256`` under these filters."""
        return self.entries.get(f"{sha256}:{self.filters}")

    def add(self, sha256: str, count: int) -> None:
        key = f"{sha256}:{self.filters}"
        if self.entries.get(key) == count:
            return
        self.entries.pop(key, None)
        self.entries[key] = count  # the newest last
        while len(self.entries) > COUNTS_KEPT:
            del self.entries[next(iter(self.entries))]
        self.changed = True

    def forget_all(self) -> None:
        """Drop every count, and save at once: one found wrong puts them all in doubt."""
        if self.entries:
            self.entries.clear()
            self.changed = True
            self.save()

    def save(self) -> None:
        if self.path is None or not self.changed:
            return
        with contextlib.suppress(OSError):
            value = {"format": COUNTS_FORMAT, "entries": self.entries}
            write_atomically(self.path, json.dumps(value))
        self.changed = False


def miscounted(path: Path, count: int, options: SelectionOptions) -> FairvecError:
    """The error for a file read after all whose selected vectors are not the ``count``
    the run went by: the file changed during the run, or the count was remembered wrong.
    Either way the run's counts cannot be trusted; every count is forgotten, so the next
    run reads the files and counts them again."""
    counts = SelectedCounts.open(options)
    counts.forget_all()
    return FairvecError(
        f"{path}: its selected vectors are not the {count} this run counted (the file "
        f"changed during the run, or {counts.path} was wrong; the counts are now "
        "forgotten): run again"
    )


def _read_counts(path: Path) -> dict[str, int]:
    value: Any = read_cache(path)
    if not isinstance(value, dict) or value.get("format") != COUNTS_FORMAT:
        return {}
    entries = value.get("entries")
    if not isinstance(entries, dict):
        return {}
    return {
        key: count
        for key, count in entries.items()
        if isinstance(key, str) and type(count) is int and count >= 0
    }
