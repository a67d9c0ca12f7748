"""Running vectors through an adapter: pipelined requests, the process restarted as
needed, and (-j) several adapters fed from one queue.

Each vector ends in exactly one :class:`Result`: pass, fail, error, skip or not-run.

Whom each adapter fault concerns (a bad line, a missing answer, a duplicate, an answer
carrying a later request's id, lines naming no request, a crash, a hang, an answer on
stderr) is decided in runner/attribution.py, which does no I/O; the session reads the
adapter, feeds it what it read, and carries out its decisions: judging answers, keeping
stderr for the report, killing and restarting the adapter and sending the requests it lost
again. After ``max_crashes`` crashes or failed restarts in a row with no answer in between,
or ``max_timeouts`` timeouts in a row (a timeout is not a crash: it has a budget of its
own), the run stops: the vectors left are "not run" and it exits 2.

A rerun of answers that passed before (runner/answer_memo.py) is replayed a file at a
time (_replay): the remembered requests sent as one block, the adapter's stdout compared
with the remembered answers as bytes (AdapterProcess.read_expected), the next files' blocks
sent while it answers. That is a second way through, not a second attribution: at the
first byte that differs, a line on stderr, the end of stdout or a stall, the requests not
yet answered as remembered are in flight as if sent the usual way, what came after the
last whole line is read as ever, and every fault is decided by the attribution alone
(tests/test_runner_replay.py runs each misbehaviour both ways and compares the reports).
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
from itertools import count, groupby, islice, repeat
from operator import itemgetter
from typing import TYPE_CHECKING, Any, cast

from fairvec.runner.attribution import (
    Attribution,
    Ending,
    Flight,
    Loss,
    is_slow,
)
from fairvec.runner.claims import judged_part
from fairvec.runner.compare import judge, judge_outputs
from fairvec.runner.compare import judge as judge_default
from fairvec.runner.process import (
    DEFAULT_MAX_LINE,
    AdapterProcess,
    AdapterStartError,
    Event,
    describe_status,
)
from fairvec.runner.protocol import (
    Hello,
    marked_request_bytes,
    parse_hello,
    parse_response,
    plain_responses,
    quote,
    request_bytes,
)
from fairvec.runner.results import ALGORITHM, VECTOR, Result, Work, not_declared
from fairvec.runner.threads import join_awake

if TYPE_CHECKING:  # types only: loading fairvec.data_model costs 2 ms of start-up
    from fairvec.data_model import Vector
    from fairvec.runner.answer_memo import AnswerMemo, Replay

VECTOR_ID = itemgetter("id")  # of a work's vector, or a result's
VARIANT = itemgetter("variant")

MAX_CRASHES = 5  # --max-crashes: crashes or failed restarts in a row before giving up
# --max-timeouts: timeouts in a row, with no answer in between, before giving up. Larger than
# MAX_CRASHES: a run of slow vectors (already given SLOW_FACTOR x the timeout) may time out
# together on a loaded machine without the adapter being broken.
MAX_TIMEOUTS = 10
STRAY_KEPT = 1000  # stray lines quoted; beyond, only counted (an adapter may flood them)
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


def _judged_part(work: Work, message: dict[str, Any]) -> dict[str, Any]:
    """The answer as judged: under a partial claim, its output cut to the fields claimed."""
    if work.fields is None or "output" not in message:
        return message
    return {**message, "output": judged_part(message["output"], work.fields)}


def in_vector_order(results: list[Result], works: Sequence[Work]) -> list[Result]:
    """Skips end first, a crash resends vectors later and -j interleaves sessions: the
    report lists results in the vectors' order (usually they already are: checked first,
    by identity, at C speed)."""
    if list(map(VECTOR, results)) == list(map(VECTOR, works)):
        return results
    # each step made by C, not a loop in Python: with -j 2 a fast port's 10,000 results
    # come in two sessions' order, and sorting them took 5 ms that way
    position = dict(zip(map(VECTOR_ID, map(VECTOR, works)), count()))
    places = list(map(position.__getitem__, map(VECTOR_ID, map(VECTOR, results))))
    return list(map(results.__getitem__, sorted(range(len(results)), key=places.__getitem__)))


def with_skips_in_order(
    ran: list[Result], supported: Sequence[Work], skipped: list[Result], works: Sequence[Work]
) -> list[Result]:
    """The results of ``works`` in the vectors' order: ``ran`` those of ``supported`` (in
    any order), ``skipped`` the others' (in the works' order). Merged in one pass where
    ``ran`` holds one result per supported work: a run selecting the whole suite for a port
    of three families skips 12,000 vectors, and sorting them all in took 14 ms."""
    ran = in_vector_order(ran, supported)
    if len(ran) != len(supported):  # (never, as far as is known: sorted the general way)
        return in_vector_order(ran + skipped, works)
    if not skipped:
        return ran
    skipped_vectors = {id(result.vector) for result in skipped}
    ran_next, skipped_next = iter(ran).__next__, iter(skipped).__next__
    return [skipped_next() if id(work.vector) in skipped_vectors else ran_next() for work in works]


class _Replaying:
    """The works of a replay (Session._replay), chained a run at a time as the adapter
    answers: their ids, the answers expected of them, and how many of their request lines
    were sent (those of the run last chained are cut from its memo section as the window
    lets them go, a line at a time)."""

    def __init__(self, works: list[Work], replay: Replay) -> None:
        self.works: list[Work] = []
        self.ids: list[str] = []
        self.expected = bytearray()
        self.sent = 0
        self.left = 0  # request lines of the last run chained, not yet sent
        self._raw, self._at, self._end = b"", 0, 0
        self.chain(works, replay)

    def chain(self, works: list[Work], replay: Replay) -> None:
        (self._at, self._end), (answer_start, answer_end) = replay.requests, replay.answers
        self._raw = replay.raw
        self.works += works
        self.ids += replay.ids
        with memoryview(replay.raw) as raw:
            self.expected += raw[answer_start:answer_end]
        self.left = len(works)

    def take(self, most: int) -> tuple[int, memoryview]:
        """Up to ``most`` of the next request lines of the last run chained: how many, and
        their bytes."""
        taken = min(most, self.left)
        start, end = self._at, self._end
        if taken < self.left:  # (else the rest of the section, without looking)
            raw, end = self._raw, start
            for _ in range(taken):
                end = raw.index(b"\n", end) + 1
        self._at, self.left, self.sent = end, self.left - taken, self.sent + taken
        return taken, memoryview(self._raw)[start:end]


def _longest_over(raw: bytes, start: int, end: int, cap: int) -> bool:
    """Whether a line of ``raw[start:end]`` (whole lines) is longer than ``cap`` bytes."""
    if end - start <= cap:
        return False
    return max(map(len, raw[start:end].split(b"\n"))) > cap


def ignore_result(_result: Result) -> None:
    """No one to tell of each result (no progress bar): a run skipping 12,000 vectors
    then makes no call for each."""


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
        on_result: Callable[[Result], None] = ignore_result,
        judge: Callable[[Vector, str, dict[str, Any], dict[str, Any]], Result] = judge,
        process: AdapterProcess | None = None,
        before_send: Callable[[list[Work]], None] | None = None,
        before_judge: Callable[[list[Work]], None] | None = None,
        memo: AnswerMemo | None = None,
    ) -> None:
        """``process``: the adapter already spawned (``AdapterProcess(command)``), so that
        it starts while the caller loads vector files; its hello is awaited here.
        ``before_send``: called with each batch of works before it is sent, on the
        session's thread (selection.Filler reads their files whole there), and
        ``before_judge`` with works about to be judged (their vectors then whole).
        ``memo``: request lines and passing answers remembered (runner/answer_memo.py),
        used while ``memo.enabled``; only with the default judge."""
        self.command = list(command)
        self._spawned = process
        # accumulated vectors collect answers instead (runner/accumulated_run.py)
        self.judge = judge
        self.timeout = timeout
        self.window = window
        self.startup_timeout = startup_timeout
        self.max_line = max_line
        self.max_crashes = max_crashes
        self.max_timeouts = max_timeouts
        self.on_result = on_result
        self.before_send = before_send
        self.before_judge = before_judge
        self.memo = memo if judge is judge_default else None
        self.restarts = 0
        self.process: AdapterProcess | None = None
        self.infrastructure_error: str | None = None
        self.stray_lines: list[str] = []  # lines that concern no vector (quoted)
        self.early_answers: list[str] = []  # answers that came out of order (quoted)
        self.warnings: list[str] = []  # for the report (ParallelSession has its own)
        self._losses = 0  # crashes, exits, failed restarts since the last answer
        self._timeouts = 0  # timeouts since the last answer (a budget of their own)
        self._pending: deque[Work] = deque()
        # the requests in flight to the current process, and whom its faults concern
        self._attribution = Attribution(self)
        self._backlog: list[Event] = []  # events read with the hello line
        self._stderr: deque[str] = deque(maxlen=STDERR_KEPT)
        self._stderr_total = 0
        self._stderr_mark = 0  # _stderr_total at the last answer
        self._results: list[Result] = []
        # -j: the queue this session shares with the others (empty when alone), and the
        # flag that stops them all (set when one gives up, or on the way out)
        self._shared: deque[Work] = deque()
        # runs of one algorithm's works, each replayed as a block where the memo can
        # (_replay_next), else sent as usual; shared like the queue (-j)
        self._runs: deque[list[Work]] = deque()
        self._lane: SlowLane | None = None  # (-j) shared with the other sessions
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
        said = " | ".join(start_failure_excerpt(list(self._stderr)))
        raise AdapterStartError(
            f"the adapter {describe_status(status)} before its hello line"
            + (f"; stderr: {said}" if said else "")
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
        self._enqueue(supported, self._pending, self._runs)
        self._drive()
        if keep_open:
            self._attribution.forget_ended()
        else:
            self._drain_at_end()
        ran = list(self._results)
        skips = self._skip(skipped)  # after the run: making them never delays a request
        return with_skips_in_order(ran, supported, skips, works)

    def _sorted_out(self, works: Sequence[Work]) -> tuple[list[Work], list[tuple[Work, str]]]:
        """The works the hello declares, and the others with the reason (found once per
        algorithm and variant, a file's works taken at once where the hello declares all
        or none of them: a run may skip tens of thousands)."""
        supported: list[Work] = []
        skipped: list[tuple[Work, str]] = []
        for algorithm, group in groupby(works, key=ALGORITHM):
            run = list(group)
            reasons = {
                variant: self._unsupported_reason(algorithm, variant)
                for variant in set(map(VARIANT, map(VECTOR, run)))
            }
            if len(set(reasons.values())) == 1:  # all declared, or all not: the usual
                reason = next(iter(reasons.values()))
                if reason is None:
                    supported += run
                else:
                    skipped += zip(run, repeat(reason))
                continue
            for work in run:
                reason = reasons[work.vector["variant"]]
                if reason is None:
                    supported.append(work)
                else:
                    skipped.append((work, reason))
        return supported, skipped

    def _enqueue(self, works: list[Work], queue: deque[Work], runs: deque[list[Work]]) -> None:
        """``works`` to send: as runs of one algorithm's, to replay where the memo can,
        when it is used; else on ``queue``."""
        memo = self.memo
        if memo is None or not memo.enabled:
            queue.extend(works)
            return
        for _algorithm, group in groupby(works, key=ALGORITHM):
            runs.extend(runs_apart_from_slow(list(group)))

    def _skip(self, skipped: list[tuple[Work, str]]) -> list[Result]:
        # made by map, not a loop in Python: a run may skip tens of thousands
        works, reasons = list(map(itemgetter(0), skipped)), map(itemgetter(1), skipped)
        vectors, algorithms = map(VECTOR, works), map(ALGORITHM, works)
        results = list(map(Result, vectors, algorithms, repeat("skip"), reasons))
        self._results += results
        if self.on_result is not ignore_result:
            for result in results:
                self.on_result(result)
        return results

    def _unsupported_reason(self, algorithm: str, variant: str | None) -> str | None:
        variants = self.hello.algorithms.get(algorithm)
        if variants is None:
            return not_declared(algorithm)
        if variant is not None and variant not in variants:
            return f"the adapter does not implement variant {variant!r}"
        return None

    def _drive(self) -> None:
        """Until every request of its own and of the shared queue has ended."""
        inflight = self._attribution.inflight
        while (self._pending or inflight or self._has_shared()) and (
            self.infrastructure_error is None and not self._closed
        ):
            if self.process is None and not self._restart():
                break
            if not (inflight or self._pending) and self._replay_next():
                continue
            self._fill()
            if inflight:  # (-j: another session may have taken the last work)
                self._step()

    def _has_shared(self) -> bool:
        return bool(self._shared or self._runs) and not self._stop.is_set()

    # -- replaying what passed before --------------------------------------------------

    def _replay_next(self) -> bool:
        """The next run of one algorithm's works, if any: replayed where the memo can (see
        _replay), else put on this session's queue. False: no run left."""
        run, replay = self._next_replay()
        if replay is None:
            return bool(run)
        if self._backlog:  # what came with the hello is read as ever: this run in flight
            self._pending.extend(run)
        else:
            self._replay(_Replaying(run, replay))
        return True

    def _replay(self, replaying: _Replaying) -> None:
        """A rerun's usual case, at the cost of a few system calls instead of a line each:
        the works' request lines sent as remembered, up to the window as ever (and the next
        runs', chained as the adapter answers), and the adapter's stdout compared, as bytes,
        with the answers that passed for them before. The works whose answers came byte for
        byte as remembered pass (what _remembered_passes would have decided line by line);
        from the first line that differs, or a line on stderr, a crash, a stall, the others
        sent are in flight as if sent the usual way, and what came after the last whole
        line is read as ever: whom a fault concerns is decided by the attribution alone."""
        process = self.process
        assert process is not None
        sent_at = time.monotonic()

        def feed(answered: int) -> None:
            """Requests up to the window, ``answered`` of those sent having come."""
            room = self.window - (replaying.sent - answered)
            while room > 0:
                if not replaying.left:
                    run, replay = self._next_replay()
                    if replay is None:
                        return
                    replaying.chain(run, replay)
                taken, requests = replaying.take(room)
                process.send(requests)
                room -= taken

        matched = process.read_expected(replaying.expected, self.timeout, feed)
        works = replaying.works
        if matched.lines:
            self._replayed(works[: matched.lines], replaying.ids, sent_at, matched.progress)
        in_flight = works[matched.lines : replaying.sent]
        if in_flight:
            since = matched.progress[-1][1] if matched.progress else sent_at
            self._attribution.sent(in_flight, self.timeout, since=since)
        self._pending.extendleft(reversed(works[replaying.sent :]))  # chained, not yet sent
        self._backlog = matched.events

    def _next_replay(self) -> tuple[list[Work], Replay | None]:
        """The next run, if any, with its replay if the memo has one (else it is put on
        this session's queue, and sent the usual way)."""
        if self._stop.is_set() or self._pending:
            return [], None
        run = self._next_run()
        if run is None:
            return [], None
        assert self.memo is not None
        replay = self.memo.replay_of(run, self.hello.lone_surrogates)
        if replay is not None and _longest_over(replay.raw, *replay.answers, self.max_line):
            replay = None  # (a smaller --max-line-bytes than the answers remembered: judged)
        if replay is None:
            self._pending.extend(run)
        return run, replay

    def _next_run(self) -> list[Work] | None:
        if self._lane is not None:
            return self._lane.take(self._runs, self)
        try:
            return self._runs.popleft()
        except IndexError:
            return None

    def _replayed(
        self, works: list[Work], ids: list[str], sent_at: float, progress: list[tuple[int, float]]
    ) -> None:
        """``works`` (of ``ids``) passed as replayed. Each read's first line carries the
        time since the read before, the others none, as when answers end in a batch."""
        results = list(map(Result, map(VECTOR, works), map(ALGORITHM, works), repeat("pass")))
        ids = ids[: len(results)]
        before, since = 0, sent_at
        for lines, at in progress:
            if lines > before and before < len(results):
                results[before].seconds = at - since
                before, since = lines, at
        self._attribution.ended_unsent(ids, results)
        self._answers_ended(results)

    def _next_works(self, room: int) -> list[Work]:
        """Up to ``room`` works: resent requests first, then the shared queue's (-j)."""
        pending = self._pending
        works = [pending.popleft() for _ in range(min(room, len(pending)))]
        shared = self._shared
        while len(works) < room and shared and not self._stop.is_set():
            try:
                if is_slow(shared[0]) and self._holds_slow(works):
                    break  # (-j) left for an adapter not already walking a slow vector
                works.append(shared.popleft())  # atomic: sessions in other threads pull too
            except IndexError:
                break
        return works

    def _holds_slow(self, taking: list[Work]) -> bool:
        """Whether this session already has a slow vector to answer (just taken, or in
        flight). Asked only when the shared queue's next work is slow: slow vectors sit
        together (chain walks), and one adapter taking them all would answer them one after
        the other while the others have finished."""
        return any(map(is_slow, taking)) or any(
            is_slow(flight.work) for flight in self._attribution.inflight
        )

    def _fill(self) -> None:
        """Send requests up to the window (see Attribution.room), in one write."""
        assert self.process
        works = self._next_works(self._attribution.room(self.window))
        if not works:
            return
        requests = self._requests(works)  # before the works are sent: no deadline runs yet
        self._attribution.sent(works, self.timeout)
        self.process.send(requests)

    def _requests(self, works: list[Work]) -> bytes:
        """Each work's request line: as sent before (the memo), else made from its vector,
        once before_send has seen the works whose lines are made."""
        encoding = self.hello.lone_surrogates  # (a restarted adapter may greet otherwise)
        encode = marked_request_bytes if encoding == "marked" else request_bytes
        memo = self.memo
        if memo is None or not memo.enabled:
            if self.before_send is not None:
                self.before_send(works)
            return b"".join([encode(work.vector, work.algorithm) for work in works])
        remembered = memo.requests_of(works, encoding)  # (each without its newline)
        unmade = [at for at, line in enumerate(remembered) if line is None]
        if unmade and self.before_send is not None:
            self.before_send([works[at] for at in unmade])
        lines = cast(list[bytes], remembered)
        for at in unmade:
            lines[at] = encode(works[at].vector, works[at].algorithm)[:-1]  # its newline off
            memo.learn_request(works[at], encoding, lines[at])
        return b"\n".join(lines) + b"\n"

    def _step(self) -> None:
        """Wait for what the adapter says (or the head's deadline) and act on all of it."""
        process = self.process
        assert process
        if self._backlog:
            events, self._backlog = self._backlog, []
        else:
            deadline = self._attribution.deadline()
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
        # An adapter that never stops talking (a flood of lines naming no request, a log
        # line every half second) must still meet the head's deadline.
        attribution = self._attribution
        late = attribution.inflight and time.monotonic() >= attribution.deadline()
        if self.process is process and late:
            self._on_timeout()

    def _answered_plainly(self, events: list[Event], start: int) -> int:
        """The lines every good adapter writes, judged at the least cost: from
        ``events[start]`` on, a run of stdout lines, each a plainly valid answer naming
        the head of its turn, with no earlier line waiting to be settled (judged as a
        batch, see judge_outputs). Returns how many were answered: 0, having done nothing,
        when the run is not all such lines (the general path then takes them one by one)."""
        attribution = self._attribution
        if not attribution.settled:
            return 0
        inflight = attribution.inflight
        end = start
        limit = min(len(events), start + len(inflight))
        while end < limit and events[end].kind == "stdout":
            end += 1
        if end == start:
            return 0
        lines = [event.line for event in events[start:end]]
        heads = list(islice(inflight, len(lines)))
        remembered = self._remembered_passes(heads, lines)
        if remembered:
            return remembered
        messages = plain_responses(lines)
        answered = 0  # the first lines that name the heads in turn
        while answered < len(messages) and messages[answered]["id"] == heads[answered].id:
            answered += 1
        if answered:
            works = [head.work for head in heads[:answered]]
            if self.before_judge is not None:
                self.before_judge(works)
            results = self._judge_all(works, messages[:answered])
            self._remember_passes(works, lines, results)
            self._ended_in_turn(heads[:answered], results)
        return answered

    def _ended_in_turn(self, heads: list[Flight], results: list[Result]) -> None:
        """The first requests in flight, answered in turn with ``results``."""
        self._attribution.end_heads(heads, results)
        self._answers_ended(results)

    def _answers_ended(self, results: list[Result]) -> None:
        """``results`` end their vectors, each by an answer: handed on, and both budgets
        (crashes, timeouts) start again."""
        self._results += results
        if self.on_result is not ignore_result:
            for result in results:
                self.on_result(result)
        self._alive()
        self._stderr_mark = self._stderr_total

    def _remembered_passes(self, heads: list[Flight], lines: list[bytes]) -> int:
        """From the first, the lines that are, byte for byte, answers that passed for the
        heads' vectors before (runner/answer_memo.py): ended as passes, unparsed. How
        many."""
        memo = self.memo
        if memo is None or not memo.enabled:
            return 0
        encoding = self.hello.lone_surrogates
        answered = memo.passes_in_turn([head.work for head in heads], encoding, lines)
        if answered:
            ended = heads[:answered]
            self._ended_in_turn(
                ended, [Result(head.work.vector, head.work.algorithm, "pass") for head in ended]
            )
        return answered

    def _remember_passes(
        self, works: list[Work], lines: list[bytes], results: list[Result]
    ) -> None:
        memo = self.memo
        if memo is None or not memo.enabled:
            return
        encoding = self.hello.lone_surrogates
        for work, line, result in zip(works, lines, results, strict=False):
            if result.status == "pass":
                memo.learn_pass(work, encoding, line)

    def _judge_all(self, works: list[Work], messages: list[dict[str, Any]]) -> list[Result]:
        """self.judge on each; for judge itself, the outputs first in one batch."""
        results: list[Result | None] = [None] * len(works)
        messages = [
            _judged_part(work, message) for work, message in zip(works, messages, strict=True)
        ]
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

    def _on_event(self, event: Event) -> None:
        if event.kind == "stdout":
            self._attribution.on_line(parse_response(event.line))
        elif event.kind == "stderr":
            self._keep_stderr(event.line)
            self._attribution.on_stderr(event.line)
        elif event.kind == "too-long" and event.stream == "stderr":
            self._keep_stderr(b"[a line longer than the cap, cut] " + event.line)
        elif event.kind == "too-long":
            self._attribution.on_too_long(event.line, self.max_line)
        else:
            self._on_exit(event.line)

    # -- the attribution's decisions, carried out (Verdicts) -----------------------------

    def judged(self, flight: Flight, message: dict[str, Any]) -> Result:
        work = flight.work
        if self.before_judge is not None:
            self.before_judge([work])
        message = _judged_part(work, message)
        result = self.judge(work.vector, work.algorithm, work.output_schema, message)
        result.seconds = time.monotonic() - flight.head_since
        return result

    def errored(self, flight: Flight, message: str) -> Result:
        work = flight.work
        return Result(
            work.vector,
            work.algorithm,
            "error",
            message,
            stderr=self._stderr_excerpt(),
            seconds=time.monotonic() - flight.head_since,
        )

    def ended(self, result: Result, how: Ending) -> None:
        if how != "lost":  # an answer, even a bad one, is a sign of life
            self._alive()
        if how == "answered":  # the next error's stderr excerpt starts after it
            self._stderr_mark = self._stderr_total
        self._finish(result)

    def stray(self, line: str) -> None:
        kept = len(self.stray_lines) < STRAY_KEPT
        self.stray_lines.append(line if kept else "(not kept)")

    def out_of_order(self, line: str) -> None:
        kept = len(self.early_answers) < STRAY_KEPT
        self.early_answers.append(line if kept else "(not kept)")

    def read_stderr(self) -> None:
        assert self.process
        for event in self.process.drain_stderr():
            self._on_event(event)

    # -- stderr --------------------------------------------------------------------------

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
        loss = self._attribution.timed_out()
        if loss is not None:
            self._lost(loss)

    def _on_exit(self, partial: bytes) -> None:
        """stdout closed: the adapter exited, or closed it and carries on (then it is killed)."""
        self._attribution.stdout_closing()
        process = self.process
        assert process
        status = process.wait_exit(EXIT_WAIT_SECONDS)
        self._finish_stderr(process)
        exit_status = None if status is None else describe_status(status)
        loss = self._attribution.stdout_closed(exit_status, partial)
        if loss is not None:
            self._lost(loss)
        else:
            process.kill()
            self.process = None

    def _lost(self, loss: Loss) -> None:
        """The head was charged with the loss; the requests behind it are sent again later,
        to a new process. A crash counts toward max_crashes; a timeout does not (a slow
        vector is no sign of a broken adapter, and the head alone pays for it)."""
        assert self.process
        self._pending.extendleft(reversed(loss.resend))
        self._backlog = []
        self.process.kill()
        self.process = None
        if loss.crash:
            self._count_loss(loss.message)
        else:
            self._count_timeout(loss.message)

    # -- for a caller that drives the adapter between runs (runner/accumulated_by_port.py) --

    def restart_now(self) -> bool:
        """The adapter running, started again if need be; False when it cannot be."""
        return self.process is not None or self._restart()

    def forget_process(self, message: str, *, crash: bool) -> None:
        """Kill the adapter, whose state is unknown after ``message``; the next run (or
        restart_now) starts another. Counted like a session's own crash or timeout."""
        if self.process is not None:
            self.process.kill()
            self.process = None
        self._backlog = []
        if crash:
            self._count_loss(message)
        else:
            self._count_timeout(message)

    def answered(self) -> None:
        """A caller's request was answered: the crash and timeout budgets start again."""
        self._alive()

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
        left = [*self._runs_left()]
        while (shared := self._next_shared()) is not None:
            left.append(shared)
        for work in left:
            self._finish(Result(work.vector, work.algorithm, "not-run", f"not run: {reason}"))

    def _runs_left(self) -> Iterator[Work]:
        while (run := self._next_run()) is not None:  # (-j: under the lane's lock)
            yield from run

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
                        self.stray(quote(event.line))
                else:
                    self._on_event(event)
        process.kill()
        self.process = None

    # -- bookkeeping ---------------------------------------------------------------------

    def _finish(self, result: Result) -> None:
        self._results.append(result)
        self.on_result(result)


# -- -j N ----------------------------------------------------------------------------------

MIN_VECTORS_PER_JOB = 1000  # fewer a job, and one more adapter's start-up costs more than it saves


def start_failure_excerpt(stderr: list[str]) -> list[str]:
    """What an adapter said on stderr before dying without a hello, in a few lines: the
    last three, and before them the line that names the error if it came earlier. Node.js
    prints the failing source line and "SyntaxError: ..." first and twenty frames after:
    the tail alone would show only frames."""
    lines = [line for line in stderr if line.strip()]
    tail = lines[-3:]
    error = next((line for line in lines[:-3] if PANIC.search(line)), None)
    return tail if error is None else [error, "...", *tail]


def runs_apart_from_slow(works: list[Work]) -> list[list[Work]]:
    """One algorithm's works as runs, each slow one a run of its own: a session takes a run
    whole (-j), so a run holding every chain walk of a file would leave one adapter walking
    them one after the other (bustabit.chain_position: 26 s of a 74 s main job) while the
    others idle; and a run of its own is what SlowLane hands to the session already walking,
    with the ordinary runs behind it left to the others. The works keep their order; only
    the cuts are new."""
    runs: list[list[Work]] = []
    stretch: list[Work] = []
    for work in works:
        if is_slow(work):
            if stretch:
                runs.append(stretch)
                stretch = []
            runs.append([work])
        else:
            stretch.append(work)
    if stretch:
        runs.append(stretch)
    return runs


class SlowLane:
    """How -j's sessions take the runs (the memo's path) so that the slow ones go to one
    adapter while the others have ordinary runs to take. The slow vectors of a file share
    work a port may remember (the reference's chain walks: a walk that reaches a stretch
    walked before jumps it); split over two adapters, each walked the shared stretches
    again: the bundled Python port's adapters took 70 s of CPU in the main job at -j 2, 59 s
    at -j 1. So the session that takes a slow run walks the next ones too, and the others
    take the first ordinary run behind them; once only slow runs are left, every session
    takes them, so a port that shares nothing still walks them side by side at the end."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._walker: Session | None = None

    def take(self, runs: deque[list[Work]], session: Session) -> list[Work] | None:
        with self._lock:
            if not runs:
                return None
            if _slow_run(runs[0]) and self._walker not in (None, session):
                ordinary = next((at for at, run in enumerate(runs) if not _slow_run(run)), None)
                if ordinary is not None:
                    run = runs[ordinary]
                    del runs[ordinary]
                    return run
            run = runs.popleft()
            if _slow_run(run):
                self._walker = session
            return run


def _slow_run(run: list[Work]) -> bool:
    return is_slow(run[0])  # (runs_apart_from_slow: a slow vector is a run of its own)


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
        on_result: Callable[[Result], None] = ignore_result,
        process: AdapterProcess | None = None,
        **options: Any,
    ) -> None:
        self._lock = threading.Lock()
        self._on_result = on_result
        self.warnings: list[str] = []
        self._stop = threading.Event()
        self._queue: deque[Work] = deque()
        self._runs: deque[list[Work]] = deque()
        self._lane = SlowLane()
        self._extra: list[Session | None] = [None] * (jobs - 1)
        self._starters = [
            threading.Thread(target=self._start_one, args=(command, options, index))
            for index in range(jobs - 1)
        ]
        for starter in self._starters:
            starter.start()
        try:
            self.first = self._share(
                Session(command, on_result=self._told(), process=process, **options)
            )
        except BaseException:  # the run's own start failed: leave no instance behind
            self._stop.set()
            for starter in self._starters:
                join_awake(starter)
            self._close_extra()
            raise
        self.sessions = [self.first]

    def _start_one(self, command: Sequence[str], options: dict[str, Any], at: int) -> None:
        try:
            session = self._share(Session(command, on_result=self._told(), **options))
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
        join_awake(self._starters[at])
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
        session._runs = self._runs
        session._lane = self._lane
        session._stop = self._stop
        return session

    def _told(self) -> Callable[[Result], None]:
        return ignore_result if self._on_result is ignore_result else self._report

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

    @property
    def early_answers(self) -> list[str]:
        return [line for session in self.sessions for line in session.early_answers]

    def run(self, works: Sequence[Work]) -> list[Result]:
        with _vectors_frozen():
            return self._run(works)

    def _run(self, works: Sequence[Work]) -> list[Result]:
        for session in self.sessions:
            session._results = []
        supported, skipped = self.first._sorted_out(works)  # every instance greets alike
        self.first._enqueue(supported, self._queue, self._runs)
        failures: list[BaseException] = []
        workers = [
            threading.Thread(target=self._drive, args=(at, failures), daemon=True)
            for at in range(len(self._starters))
        ]
        for worker in workers:
            worker.start()
        self._drive_here(self.first)
        for worker in workers:
            join_awake(worker)
        if failures:
            raise failures[0]
        ran = [result for session in self.sessions for result in session._results]
        return with_skips_in_order(ran, supported, self.first._skip(skipped), works)

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
