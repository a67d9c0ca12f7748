"""Running vectors through an adapter: pipelined requests, in-order responses, and every
kind of adapter misbehaviour pinned on the vector it concerns.

Each vector ends in exactly one :class:`Result`: pass, fail, error or skip. A crash or
a hang costs the vector being handled (the oldest unanswered one); the adapter is
restarted and the vectors queued behind it are sent again.
"""

from __future__ import annotations

import queue
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from fairvec.runner.compare import judge
from fairvec.runner.process import AdapterProcess, AdapterStartError, Event
from fairvec.runner.protocol import Hello, parse_hello, parse_response, request_line
from fairvec.runner.results import Result, Work

MAX_RESTART_FAILURES = 3
# stdout and stderr are read by two threads, so a response the adapter wrote on stderr may
# reach us after its next stdout answer. Before charging a vector with "no response", stderr
# gets this long to catch up (only ever on that error path).
STDERR_GRACE_SECONDS = 0.1


@dataclass
class _InFlight:
    work: Work
    head_since: float  # when it became the oldest unanswered request


class Session:
    """Owns the adapter process (restarting it as needed) for one run."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        timeout: float,
        window: int,
        startup_timeout: float = 30.0,
        on_result: Callable[[Result], None] = lambda _result: None,
    ) -> None:
        self.command = list(command)
        self.timeout = timeout
        self.window = window
        self.startup_timeout = startup_timeout
        self.on_result = on_result
        self.restarts = 0
        self.process: AdapterProcess | None = None
        self.infrastructure_error: str | None = None
        self._answered_elsewhere: set[str] = set()
        self._deferred: deque[Event] = deque()  # stdout events set aside while stderr caught up
        self.hello: Hello = self._start()

    def _start(self) -> Hello:
        process = AdapterProcess(self.command)
        deadline = time.monotonic() + self.startup_timeout
        while True:
            remaining = deadline - time.monotonic()
            try:
                event = process.events.get(timeout=max(remaining, 0.001))
            except queue.Empty:
                process.kill()
                raise AdapterStartError(
                    f"no hello line within {self.startup_timeout:g}s of starting the adapter"
                ) from None
            if event.kind == "stdout":
                try:
                    hello = parse_hello(event.line)
                except ValueError as error:
                    process.kill()
                    raise AdapterStartError(f"bad hello line: {error}") from None
                self.process = process
                return hello
            if event.kind == "stdout-closed":
                status = process.exit_status(wait=1.0)
                tail = " | ".join(process.stderr_tail[-3:])
                raise AdapterStartError(
                    f"the adapter exited (status {status}) before its hello line"
                    + (f"; stderr: {tail}" if tail else "")
                )

    def close(self) -> None:
        if self.process:
            self.process.stop()
            self.process = None

    def run(self, works: Sequence[Work]) -> list[Result]:
        results: list[Result] = []

        def finish(result: Result) -> None:
            results.append(result)
            self.on_result(result)

        pending: deque[Work] = deque()
        for work in works:
            reason = self._unsupported_reason(work)
            if reason:
                finish(Result(work.vector, work.algorithm, "skip", reason))
            else:
                pending.append(work)
        inflight: deque[_InFlight] = deque()
        while pending or inflight:
            if self.process is None and not self._restart(pending, finish):
                break
            self._fill(pending, inflight)
            self._step(pending, inflight, finish)
        # Skips end first and a crash resends vectors later; report in the vectors' order.
        position = {work.vector["id"]: index for index, work in enumerate(works)}
        return sorted(results, key=lambda result: position[result.id])

    def _unsupported_reason(self, work: Work) -> str | None:
        variants = self.hello.algorithms.get(work.algorithm)
        if variants is None:
            return f"the adapter does not implement {work.algorithm}"
        variant = work.vector["variant"]
        if variant is not None and variant not in variants:
            return f"the adapter does not implement variant {variant!r}"
        return None

    def _fill(self, pending: deque[Work], inflight: deque[_InFlight]) -> None:
        assert self.process
        while pending and len(inflight) < self.window:
            work = pending.popleft()
            self.process.send(request_line(work.vector, work.algorithm))
            inflight.append(_InFlight(work, time.monotonic()))

    def _step(
        self, pending: deque[Work], inflight: deque[_InFlight], finish: Callable[[Result], None]
    ) -> None:
        """Wait for one event (or the head's deadline) and act on it."""
        assert self.process
        head = inflight[0]
        remaining = head.head_since + self.timeout - time.monotonic()
        try:
            event = (
                self._deferred.popleft()
                if self._deferred
                else self.process.events.get(timeout=max(remaining, 0.0))
            )
        except queue.Empty:
            self._lose_process(
                pending,
                inflight,
                finish,
                f"no response within {self.timeout:g}s; the adapter was killed and restarted",
                kill=True,
            )
            return
        if event.kind == "stdout":
            self._on_stdout(event, inflight, finish)
        elif event.kind == "stderr":
            self._on_stderr(event, inflight, finish)
        else:
            status = self.process.exit_status(wait=2.0)
            self._lose_process(
                pending,
                inflight,
                finish,
                f"the adapter exited (status {status}) while handling this vector",
            )

    def _on_stdout(
        self, event: Event, inflight: deque[_InFlight], finish: Callable[[Result], None]
    ) -> None:
        try:
            response = parse_response(event.line)
        except ValueError as error:
            self._resolve_error(
                inflight, finish, f"the adapter wrote a bad line on stdout: {error}"
            )
            return
        answered = response["id"]
        if answered in self._answered_elsewhere:
            self._answered_elsewhere.discard(answered)  # a late answer to a vector already judged
            return
        position = _position(inflight, answered)
        if position:  # answered out of order: let any answers sent to stderr arrive first
            self._let_stderr_catch_up(inflight, finish)
            position = _position(inflight, answered)
        if position is None:
            self._resolve_error(
                inflight,
                finish,
                f"the adapter answered id {answered!r}, which was not asked; expected "
                f"{inflight[0].work.vector['id']!r}",
            )
            return
        for _ in range(position):  # answers must come in request order: earlier ones were skipped
            self._resolve_error(
                inflight, finish, f"no response: the adapter answered {answered!r} before this one"
            )
        done = inflight.popleft()
        self._reset_head_clock(inflight)
        finish(judge(done.work.vector, done.work.algorithm, done.work.output_schema, response))

    def _let_stderr_catch_up(
        self, inflight: deque[_InFlight], finish: Callable[[Result], None]
    ) -> None:
        assert self.process
        deadline = time.monotonic() + STDERR_GRACE_SECONDS
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                event = self.process.events.get(timeout=remaining)
            except queue.Empty:
                return
            if event.kind == "stderr":
                self._on_stderr(event, inflight, finish)
            else:
                self._deferred.append(event)

    def _on_stderr(
        self, event: Event, inflight: deque[_InFlight], finish: Callable[[Result], None]
    ) -> None:
        """stderr is for logs, but a protocol response there is a misrouted answer."""
        try:
            response = parse_response(event.line)
        except ValueError:
            return
        for index, flight in enumerate(inflight):
            if flight.work.vector["id"] == response["id"]:
                del inflight[index]
                self._reset_head_clock(inflight)
                finish(
                    self._error(flight.work, "the adapter wrote its response on stderr, not stdout")
                )
                return

    def _resolve_error(
        self, inflight: deque[_InFlight], finish: Callable[[Result], None], message: str
    ) -> None:
        done = inflight.popleft()
        self._reset_head_clock(inflight)
        self._answered_elsewhere.add(done.work.vector["id"])
        finish(self._error(done.work, message))

    def _lose_process(
        self,
        pending: deque[Work],
        inflight: deque[_InFlight],
        finish: Callable[[Result], None],
        message: str,
        *,
        kill: bool = False,
    ) -> None:
        """The head vector is charged with the loss; the rest are sent again later."""
        assert self.process
        if kill:
            self.process.kill()
        head = inflight.popleft()
        finish(self._error(head.work, message))
        pending.extendleft(reversed([flight.work for flight in inflight]))
        inflight.clear()
        self.process = None
        self._answered_elsewhere.clear()
        self._deferred.clear()

    def _restart(self, pending: deque[Work], finish: Callable[[Result], None]) -> bool:
        last_error = ""
        for _attempt in range(MAX_RESTART_FAILURES):
            try:
                self.hello = self._start()
                self.restarts += 1
                return True
            except AdapterStartError as error:
                last_error = str(error)
        for work in pending:
            finish(self._error(work, f"not run: the adapter could not be restarted ({last_error})"))
        pending.clear()
        self.infrastructure_error = last_error
        return False

    def _error(self, work: Work, message: str) -> Result:
        tail = list(self.process.stderr_tail[-5:]) if self.process else []
        return Result(work.vector, work.algorithm, "error", message, stderr=tail)

    @staticmethod
    def _reset_head_clock(inflight: deque[_InFlight]) -> None:
        if inflight:
            inflight[0].head_since = time.monotonic()


def _position(inflight: deque[_InFlight], vector_id: str) -> int | None:
    return next((i for i, f in enumerate(inflight) if f.work.vector["id"] == vector_id), None)
