"""Answers judged before, remembered: a rerun of a port whose answers have not changed is
judged by comparing bytes.

A verdict is a function of the vector (its file's bytes, named by their SHA-256), the
answer line's bytes and the judging code. So an answer line that is, byte for byte, one
that passed for the same vector of the same file under the same judging code passes
again without being parsed or judged; and the request line sent for a vector is the one
made for it before under the same request encoding (the hello's ``lone_surrogates``, per
adapter start: a restarted adapter may greet otherwise). A run whose selected answers all
pass so then reads none of its vector files whole: the slowest part of a fast port's
run (docs/benchmarks.md, "A fast port"). And a file whose selected vectors are all the
vectors remembered for it, in its order, each with a passing answer, is replayed
(replay_of, Session._replay): its request lines sent as the one section of the memo file
they are, and the adapter's output compared with the section of their newest answers as
bytes, without a line split or looked up, until the first byte that differs. Nothing else
is taken on trust:

- an answer line that differs in any byte (a changed port, another port) is parsed and
  judged as ever, and its file read whole for it (selection.Filler);
- the judging code is named by the version and by the size and modification time of each
  module that parses or judges answers (JUDGING_MODULES): an upgrade, a reinstall or an
  edit forgets every verdict;
- a file whose requests came from here is still read whole and checked against the hash
  it was chosen by, on a thread while the run goes on (AnswerMemo.check_served):
  a file that changed makes the run fail with the usual one line, as a filled one does;
- a vector that did not pass has the request line remembered for it checked against its
  vector (AnswerMemo.check_requests): a memo file altered in the cache (by a bit flip or
  by hand) stops one run in one line and is deleted, instead of failing a port run
  after run;
- a vector --known-failures lists is judged in full (its report shows what was sent);
- only the usual run: not with pins or claimed outputs (runner/claims.py), whose works are
  judged in part or made fresh, nor for accumulated vectors, nor for a signed release
  (--suite), whose verdict rests on the release alone.

What is trusted: that a remembered answer passed. A memo file written by hand could make
a wrong answer pass, as an edit of the installed package could; so the cache folder must
be no more writable than the package (a CI cache shared with less trusted jobs should not
hold it: FAIRVEC_NO_CACHE=1, or --suite). Kept in the cache folder
(fairvec.vectorfiles.cache_folder), one file a vector file, judging code and request
encoding (two installs run in turn, as tox and a development venv, each keep their own),
up to ANSWERS_KEPT answers a vector (two ports run in turn both hit); best effort like
every cache here: an unreadable or malformed file is a miss, an unwritable folder no error.

A memo file: lines. One of JSON (the key; the vectors' ids; for the newest answers, then
the ones before, which of the vectors have one; the byte size of each section below),
then the request lines in the ids' order, then the answers, the newest first. The sizes
let a file be read without being split into lines; the sections a replay sends and
compares (the requests, the newest answers) are checked to hold one whole line each
(parse_memo), an older one when it is split (a malformed older section is forgotten).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import os
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from itertools import groupby
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeGuard, cast

from fairvec import __version__
from fairvec.errors import FairvecError
from fairvec.file_hashes import is_sha256
from fairvec.jsonio import compact_ascii, trusted_loads
from fairvec.regular_files import read_regular, replace_with
from fairvec.runner.protocol import SURROGATE_ENCODINGS, marked_request_bytes, request_bytes
from fairvec.runner.results import ALGORITHM
from fairvec.runner.threads import join_awake
from fairvec.vectorfiles import read_as_hashed

if TYPE_CHECKING:
    from fairvec.data_model import Vector
    from fairvec.runner.results import Result, Work
    from fairvec.vectorfiles import VectorFile

MEMO_FORMAT = 2  # bump when a memo file comes to mean more (2: the sections' sizes)
# The folder: the format is part of each file's name (judging_code), so a file of an older
# format (an older install's, run in turn with this one) is pruned with the rest, not read.
MEMO_FOLDER = "answers-1"
ANSWERS_KEPT = 2  # passing answers remembered a vector, the newest first
MEMO_FILES_KEPT = 512  # memo files in the cache folder, the newest kept
MEMO_FILE_LIMIT = 256 * 1024 * 1024  # bytes: a memo file larger is not read
# The modules whose code decides whether an answer line passes (this one too).
JUDGING_MODULES = (
    "fairvec.jsonio",
    "fairvec.runner.protocol",
    "fairvec.runner.compare",
    "fairvec.runner.session",
    "fairvec.runner.attribution",
    "fairvec.runner.answer_memo",
    "fairvec.runner.process",  # (read_expected: a replayed block passes byte for byte)
)


def judging_code() -> str:
    """A name for the judging code installed: fairvec's version, with the size and the
    modification time of each of JUDGING_MODULES (imported by any run already; a stat
    each), or "" when one is not a file (then nothing is remembered)."""
    named: list[Any] = [MEMO_FORMAT, __version__]
    for name in JUDGING_MODULES:
        try:
            status = os.stat(str(importlib.import_module(name).__file__))
        except (OSError, ImportError):
            return ""
        named.append([name, status.st_size, status.st_mtime_ns])
    return hashlib.sha256(json.dumps(named).encode()).hexdigest()


class Replay(NamedTuple):
    """A file's remembered request lines and their newest answers, as two spans of its
    memo file's bytes, to be sent and compared as blocks (Session._replay)."""

    raw: bytes
    requests: tuple[int, int]  # where the request lines are in ``raw``, in ``ids``' order
    answers: tuple[int, int]  # where their newest answers are, in the same order
    ids: list[str]


class _Sections(NamedTuple):
    """A memo file read but not yet split into lines: its bytes, the vectors' ids, which
    have an answer of each rank, and where each section (the requests, then each rank's
    answers) begins, with the end last."""

    raw: bytes
    ids: list[str]
    answered: list[list[int]]
    starts: list[int]


class FileMemo:
    """The request line and the passing answers remembered for each vector of one vector
    file (by its SHA-256) under one request encoding. ``answers[0]`` holds each vector's
    newest passing answer, ``answers[1]`` the one before, and so on (ANSWERS_KEPT). One read
    from a file is split into lines only when a line is looked up: a replay (replay_of)
    sends and compares whole sections."""

    def __init__(
        self,
        requests: dict[str, bytes],
        answers: list[dict[str, bytes]],
        sections: _Sections | None = None,
    ) -> None:
        self._requests = requests
        self._answers = answers + [{} for _ in range(ANSWERS_KEPT - len(answers))]
        self._sections = sections  # split into the two above on first use
        self.changed = False

    @property
    def requests(self) -> dict[str, bytes]:
        if self._sections is not None:
            self._split()
        return self._requests

    @property
    def answers(self) -> list[dict[str, bytes]]:
        if self._sections is not None:
            self._split()
        return self._answers

    def _split(self) -> None:
        """The sections made lines (their counts were checked by parse_memo)."""
        raw, ids, answered, starts = cast(_Sections, self._sections)
        self._sections = None
        self._requests = dict(zip(ids, _split_lines(raw, starts[0], starts[1]), strict=True))
        for rank, indices in enumerate(answered):
            begin, end = starts[rank + 1], starts[rank + 2]
            if _whole_lines(raw, begin, end, len(indices)):  # (else forgotten: malformed)
                lines = _split_lines(raw, begin, end)
                self._answers[rank] = dict(zip(map(ids.__getitem__, indices), lines, strict=True))

    def replay_of(self, ids: list[str]) -> Replay | None:
        """The request lines and newest answers of ``ids`` as spans of the file read, when
        ``ids`` are all its vectors in its order, each with an answer, and nothing has been
        looked up or learnt since it was read."""
        sections = self._sections
        if sections is None or sections.ids != ids or not sections.answered:
            return None
        if len(sections.answered[0]) != len(ids):  # (increasing: then every index)
            return None
        starts = sections.starts
        return Replay(sections.raw, (starts[0], starts[1]), (starts[1], starts[2]), ids)

    def passes(self, vector_id: str, line: bytes) -> bool:
        answers = self.answers
        if answers[0].get(vector_id) == line:  # the usual hit, without a generator
            return True
        return any(rank.get(vector_id) == line for rank in answers[1:])

    def learn_request(self, vector_id: str, line: bytes) -> None:
        """``line``: as sent, without its newline."""
        if b"\n" in line:
            return  # not one line: this file cannot hold it
        if self.requests.get(vector_id) != line:
            self.requests[vector_id] = line
            for rank in self.answers:  # (answers to another request: never)
                rank.pop(vector_id, None)
            self.changed = True

    def learn_pass(self, vector_id: str, line: bytes) -> None:
        """``line``: an answer line, without its newline."""
        if vector_id not in self.requests or b"\n" in line:
            return  # only with the request it answered
        answers = self.answers
        last = answers[0].get(vector_id)
        if last == line:
            return
        self.changed = True
        if last is None:  # the first answer (a first run's every vector): nothing to shift
            answers[0][vector_id] = line
            return
        kept = [found for rank in answers if (found := rank.get(vector_id)) is not None]
        newest = [line, *(old for old in kept if old != line)][:ANSWERS_KEPT]
        for rank, answer in zip(answers, newest + [None] * ANSWERS_KEPT, strict=False):
            if answer is None:
                rank.pop(vector_id, None)
            else:
                rank[vector_id] = answer

    def render(self, key: dict[str, str]) -> bytes:
        requests, answers = self.requests, self.answers
        ids = list(requests)
        ranks = [[at for at, i in enumerate(ids) if i in rank] for rank in answers]
        sections = [_lines([requests[vector_id] for vector_id in ids])]
        sections += [
            _lines([rank[ids[at]] for at in indices])
            for rank, indices in zip(answers, ranks, strict=True)
        ]
        sizes = list(map(len, sections))
        header = compact_ascii({**key, "ids": ids, "answered": ranks, "sizes": sizes})
        return b"".join([header, b"\n", *sections])


def _lines(lines: list[bytes]) -> bytes:
    """``lines``, each ended by a newline."""
    return b"\n".join(lines) + b"\n" if lines else b""


def parse_memo(raw: bytes, key: dict[str, str]) -> FileMemo | None:
    """The memo in ``raw``, or None when it is malformed or made under another key. Not
    split into lines here (FileMemo splits it on first use; a replay never does), but each
    section's lines counted by C: a suite's memo is 20,000 lines, 11 MB for a fast port's
    34 algorithms."""
    header_end = raw.find(b"\n") + 1
    try:  # (a long integer: orjson refuses it, a miss; fast_loads would scan for one first)
        header = trusted_loads(raw[: max(header_end - 1, 0)] if header_end else raw)
    except (ValueError, RecursionError):  # RecursionError: json, on a header nested deep
        return None
    if not header_end or not isinstance(header, dict):
        return None
    if any(header.get(k) != v for k, v in key.items()):
        return None
    ids, answered, sizes = header.get("ids"), header.get("answered"), header.get("sizes")
    if not (_strings(ids) and _rankings(answered, len(ids))) or len(set(ids)) != len(ids):
        return None
    counts = [len(ids), *map(len, answered)]
    starts = _section_starts(raw, header_end, sizes, counts)
    if starts is None:
        return None
    return FileMemo({}, [], _Sections(raw, ids, answered, starts))


def _section_starts(raw: bytes, at: int, sizes: object, counts: list[int]) -> list[int] | None:
    """Where each section begins from ``at`` (the end last), when ``sizes`` are the byte
    sizes of sections that fill ``raw`` exactly; else None. The first two (the requests and
    the newest answers, what a replay sends and compares) must hold ``counts`` whole lines;
    the others are counted when split (FileMemo._split)."""
    if not (isinstance(sizes, list) and len(sizes) == len(counts)):
        return None
    if not set(map(type, sizes)) <= {int} or min(sizes, default=0) < 0:
        return None
    starts = [at]
    for size in sizes:
        starts.append(starts[-1] + size)
    if starts[-1] != len(raw):
        return None
    for begin, end, count in zip(starts[:2], starts[1:3], counts, strict=False):
        if not _whole_lines(raw, begin, end, count):
            return None
    return starts


def _split_lines(raw: bytes, begin: int, end: int) -> list[bytes]:
    """The lines of ``raw[begin:end]``, whole lines (_whole_lines), without their newlines."""
    return raw[begin : end - 1].split(b"\n") if end > begin else []


def _whole_lines(raw: bytes, begin: int, end: int, count: int) -> bool:
    """Whether ``raw[begin:end]`` is ``count`` lines, each ended by a newline."""
    if not count:
        return begin == end
    return raw[end - 1 : end] == b"\n" and raw.count(b"\n", begin, end) == count


def _strings(value: object) -> TypeGuard[list[str]]:
    return isinstance(value, list) and set(map(type, value)) <= {str}


def _rankings(value: object, count: int) -> TypeGuard[list[list[int]]]:
    """At most ANSWERS_KEPT lists of increasing indices below ``count``."""
    return (
        isinstance(value, list)
        and len(value) <= ANSWERS_KEPT
        and all(_indices(item, count) for item in value)
    )


def _indices(value: object, count: int) -> bool:
    if not isinstance(value, list) or not set(map(type, value)) <= {int}:
        return False
    increasing = value == sorted(set(value))
    return increasing and (not value or (value[0] >= 0 and value[-1] < count))


class AnswerMemo:
    """The memos of the files a run sends from, by algorithm and request encoding (the
    hello's ``lone_surrogates``: a restarted adapter may greet otherwise), loaded as each is
    first needed (from any session's thread: -j) and saved after the run. ``folder``: the
    cache folder, None when the cache is off (then nothing is remembered or looked up).
    ``exempt``: vector ids always judged in full (those --known-failures lists: the report
    shows what the port sent for an unexpected pass)."""

    def __init__(self, folder: Path | None, files: list[VectorFile]) -> None:
        self.folder = None if folder is None else folder / MEMO_FOLDER
        self.judging = judging_code() if folder is not None else ""
        self.enabled = self.folder is not None and bool(self.judging)
        self.exempt: set[str] = set()
        self._files = {vector_file.algorithm: vector_file for vector_file in files}
        self._memos: dict[tuple[str, str], FileMemo] = {}
        self._lock = threading.Lock()
        self._served: set[str] = set()  # the algorithms a request line was served for
        self._checker: _Checker | None = None

    def memo_of(self, algorithm: str, encoding: str) -> FileMemo | None:
        """The memo of ``algorithm``'s vector file under ``encoding`` (read on first use),
        or None when nothing is remembered for runs like this one."""
        memo = self._memos.get((algorithm, encoding))
        if memo is not None or not self.enabled:
            return memo
        vector_file = self._files.get(algorithm)
        if vector_file is None or not is_sha256(vector_file.sha256):
            return None
        with self._lock:
            memo = self._memos.get((algorithm, encoding))
            if memo is None:
                memo = self._read(vector_file.sha256, encoding) or FileMemo({}, [])
                self._memos[algorithm, encoding] = memo
        return memo

    def requests_of(self, works: Sequence[Work], encoding: str) -> list[bytes | None]:
        """The request line remembered for each of ``works``'s vectors (without its
        newline), or None; a run of one algorithm's looked up at once (a fill is 256 works,
        most often of one file: a dict's get mapped over their ids). The first line served
        for a file that was not read whole starts its check (check_served)."""
        lines: list[bytes | None] = []
        for algorithm, group in _runs_of_one_algorithm(works):
            memo = self._memos.get((algorithm, encoding)) or self.memo_of(algorithm, encoding)
            if memo is None:
                lines += [None] * len(group)
                continue
            found = list(map(memo.requests.get, [work.vector["id"] for work in group]))
            if algorithm not in self._served and found.count(None) < len(found):
                self._serving(algorithm)
            lines += found
        return lines

    def replay_of(self, works: list[Work], encoding: str) -> Replay | None:
        """``works``, a run of one algorithm's, as a block to send and compare whole
        (Session._replay): when they are all the vectors remembered for their file, in its
        order, each with a passing answer, none of them exempt. Starts the file's check
        (check_served) as a request line served would."""
        algorithm = works[0].algorithm
        memo = self._memos.get((algorithm, encoding)) or self.memo_of(algorithm, encoding)
        if memo is None:
            return None
        ids = [work.vector["id"] for work in works]
        replay = memo.replay_of(ids)
        if replay is None or not self.exempt.isdisjoint(ids):
            return None
        if algorithm not in self._served:
            self._serving(algorithm)
        return replay

    def passes_in_turn(self, works: Sequence[Work], encoding: str, lines: list[bytes]) -> int:
        """How many of ``lines``, from the first, pass for ``works`` in turn (see passes):
        a run of one algorithm's compared at once with the newest answers remembered, as
        one list with another, then line by line from where they differ."""
        passed = 0
        for algorithm, group in _runs_of_one_algorithm(works[: len(lines)]):
            memo = self._memos.get((algorithm, encoding))
            if memo is None:
                return passed
            ids = [work.vector["id"] for work in group]
            got = lines[passed : passed + len(group)]
            if got == list(map(memo.answers[0].get, ids)) and self.exempt.isdisjoint(ids):
                passed += len(group)
                continue
            for work, line in zip(group, got, strict=True):
                if not self.passes(work, encoding, line):
                    return passed
                passed += 1
        return passed

    def passes(self, work: Work, encoding: str, line: bytes) -> bool:
        """Whether ``line`` is an answer that passed for ``work``'s vector before."""
        memo = self._memos.get((work.algorithm, encoding))
        vector_id = work.vector["id"]
        return memo is not None and memo.passes(vector_id, line) and vector_id not in self.exempt

    def learn_request(self, work: Work, encoding: str, line: bytes) -> None:
        memo = self.memo_of(work.algorithm, encoding)
        if memo is not None:
            memo.learn_request(work.vector["id"], line)

    def learn_pass(self, work: Work, encoding: str, line: bytes) -> None:
        memo = self._memos.get((work.algorithm, encoding))
        if memo is not None:
            memo.learn_pass(work.vector["id"], line)

    def check_served(self) -> None:
        """Wait until every file a request line was served for, unless the run read it
        whole, has been read and checked against the hash it was chosen by: a changed one
        raises the one-line FairvecError of fairvec.vectorfiles.read_as_hashed."""
        if self._checker is not None:
            self._checker.finish()

    def check_requests(self, results: list[Result]) -> None:
        """For each vector that did not pass (read whole by now), that the request line
        remembered for it is the one its vector makes: a memo file altered in the cache
        must not fail a port run after run. One that is not is deleted, and the run stops
        in one line (run again)."""
        for result in results:
            if result.status in ("pass", "skip", "not-run"):
                continue
            algorithm = result.algorithm
            for encoding in SURROGATE_ENCODINGS:
                memo = self._memos.get((algorithm, encoding))
                line = None if memo is None else memo.requests.get(result.id)
                vector = cast("Vector", result.vector)
                if line is not None and line + b"\n" != _encoder(encoding)(vector, algorithm):
                    self._forget(algorithm, encoding)
                    raise FairvecError(
                        f"{self._path(self._files[algorithm].sha256, encoding)}: the request "
                        f"remembered for {result.id} is not the one its vector makes (the "
                        "cache file was altered); it is deleted: run again"
                    )

    def save(self) -> None:
        """Write the memos that learnt something; best effort (a read-only or full disk
        only costs the next run the judging)."""
        if self.folder is None:
            return
        for (algorithm, encoding), memo in self._memos.items():
            if memo.changed:
                sha = self._files[algorithm].sha256
                with contextlib.suppress(OSError):
                    replace_with(self._path(sha, encoding), memo.render(self._key(sha, encoding)))
                memo.changed = False
        with contextlib.suppress(OSError):
            _prune(self.folder, MEMO_FILES_KEPT)

    def _serving(self, algorithm: str) -> None:
        with self._lock:
            if algorithm in self._served:
                return
            self._served.add(algorithm)
            if self._checker is None:
                self._checker = _Checker()
            self._checker.add(self._files[algorithm])

    def _forget(self, algorithm: str, encoding: str) -> None:
        del self._memos[algorithm, encoding]
        with contextlib.suppress(OSError):
            self._path(self._files[algorithm].sha256, encoding).unlink()

    def _key(self, sha: str, encoding: str) -> dict[str, str]:
        return {"judging": self.judging, "file": sha, "encoding": encoding}

    def _path(self, sha: str, encoding: str) -> Path:
        assert self.folder is not None
        return self.folder / f"{sha}.{self.judging[:16]}.{encoding}"

    def _read(self, sha: str, encoding: str) -> FileMemo | None:
        if encoding not in SURROGATE_ENCODINGS:
            return None
        try:
            raw = read_regular(self._path(sha, encoding), "a cache file", MEMO_FILE_LIMIT)
        except FairvecError:  # missing, not a regular file, too large: a miss
            return None
        return parse_memo(raw, self._key(sha, encoding))


def _runs_of_one_algorithm(works: Sequence[Work]) -> Iterator[tuple[str, list[Work]]]:
    """``works`` cut where the algorithm changes, in order."""
    for algorithm, group in groupby(works, key=ALGORITHM):
        yield algorithm, list(group)


def _encoder(encoding: str) -> Callable[[Vector, str], bytes]:
    """How a request line is made under the hello's ``lone_surrogates`` (Session)."""
    return marked_request_bytes if encoding == "marked" else request_bytes


def _prune(folder: Path, kept: int) -> None:
    """The oldest memo files beyond ``kept`` removed (a suite's upgrade leaves the old
    files' memos behind)."""
    entries = list(os.scandir(folder))
    if len(entries) <= kept:
        return
    entries.sort(key=lambda entry: entry.stat().st_mtime_ns)
    for entry in entries[: len(entries) - kept]:
        with contextlib.suppress(OSError):
            os.unlink(entry.path)


class _Checker:
    """Vector files read and checked against their hashes on a thread (reading and SHA-256
    let go of the interpreter's lock), unless read whole meanwhile; the first failure kept."""

    def __init__(self) -> None:
        self._queue: deque[VectorFile | None] = deque()
        self._wake = threading.Semaphore(0)
        self._error: FairvecError | None = None
        # a daemon: a run that stops early (Ctrl-C, a usage error) never waits for it
        self._thread = threading.Thread(target=self._check_all, daemon=True)
        self._thread.start()

    def add(self, vector_file: VectorFile) -> None:
        self._queue.append(vector_file)
        self._wake.release()

    def finish(self) -> None:
        self._queue.append(None)  # the end
        self._wake.release()
        join_awake(self._thread)
        if self._error is not None:
            raise self._error

    def _check_all(self) -> None:
        while True:
            self._wake.acquire()
            vector_file = self._queue.popleft()
            if vector_file is None:
                return
            unread = list(vector_file.unread)  # (filled meanwhile: then read and checked)
            if not unread or unread[0][0] is not None:
                continue  # read whole, or read and hashed by this run's load
            try:
                read_as_hashed(vector_file.path, vector_file.sha256)
            except FairvecError as error:
                self._error = self._error or error
