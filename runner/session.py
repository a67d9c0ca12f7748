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
already ended charges that vector ("answered more than once"); a line naming no request,
or no valid line at all, charges the head. A crash or a hang charges the head; the adapter
is restarted and the requests queued behind the head are sent again. After
``max_crashes`` crashes, hangs or failed restarts in a row with no answer in between, the
run stops: the vectors left are "not run" and the run exits 2.
"""

from __future__ import annotations

import re
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from fairvec.runner.compare import judge
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
    quote,
    request_line,
)
from fairvec.runner.results import Result, Work

MAX_CRASHES = 5  # --max-crashes: crashes, hangs or failed restarts in a row before giving up
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


@dataclass
class _Flight:
    work: Work
    head_since: float  # when it became the oldest unanswered request

    @property
    def id(self) -> str:
        return str(self.work.vector["id"])


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
        on_result: Callable[[Result], None] = lambda _result: None,
    ) -> None:
        self.command = list(command)
        self.timeout = timeout
        self.window = window
        self.startup_timeout = startup_timeout
        self.max_line = max_line
        self.max_crashes = max_crashes
        self.on_result = on_result
        self.restarts = 0
        self.process: AdapterProcess | None = None
        self.infrastructure_error: str | None = None
        self.stray_lines: list[str] = []  # lines that concern no vector (quoted)
        self._losses = 0  # crashes, hangs, failed restarts since the last answer
        self._pending: deque[Work] = deque()
        self._inflight: deque[_Flight] = deque()
        self._by_id: dict[str, _Flight] = {}
        self._ended_here: dict[str, Result] = {}  # vectors this process was asked, and ended
        self._tentative: _Tentative | None = None
        self._backlog: list[Event] = []  # events read with the hello line
        self._stderr: deque[str] = deque(maxlen=STDERR_KEPT)
        self._stderr_total = 0
        self._stderr_mark = 0  # _stderr_total at the last answer
        self._results: list[Result] = []
        self.hello: Hello = self._start()

    # -- starting ------------------------------------------------------------------------

    def _start(self) -> Hello:
        process = AdapterProcess(self.command, max_line=self.max_line)
        try:
            return self._greeted(process)
        except BaseException:  # no hello, or fairvec interrupted meanwhile: leave nothing
            process.kill()
            raise

    def _greeted(self, process: AdapterProcess) -> Hello:
        self._stderr.clear()
        self._stderr_total = self._stderr_mark = 0
        deadline = time.monotonic() + self.startup_timeout
        while (remaining := deadline - time.monotonic()) > 0:
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
        adapter exit politely; close() is for the way out of an interrupted run)."""
        if self.process:
            self.process.kill()
            self.process = None

    # -- the run -------------------------------------------------------------------------

    def run(self, works: Sequence[Work]) -> list[Result]:
        self._results = []
        for work in works:
            reason = self._unsupported_reason(work)
            if reason:
                self._finish(Result(work.vector, work.algorithm, "skip", reason))
            else:
                self._pending.append(work)
        while (self._pending or self._inflight) and self.infrastructure_error is None:
            if self.process is None and not self._restart():
                break
            self._fill()
            self._step()
        self._drain_at_end()
        # Skips end first and a crash resends vectors later; report in the vectors' order.
        position = {work.vector["id"]: index for index, work in enumerate(works)}
        return sorted(self._results, key=lambda result: position[result.id])

    def _unsupported_reason(self, work: Work) -> str | None:
        variants = self.hello.algorithms.get(work.algorithm)
        if variants is None:
            return f"the adapter does not implement {work.algorithm}"
        variant = work.vector["variant"]
        if variant is not None and variant not in variants:
            return f"the adapter does not implement variant {variant!r}"
        return None

    def _fill(self) -> None:
        """Send requests up to the window, in one write."""
        assert self.process
        lines = []
        now = time.monotonic()
        while self._pending and len(self._inflight) < self.window:
            work = self._pending.popleft()
            flight = _Flight(work, now)
            self._inflight.append(flight)
            self._by_id[flight.id] = flight
            lines.append(request_line(work.vector, work.algorithm))
        if lines:
            self.process.send(("\n".join(lines) + "\n").encode("ascii"))

    def _step(self) -> None:
        """Wait for what the adapter says (or the head's deadline) and act on all of it."""
        process = self.process
        assert process
        if self._backlog:
            events, self._backlog = self._backlog, []
        else:
            deadline = self._inflight[0].head_since + self.timeout
            events = process.poll(max(deadline - time.monotonic(), 0.0))
            if not events and time.monotonic() >= deadline:
                self._on_timeout()
                return
        for event in events:
            if self.process is not process:
                return  # the process was lost: the rest of what it said concerns nobody
            self._on_event(event)

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
        tentative, self._tentative = self._tentative, None
        if tentative is not None:
            same = response.id == tentative.flight.id and tentative.flight.id in self._by_id
            if same and self._inflight and self._inflight[0] is not tentative.flight:
                head = self._inflight[0].id
                self._charge_head(
                    f"the adapter answered with id {tentative.flight.id!r}, a later request's, "
                    f"not {head!r}, and then answered {tentative.flight.id!r} again"
                )
            else:
                self._accept(tentative)
        self._route(response)

    def _route(self, response: Response) -> None:
        flight = self._by_id.get(response.id) if response.id is not None else None
        if flight is not None:
            if flight is self._inflight[0]:
                self._answer(flight, response)
            else:
                self._tentative = _Tentative(flight, response)
        elif response.id is not None and response.id in self._ended_here:
            self._answered_again(self._ended_here[response.id])
        elif not self._inflight:
            self.stray_lines.append(response.problem or quote(str(response.message)))
        elif response.problem is not None:
            self._charge_head(f"the adapter wrote a bad line on stdout: {response.problem}")
        else:
            self._charge_head(
                f"the adapter answered id {response.id!r}, which was not asked; expected "
                f"{self._inflight[0].id!r}"
            )

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
        self._losses = 0
        if response.problem is not None:
            result = self._error(flight, f"the adapter sent a bad response: {response.problem}")
        else:
            work = flight.work
            result = judge(work.vector, work.algorithm, work.output_schema, response.message)
            result.seconds = time.monotonic() - flight.head_since
        self._stderr_mark = self._stderr_total
        self._ended_here[flight.id] = result
        self._finish(result)

    def _charge_head(self, message: str) -> None:
        flight = self._inflight[0]
        self._remove(flight)
        self._losses = 0  # a bad line is still a sign of life
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
        if not (line.startswith(b"{") and b'"id"' in line):
            return  # not even shaped like a response: a log line
        response = parse_response(line)
        flight = self._by_id.get(response.id) if response.id else None
        if flight is None or response.problem is not None:
            return
        if self._tentative is not None and self._tentative.flight is flight:
            self._tentative = None
        self._remove(flight)
        self._losses = 0
        result = self._error(flight, "the adapter wrote its response on stderr, not stdout")
        self._ended_here[flight.id] = result
        self._finish(result)

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
        for event in self.process.drain_stderr():
            self._on_event(event)
        self._lose(f"no response within {self.timeout:g}s; the adapter was killed and restarted")

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
            self._lose(message + " while handling this vector")
        else:
            if partial:
                self.stray_lines.append(quote(partial))
            process.kill()
            self.process = None

    def _lose(self, message: str) -> None:
        """The head is charged with the loss; the requests behind it are sent again later."""
        assert self.process
        head = self._inflight.popleft()
        self._finish(self._error(head, message))
        self._pending.extendleft(reversed([flight.work for flight in self._inflight]))
        self._inflight.clear()
        self._by_id.clear()
        self._ended_here.clear()
        self._tentative = None
        self._backlog = []
        self.process.kill()
        self.process = None
        self._count_loss(message)

    def _count_loss(self, message: str) -> None:
        self._losses += 1
        if self._losses >= self.max_crashes:
            self._give_up(
                f"the adapter crashed, hung or failed to start {self._losses} times in a row "
                f"with no answer in between (last: {message})"
            )

    def _restart(self) -> bool:
        while self.infrastructure_error is None:
            try:
                self.hello = self._start()
            except AdapterStartError as error:
                self._count_loss(f"it could not be restarted: {error}")
                continue
            self.restarts += 1
            return True
        return False

    def _give_up(self, reason: str) -> None:
        self.infrastructure_error = reason
        for work in self._pending:
            self._finish(Result(work.vector, work.algorithm, "not-run", f"not run: {reason}"))
        self._pending.clear()

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
                        self.stray_lines.append(quote(event.line))
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
        return Result(
            work.vector,
            work.algorithm,
            "error",
            message,
            stderr=self._stderr_excerpt(),
            seconds=time.monotonic() - flight.head_since,
        )

    def _finish(self, result: Result) -> None:
        self._results.append(result)
        self.on_result(result)
