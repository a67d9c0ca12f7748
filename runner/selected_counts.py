"""How many vectors of a vector file a selection's filters pick, remembered by the file's
SHA-256 and the filters: so that ``fairvec run`` need not read the files of the algorithms
a port does not declare only to count their skipped vectors.

A port's author runs the whole suite: the 12,000 vectors of the 50 algorithms a port of
three families does not declare were each read from their file's index, made a work, a
skip and a result, and counted, which took a fast port's run 45 to 60 ms (a fifth of it;
docs/benchmarks.md). Once the hello is in (runner/run.py looks before each file is
loaded), such a file is only counted from here, and its skips are made only if a report
lists them (runner/unread_skips.py).

Each run that loads a file whole remembers its count here, with the file's number of
vectors. Best effort and trusted as the other caches (fairvec.vectorfiles): a malformed
entry is a miss, an unwritable cache no error; a count found wrong when the file is read
after all (a report, the digest) stops the run with the way out (delete it).

But a run that writes no report never reads the file, and a count taken on trust there
changed its summary silently: counts set to 0 said "0 skipped" where 624 were, 10^18 said
"5000000000000000000 skipped", exit 0 (issue 34). So a count that cannot be true is a miss
too, and the file is read: what can be checked without reading it is checked (see
:func:`plausible`): the count against the file's number of vectors kept beside it, that
number against the file's size (known from its identity, fairvec.file_hashes), and the
entries of one file against each other. A count altered to another plausible value is
still only caught when the file is read; whoever can write the cache could as well edit
the installed package.
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

COUNTS_FORMAT = 2  # bump when what a count means changes (2: kept with the file's total)
COUNTS_KEPT = 1024  # entries: a suite's 84 files under a dozen filters
NAME = f"selected-counts-{COUNTS_FORMAT}.json"
# The fewest bytes a vector takes in a vector file: its six required keys, quoted, with
# the shortest values the schema allows, compact ({"id":"a.b/c","variant":null,"input":{},
# "expected":{"error":"x"},"tags":[],"provenance":...} is more than 64 bytes;
# tests/test_runner_unread.py checks it). A file of S bytes holds at most S // 64 vectors.
MIN_VECTOR_BYTES = 64

# A remembered entry: (the vectors the filters pick, the file's vectors)
Entry = tuple[int, int]


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


def picks_all(options: SelectionOptions) -> bool:
    """Whether the filters pick every vector of a file (none given)."""
    return not (options.keywords or options.tags or options.excluded_tags)


def plausible(entry: Entry, size: int, *, every: bool) -> bool:
    """Whether ``entry`` could be true of a file of ``size`` bytes: a count of 0 to the
    file's vectors, all of them when the filters pick ``every`` vector, of a file of at
    least one vector and at most as many as its size holds."""
    selected, total = entry
    if not 1 <= total <= size // MIN_VECTOR_BYTES:
        return False
    return selected == total if every else 0 <= selected <= total


class SelectedCounts:
    """The counts remembered for one selection's filters, by file SHA-256."""

    def __init__(
        self, path: Path | None, filters: str, entries: dict[str, Entry], *, every: bool = False
    ) -> None:
        self.path = path
        self.filters = filters
        self.entries = entries
        self.every = every  # the filters pick every vector (none given)
        self.changed = False

    @classmethod
    def open(cls, options: SelectionOptions) -> SelectedCounts:
        folder = cache_folder()
        filters = filters_key(options)
        every = picks_all(options)
        if folder is None:
            return cls(None, filters, {}, every=every)
        path = folder / NAME
        return cls(path, filters, _read_counts(path), every=every)

    def get(self, sha256: str, size: int) -> int | None:
        """The count remembered for the file of ``sha256`` and ``size`` bytes under these
        filters; None when none is, or the one remembered cannot be true."""
        entry = self.entries.get(f"{sha256}:{self.filters}")
        if entry is None or not plausible(entry, size, every=self.every):
            return None
        return entry[0]

    def add(self, sha256: str, count: int, total: int) -> None:
        """``count`` of the file's ``total`` vectors picked by these filters."""
        key = f"{sha256}:{self.filters}"
        entry = (count, total)
        if self.entries.get(key) == entry:
            return
        self.entries.pop(key, None)
        self.entries[key] = entry  # the newest last
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
            entries = {key: list(entry) for key, entry in self.entries.items()}
            value = {"format": COUNTS_FORMAT, "entries": entries}
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


def _read_counts(path: Path) -> dict[str, Entry]:
    """The well-formed entries, less those of any file whose entries disagree on its
    number of vectors (one of them, at least, is wrong)."""
    value: Any = read_cache(path)
    if not isinstance(value, dict) or value.get("format") != COUNTS_FORMAT:
        return {}
    entries = value.get("entries")
    if not isinstance(entries, dict):
        return {}
    kept: dict[str, Entry] = {}
    totals: dict[str, set[int]] = {}
    for key, entry in entries.items():
        if isinstance(key, str) and _well_formed(entry):
            kept[key] = (entry[0], entry[1])
            totals.setdefault(key.partition(":")[0], set()).add(entry[1])
    return {key: entry for key, entry in kept.items() if len(totals[key.partition(":")[0]]) == 1}


def _well_formed(entry: object) -> bool:
    """[selected, total]: two whole numbers (not true or 1.0), the first at most the second."""
    if not isinstance(entry, list) or len(entry) != 2:
        return False
    if not all(type(number) is int for number in entry):
        return False
    selected: int = entry[0]
    total: int = entry[1]
    return 0 <= selected <= total
