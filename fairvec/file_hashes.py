"""The SHA-256 of vector files hashed before, remembered by each file's identity on disk, so
that a run need not read a file only to name it.

A run keys its caches (validation, index, digests) by every vector file's SHA-256, and most
runs of a port load a few files whole and only name the other eighty: reading and hashing
the suite's 23 MB for that was a fifth of a fast port's run. So the hash of a file is
remembered with the file's identity: its device, inode, size, modification and change
times (in nanoseconds), as git's index and make do; a file whose identity is unchanged is
taken to hold the bytes it held. Writing a file changes its modification and change times
(the change time cannot be set back by any user's tool), replacing it changes its inode.

Racily clean files (git's term): a clock ticks every few milliseconds, so a file written
twice in one tick keeps its times. A hash is therefore remembered only for a file whose
times are at least SETTLED_NS older than the moment its reading began: any later write is
stamped after that moment, so its times differ from the remembered ones.

Whatever is filled (sent and judged) is read whole anyway, and its bytes are checked
against the remembered hash (vectorfiles.VectorFile.fill); a file sent from remembered
request lines alone is read and checked on a thread (runner/answer_memo.py). So a stale
entry can only misname a file the run skips or digests, or stop the run; and whoever can
write the cache could as well edit the installed package (the trust of every cache here:
fairvec.vectorfiles). Best effort, as the other caches: an unreadable or malformed entry
is a miss, an unwritable cache no error. FAIRVEC_NO_CACHE=1 turns it off with the rest.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import threading
from pathlib import Path

from fairvec.errors import FairvecError
from fairvec.jsonio import write_atomically
from fairvec.regular_files import SMALL_FILE_LIMIT, read_regular

HASHES_FORMAT = 1  # bump when an entry comes to mean more
HASHES_KEPT = 2048  # files: a few suites (a suite has 84), the newest kept
SETTLED_NS = 1_000_000_000  # a second: far above any file system's clock tick

# (device, inode, size, modification time, change time): what a write or a replace changes
Identity = tuple[int, int, int, int, int]


def identity(status: os.stat_result) -> Identity:
    return (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)


def settled(status: os.stat_result, started_ns: int) -> bool:
    """Whether a later write would change the file's times (see the module's docstring)."""
    return max(status.st_mtime_ns, status.st_ctime_ns) < started_ns - SETTLED_NS


class KnownHashes:
    """Each file's SHA-256 with its identity when it was hashed, by absolute path. The
    entries are kept as the cache file has them, ``[device, inode, size, modified, changed,
    sha]``, each checked when it is looked up: a cache of 2,048 files was checked whole at
    every open (twice a run), 5 ms of a fast port's run to look up its 34."""

    NAME = f"hashes-{HASHES_FORMAT}.json"

    def __init__(self, path: Path | None, entries: dict[str, object]) -> None:
        self.path = path
        self.entries = entries
        self.changed = False
        self._lock = threading.Lock()  # two threads read and hash (vectorfiles)

    @classmethod
    def open(cls, folder: Path | None) -> KnownHashes:
        """The hashes remembered in the cache ``folder`` (None: the cache is off)."""
        if folder is None:
            return cls(None, {})
        path = folder / cls.NAME
        return cls(path, _read_entries(path))

    def sha_of(self, path: Path) -> str | None:
        """The remembered SHA-256 of ``path``, if it is a regular file whose identity has
        not changed since; else None (the caller reads and hashes it)."""
        known = self.known(path)
        return None if known is None else known[0]

    def known(self, path: Path) -> tuple[str, int] | None:
        """sha_of's SHA-256 with the file's size in bytes (part of its identity, as the
        file has it now)."""
        if self.path is None:
            return None
        entry = _entry(self.entries.get(os.path.abspath(path)))
        if entry is None:
            return None
        try:
            status = os.stat(path)
        except OSError:
            return None
        if not stat.S_ISREG(status.st_mode) or identity(status) != entry[0]:
            return None
        return entry[1], status.st_size

    def remember(self, path: Path, status: os.stat_result, started_ns: int, sha: str) -> None:
        """``sha`` of the bytes read from ``path``, which had ``status`` (fstat of the file
        opened) when reading began at ``started_ns`` (time.time_ns())."""
        if self.path is None or not settled(status, started_ns):
            return
        key = os.path.abspath(path)
        entry = [*identity(status), sha]
        with self._lock:
            if self.entries.get(key) == entry:
                return
            self.entries.pop(key, None)
            self.entries[key] = entry  # the newest last
            while len(self.entries) > HASHES_KEPT:
                del self.entries[next(iter(self.entries))]
            self.changed = True

    def forget(self, path: Path) -> None:
        if self.entries.pop(os.path.abspath(path), None) is not None:
            self.changed = True

    def save(self) -> None:
        """Best effort: a read-only or full disk only costs the next run the hashing. The
        malformed entries are left out."""
        if self.path is None or not self.changed:
            return
        files = {key: item for key, item in self.entries.items() if _entry(item) is not None}
        text = json.dumps({"format": HASHES_FORMAT, "files": files})
        with contextlib.suppress(OSError):
            write_atomically(self.path, text)
        self.changed = False


def _read_entries(path: Path) -> dict[str, object]:
    """The entries of the cache file, unchecked (see KnownHashes); anything unreadable or
    malformed is not a hit."""
    try:
        value = json.loads(read_regular(path, "a cache file", SMALL_FILE_LIMIT))
    except (FairvecError, ValueError, RecursionError):
        return {}
    if not isinstance(value, dict) or value.get("format") != HASHES_FORMAT:
        return {}
    files = value.get("files")
    return files if isinstance(files, dict) else {}


def _entry(item: object) -> tuple[Identity, str] | None:
    """An entry's identity and SHA-256; None for a miss (no entry, or a malformed one)."""
    if not isinstance(item, list) or len(item) != 6:
        return None
    *numbers, sha = item
    if set(map(type, numbers)) != {int} or not is_sha256(sha):
        return None
    device, inode, size, modified, changed = numbers
    return (device, inode, size, modified, changed), sha


def is_sha256(value: object) -> bool:
    """Whether ``value`` is a SHA-256 as the caches name files: 64 lowercase hex digits."""
    return isinstance(value, str) and _SHA.fullmatch(value) is not None


_SHA = re.compile(r"[0-9a-f]{64}")
