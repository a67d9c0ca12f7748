"""Accumulated vectors in the runner: stream the cases through the adapter and hash the
answers (docs/accumulated.md).

The cases are ordinary requests, so a port needs nothing new to pass them. They are drawn
here from the vector file's stream definition (fairvec.input_draws) and sent a block at a time
through a :class:`Session` that stays up between blocks; the session's attribution holds
case by case (a crash, hang or bad line is charged to the case, and so to the vector).
Each accumulated vector ends as one :class:`Result`: pass; fail, naming the first block
whose checkpoint differs and the ``fairvec accumulated locate`` command that finds the
case; or the first case's error or skip. Like the rest of the runner, this never imports
the reference.
"""

from __future__ import annotations

import argparse
import fnmatch
import gc
import json
import shlex
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cache
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from fairvec.errors import FairvecError
from fairvec.jsonio import parse_json, same_json
from fairvec.runner import claims as claims_module
from fairvec.runner.process import AdapterStartError
from fairvec.runner.results import Result, Work
from fairvec.runner.session import Session
from fairvec.vectorfiles import (
    VectorFile,
    algorithm_of,
    load_vector_files,
    read_vector_bytes,
    vector_schema,
)

if TYPE_CHECKING:
    import jsonschema

    from fairvec import accumulated_digest
    from fairvec.data_model import (
        AccumulatedVector,
        Expected,
        Request,
        ShownAccumulated,
        Vector,
    )
    from fairvec.runner import accumulated_by_port

SHOWN_INPUT = 300  # characters of a case's input quoted in a message


class Accumulated:
    """One accumulated vector of a vector file, as the runner runs it. (A plain class, not
    a dataclass, see runner/results.py; nor a named tuple, whose ``count`` is taken.)"""

    __slots__ = ("algorithm", "entry", "fields")

    def __init__(
        self, entry: AccumulatedVector, algorithm: str, fields: tuple[str, ...] | None = None
    ) -> None:
        self.entry = entry
        self.algorithm = algorithm
        # a partial claim's output fields: each answer is cut to them before it is hashed,
        # and ``entry``'s digests are the reference's of those fields (fresh_streams.py)
        self.fields = fields

    @property
    def made_at_run_time(self) -> bool:
        """Whether the expected digests were computed by the reference during this run (a
        fresh stream, or a partial port's digest of its fields): no file holds them, so
        ``fairvec accumulated locate`` cannot find them."""
        return bool(self.entry["provenance"].get("fresh")) or self.fields is not None

    @property
    def id(self) -> str:
        return str(self.entry["id"])

    @property
    def variant(self) -> str | None:
        return self.entry["variant"]

    @property
    def count(self) -> int:
        return int(self.entry["count"])

    @property
    def block(self) -> int:
        return int(self.entry["block"])

    @property
    def blocks(self) -> int:
        return -(-self.count // self.block)

    @property
    def vector(self) -> ShownAccumulated:
        """The vector a report shows: the stream as input, the digests as expected."""
        return {
            "id": self.id,
            "variant": self.variant,
            "input": {"stream": self.entry["stream"], "count": self.count},
            "expected": self.entry["expected"],
            "tags": self.entry["tags"],
            "provenance": self.entry["provenance"],
        }


# -- selection -----------------------------------------------------------------------------

TIER_CHOICES = ("default", "full", "none")


def add_tier_option(group: argparse._ArgumentGroup) -> None:
    group.add_argument(
        "--tier",
        choices=TIER_CHOICES,
        default="default",
        help="accumulated vectors: the default tier (10,000 cases each, the default), the "
        "full tier (1,000,000 cases, where committed; else the default tier), or none",
    )


def select(
    root: Path, globs: Sequence[str], keywords: Sequence[str], tags: Sequence[str], tier: str
) -> list[Accumulated]:
    """The accumulated vectors the run's selection names: of the algorithms matching
    ``globs``, whose ids match a keyword (if given) and carrying a tag (if given)."""
    if tier == "none":
        return []
    return _chosen(_accumulated_entries(root, globs), keywords, tags, tier)


def _chosen(
    sources: Iterable[tuple[str, list[AccumulatedVector]]],
    keywords: Sequence[str],
    tags: Sequence[str],
    tier: str,
) -> list[Accumulated]:
    chosen = []
    for algorithm, entries in sources:
        for entry in _of_tier(entries, tier):
            if keywords and not any(_keyword(entry["id"], k) for k in keywords):
                continue
            if tags and not set(tags) & set(entry["tags"]):
                continue
            chosen.append(Accumulated(entry, algorithm))
    return chosen


def _accumulated_entries(
    root: Path, globs: Sequence[str]
) -> Iterator[tuple[str, list[AccumulatedVector]]]:
    """Each selected vector file's accumulated vectors, schema-checked. Only files that
    have some are parsed (``fairvec run`` has already read and checked the files whole;
    doing it again would cost a second or more)."""
    for path in sorted(root.glob("*/*.json")):
        algorithm = algorithm_of(path)
        if globs and not any(fnmatch.fnmatchcase(algorithm, glob) for glob in globs):
            continue
        raw = read_vector_bytes(path)  # bounded, and read once
        if b'"accumulated"' not in raw:  # no such key: nothing to parse
            continue
        data = parse_json(raw, path, "a vector file")
        entries: Any = data.get("accumulated") if isinstance(data, dict) else None
        if not isinstance(entries, list):
            raise FairvecError(f"{path}: accumulated: not a list (regenerate: fairvec generate)")
        for index, entry in enumerate(entries):
            _check_entry(entry, f"{path}: accumulated/{index}")
        yield algorithm, entries


def _loaded_entries(
    files: Sequence[VectorFile],
) -> Iterator[tuple[str, list[AccumulatedVector]]]:
    """The accumulated vectors of files already validated against the vector schema; what
    the schema cannot say (a checkpoint for every block) is checked here."""
    for vector_file in files:
        entries = vector_file.accumulated
        for index, entry in enumerate(entries):
            _check_blocks(entry, f"{vector_file.path}: accumulated/{index}")
        if entries:
            yield vector_file.algorithm, entries


def _check_entry(entry: Any, where: str) -> None:
    from jsonschema.exceptions import best_match  # here, not above: 85 ms of every start-up

    error = best_match(_entry_validator().iter_errors(entry))
    if error is not None:
        at = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        raise FairvecError(f"{where}: {at}: {error.message} (regenerate with fairvec generate)")
    _check_blocks(entry, where)


def _check_blocks(entry: AccumulatedVector, where: str) -> None:
    blocks = -(-entry["count"] // entry["block"])
    if len(entry["expected"]["checkpoints"]) != blocks:
        raise FairvecError(
            f"{where}: expected/checkpoints: {blocks} expected for {entry['count']} cases in "
            f"blocks of {entry['block']} (regenerate with fairvec generate)"
        )


@cache
def _entry_validator() -> jsonschema.protocols.Validator:
    # jsonschema: 35 ms of start-up, only when streams are run
    from jsonschema import Draft202012Validator

    schema = vector_schema()
    return Draft202012Validator({"$defs": schema["$defs"], "$ref": "#/$defs/accumulated"})


def _of_tier(entries: list[AccumulatedVector], tier: str) -> list[AccumulatedVector]:
    """The entries of ``tier``; for the full tier, the default one where no full one is
    committed (the full tier begins with the default tier's cases)."""
    defaults = [entry for entry in entries if entry["tier"] == "default"]
    if tier == "default":
        return defaults
    full = {_default_id(entry["id"]): entry for entry in entries if entry["tier"] == "full"}
    return [full.get(entry["id"], entry) for entry in defaults]


def _default_id(full_id: str) -> str:
    from fairvec import accumulated_digest  # (here: a run of fixed vectors alone never needs it)

    head, at, variant = full_id.partition("@")
    return head.removesuffix(accumulated_digest.FULL_SUFFIX) + at + variant


def _keyword(vector_id: str, pattern: str) -> bool:
    if set("*?[") & set(pattern):
        return fnmatch.fnmatchcase(vector_id, pattern)
    return pattern in vector_id


def find(root: Path, accumulated_id: str) -> Accumulated:
    """One accumulated vector by id (for ``fairvec accumulated locate``)."""
    algorithm = accumulated_id.split("/", 1)[0]
    files = load_vector_files(root, lambda name: name == algorithm)
    for vector_file in files:
        for entry in vector_file.accumulated:
            if entry["id"] == accumulated_id:
                return Accumulated(entry, vector_file.algorithm)
    raise FairvecError(
        f"{accumulated_id}: no accumulated vector of that id in {root} (copy the id from the "
        f"report, e.g. casino.mines/accumulated@hex-text)"
    )


# -- streaming -----------------------------------------------------------------------------


def collect(
    vector: Vector, algorithm: str, _schema: dict[str, Any], response: dict[str, Any]
) -> Result:
    """The session's judge for stream cases: no expectation per case, keep the answer."""
    if response.get("unsupported"):
        return Result(vector, algorithm, "skip", "the adapter answered unsupported",
                      answered_unsupported=True)
    if "error" in response:
        return Result(vector, algorithm, "pass", got={"error": response["error"]["code"]})
    return Result(vector, algorithm, "pass", got={"output": response["output"]})


class _Ahead:
    """A stream's inputs, drawn a case at a time ahead of their block (see _Collector)."""

    def __init__(self, inputs: Iterator[dict[str, Any]]) -> None:
        self._inputs = inputs
        self._drawn: list[dict[str, Any]] = []
        self.wanted = 0  # how many to draw ahead: the next block's size

    def take(self, size: int) -> list[dict[str, Any]]:
        """The next ``size`` inputs: those drawn ahead, then the rest drawn now."""
        batch, self._drawn = self._drawn, []
        batch.extend(islice(self._inputs, size - len(batch)))
        return batch

    def draw_one(self) -> None:
        if len(self._drawn) < self.wanted:
            self._drawn.append(next(self._inputs))


class _Collector:
    """The judge of the sessions open_session makes: ``collect``, and meanwhile, while the
    adapter answers the requests behind this one, the runner's own work on the stream:
    this answer's record is encoded, and one input of the next block drawn. Left to the
    block's end, that work kept the adapter idle (a fifth more wall time)."""

    def __init__(self) -> None:
        self.records: dict[str, bytes] = {}  # by case id; a case missing here is encoded later
        self.ahead: _Ahead | None = None

    def __call__(
        self, vector: Vector, algorithm: str, schema: dict[str, Any],
        response: dict[str, Any],
    ) -> Result:
        result = collect(vector, algorithm, schema, response)
        if result.status == "pass" and (line := _record(result.got)) is not None:
            self.records[result.id] = line
        if self.ahead is not None:
            self.ahead.draw_one()
        return result


def _record(answer: dict[str, Any]) -> bytes | None:
    from fairvec import accumulated_digest  # (here: a run of fixed vectors alone never needs it)

    try:
        return accumulated_digest.record(answer)
    except (ValueError, TypeError):  # NaN or Infinity: run_one encodes it again, and says so
        return None


@contextmanager
def open_session(
    command: Sequence[str],
    *,
    timeout: float,
    window: int = 64,
    on_result: Callable[[Result], None] = lambda _result: None,
    **options: Any,
) -> Iterator[Session]:
    try:
        session = Session(
            command, timeout=timeout, window=window, judge=_Collector(), on_result=on_result,
            **options,
        )
    except AdapterStartError as error:
        raise FairvecError(f"adapter {' '.join(command)}: {error}") from None
    try:
        yield session
    finally:
        session.close()


def answers(
    session: Session, chosen: Accumulated, *, first_block: int = 1, blocks: int | None = None
) -> Iterator[tuple[int, dict[str, Any], Result]]:
    """(index, input, the session's Result) for each case of blocks ``first_block`` on,
    sent one block at a time; the inputs of earlier blocks are drawn, not sent. A session
    that stopped (--max-crashes, --max-timeouts) answered only the cases before: those are
    yielded, then the stop is raised as a FairvecError (the run cannot go on)."""
    for first, batch, results in _blocks(session, chosen, first_block, blocks):
        yield from zip(range(first, first + len(batch)), batch, results, strict=False)
    if session.infrastructure_error:
        raise FairvecError(f"the run stopped: {session.infrastructure_error}")


def _blocks(
    session: Session, chosen: Accumulated, first_block: int = 1, blocks: int | None = None
) -> Iterator[tuple[int, list[dict[str, Any]], list[Result]]]:
    """(the index of its first case, its inputs, the session's Results) for each block of
    ``first_block`` on, each sent in one run of the session."""
    from fairvec import accumulated_digest  # (here: a run of fixed vectors alone never needs it)
    stream = chosen.entry["stream"]
    inputs = accumulated_digest.cases(stream["seed"], stream["input"])
    for _ in islice(inputs, (first_block - 1) * chosen.block):
        pass
    ahead = _Ahead(inputs)
    collector = _collector(session)
    last = chosen.blocks if blocks is None else min(chosen.blocks, first_block - 1 + blocks)
    with _no_cycle_collection():
        for block in range(first_block, last + 1):
            first, end = (block - 1) * chosen.block, min(block * chosen.block, chosen.count)
            batch = ahead.take(end - first)
            ahead.wanted = min(chosen.block, chosen.count - end) if block < last else 0
            works = [_work(chosen, index, case) for index, case in enumerate(batch, first)]
            collector.records.clear()
            collector.ahead = ahead
            try:
                results = session.run(works, keep_open=True)
            finally:
                collector.ahead = None
            yield first, batch, results
            if session.infrastructure_error:
                return


def _collector(session: Session) -> _Collector:
    """The session's judge, or (a session open_session did not make) one that it never
    calls: nothing is then drawn ahead or encoded before the block's end."""
    return session.judge if isinstance(session.judge, _Collector) else _Collector()


def _records(session: Session, results: list[Result]) -> list[bytes | None]:
    """Each result's record as the judge encoded it, or None (encoded by the caller)."""
    encoded = _collector(session).records
    return [encoded.get(result.id) for result in results]


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector paused while a stream runs: a case makes a dozen short-lived
    containers and no reference cycle, and every few thousand cases the collector walked
    every object the run holds (the vector files loaded for the report too), about a
    tenth of the runner's time."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _work(chosen: Accumulated, index: int, inputs: dict[str, Any]) -> Work:
    """A stream case's work: its vector is only what the request carries (the collector,
    the sessions' judge here, reads nothing else of it)."""
    case: Request = {"id": f"{chosen.id}#{index}", "variant": chosen.variant, "input": inputs}
    # (a partial claim: the session cuts each answer to the fields claimed, as for a vector)
    return Work(cast("Vector", case), chosen.algorithm, {}, chosen.fields)


def run_one(
    session: Session,
    chosen: Accumulated,
    command: Sequence[str],
    oracle: accumulated_by_port.Oracle | None = None,
    on_block: Callable[[str, int, int], None] = lambda _id, _block, _blocks: None,
) -> Result:
    """Stream every case of ``chosen``; stop at the first differing block or bad case.
    ``oracle`` names the first differing case of a stream no file holds (``fairvec
    accumulated locate`` cannot find it); ``on_block(id, block, blocks)`` as each block is
    answered (the progress counts)."""
    from fairvec import accumulated_digest  # (here: a run of fixed vectors alone never needs it)
    total = accumulated_digest.Accumulator(chosen.block)
    expected = chosen.entry["expected"]["checkpoints"]
    seconds = 0.0
    for first, batch, results in _blocks(session, chosen):
        encoded = zip(results, _records(session, results), strict=True)
        for index, (result, line) in enumerate(encoded, first):
            seconds += result.seconds
            if result.status != "pass":
                return _case_trouble(chosen, index, batch[index - first], result, seconds)
            try:
                total.add(result.got, line)
            except (ValueError, TypeError) as error:  # NaN or Infinity: not a JSON number
                result.status, result.message = "error", f"the answer is not JSON: {error}"
                return _case_trouble(chosen, index, batch[index - first], result, seconds)
        block = len(total.checkpoints)
        if total.count % chosen.block == 0 and total.checkpoints[-1] != expected[block - 1]:
            if chosen.made_at_run_time:
                cases = list(zip(range(first, first + len(batch)), batch, results, strict=False))
                return _differs_made(chosen, block, total.checkpoints[-1], cases, oracle, seconds)
            return _differs(chosen, block, total.checkpoints[-1], command, seconds)
        on_block(chosen.id, -(-total.count // chosen.block), chosen.blocks)
    if total.count < chosen.count:  # the run stopped (the adapter kept crashing)
        reason = session.infrastructure_error
        message = f"not run: the stream stopped at case {total.count}: {reason}"
        return Result(chosen.vector, chosen.algorithm, "not-run", message, seconds=seconds)
    if total.digest != chosen.entry["expected"]["digest"]:  # a last, partial block
        if chosen.made_at_run_time:
            cases = list(zip(range(first, first + len(batch)), batch, results, strict=False))
            return _differs_made(chosen, chosen.blocks, total.digest, cases, oracle, seconds)
        return _differs(chosen, chosen.blocks, total.digest, command, seconds)
    return Result(chosen.vector, chosen.algorithm, "pass", got={"digest": total.digest},
                  seconds=seconds)


def _differs(
    chosen: Accumulated, block: int, got: str, command: Sequence[str], seconds: float
) -> Result:
    first, last = (block - 1) * chosen.block, block * chosen.block - 1
    locate = shlex.join(
        ["fairvec", "accumulated", "locate", "--block", str(block), chosen.id, "--", *command]
    )
    message = (
        f"the digest differs from block {block} of {chosen.blocks} on (cases {first} to "
        f"{last}); find the first differing case with: {locate}"
    )
    return Result(chosen.vector, chosen.algorithm, "fail", message,
                  got={"block": block, "checkpoint": got}, seconds=seconds)


def _differs_made(
    chosen: Accumulated,
    block: int,
    got: str,
    cases: list[tuple[int, dict[str, Any], Result]],
    oracle: accumulated_by_port.Oracle | None,
    seconds: float,
) -> Result:
    """_differs for a stream made at run time: the block's cases are at hand, and the
    reference (``oracle``) names the first that differs."""
    from fairvec.runner import accumulated_by_port

    message = accumulated_by_port.first_difference(
        chosen, block, lambda _block: iter(cases), _narrowed(oracle, chosen.fields), got
    )
    return Result(chosen.vector, chosen.algorithm, "fail", message,
                  got={"block": block, "checkpoint": got}, seconds=seconds)


def _narrowed(
    oracle: accumulated_by_port.Oracle | None, fields: tuple[str, ...] | None
) -> accumulated_by_port.Oracle | None:
    """The reference's answers cut to a partial claim's fields, as the port's are."""
    if oracle is None or fields is None:
        return oracle
    given = oracle

    def narrowed(algorithm: str, inputs: dict[str, Any], variant: str | None) -> Expected:
        answer = given(algorithm, inputs, variant)
        if "output" not in answer:
            return answer
        return {"output": claims_module.judged_part(answer["output"], fields)}

    return narrowed


def _case_trouble(
    chosen: Accumulated, index: int, inputs: dict[str, Any], case: Result, seconds: float
) -> Result:
    """A case that errored, was skipped or not run ends its whole vector the same way."""
    shown = _quoted(inputs)
    return Result(
        chosen.vector,
        chosen.algorithm,
        case.status,
        f"case {index} (input {shown}): {case.message}",
        stderr=case.stderr,
        seconds=seconds,
        answered_unsupported=case.answered_unsupported,
    )


def _quoted(inputs: dict[str, Any]) -> str:
    text = json.dumps(inputs, ensure_ascii=True)
    return text if len(text) <= SHOWN_INPUT else text[:SHOWN_INPUT] + "..."


def first_differing_block(session: Session, chosen: Accumulated) -> int | None:
    """The first block whose checkpoint differs (a case the adapter does not answer
    counts as differing there), or None when the whole stream matches."""
    from fairvec import accumulated_digest  # (here: a run of fixed vectors alone never needs it)
    total = accumulated_digest.Accumulator(chosen.block)
    expected = chosen.entry["expected"]["checkpoints"]
    for first, _batch, results in _blocks(session, chosen):
        block = first // chosen.block + 1
        for result, line in zip(results, _records(session, results), strict=True):
            if result.status != "pass" or not _added(total, result.got, line):
                return block
        if total.count % chosen.block == 0 and total.checkpoints[-1] != expected[block - 1]:
            return block
    return None if total.digest == chosen.entry["expected"]["digest"] else chosen.blocks


def _added(total: accumulated_digest.Accumulator, answer: Any, line: bytes | None) -> bool:
    try:
        total.add(answer, line)
    except (ValueError, TypeError):  # NaN or Infinity: not a JSON number
        return False
    return True


def run_accumulated(
    command: Sequence[str],
    chosen: Sequence[Accumulated],
    *,
    timeout: float,
    window: int,
    on_result: Callable[[Result], None] = lambda _result: None,
    port: PortOptions | None = None,
    jobs: int = 1,
    case_seconds: Mapping[str, float] | None = None,
    **options: Any,
) -> tuple[list[Result], int]:
    """Run the accumulated vectors through adapter processes of their own (restarted like
    any session's); returns their results and the sessions' restarts. An adapter that
    computes the streams itself (``"accumulate": true``) gets up to ``jobs`` processes, a
    stream each at a time: a stream is then one long request, and one process left every
    other core idle (issue 35). Streamed case by case, the runner's own work is the limit,
    and one process it stays. ``case_seconds``: an algorithm's seconds a case, as its fixed
    vectors took them, so the costliest streams start first (see first_costliest)."""
    port = port or PortOptions()
    if not chosen:
        return [], 0
    from fairvec.runner import accumulated_by_port  # (here: see _run_or_ask)

    with open_session(command, timeout=timeout, window=window, **options) as session:
        if jobs > 1 and len(chosen) > 1 and session.hello.accumulate:
            order = first_costliest(chosen, case_seconds or {})
            parallel = _Parallel(command, chosen, order, port, on_result, timeout)
            return parallel.run(session, min(jobs, len(chosen)), window, options)
        results = []
        answered = accumulated_by_port.AnsweredBefore()
        for one in chosen:
            result = _run_on(session, one, command, timeout, port, answered)
            results.append(result)
            on_result(result)
        _warn_answered_again(session, answered, port)
        return results, session.restarts


def _run_on(
    session: Session, one: Accumulated, command: Sequence[str], timeout: float,
    port: PortOptions, answered: accumulated_by_port.AnsweredBefore,
) -> Result:
    """One accumulated vector's result on ``session``: skipped, not run, or run."""
    if one.algorithm not in session.hello.algorithms:
        reason = f"the adapter does not implement {one.algorithm}"
        return Result(one.vector, one.algorithm, "skip", reason)
    if session.infrastructure_error:
        stopped = f"not run: {session.infrastructure_error}"
        return Result(one.vector, one.algorithm, "not-run", stopped)
    return _run_or_ask(session, one, command, timeout, port, answered)


def _warn_answered_again(
    session: Session, answered: accumulated_by_port.AnsweredBefore, port: PortOptions
) -> None:
    if answered.ids and session.process is not None:  # what came after the last answer
        answered.look_at(session.process.poll(0))
    for warning in answered.warnings():
        port.on_warning(warning)


def first_costliest(chosen: Sequence[Accumulated], case_seconds: Mapping[str, float]) -> list[int]:
    """The streams' indices, the costliest first (an algorithm's seconds a case times the
    cases; unknown: as cheap as can be, in vector order). Taken in vector order, tenhou's
    three streams, the costliest by far and the last, ended the run on one core while the
    others idled; started first, the others fill the other cores around them."""
    def cost(index: int) -> float:
        return case_seconds.get(chosen[index].algorithm, 0.0) * chosen[index].count

    return sorted(range(len(chosen)), key=lambda index: -cost(index))


class _Parallel:
    """Accumulated vectors computed by several instances of an adapter, each with its own
    session, taking the next stream from one shared queue (the costly ones are not known
    in advance; a queue evens them out). Every attribution rule is a session's own, as
    with -j for the fixed vectors (session.ParallelSession); results keep the vectors'
    order. When one session stops (--max-crashes, --max-timeouts), nothing more is started
    by any: the rest is not run, as at -j 1."""

    def __init__(
        self, command: Sequence[str], chosen: Sequence[Accumulated], order: list[int],
        port: PortOptions, on_result: Callable[[Result], None], timeout: float,
    ) -> None:
        self._command, self._chosen, self._port, self._timeout = command, chosen, port, timeout
        self._order = order  # the indices of ``chosen``, in the order they are started
        self._on_result = on_result
        self._lock = threading.Lock()  # the queue, the results, and the callbacks
        self._next = 0
        self._results: dict[int, Result] = {}
        self._stopped: str | None = None
        self._restarts = 0
        self._failures: list[BaseException] = []

    def run(
        self, first: Session, jobs: int, window: int, options: dict[str, Any]
    ) -> tuple[list[Result], int]:
        told = self._told(self._port)
        workers = [threading.Thread(target=self._drive, args=(first, told), daemon=True)]
        workers += [
            threading.Thread(target=self._start_and_drive, args=(first, window, options, told),
                             daemon=True)
            for _ in range(jobs - 1)
        ]  # fmt: skip
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        if self._failures:
            raise self._failures[0]
        return [self._results[index] for index in range(len(self._chosen))], self._restarts

    def _told(self, port: PortOptions) -> PortOptions:
        """The port options with its callbacks behind the lock (a progress bar is not
        thread-safe)."""

        def on_checkpoint(vector_id: str, block: int, blocks: int) -> None:
            with self._lock:
                port.on_checkpoint(vector_id, block, blocks)

        def on_warning(warning: str) -> None:
            with self._lock:
                port.on_warning(warning)

        return PortOptions(port.oracle, on_checkpoint, on_warning)

    def _start_and_drive(
        self, first: Session, window: int, options: dict[str, Any], port: PortOptions
    ) -> None:
        try:
            with open_session(self._command, timeout=self._timeout, window=window,
                              **options) as session:  # fmt: skip
                if session.hello != first.hello:
                    port.on_warning("an adapter instance (-j) greeted differently; left out")
                    return
                self._drive(session, port)
        except FairvecError as error:  # the run goes on with the others
            port.on_warning(f"an adapter instance (-j) could not be started: {error}")
        except BaseException as error:
            with self._lock:
                self._failures.append(error)

    def _drive(self, session: Session, port: PortOptions) -> None:
        from fairvec.runner import accumulated_by_port  # (here: see _run_or_ask)

        answered = accumulated_by_port.AnsweredBefore()
        try:
            while (index := self._take()) is not None:
                one = self._chosen[index]
                if self._stopped is not None:
                    stopped = f"not run: {self._stopped}"
                    result = Result(one.vector, one.algorithm, "not-run", stopped)
                else:
                    result = _run_on(session, one, self._command, self._timeout, port, answered)
                self._done(index, result, session.infrastructure_error)
            _warn_answered_again(session, answered, port)
        except BaseException as error:  # raised again in the calling thread
            with self._lock:
                self._failures.append(error)
                self._stopped = self._stopped or f"the runner itself: {error}"
        finally:
            with self._lock:
                self._restarts += session.restarts

    def _take(self) -> int | None:
        with self._lock:
            if self._next >= len(self._order) or self._failures:
                return None
            self._next += 1
            return self._order[self._next - 1]

    def _done(self, index: int, result: Result, stopped: str | None) -> None:
        with self._lock:
            self._results[index] = result
            if stopped and self._stopped is None:
                self._stopped = stopped
            self._on_result(result)


class PortOptions(NamedTuple):
    """For an adapter that computes accumulated vectors itself (accumulated_by_port.py)."""

    oracle: accumulated_by_port.Oracle | None = None  # names the first differing case
    on_checkpoint: accumulated_by_port.OnCheckpoint = lambda _id, _block, _blocks: None
    on_warning: Callable[[str], None] = lambda _warning: None  # for the run's warnings


def _run_or_ask(
    session: Session, chosen: Accumulated, command: Sequence[str], timeout: float,
    port: PortOptions, answered: accumulated_by_port.AnsweredBefore,
) -> Result:
    """Ask the adapter for the digest when its hello says it computes them (one request
    instead of a case each), else stream the cases."""
    from fairvec.runner import accumulated_by_port  # (here, as accumulated_digest)
    if not session.hello.accumulate:
        return run_one(session, chosen, command, port.oracle, port.on_checkpoint)
    try:
        computed = accumulated_by_port.compute(
            session, chosen, timeout, port.on_checkpoint, answered
        )
    except accumulated_by_port.Unsupported:  # this one, not the others: stream its cases
        return run_one(session, chosen, command, port.oracle, port.on_checkpoint)

    def per_case(block: int) -> Iterator[tuple[int, dict[str, Any], Result]]:
        return answers(session, chosen, first_block=block, blocks=1)

    oracle = _narrowed(port.oracle, chosen.fields)
    return accumulated_by_port.judge(chosen, computed, per_case, oracle)


# -- the hook into fairvec run (runner/cli.py) ---------------------------------------------


def select_for_run(
    files: Sequence[VectorFile],
    *,
    keywords: Sequence[str],
    tags: Sequence[str],
    excluded_tags: Sequence[str],
    tier: str,
) -> list[Accumulated]:
    """The accumulated vectors ``fairvec run``'s options select (--tier, and the same
    --algorithm, -k, --tag and --exclude-tag as the vectors), from the vector files it has
    loaded (and so validated whole) for the same --algorithm: nothing is read again."""
    if tier == "none":
        return []
    chosen = _chosen(_loaded_entries(files), keywords, tags, tier)
    excluded = set(excluded_tags)
    return [one for one in chosen if not excluded & set(one.entry["tags"])]


def run_for_run(
    command: Sequence[str],
    chosen: Sequence[Accumulated],
    on_result: Callable[[Result], None],
    *,
    timeout: float,
    window: int,
    max_line: int,
    max_crashes: int,
    max_timeouts: int,
    port: PortOptions | None = None,
    jobs: int = 1,
    case_seconds: Mapping[str, float] | None = None,
) -> tuple[list[Result], int]:
    """``fairvec run``'s accumulated vectors, under its limits, on up to ``jobs`` adapter
    processes; ``on_result`` is called with each result (the progress counts)."""
    return run_accumulated(
        command,
        chosen,
        timeout=timeout,
        window=window,
        on_result=on_result,
        port=port,
        jobs=jobs,
        case_seconds=case_seconds,
        max_line=max_line,
        max_crashes=max_crashes,
        max_timeouts=max_timeouts,
    )


def claimed_for_run(
    chosen: Sequence[Accumulated], claims: claims_module.Claims, *, partial: bool = False
) -> tuple[list[Accumulated], list[Result]]:
    """The accumulated vectors to run, and the skips: a stream that does not hold a pinned
    value (its generator is not that constant); runner/claims.py. Under a partial claim a
    stream is kept with the claimed fields (``partial``: the reference is at hand to
    compute their digest, runner/fresh_streams.py), else skipped (the committed digest
    covers whole outputs)."""
    kept: list[Accumulated] = []
    skipped: list[Result] = []
    for one in chosen:
        pinned = claims_module.pinned_for(claims, one.algorithm, one.variant)
        generators = one.entry["stream"]["input"]
        held = all(
            same_json(generators.get(name), {"const": value}) for name, value in pinned.items()
        )
        if not held:
            message = f"its stream does not hold the pinned {claims_module.pinned_values(pinned)}"
            skipped.append(_skip_shown(one, "input-not-pinned", message))
        elif one.algorithm in claims.outputs and partial:
            kept.append(Accumulated(one.entry, one.algorithm, claims.outputs[one.algorithm]))
        elif one.algorithm in claims.outputs:
            fields = ", ".join(claims.outputs[one.algorithm])
            message = f"its digest covers whole outputs; the adapter computes only {fields}"
            skipped.append(_skip_shown(one, "outputs-not-claimed", message))
        else:
            kept.append(one)
    return kept, skipped


def _skip_shown(one: Accumulated, kind: str, message: str) -> Result:
    return Result(one.vector, one.algorithm, "skip", message, skip_kind=kind)
