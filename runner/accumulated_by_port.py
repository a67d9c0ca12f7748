"""Accumulated vectors computed by the adapter itself (docs/adapter-protocol.md,
"Accumulated vectors").

An adapter whose hello says ``"accumulate": true`` gets one request per accumulated vector
instead of one per case: it draws the stream's inputs, answers each case, encodes the
records and answers the digest with its checkpoints, sending a progress line per block as
it goes. The runner compares the checkpoints; at the first that differs it sends that
block's cases one by one (the ordinary requests) and, given the reference's answers
(``Oracle``, handed in by the command: the runner never imports the reference), names the
first differing case with its input. As C2SP/CCTV's accumulated vectors, a million cases
then cost the runner one comparison, not a million round trips.

The request travels on the stream session's own adapter process, between its runs: a
fault (an exit, a hang, a line that is not a valid answer) errors the vector and kills the
process, which the session restarts for what comes next.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from fairvec import accumulated_digest
from fairvec.runner.compare import shown_text
from fairvec.runner.process import describe_status
from fairvec.runner.protocol import parse_accumulate_answer, quote
from fairvec.runner.results import Result

if TYPE_CHECKING:
    from collections.abc import Iterator

    from fairvec.data_model import AccumulatedVector, Expected, ShownAccumulated
    from fairvec.runner.session import Session


class Accumulated(Protocol):
    """An accumulated vector as runner/accumulated_run.py holds it (which imports this
    module: named by its shape here, not imported)."""

    @property
    def entry(self) -> AccumulatedVector: ...
    @property
    def algorithm(self) -> str: ...
    @property
    def id(self) -> str: ...
    @property
    def variant(self) -> str | None: ...
    @property
    def count(self) -> int: ...
    @property
    def block(self) -> int: ...
    @property
    def blocks(self) -> int: ...
    @property
    def vector(self) -> ShownAccumulated: ...
    @property
    def fields(self) -> tuple[str, ...] | None: ...
    @property
    def made_at_run_time(self) -> bool: ...


# the answers to one block's cases sent one by one: block -> (index, input, result) each
BlockAnswers = Callable[[int], "Iterator[tuple[int, dict[str, Any], Result]]"]

ENCODING = "fairvec-accumulated/1"
# The request's time: --timeout, plus a thousandth of it per ordinary case (10 s and 10 ms a
# case by default: 10,000 cases 110 s, a million 10,010 s), the slowest port's pace with
# room; a case that costs more (the spec's cost.case, written into the vector as
# case_cost: bustabit.vx_game's BLS signature, 200) counts as that many (issue 34: the 50
# signatures of vx_game had 10.5 s, and Node missed it on a loaded machine).
CASES_PER_TIMEOUT = 1000
STDERR_KEPT = 40  # stderr lines kept for a fault's report

# the reference's answer to one input: (algorithm, input, variant) -> {"output"} or {"error"}
Oracle = Callable[[str, dict[str, Any], "str | None"], "Expected"]
# told of each checkpoint as it arrives: (vector id, block, blocks)
OnCheckpoint = Callable[[str, int, int], None]


class Computed(NamedTuple):  # (not a dataclass: see runner/results.py)
    digest: str
    checkpoints: list[str]
    seconds: float
    cases: int = 0  # the count the adapter says it computed (a named tuple has count())


class Fault(NamedTuple):
    message: str
    stderr: list[str]
    seconds: float


class AnsweredBefore:
    """The accumulate requests one session's adapter has answered, and the lines naming
    one of them that came after its answer. The first answer is the one judged; a second
    drew no warning (issue 34): the lines after it in the same read were dropped, and one
    read while the next vector was computed charged that vector. Now each is counted, the
    first of them quoted, and warned about once a vector (:meth:`warnings`)."""

    def __init__(self) -> None:
        self.ids: set[str] = set()
        self._again: dict[str, tuple[int, bytes]] = {}  # id -> (lines, the first)

    def again(self, vector_id: str, line: bytes) -> None:
        count, first = self._again.get(vector_id, (0, line))
        self._again[vector_id] = (count + 1, first)

    def look_at(self, events: Sequence[Any]) -> None:
        """Stdout lines read after an answer (the rest of its read, or what was left in
        the pipe at the end): those naming an answered request are counted."""
        for event in events:
            if event.kind == "stdout":
                named = parse_accumulate_answer(event.line).id
                if named in self.ids:
                    self.again(named, event.line)

    def warnings(self) -> list[str]:
        return [
            f"the adapter answered the accumulate request {vector_id} more than once: "
            f"{count} more line(s) naming it came after its answer, which alone was "
            f"judged; the first: {quote(first)}"
            for vector_id, (count, first) in self._again.items()
        ]


class Unsupported(Exception):
    """The adapter answered unsupported: its cases are streamed as ordinary requests."""


def deadline_seconds(timeout: float, count: int, case_cost: float = 1) -> float:
    return timeout * (1 + count * case_cost / CASES_PER_TIMEOUT)


def request_line(chosen: Accumulated) -> bytes:
    entry = chosen.entry
    job: dict[str, Any] = {
        "stream": entry["stream"],
        "encoding": entry["encoding"],
        "count": entry["count"],
        "block": entry["block"],
    }
    if chosen.fields is not None:  # a partial claim: records of these output fields only
        job["fields"] = list(chosen.fields)
    request = {
        "id": chosen.id,
        "algorithm": chosen.algorithm,
        "variant": chosen.variant,
        "accumulate": job,
    }
    return json.dumps(request, ensure_ascii=True, separators=(",", ":")).encode() + b"\n"


def compute(
    session: Session,
    chosen: Accumulated,
    timeout: float,
    on_checkpoint: OnCheckpoint,
    answered: AnsweredBefore | None = None,
) -> Computed | Fault:
    """The adapter's digest and checkpoints for ``chosen``, or how it failed; raises
    Unsupported when it answers unsupported. ``answered``: the requests this session's
    adapter answered before (a line naming one is warned about, not charged to
    ``chosen``); ``chosen`` is added once answered."""
    answered = answered or AnsweredBefore()
    if session.process is None and not session.restart_now():
        return Fault(f"not run: {session.infrastructure_error}", [], 0.0)
    process = session.process
    assert process is not None
    started = time.monotonic()
    case_cost = chosen.entry.get("case_cost", 1)
    limit = deadline_seconds(timeout, chosen.count, case_cost)
    deadline = started + limit
    stderr: list[str] = []
    # A progress line starts the time again: the limit is for silence, not for the whole
    # stream. A port computing as it should but slowed by a loaded machine (the Python
    # reference's tenhou streams, 28 s of CPU each, took over 110 s at load 20) is not cut
    # off; one that hangs is, as before, a limit after its last line.
    heard: list[int] = []

    def progressed(vector_id: str, block: int, blocks: int) -> None:
        heard.append(block)
        on_checkpoint(vector_id, block, blocks)

    process.send(request_line(chosen))
    while (remaining := deadline - time.monotonic()) > 0:
        events = process.poll(remaining)
        if not events and not process.stdout_open:  # (its end was reported already)
            return _fault(session, "the adapter closed its stdout", stderr, started, crash=True)
        # stderr first: a line the adapter wrote before dying may come after its stdout
        # closed in the same batch (two pipes), and must not be lost with the rest of it
        said = [event.line.decode("utf-8", "replace") for event in events if event.kind == "stderr"]
        stderr = [*stderr, *said][-STDERR_KEPT:]
        for position, event in enumerate(events):
            if event.kind == "stderr" or (event.kind == "too-long" and event.stream == "stderr"):
                continue
            if event.kind == "too-long":
                message = f"a line longer than the {session.max_line:,} bytes allowed"
                return _fault(session, message, stderr, started, crash=True)
            if event.kind == "stdout-closed":
                message = _ended(process, event)
                stderr = [*stderr, *_rest_of_stderr(process)][-STDERR_KEPT:]
                return _fault(session, message, stderr, started, crash=True)
            verdict = _line(event.line, chosen, progressed, answered)
            if heard:
                deadline, heard[:] = time.monotonic() + limit, []
            if isinstance(verdict, str):
                return _fault(session, verdict, stderr, started, crash=True)
            if verdict is not None:
                session.answered()
                answered.ids.add(chosen.id)
                answered.look_at(events[position + 1 :])
                return Computed(
                    verdict["digest"], verdict["checkpoints"], _since(started), verdict["count"]
                )
    weighed = f" x {case_cost:g}" if case_cost != 1 else ""
    message = (
        f"no answer within {limit:g} s (--timeout x (1 + {chosen.count:,} cases{weighed} "
        "/ 1,000)) of the request or of its last progress line"
    )
    return _fault(session, message, stderr, started, crash=False)


def _line(
    line: bytes, chosen: Accumulated, on_checkpoint: OnCheckpoint, answered: AnsweredBefore
) -> Any:
    """None for a progress line (or a late line about a request answered before); the
    ``accumulated`` object of the final answer; or a message (str) saying why the line is
    not a valid one. Raises Unsupported."""
    response = parse_accumulate_answer(line)
    if response.id in answered.ids and response.id != chosen.id:
        answered.again(response.id, line)  # (the id of a request answered before)
        return None
    if response.problem is not None:
        return f"not a valid answer to an accumulate request: {response.problem}"
    message = response.message
    if message["id"] != chosen.id:
        return f"a line naming {quote(message['id'])}, while {chosen.id} was being computed"
    if "checkpoint" in message:
        on_checkpoint(chosen.id, int(message["checkpoint"]["block"]), chosen.blocks)
        return None
    if message.get("unsupported"):  # no state is left behind: the process stays
        raise Unsupported(str(message.get("reason", "")))
    if "error" in message:
        return f"the adapter answered error {shown_text(message['error']['code'])!r}"
    if "accumulated" not in message:
        return f"an answer with no accumulated digest: {quote(line)}"
    return message["accumulated"]


def _ended(process: Any, event: Any) -> str:
    status = process.wait_exit(1.0)
    partial = f", after writing {quote(event.line)}" if event.line else ""
    return f"the adapter {describe_status(status)} while computing it{partial}"


def _rest_of_stderr(process: Any) -> list[str]:
    """What an adapter that ended wrote to stderr and is still in the pipe (its last words
    may come after its stdout closed)."""
    return [
        event.line.decode("utf-8", "replace")
        for event in process.drain_stderr()
        if event.kind == "stderr"
    ]


def _fault(
    session: Session, message: str, stderr: list[str], started: float, *, crash: bool
) -> Fault:
    """Kill the process (its state is unknown): the session restarts one when next used."""
    session.forget_process(message, crash=crash)
    return Fault(message, stderr, _since(started))


def _since(started: float) -> float:
    return time.monotonic() - started


# -- judging ---------------------------------------------------------------------------------


def judge(
    chosen: Accumulated, computed: Computed | Fault, per_case: BlockAnswers, oracle: Oracle | None
) -> Result:
    if isinstance(computed, Fault):
        return Result(
            chosen.vector, chosen.algorithm, "error",
            f"computed by the adapter: {computed.message}",
            stderr=computed.stderr, seconds=computed.seconds,
        )  # fmt: skip
    if computed.cases != chosen.count:  # the checkpoints alone could be copied (issue 34)
        message = (
            f"computed by the adapter: its answer says {computed.cases:,} cases, "
            f"{chosen.count:,} were asked for (count)"
        )
        return Result(
            chosen.vector, chosen.algorithm, "fail", message,
            got={"count": computed.cases, "computed_by": "adapter"}, seconds=computed.seconds,
        )  # fmt: skip
    expected = chosen.entry["expected"]["checkpoints"]
    got = computed.checkpoints
    if len(got) != len(expected) or computed.digest != (got[-1] if got else None):
        message = (
            f"computed by the adapter: {len(got)} checkpoint(s) for {chosen.count:,} cases in "
            f"blocks of {chosen.block:,}, {len(expected)} expected, the last equal to the "
            "digest (docs/accumulated.md)"
        )
        return Result(chosen.vector, chosen.algorithm, "error", message, seconds=computed.seconds)
    block = next((k for k, pair in enumerate(zip(expected, got, strict=True), 1)
                  if pair[0] != pair[1]), None)  # fmt: skip
    if block is None:
        return Result(
            chosen.vector, chosen.algorithm, "pass",
            got={"digest": computed.digest, "computed_by": "adapter"}, seconds=computed.seconds,
        )  # fmt: skip
    message = first_difference(chosen, block, per_case, oracle, got[block - 1])
    return Result(
        chosen.vector, chosen.algorithm, "fail", message,
        got={"block": block, "checkpoint": got[block - 1], "computed_by": "adapter"},
        seconds=computed.seconds,
    )  # fmt: skip


def first_difference(
    chosen: Accumulated,
    block: int,
    per_case: BlockAnswers,
    oracle: Oracle | None,
    checkpoint: str,
) -> str:
    """What the per-case requests of ``block`` show: the first case whose answer differs
    from the reference's, with its input; or, where all agree, whether the adapter's
    ``checkpoint`` hashed that block's records alone (not the running digest)."""
    head = (
        f"the adapter's digest differs from block {block} of {chosen.blocks} on (cases "
        f"{(block - 1) * chosen.block:,} to {min(block * chosen.block, chosen.count) - 1:,})"
    )
    if oracle is None:
        return f"{head}; find the case with: fairvec accumulated locate --block {block} {chosen.id}"
    return _first_differing_case(chosen, block, per_case, oracle, checkpoint, head) + _replay(
        chosen
    )


def _replay(chosen: Accumulated) -> str:
    """How to run a fresh stream again (no file holds it: it is drawn from the run's seed)."""
    provenance = chosen.entry["provenance"]
    if not provenance.get("fresh"):
        return ""
    return f" (a fresh stream: replay it with --fresh-seed {provenance['seed']})"


def _first_differing_case(
    chosen: Accumulated,
    block: int,
    per_case: BlockAnswers,
    oracle: Oracle,
    checkpoint: str,
    head: str,
) -> str:
    alone = hashlib.sha256()  # the block's records alone
    for index, inputs, result in per_case(block):
        if result.status != "pass":
            return f"{head}; sent alone, case {index} (input {_shown(inputs)}): {result.message}"
        wanted = oracle(chosen.algorithm, inputs, chosen.variant)
        expected = _record(wanted)
        if expected != _record(result.got):
            return (
                f"{head}; the first differing case is {index}: input {_shown(inputs)}, "
                f"expected {_shown(wanted)}, got {_shown(result.got)}"
            )
        alone.update(expected or b"")
    if alone.hexdigest() == checkpoint:
        return (
            f"{head}; its checkpoint is the digest of that block's records alone: a "
            "checkpoint is the running digest of every record from case 0 on "
            "(docs/accumulated.md)"
        )
    if chosen.made_at_run_time:  # no file holds it: `fairvec accumulated records` cannot
        return (
            f"{head}; yet sent one by one, that block's answers all agree with the "
            "reference: the adapter's own stream or record encoding differs"
            + (f" (its records hold only {', '.join(chosen.fields)})" if chosen.fields else "")
        )
    return (
        f"{head}; yet sent one by one, that block's answers all agree with the reference: "
        "the adapter's own stream or record encoding differs; compare its records with "
        f"fairvec accumulated records --block {block} {chosen.id} (docs/accumulated.md)"
    )


def _record(answer: Any) -> bytes | None:
    try:
        return accumulated_digest.record(answer)
    except (ValueError, TypeError):
        return None


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 300 else text[:300] + "..."
