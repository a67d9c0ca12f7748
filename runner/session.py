"""Running vectors through an adapter: pipelined requests, and every kind of adapter
misbehaviour charged to exactly the vector it concerns.

Each vector ends in exactly one :class:`Result`: pass, fail, error, skip or not-run.

Attribution. A response names its vector by id; the protocol also says responses come in
request order. When the oldest unanswered request (the *head*) gets its answer, it is
judged. A line that names a later request is ambiguous: either the head was skipped, or
the head's answer carries the wrong id. The next stdout line settles it: if it names the
same later request again, the first line was the head's answer under a wrong id (the head
errors, the later request keeps its own answer); otherwise the head was skipped (it errors
with "no response") and the later request is judged on that line. A line naming a vector
already ended charges that vector ("answered more than once"). A line naming no request
(an unknown id, or no readable id) is held too: if the next line answers the head, it
concerned no vector (a stray line, warned about); if the next names another request, or the
adapter exits or times out first, the head's answer was missing or was that line, and the
head alone is charged. A crash or a hang charges the head; the adapter is restarted and the
requests queued behind the head are sent again. A vector tagged ``slow`` gets
``SLOW_FACTOR`` times the timeout. After ``max_crashes`` crashes or failed restarts in a row
with no answer in between, or ``max_timeouts`` timeouts in a row (a timeout is not a crash:
it has a budget of its own), the run stops: the vectors left are "not run" and it exits 2.
"""

from __future__ import annotations

import gc
import math
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import islice
from typing import Any

from fairvec.runner.compare import judge, judge_outputs
from fairvec.runner.process import (
    DEFAULT_MAX_LINE,
    AdapterProcess,
    AdapterStartError,
    Event,
    describe_status,
)
from fairvec.runner.protocol import (
    Hello,
    Response,
    parse_hello,
    parse_response,
    plain_responses,
    quote,
    request_bytes,
)
from fairvec.runner.results import Result, Work

MAX_CRASHES = 5  # --max-crashes: crashes or failed restarts in a row before giving up
# --max-timeouts: timeouts in a row, with no answer in between, before giving up. Larger than
# MAX_CRASHES: a run of slow vectors (already given SLOW_FACTOR x the timeout) may time out
# together on a loaded machine without the adapter being broken.
MAX_TIMEOUTS = 10
# A vector tagged slow (the bustabit chain walks: seconds in any port) gets this many times
# --timeout: under load, five of them in a row once timed out at --timeout 3.
SLOW_TAG = "slow"
SLOW_FACTOR = 10
# A line naming no request, with nothing else in flight to settle whose it was: the head's
# own answer gets this long to follow it (a log line on stdout, then the answer), after which
# the line is taken for the head's answer.
UNPLACED_GRACE = 1.0
STRAY_KEPT = 1000  # stray lines quoted; beyond, only counted (an adapter may flood them)
ON_STDERR = "an answer arrived on stderr: adapters answer on stdout"
STDERR_KEPT = 200  # stderr lines kept per adapter process
STDERR_LINE_SHOWN = 500  # characters of one stderr line kept
STDERR_SHOWN = 40  # stderr lines at most in a report entry (head and tail of a long trace)
STDERR_TAIL = 5  # stderr lines shown when no panic or traceback is recognised
EXIT_WAIT_SECONDS = 1.0  # after stdout closes, how long the adapter gets to exit
STDERR_EOF_SECONDS = 0.2  # after it exits, how long its stderr gets to finish
# The first line of a crash report, in the languages adapters are written in.
PANIC = re.compile(
    r"thread '.*' panicked at"  # Rust
    r"|Traceback \(most recent call last\):"  # Python
    r"|panic: |fatal error: "  # Go
    r"|(Uncaught )?([A-Z]\w*)?Error( \[\w+\])?: "  # Node.js, JavaScript, and the like
    r"|Exception in thread |Unhandled exception|PHP Fatal error|terminate called"
)


class _Flight:
    """A request sent and not yet ended (one per vector: a plain class with slots, made
    fast)."""

    __slots__ = ("head_since", "id", "limit", "order", "work")

    def __init__(self, work: Work, head_since: float, limit: float, order: int) -> None:
        self.work = work
        self.id = str(work.vector["id"])
        self.head_since = head_since  # when it became the oldest unanswered request
        self.limit = limit  # seconds it may take as the head
        self.order = order  # sent after every flight with a lower one


@contextmanager
def _vectors_frozen() -> Iterator[None]:
    """The vectors, loaded before the run, live through it: moved out of the cyclic
    garbage collector's sight meanwhile, so that its collections, which the run's
    allocations set off, do not walk millions of their objects again and again (about a
    third of the runner's own time on the whole suite, docs/benchmarks.md). Back in sight
    afterwards."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def in_vector_order(results: list[Result], works: Sequence[Work]) -> list[Result]:
    """Skips end first, a crash resends vectors later and -j interleaves sessions: the
    report lists results in the vectors' order (usually they already are: checked first,
    by identity, at C speed)."""
    if [result.vector for result in results] == [work.vector for work in works]:
        return results
    position = {work.vector["id"]: index for index, work in enumerate(works)}
    return sorted(results, key=lambda result: position[result.id])


@dataclass
class _Tentative:
    """A line naming a later request than the head, kept until the next line tells which
    of the two vectors it belongs to."""

    flight: _Flight
    response: Response


class Session:
    """Owns the adapter process (restarting it as needed) for one run."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        timeout: float,
        window: int,
        startup_timeout: float = 30.0,
        max_line: int = DEFAULT_MAX_LINE,
        max_crashes: int = MAX_CRASHES,
        max_timeouts: int = MAX_TIMEOUTS,
        on_result: Callable[[Result], None] = lambda _result: None,
        judge: Callable[[dict[str, Any], str, dict[str, Any], dict[str, Any]], Result] = judge,
        process: AdapterProcess | None = None,
    ) -> None:
        """``process``: the adapter already spawned (``AdapterProcess(command)``), so that
        it starts while the caller loads vector files; its hello is awaited here."""
        self.command = list(command)
        self._spawned = process
        self.judge = judge  # accumulated vectors collect answers instead (runner/accumulate.py)
        self.timeout = timeout
        self.window = window
        self.startup_timeout = startup_timeout
        self.max_line = max_line
        self.max_crashes = max_crashes
        self.max_timeouts = max_timeouts
        self.on_result = on_result
        self.restarts = 0
        self.process: AdapterProcess | None = None
        self.infrastructure_error: str | None = None
        self.stray_lines: list[str] = []  # lines that concern no vector (quoted)
        self.warnings: list[str] = []  # for the report (ParallelSession has its own)
        self._losses = 0  # crashes, exits, failed restarts since the last answer
        self._timeouts = 0  # timeouts since the last answer (a budget of their own)
        self._pending: deque[Work] = deque()
        self._inflight: deque[_Flight] = deque()
        self._by_id: dict[str, _Flight] = {}
        self._ended_here: dict[str, Result] = {}  # vectors this process was asked, and ended
        self._tentative: _Tentative | None = None
        # lines naming no request since the head's turn began: (the head's charge, if it
        # was the head's answer; the line as a stray line, if it was not)
        self._unplaced: list[tuple[str, str]] = []
        self._unplaced_since = 0.0  # when the last of them came
        self._sent = 0  # requests sent by this session: each flight's order
        self._stderr_answered: set[str] = set()  # in flight, with a bad answer on stderr
        self._backlog: list[Event] = []  # events read with the hello line
        self._stderr: deque[str] = deque(maxlen=STDERR_KEPT)
        self._stderr_total = 0
        self._stderr_mark = 0  # _stderr_total at the last answer
        self._results: list[Result] = []
        # -j: the queue this session shares with the others (empty when alone), and the
        # flag that stops them all (set when one gives up, or on the way out)
        self._shared: deque[Work] = deque()
        self._stop = threading.Event()
        self._closed = False
        self._starting: AdapterProcess | None = None
        self.hello: Hello = self._start()

    # -- starting ------------------------------------------------------------------------

    def _start(self) -> Hello:
        if self._closed:  # -j: close() came from another thread; start nothing more
            raise AdapterStartError("the run was stopped")
        process, self._spawned = self._spawned, None
        if process is None:
            process = AdapterProcess(self.command, max_line=self.max_line)
        self._starting = process  # so close() from another thread kills it too
        try:
            if self._closed:
                raise AdapterStartError("the run was stopped")
            return self._greeted(process)
        except BaseException:  # no hello, or fairvec interrupted meanwhile: leave nothing
            process.kill()
            raise
        finally:
            self._starting = None

    def _greeted(self, process: AdapterProcess) -> Hello:
        self._stderr.clear()
        self._stderr_total = self._stderr_mark = 0
        deadline = time.monotonic() + self.startup_timeout
        while (remaining := deadline - time.monotonic()) > 0 and not process.closed:
            events = process.poll(remaining)
            for index, event in enumerate(events):
                if event.kind == "stderr":
                    self._keep_stderr(event.line)
                elif event.kind == "stdout":
                    hello = self._greet(process, event.line)
                    self._backlog = events[index + 1 :]
                    self.process = process
                    return hello
                else:
                    self._fail_start(process, event)
        process.kill()
        raise AdapterStartError(
            f"no hello line within {self.startup_timeout:g}s of starting the adapter"
        )

    @staticmethod
    def _greet(process: AdapterProcess, line: bytes) -> Hello:
        try:
            return parse_hello(line)
        except ValueError as error:
            process.kill()
            raise AdapterStartError(f"bad hello line: {error}") from None

    def _fail_start(self, process: AdapterProcess, event: Event) -> None:
        if event.kind == "too-long":
            process.kill()
            raise AdapterStartError(
                f"bad hello line: longer than {self.max_line} bytes: {quote(event.line)}"
            )
        status = process.wait_exit(EXIT_WAIT_SECONDS)
        self._finish_stderr(process)
        process.kill()
        tail = " | ".join(list(self._stderr)[-3:])
        raise AdapterStartError(
            f"the adapter {describe_status(status)} before its hello line"
            + (f"; stderr: {tail}" if tail else "")
        )

    def close(self) -> None:
        """Kill the adapter and everything it started (run() has already let a finished
        adapter exit politely; close() is for the way out of an interrupted run). Safe
        to call from another thread (-j): the session then starts nothing more."""
        self._closed = True
        self._stop.set()
        for process in (self._starting, self.process):
            if process is not None:
                process.kill()
        self.process = None

    # -- the run -------------------------------------------------------------------------

    def run(self, works: Sequence[Work], *, keep_open: bool = False) -> list[Result]:
        """``keep_open``: leave the adapter up for the next run() (a stream of blocks);
        a late line about this run's vectors is then a stray line."""
        with _vectors_frozen():
            return self._run(works, keep_open=keep_open)

    def _run(self, works: Sequence[Work], *, keep_open: bool) -> list[Result]:
        self._results = []
        supported, skipped = self._sorted_out(works)
        self._pending.extend(supported)
        self._drive()
        self._skip(skipped)  # after the run: making their results never delays a request
        if keep_open:
            self._ended_here.clear()  # a long stream would keep every answer otherwise
        else:
            self._drain_at_end()
        return in_vector_order(self._results, works)

    def _sorted_out(self, works: Sequence[Work]) -> tuple[list[Work], list[tuple[Work, str]]]:
        """The works the hello declares, and the others with the reason (found once per
        algorithm and variant: a run may skip tens of thousands)."""
        reasons: dict[tuple[str, str | None], str | None] = {}
        supported, skipped = [], []
        for work in works:
            key = (work.algorithm, work.vector["variant"])
            if key not in reasons:
                reasons[key] = self._unsupported_reason(work)
            reason = reasons[key]
            if reason is None:
                supported.append(work)
            else:
                skipped.append((work, reason))
        return supported, skipped

    def _skip(self, skipped: list[tuple[Work, str]]) -> None:
        for work, reason in skipped:
            self._finish(Result(work.vector, work.algorithm, "skip", reason))

    def _unsupported_reason(self, work: Work) -> str | None:
        variants = self.hello.algorithms.get(work.algorithm)
        if variants is None:
            return f"the adapter does not implement {work.algorithm}"
        variant = work.vector["variant"]
        if variant is not None and variant not in variants:
            return f"the adapter does not implement variant {variant!r}"
        return None

    def _drive(self) -> None:
        """Until every request of its own and of the shared queue has ended."""
        while (self._pending or self._inflight or self._has_shared()) and (
            self.infrastructure_error is None and not self._closed
        ):
            if self.process is None and not self._restart():
                break
            self._fill()
            if self._inflight:  # (-j: another session may have taken the last work)
                self._step()

    def _has_shared(self) -> bool:
        return bool(self._shared) and not self._stop.is_set()

    def _next_works(self, room: int) -> list[Work]:
        """Up to ``room`` works: resent requests first, then the shared queue's (-j)."""
        pending = self._pending
        works = [pending.popleft() for _ in range(min(room, len(pending)))]
        shared = self._shared
        while len(works) < room and shared and not self._stop.is_set():
            try:
                works.append(shared.popleft())  # atomic: sessions in other threads pull too
            except IndexError:
                break
        return works

    def _fill(self) -> None:
        """Send requests up to the window, in one write; one more while a line naming no
        request waits for the next answer to say whose it was (at --window 1, say)."""
        assert self.process
        room = self.window - len(self._inflight) + (len(self._unplaced) > 0)
        works = self._next_works(room)
        if not works:
            return
        now = time.monotonic()
        first = self._sent
        self._sent += len(works)
        quick, slow = self.timeout, self.timeout * SLOW_FACTOR  # each vector's time limit
        flights = [
            _Flight(work, now, slow if SLOW_TAG in work.vector.get("tags", ()) else quick, order)
            for order, work in enumerate(works, first)
        ]
        self._inflight.extend(flights)
        self._by_id.update([(flight.id, flight) for flight in flights])
        self.process.send(b"".join([request_bytes(work.vector, work.algorithm) for work in works]))

    def _step(self) -> None:
        """Wait for what the adapter says (or the head's deadline) and act on all of it."""
        process = self.process
        assert process
        if self._backlog:
            events, self._backlog = self._backlog, []
        else:
            head = self._inflight[0]
            deadline = head.head_since + head.limit
            if self._unplaced and len(self._inflight) == 1:  # no later answer will settle it
                deadline = min(deadline, self._unplaced_since + UNPLACED_GRACE)
            events = process.poll(max(deadline - time.monotonic(), 0.0))
            if not events and time.monotonic() >= deadline:
                self._on_timeout()
                return
        index = 0
        while index < len(events):
            if self.process is not process:
                return  # the process was lost: the rest of what it said concerns nobody
            answered = self._answered_plainly(events, index)
            if answered:
                index += answered
            else:
                self._on_event(events[index])
                index += 1

    def _answered_plainly(self, events: list[Event], start: int) -> int:
        """The lines every good adapter writes, judged at the least cost: from
        ``events[start]`` on, a run of stdout lines, each a plainly valid answer naming
        the head of its turn, with no earlier line waiting to be settled (judged as a
        batch, see judge_outputs). Returns how many were answered: 0, having done nothing,
        when the run is not all such lines (the general path then takes them one by one)."""
        if self._tentative is not None or self._unplaced:
            return 0
        end = start
        limit = min(len(events), start + len(self._inflight))
        while end < limit and events[end].kind == "stdout":
            end += 1
        if end == start:
            return 0
        messages = plain_responses([event.line for event in events[start:end]])
        heads = list(islice(self._inflight, len(messages)))
        answered = 0  # the first lines that name the heads in turn
        while answered < len(messages) and messages[answered]["id"] == heads[answered].id:
            answered += 1
        if answered:
            works = [head.work for head in heads[:answered]]
            self._end_heads(heads[:answered], self._judge_all(works, messages[:answered]))
        return answered

    def _judge_all(self, works: list[Work], messages: list[dict[str, Any]]) -> list[Result]:
        """self.judge on each; for judge itself, the outputs first in one batch."""
        results: list[Result | None] = [None] * len(works)
        if self.judge is judge:
            given = [index for index, message in enumerate(messages) if "output" in message]
            passed = judge_outputs(
                [works[index] for index in given], [messages[index]["output"] for index in given]
            )
            for index, result in zip(given, passed or [], strict=False):
                results[index] = result
        return [
            result or self.judge(work.vector, work.algorithm, work.output_schema, message)
            for result, work, message in zip(results, works, messages, strict=True)
        ]

    def _end_heads(self, heads: list[_Flight], results: list[Result]) -> None:
        """The first len(heads) requests in flight ended with these results, now."""
        now = time.monotonic()
        for head, result in zip(heads, results, strict=True):
            self._inflight.popleft()
            del self._by_id[head.id]
            result.seconds = now - head.head_since
            head.head_since = now
            self._ended_here[head.id] = result
            self._finish(result)
        if self._inflight:
            self._inflight[0].head_since = now
        self._alive()
        self._stderr_mark = self._stderr_total

    def _on_event(self, event: Event) -> None:
        if event.kind == "stdout":
            self._on_line(parse_response(event.line))
        elif event.kind == "stderr":
            self._on_stderr(event.line)
        elif event.kind == "too-long" and event.stream == "stderr":
            self._keep_stderr(b"[a line longer than the cap, cut] " + event.line)
        elif event.kind == "too-long":
            problem = f"a line longer than {self.max_line} bytes, starting {quote(event.line)}"
            self._on_line(Response(None, {}, problem))
        else:
            self._on_exit(event.line)

    # -- stdout lines --------------------------------------------------------------------

    def _on_line(self, response: Response) -> None:
        if self._tentative is not None:
            self._settle_tentative(self._flight_of(response))
        flight = self._flight_of(response)
        if self._unplaced and flight is not None:
            self._settle_unplaced(flight)
        self._route(response)

    def _flight_of(self, response: Response) -> _Flight | None:
        return self._by_id.get(response.id) if response.id is not None else None

    def _settle_tentative(self, flight: _Flight | None) -> None:
        """The line held for naming a later request, judged by the next one, ``flight``'s
        (None: it names no request in flight)."""
        tentative, self._tentative = self._tentative, None
        assert tentative is not None
        later, head = tentative.flight, self._inflight[0]
        if later.id not in self._by_id or later is head:
            self._accept(tentative)  # (it ended meanwhile, or nothing is left before it)
        elif flight is later:  # named again: the first was the head's answer, mislabelled
            self._charge_head(
                f"the adapter answered with id {later.id!r}, a later request's, not "
                f"{head.id!r}, and then answered {later.id!r} again"
            )
        elif flight is not None and flight.order < later.order:
            if flight is head:  # the head answers now: that line was no one's, in order
                said = tentative.response.problem or quote(str(tentative.response.message))
                self._stray(f"{said} (naming {later.id!r} before {head.id!r} was answered)")
            else:  # a request before it answers next: it was the head's, mislabelled
                self._charge_head(
                    f"the adapter answered with id {later.id!r}, a later request's, not "
                    f"{head.id!r}, and then answered {flight.id!r}, which came before it"
                )
        else:
            self._accept(tentative)

    def _settle_unplaced(self, flight: _Flight) -> None:
        """Lines naming no request came before this line, ``flight``'s answer: if it is
        the head's, they concerned no vector; else the head's answer was one of them, or
        missing, and the head alone is charged."""
        held, self._unplaced = self._unplaced, []
        if flight is not self._inflight[0]:
            charge, _line = held.pop(0)
            more = f" (and {len(held)} more such line(s))" if held else ""
            self._charge_head(charge + more)
        for _charge, line in held:
            self._stray(line)

    def _route(self, response: Response) -> None:
        flight = self._flight_of(response)
        if flight is not None:
            if flight is self._inflight[0]:
                self._answer(flight, response)
            else:
                self._tentative = _Tentative(flight, response)
        elif response.id is not None and response.id in self._ended_here:
            self._answered_again(self._ended_here[response.id])
        elif not self._inflight:
            self._stray(response.problem or quote(str(response.message)))
        else:
            line = response.problem or quote(str(response.message))
            self._unplaced.append((self._head_charge(response), line))
            self._unplaced_since = time.monotonic()

    def _head_charge(self, response: Response) -> str:
        """What the head is charged with if a line naming no request was its answer."""
        if response.problem is not None:
            return f"the adapter wrote a bad line on stdout: {response.problem}"
        return (
            f"the adapter answered id {response.id!r}, which was not asked; expected "
            f"{self._inflight[0].id!r}"
        )

    def _stray(self, line: str) -> None:
        """A line that concerned no vector: warned about, never charged."""
        kept = len(self.stray_lines) < STRAY_KEPT
        self.stray_lines.append(line if kept else "(not kept)")

    def _accept(self, tentative: _Tentative) -> None:
        """The line naming a later request was its answer: the requests before it were
        skipped. Anything they wrote on stderr meanwhile is read first (see drain_stderr)."""
        assert self.process
        for event in self.process.drain_stderr():
            self._on_event(event)
        if tentative.flight.id not in self._by_id:
            return  # its answer also came on stderr, and was charged there
        while self._inflight and self._inflight[0] is not tentative.flight:
            self._charge_head(
                f"no response: the adapter answered {tentative.flight.id!r} before this one"
            )
        if self._inflight:
            self._answer(tentative.flight, tentative.response)

    def _answer(self, flight: _Flight, response: Response) -> None:
        self._remove(flight)
        self._alive()
        if response.problem is not None:
            result = self._error(flight, f"the adapter sent a bad response: {response.problem}")
        else:
            work = flight.work
            result = self.judge(work.vector, work.algorithm, work.output_schema, response.message)
            result.seconds = time.monotonic() - flight.head_since
        self._stderr_mark = self._stderr_total
        self._ended_here[flight.id] = result
        self._finish(result)

    def _charge_head(self, message: str) -> None:
        flight = self._inflight[0]
        self._remove(flight)
        self._alive()  # a bad line is still a sign of life
        result = self._error(flight, message)
        self._ended_here[flight.id] = result
        self._finish(result)

    def _answered_again(self, result: Result) -> None:
        """A second line for a vector already ended: that vector misbehaved."""
        if result.status == "error":
            return  # already charged (a late answer to a vector charged with no response)
        first = f"{result.status}: {result.message}" if result.message else result.status
        result.status = "error"
        result.message = f"the adapter answered more than once (the first answer: {first})"
        result.got = None

    # -- stderr --------------------------------------------------------------------------

    def _on_stderr(self, line: bytes) -> None:
        """stderr is for logs, but a protocol response there is a misrouted answer."""
        self._keep_stderr(line)
        line = line.strip()
        if not (line.startswith(b"{") and b'"id"' in line):
            return  # not even shaped like a response: a log line
        response = parse_response(line)
        if response.id is None:
            return
        flight = self._by_id.get(response.id)
        if flight is None:
            self._note_stderr(self._ended_here.get(response.id))
            return
        if response.problem is not None:  # perhaps a log line; if the vector errors, say so
            self._stderr_answered.add(flight.id)
            return
        if self._tentative is not None and self._tentative.flight is flight:
            self._tentative = None
        if self._unplaced and flight is self._inflight[0]:
            self._settle_unplaced(flight)  # they were not its answer: this was
        self._remove(flight)
        self._alive()
        result = self._error(flight, "the adapter wrote its response on stderr, not stdout")
        self._ended_here[flight.id] = result
        self._finish(result)

    @staticmethod
    def _note_stderr(result: Result | None) -> None:
        """A vector already charged (no response, say) whose answer then came on stderr:
        its message says where the answer went."""
        if result is not None and result.status == "error" and ON_STDERR not in result.message:
            result.message += f"; {ON_STDERR}"

    def _keep_stderr(self, line: bytes) -> None:
        text = line.decode("utf-8", errors="replace")
        if len(text) > STDERR_LINE_SHOWN:
            text = text[:STDERR_LINE_SHOWN] + f"... ({len(text) - STDERR_LINE_SHOWN} more)"
        self._stderr.append(text)
        self._stderr_total += 1

    def _stderr_excerpt(self) -> list[str]:
        """The stderr lines since the last answer, from the first that starts a panic or a
        traceback (capped, keeping its head and its tail); or the last few lines."""
        kept = list(self._stderr)
        recent = kept[max(len(kept) - (self._stderr_total - self._stderr_mark), 0) :]
        start = next((i for i, line in enumerate(recent) if PANIC.match(line)), None)
        if start is None:
            return (recent or kept)[-STDERR_TAIL:]
        shown = recent[start:]
        if len(shown) <= STDERR_SHOWN:
            return shown
        head, tail = STDERR_SHOWN // 2, STDERR_SHOWN // 2 - 1
        return [*shown[:head], f"... ({len(shown) - head - tail} lines left out)", *shown[-tail:]]

    def _finish_stderr(self, process: AdapterProcess) -> None:
        """Read what the adapter left on stderr, until it closes or briefly."""
        deadline = time.monotonic() + STDERR_EOF_SECONDS
        while process.stderr_open and (remaining := deadline - time.monotonic()) > 0:
            for event in process.poll(remaining):
                if event.kind in ("stderr", "too-long"):
                    self._keep_stderr(event.line)

    # -- losing the process --------------------------------------------------------------

    def _on_timeout(self) -> None:
        if self._tentative is not None:  # the head was skipped; the later answer stands
            tentative, self._tentative = self._tentative, None
            self._accept(tentative)
            if self._inflight:
                self._inflight[0].head_since = time.monotonic()
            return
        assert self.process
        head = self._inflight[0]
        for event in self.process.drain_stderr():
            self._on_event(event)
        if not self._inflight or self._inflight[0] is not head:
            return  # its answer came on stderr, and was charged there: the next one's turn
        if self._unplaced and time.monotonic() < head.head_since + head.limit:
            charge = self._unplaced[0][0]  # the grace ran out: that line was its answer
            self._lose(
                f"{charge}; nothing followed within {UNPLACED_GRACE:g}s (the adapter was "
                "killed and restarted)",
                crash=False,
            )
            return
        self._lose(
            f"no response within {head.limit:g}s; the adapter was killed and restarted"
            + self._unplaced_note(),
            crash=False,
        )

    def _unplaced_note(self) -> str:
        """For a head lost while lines naming no request were held: they are quoted."""
        if not self._unplaced:
            return ""
        count, first = len(self._unplaced), self._unplaced[0][1]
        return f" (before that it wrote {count} line(s) naming no request, the first: {first})"

    def _on_exit(self, partial: bytes) -> None:
        """stdout closed: the adapter exited, or closed it and carries on (then it is killed)."""
        if self._tentative is not None:
            tentative, self._tentative = self._tentative, None
            self._accept(tentative)
        process = self.process
        assert process
        status = process.wait_exit(EXIT_WAIT_SECONDS)
        self._finish_stderr(process)
        if status is None:
            message = "the adapter closed its stdout but kept running (it was killed)"
        else:
            message = f"the adapter {describe_status(status)}"
        if partial:
            message += f" after writing an unterminated line {quote(partial)}"
        if self._inflight:
            self._lose(message + " while handling this vector" + self._unplaced_note())
        else:
            if partial:
                self._stray(quote(partial))
            process.kill()
            self.process = None

    def _lose(self, message: str, *, crash: bool = True) -> None:
        """The head is charged with the loss; the requests behind it are sent again later.
        A crash counts toward max_crashes; a timeout does not (a slow vector is no sign of
        a broken adapter, and the head alone pays for it)."""
        assert self.process
        head = self._inflight.popleft()
        self._finish(self._error(head, message))
        self._pending.extendleft(reversed([flight.work for flight in self._inflight]))
        self._inflight.clear()
        self._by_id.clear()
        self._ended_here.clear()
        self._tentative = None
        self._unplaced = []
        self._stderr_answered.clear()
        self._backlog = []
        self.process.kill()
        self.process = None
        if crash:
            self._count_loss(message)
        else:
            self._count_timeout(message)

    def _alive(self) -> None:
        """An answer (even a bad one) came: both budgets start again."""
        self._losses = 0
        self._timeouts = 0

    def _count_timeout(self, message: str) -> None:
        """Timeouts have their own budget: one slow vector is no sign of a broken adapter,
        but an adapter that answers nothing, time after time, would otherwise hold the run
        for timeout x vectors (54 hours for the whole suite at 10 s)."""
        self._timeouts += 1
        if self._timeouts >= self.max_timeouts:
            self._give_up(
                f"the adapter answered nothing in time {self._timeouts} times in a row "
                f"(last: {message})"
            )

    def _count_loss(self, message: str) -> None:
        self._losses += 1
        if self._losses >= self.max_crashes:
            self._give_up(
                f"the adapter crashed or failed to start {self._losses} times in a row "
                f"with no answer in between (last: {message})"
            )

    def _restart(self) -> bool:
        while self.infrastructure_error is None and not self._closed:
            try:
                self.hello = self._start()
            except AdapterStartError as error:
                self._count_loss(f"it could not be restarted: {error}")
                continue
            self.restarts += 1
            return True
        return False

    def _give_up(self, reason: str) -> None:
        """The crash budget is spent: nothing more is sent, by this session or (-j) any
        other; what they already sent ends normally."""
        self.infrastructure_error = reason
        self._stop.set()
        for work in self._pending:
            self._finish(Result(work.vector, work.algorithm, "not-run", f"not run: {reason}"))
        self._pending.clear()
        while (left := self._next_shared()) is not None:
            self._finish(Result(left.vector, left.algorithm, "not-run", f"not run: {reason}"))

    def _next_shared(self) -> Work | None:
        try:
            return self._shared.popleft()
        except IndexError:
            return None

    def _drain_at_end(self) -> None:
        """Close stdin and read what the adapter still says: a duplicate of the last answer
        is charged like any other."""
        process = self.process
        if process is None:
            return
        process.close_stdin()
        deadline = time.monotonic() + EXIT_WAIT_SECONDS
        while process.stdout_open and (remaining := deadline - time.monotonic()) > 0:
            for event in process.poll(remaining):
                if event.kind == "stdout-closed":
                    if event.line:
                        self._stray(quote(event.line))
                else:
                    self._on_event(event)
        process.kill()
        self.process = None

    # -- bookkeeping ---------------------------------------------------------------------

    def _remove(self, flight: _Flight) -> None:
        was_head = bool(self._inflight) and self._inflight[0] is flight
        self._inflight.remove(flight)
        del self._by_id[flight.id]
        if was_head and self._inflight:
            self._inflight[0].head_since = time.monotonic()
        tentative = self._tentative
        if tentative is not None and self._inflight and tentative.flight is self._inflight[0]:
            self._tentative = None  # nothing is left before it: it is the head's answer now
            self._answer(tentative.flight, tentative.response)

    def _error(self, flight: _Flight, message: str) -> Result:
        work = flight.work
        if flight.id in self._stderr_answered:
            self._stderr_answered.discard(flight.id)
            message += f"; {ON_STDERR}"
        return Result(
            work.vector,
            work.algorithm,
            "error",
            message,
            stderr=self._stderr_excerpt(),
            seconds=time.monotonic() - flight.head_since,
        )

    def _finish(self, result: Result) -> None:
        if self._stderr_answered:  # (it ended: what came on stderr no longer matters)
            self._stderr_answered.discard(result.id)
        self._results.append(result)
        self.on_result(result)


# -- -j N ----------------------------------------------------------------------------------

MIN_VECTORS_PER_JOB = 1000  # fewer a job, and one more adapter's start-up costs more than it saves


def jobs_for(requested: int, vectors: int) -> int:
    """How many adapters a run of ``vectors`` is worth: an adapter's start-up (about 0.1 s,
    see docs/benchmarks.md) is the time a fast adapter takes for a thousand vectors."""
    return max(1, min(requested, math.ceil(vectors / MIN_VECTORS_PER_JOB)))


class ParallelSession:
    """``-j N``: N sessions, each with its own adapter process, fed from one shared queue.

    Every attribution rule is a session's own (one adapter's stdout, stderr and exit concern
    only the requests that session sent it), so a crash, a hang or a garbage line is charged
    exactly as at -j 1. The queue is shared, not cut into contiguous chunks, because the
    slow vectors sit together in vector order (chain walks, whole pay tables): chunks would
    leave one adapter with all of them. Each session takes up to its window at a time,
    resends after a crash go back to the session that lost them, and the merged results are
    put back in vector order. When one session spends its crash budget, nothing more is
    sent by any: the shared queue's vectors are "not run", and what was already sent ends.

    The first session starts in the constructor (its hello, or its failure to start, is the
    run's); the others start in threads at the same time and join the run as each greets
    (requests go out meanwhile). One that cannot start, or greets differently, is left out
    with a warning (the run goes on with fewer).
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        jobs: int,
        on_result: Callable[[Result], None] = lambda _result: None,
        process: AdapterProcess | None = None,
        **options: Any,
    ) -> None:
        self._lock = threading.Lock()
        self._on_result = on_result
        self.warnings: list[str] = []
        self._stop = threading.Event()
        self._queue: deque[Work] = deque()
        self._extra: list[Session | None] = [None] * (jobs - 1)
        self._starters = [
            threading.Thread(target=self._start_one, args=(command, options, index))
            for index in range(jobs - 1)
        ]
        for starter in self._starters:
            starter.start()
        try:
            self.first = self._share(
                Session(command, on_result=self._report, process=process, **options)
            )
        except BaseException:  # the run's own start failed: leave no instance behind
            self._stop.set()
            for starter in self._starters:
                _join(starter)
            self._close_extra()
            raise
        self.sessions = [self.first]

    def _start_one(self, command: Sequence[str], options: dict[str, Any], at: int) -> None:
        try:
            session = self._share(Session(command, on_result=self._report, **options))
        except Exception as error:  # the run goes on with the others
            self.warnings.append(f"an adapter instance (-j) could not be started: {error}")
            return
        with self._lock:  # close() may have come meanwhile: then nothing more runs
            if not self._stop.is_set():
                self._extra[at] = session
                return
        session.close()

    def _joined(self, at: int) -> Session | None:
        """Extra session ``at`` once it has greeted, if it did, alike (else left out)."""
        _join(self._starters[at])
        session = self._extra[at]
        if session is None or self._stop.is_set():
            return None
        if session.hello != self.first.hello:
            session.close()
            self.warnings.append("an adapter instance (-j) greeted differently; left out")
            return None
        with self._lock:
            self.sessions.append(session)
        return session

    def _close_extra(self) -> None:
        with self._lock:
            self._stop.set()
            extra = [session for session in self._extra if session is not None]
        for session in extra:
            session.close()

    def _share(self, session: Session) -> Session:
        session._shared = self._queue
        session._stop = self._stop
        return session

    def _report(self, result: Result) -> None:
        with self._lock:  # progress bars are not thread-safe
            self._on_result(result)

    @property
    def hello(self) -> Hello:
        return self.first.hello

    @property
    def restarts(self) -> int:
        return sum(session.restarts for session in self.sessions)

    @property
    def infrastructure_error(self) -> str | None:
        return next((s.infrastructure_error for s in self.sessions if s.infrastructure_error), None)

    @property
    def stray_lines(self) -> list[str]:
        return [line for session in self.sessions for line in session.stray_lines]

    def run(self, works: Sequence[Work]) -> list[Result]:
        with _vectors_frozen():
            return self._run(works)

    def _run(self, works: Sequence[Work]) -> list[Result]:
        for session in self.sessions:
            session._results = []
        supported, skipped = self.first._sorted_out(works)  # every instance greets alike
        self._queue.extend(supported)
        failures: list[BaseException] = []
        workers = [
            threading.Thread(target=self._drive, args=(at, failures), daemon=True)
            for at in range(len(self._starters))
        ]
        for worker in workers:
            worker.start()
        self._drive_here(self.first)
        for worker in workers:
            _join(worker)
        if failures:
            raise failures[0]
        self.first._skip(skipped)
        results = [result for session in self.sessions for result in session._results]
        return in_vector_order(results, works)

    @staticmethod
    def _drive_here(session: Session) -> None:
        session._drive()
        session._drain_at_end()

    def _drive(self, at: int, failures: list[BaseException]) -> None:
        """Extra session ``at``: joins the run once it has greeted (the queue may be empty
        by then: it then only says goodbye)."""
        session = self._joined(at)
        if session is None:
            return
        try:
            self._drive_here(session)
        except BaseException as error:  # handed to the main thread, raised there
            if not session._closed:  # after close(), a killed adapter's errors are moot
                failures.append(error)

    def close(self) -> None:
        self._close_extra()
        for session in list(self.sessions):
            session.close()


AnySession = Session | ParallelSession  # what fairvec run drives: -j 1, or more


def _join(thread: threading.Thread) -> None:
    """Join, waking now and then so that the main thread still handles signals."""
    while thread.is_alive():
        thread.join(0.1)
