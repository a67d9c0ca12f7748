"""What the runner knows of each vector: the work to do and how it ended."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import partial
from itertools import compress, groupby, repeat
from operator import attrgetter, or_
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:  # types only: loading fairvec.data_model costs 2 ms of start-up
    from pathlib import Path

    from fairvec.data_model import Shown, Vector


# not-run: the run stopped before the vector was tried (the adapter kept crashing, or
# could not be restarted); the run then exits 2.
STATUSES = ("pass", "fail", "error", "skip", "not-run")
# Why a vector was skipped, as the coverage attestation counts them.
# input-not-pinned: the adapter pins an input (runner/claims.py) the vector does not hold;
# outputs-not-claimed: the vector expects none of the output fields the adapter computes.
SKIP_REASONS = (
    "algorithm-not-declared",
    "variant-not-declared",
    "adapter-unsupported",
    "input-not-pinned",
    "outputs-not-claimed",
)


# The runner's records are named tuples and plain classes with slots, not dataclasses: a
# run's start-up paid 35 ms (a tenth of a fast port's whole run) to import dataclasses and
# to generate the methods of its 27 classes (docs/benchmarks.md, "Figures, 2026-11-26
# (third session)").


class KnownFailure(NamedTuple):
    """One --known-failures entry: an id or glob, the reason its comment gives, its line."""

    entry: str
    reason: str
    line: int


class _Record:
    """A plain class with slots (one per vector, made fast), equal to another of its class
    by value, shown with its fields."""

    __slots__: tuple[str, ...] = ()
    __hash__ = None  # type: ignore[assignment]  # equal by value, so not hashable

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Record) or type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __repr__(self) -> str:
        shown = ", ".join(f"{slot}={getattr(self, slot)!r}" for slot in self.__slots__)
        return f"{type(self).__name__}({shown})"

    def _values(self) -> list[Any]:
        return [getattr(self, slot) for slot in self.__slots__]


class Result(_Record):
    """How one vector ended."""

    __slots__ = (
        "algorithm",
        "answered_unsupported",
        "got",
        "known",
        "known_failure",
        "message",
        "seconds",
        "skip_kind",
        "status",
        "stderr",
        "unexpected_pass",
        "vector",
    )

    def __init__(
        self,
        vector: Shown,  # the vector it ended (an accumulated vector's shown form), or a case
        algorithm: str,
        status: str,  # one of STATUSES
        message: str = "",
        got: Any = None,
        stderr: list[str] | None = None,
        known_failure: bool = False,
        unexpected_pass: bool = False,
        seconds: float = 0.0,  # from becoming the oldest unanswered request to its end
        answered_unsupported: bool = False,  # a skip the adapter asked for, not the hello's
        known: KnownFailure | None = None,  # the --known-failures entry that lists it
        skip_kind: str | None = None,  # which of SKIP_REASONS, when the claims decided it
    ) -> None:
        self.vector = vector
        self.algorithm = algorithm
        self.status = status
        self.message = message
        self.got = got
        self.stderr = [] if stderr is None else stderr
        self.known_failure = known_failure
        self.unexpected_pass = unexpected_pass
        self.seconds = seconds
        self.answered_unsupported = answered_unsupported
        self.known = known
        self.skip_kind = skip_kind

    @property
    def id(self) -> str:
        return str(self.vector["id"])


class Work(NamedTuple):
    """A vector to send. (A named tuple: never changed once made, and a selection makes one
    for each of tens of thousands of vectors, each made by C: see works_of.)"""

    vector: Vector  # a stream case of an accumulated vector has only a Request's fields
    algorithm: str
    output_schema: dict[str, Any]
    # a partial claim (runner/claims.py): the output fields judged; None: the whole output
    fields: tuple[str, ...] | None = None


class UnreadFile(NamedTuple):
    """The vectors a run selected of a file it never read, all skipped: the file of an
    algorithm the adapter's hello does not declare, known by its remembered SHA-256, its
    vectors counted from the counts remembered for the selection's filters
    (runner/selected_counts.py). A report that lists each vector reads the file then
    (runner/unread_skips.py); the tally counts them as they are."""

    path: Path
    sha256: str
    algorithm: str
    selected: int  # its vectors the selection picks, each skipped


# Work(vector, algorithm, schema) as C makes it, without the named tuple's __new__ in Python
_WORK = partial(tuple.__new__, Work)


def works_of(vectors: Iterable[Vector], algorithm: str, schema: dict[str, Any]) -> list[Work]:
    """A Work for each of ``vectors`` (of one algorithm's file): 10,000 in about 1.5 ms,
    against 6 ms one call each."""
    return list(map(_WORK, zip(vectors, repeat(algorithm), repeat(schema), repeat(None))))


# A run's results are tallied by C, a field of each at a time (a run has tens of thousands,
# and a loop in Python over them cost the end of a fast port's run a few ms each time).
STATUS = attrgetter("status")
ALGORITHM = attrgetter("algorithm")  # (of a work too)
VECTOR = attrgetter("vector")  # (of a work too)
KNOWN_FAILURE = attrgetter("known_failure")
UNEXPECTED_PASS = attrgetter("unexpected_pass")
ANSWERED_UNSUPPORTED = attrgetter("answered_unsupported")
RAN = frozenset({"pass", "fail", "error"})  # the statuses of a vector sent and answered


# A result's marks: what the counts of statuses alone cannot say of it
MARKS = attrgetter("known_failure", "unexpected_pass", "answered_unsupported", "skip_kind")


class Tally:
    """A run's results counted once, after the run (and after --known-failures marked
    them): each algorithm's statuses, and the few results that carry a mark (a known
    failure, an unexpected pass, an answer of unsupported, a skip the claims decided). The
    exit status, the warnings and the reports read it, instead of each passing over the
    results again: a run of the whole suite by a port of three families has 22,000, and
    a dozen passes over them took 19 ms of its end."""

    __slots__ = ("_marked_by_algorithm", "by_algorithm", "marked", "statuses", "total")

    def __init__(self, results: list[Result], unread: Iterable[UnreadFile] = ()) -> None:
        """``unread``: files whose skips were not made into results (runner/run.py)."""
        self.by_algorithm: dict[str, Counter[str]] = {}
        # (in the vectors' order, so an algorithm's results come together: few groups)
        for algorithm, group in groupby(results, key=ALGORITHM):
            self.by_algorithm.setdefault(algorithm, Counter()).update(map(STATUS, group))
        self.total = len(results)
        for file in unread:
            if not file.selected:  # (none selected: no result either)
                continue
            self.by_algorithm.setdefault(file.algorithm, Counter())["skip"] += file.selected
            self.total += file.selected
        self.statuses: Counter[str] = Counter()
        for counted in self.by_algorithm.values():
            self.statuses.update(counted)
        self.marked = list(compress(results, map(any, map(MARKS, results))))
        self._marked_by_algorithm: dict[str, list[Result]] = {}
        for result in self.marked:
            self._marked_by_algorithm.setdefault(result.algorithm, []).append(result)

    def marked_of(self, algorithm: str) -> list[Result]:
        """The marked results of ``algorithm``, in order."""
        return self._marked_by_algorithm.get(algorithm, [])

    def known_failures(self) -> list[Result]:
        return list(compress(self.marked, map(KNOWN_FAILURE, self.marked)))

    def unexpected_passes(self) -> list[Result]:
        return list(compress(self.marked, map(UNEXPECTED_PASS, self.marked)))


def with_status_or_unexpected(results: list[Result], statuses: frozenset[str]) -> list[Result]:
    """The results of one of ``statuses``, and the unexpected passes, in order (a run that
    skips 12,000 vectors of the algorithms its port does not declare has few of either)."""
    kept = map(statuses.__contains__, map(STATUS, results))
    other = map(or_, kept, map(UNEXPECTED_PASS, results))
    return list(compress(results, other))


def skip_reason(result: Result, declared: dict[str, list[str]]) -> str:
    """Which of SKIP_REASONS skipped ``result``, given the algorithms and variants the
    adapter's hello declared: the hello decides before anything is sent; an answer of
    unsupported is the adapter's own."""
    if result.skip_kind is not None:
        return result.skip_kind
    if result.answered_unsupported:
        return "adapter-unsupported"
    return hello_skip_reason(result.algorithm, declared)


def not_declared(algorithm: str) -> str:
    """The message of a vector skipped because the hello does not declare its algorithm."""
    return f"the adapter does not implement {algorithm}"


def hello_skip_reason(algorithm: str, declared: dict[str, list[str]]) -> str:
    """Why the hello skipped a vector of ``algorithm``: not declared, or not its variant."""
    return "algorithm-not-declared" if algorithm not in declared else "variant-not-declared"
