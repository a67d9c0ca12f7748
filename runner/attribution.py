"""Which vector each adapter fault is charged to: the attribution rules, with no I/O.

:class:`Attribution` keeps the requests in flight and is told what the adapter did, one
thing at a time: a stdout line (decoded), an over-long stdout line, a stderr line, stdout
closing, the head's time running out. It decides whom that concerns and hands each
decision to its :class:`Verdicts` (the session, which owns the process): judge this
answer, charge this vector with this message, warn about this stray line, read what the
adapter already wrote on stderr before going on. A loss of the process (exit, closed
stdout, hang) comes back as a :class:`Loss`: the head charged, the requests to send again,
and whether it counts as a crash; killing and restarting is the session's.

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
head alone is charged. A crash or a hang charges the head; the requests queued behind it
are sent again. A vector tagged ``slow`` gets ``SLOW_FACTOR`` times the timeout. A
response on stderr charges the vector it names.

The rules, as a table of event sequences and charges: tests/test_attribution.py.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, Literal, NamedTuple, Protocol

from fairvec.runner.protocol import Response, parse_response, quote
from fairvec.runner.results import Result, Work

# A vector tagged slow (the bustabit chain walks: seconds in any port) gets this many times
# --timeout: under load, five of them in a row once timed out at --timeout 3.
SLOW_TAG = "slow"
SLOW_FACTOR = 10
# A line naming no request, with nothing else in flight to settle whose it was: the head's
# own answer gets this long to follow it (a log line on stdout, then the answer), after which
# the line is taken for the head's answer.
UNPLACED_GRACE = 1.0
# Lines naming no request kept while they wait to be settled; more are only counted (a
# flood of them must not grow memory without bound).
MAX_HELD = 1000
ON_STDERR = "an answer arrived on stderr: adapters answer on stdout"


def is_slow(work: Work) -> bool:
    """Whether the vector is tagged slow: SLOW_FACTOR times the timeout, and a run of its
    own under -j (session.runs_apart_from_slow)."""
    return SLOW_TAG in work.vector.get("tags", ())


def out_of_order_note(earlier: str) -> str:
    """What a vector's error adds when its only answer came before ``earlier``'s."""
    return (
        f"an answer naming it came before {earlier!r}, asked earlier, was answered, and "
        "was not judged: answers come in request order"
    )


# How a vector ended, for the session's budgets and stderr excerpts: "answered" (its answer
# came on stdout: a sign of life, and the stderr before it is no longer news), "charged" (a
# line concerning it came, bad or misplaced: still a sign of life), "lost" (a crash or a
# hang: the head pays, and nothing says the adapter is alive).
Ending = Literal["answered", "charged", "lost"]


class Flight:
    """A request sent and not yet ended (one per vector: a plain class with slots, made
    fast)."""

    __slots__ = ("head_since", "id", "limit", "order", "work")

    def __init__(self, work: Work, head_since: float, limit: float, order: int) -> None:
        self.work = work
        self.id = str(work.vector["id"])
        self.head_since = head_since  # when it became the oldest unanswered request
        self.limit = limit  # seconds it may take as the head
        self.order = order  # sent after every flight with a lower one


class _Tentative(NamedTuple):  # (not a dataclass: see runner/results.py)
    """A line naming a later request than the head, kept until the next line tells which
    of the two vectors it belongs to."""

    flight: Flight
    response: Response


class Loss(NamedTuple):
    """The adapter is lost (exited, closed stdout, hung): the head was charged with
    ``message``; ``resend`` were in flight behind it and go out again to the next process.
    ``crash``: it counts toward --max-crashes (a timeout has a budget of its own)."""

    message: str
    crash: bool
    resend: list[Work]


class Verdicts(Protocol):
    """What the attribution needs done by whoever owns the adapter process."""

    def judged(self, flight: Flight, message: dict[str, Any]) -> Result:
        """``flight``'s valid answer ``message``, judged (its seconds set)."""
        ...

    def errored(self, flight: Flight, message: str) -> Result:
        """``flight`` errors with ``message`` (the result carrying the recent stderr)."""
        ...

    def ended(self, result: Result, how: Ending) -> None:
        """``result`` ends its vector."""
        ...

    def stray(self, line: str) -> None:
        """A line that concerned no vector: warned about, never charged."""
        ...

    def out_of_order(self, line: str) -> None:
        """A line answering a request that was asked, but before an earlier request's
        answer (a swapped pair): warned about as such, not judged (see
        Attribution._settle_tentative)."""
        ...

    def read_stderr(self) -> None:
        """Feed back, through :meth:`Attribution.on_stderr`, what the adapter has already
        written on stderr. Called before a line is taken for a later request's answer, and
        before a hang is charged: an answer misrouted to stderr must be seen first."""
        ...


class Attribution:
    """The requests in flight to one adapter process, and whom each of its faults concerns."""

    def __init__(self, verdicts: Verdicts, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._verdicts = verdicts
        self._clock = clock
        self.inflight: deque[Flight] = deque()  # in the order sent: [0] is the head
        self._by_id: dict[str, Flight] = {}
        self._ended: dict[str, Result] = {}  # vectors this process was asked, and ended
        self._tentative: _Tentative | None = None
        # lines naming no request since the head's turn began: (the head's charge, if it
        # was the head's answer; the line as a stray line, if it was not)
        self._unplaced: list[tuple[str, str]] = []
        self._unplaced_uncounted = 0  # held past MAX_HELD: counted, not kept
        self._unplaced_since = 0.0  # when the last of them came
        self._sent = 0  # requests sent: each flight's order
        self._stderr_answered: set[str] = set()  # in flight, with a bad answer on stderr
        # in flight, with an answer that came before an earlier request's: id -> that one's
        self._early: dict[str, str] = {}

    # -- sending and waiting -------------------------------------------------------------

    def room(self, window: int) -> int:
        """How many more requests may go out: up to the window, and one more while a line
        naming no request waits for the next answer to say whose it was (at --window 1)."""
        return window - len(self.inflight) + (len(self._unplaced) > 0)

    def sent(self, works: Sequence[Work], timeout: float, *, since: float | None = None) -> None:
        """``works`` were sent, in this order; each may take ``timeout`` as the head
        (SLOW_FACTOR times that if tagged slow). ``since``: when they were sent, if
        before now (a replayed block handed on: Session._replay)."""
        now = self._clock() if since is None else since
        first = self._sent
        self._sent += len(works)
        quick, slow = timeout, timeout * SLOW_FACTOR
        flights = [
            Flight(work, now, slow if is_slow(work) else quick, order)
            for order, work in enumerate(works, first)
        ]
        self.inflight.extend(flights)
        self._by_id.update([(flight.id, flight) for flight in flights])

    def deadline(self) -> float:
        """When the head's time runs out (clock time). A line naming no request with
        nothing else in flight gets only UNPLACED_GRACE: no later answer will settle it."""
        head = self.inflight[0]
        deadline = head.head_since + head.limit
        if self._unplaced and len(self.inflight) == 1:
            deadline = min(deadline, self._unplaced_since + UNPLACED_GRACE)
        return deadline

    @property
    def settled(self) -> bool:
        """No line is held waiting for the next to say whose it was (the fast path's
        condition: every line then either answers the head or is taken one by one)."""
        return self._tentative is None and not self._unplaced

    def forget_ended(self) -> None:
        """Between runs of a kept-open session: a long stream would keep every answer
        otherwise (a late line about an earlier run's vector is then a stray line)."""
        self._ended.clear()

    # -- answers in order (the fast path) -----------------------------------------------

    def end_heads(self, heads: list[Flight], results: list[Result]) -> None:
        """The first len(heads) requests in flight were answered in turn with these
        results, now (their seconds set here). The caller hands them on. Only the first
        was the head until now: each of the others became the head as the one before it
        was answered, in this same read, so its time is none of the time it spent queued
        (docs/adapter-protocol.md, Timeouts)."""
        now = self._clock()
        inflight, by_id, ended = self.inflight, self._by_id, self._ended
        for head, result in zip(heads, results, strict=True):
            inflight.popleft()
            del by_id[head.id]
            result.seconds = now - head.head_since
            ended[head.id] = result
            if inflight:  # the next one is the head from now on
                inflight[0].head_since = now
        if self._stderr_answered:  # (they ended: what came on stderr no longer matters)
            for result in results:
                self._stderr_answered.discard(result.id)

    def ended_unsent(self, ids: list[str], results: list[Result]) -> None:
        """Requests of ``ids`` that ended with ``results`` without being in flight here (a
        replayed block's passes): a later line naming one is an answer again."""
        self._ended.update(zip(ids, results, strict=True))

    # -- stdout lines --------------------------------------------------------------------

    def on_line(self, response: Response) -> None:
        """A stdout line, decoded."""
        if self._tentative is not None:
            self._settle_tentative(self._flight_of(response))
        flight = self._flight_of(response)
        if self._unplaced and flight is not None:
            self._settle_unplaced(flight)
        self._route(response)

    def on_too_long(self, start: bytes, max_line: int) -> None:
        """A stdout line passed ``max_line`` bytes (``start``: its first bytes): it names
        no request that can be read."""
        problem = f"a line longer than {max_line} bytes, starting {quote(start)}"
        self.on_line(Response(None, {}, problem))

    def _flight_of(self, response: Response) -> Flight | None:
        return self._by_id.get(response.id) if response.id is not None else None

    def _settle_tentative(self, flight: Flight | None) -> None:
        """The line held for naming a later request, judged by the next one, ``flight``'s
        (None: it names no request in flight)."""
        tentative, self._tentative = self._tentative, None
        assert tentative is not None
        later, head = tentative.flight, self.inflight[0]
        if later.id not in self._by_id or later is head:
            self._accept(tentative)  # (it ended meanwhile, or nothing is left before it)
        elif flight is later:  # named again: the first was the head's answer, mislabelled
            self._charge_head(
                f"the adapter answered with id {later.id!r}, a later request's, not "
                f"{head.id!r}, and then answered {later.id!r} again"
            )
        elif flight is not None and flight.order < later.order:
            if flight is head:  # the head answers now: that line came out of order
                self._answered_early(tentative, head)
            else:  # a request before it answers next: it was the head's, mislabelled
                self._charge_head(
                    f"the adapter answered with id {later.id!r}, a later request's, not "
                    f"{head.id!r}, and then answered {flight.id!r}, which came before it"
                )
        else:
            self._accept(tentative)

    def _answered_early(self, tentative: _Tentative, head: Flight) -> None:
        """A line naming a later request, asked, came before the head's own answer: a
        swapped pair, or a line naming that request by mistake. Answers come in request
        order, so it is not judged: the later request waits for an answer in its turn,
        and is charged (saying why) if none comes. It was once warned about as a line
        "that no request asked for", though its request was asked (issue 34)."""
        later = tentative.flight
        said = tentative.response.problem or quote(str(tentative.response.message))
        self._verdicts.out_of_order(
            f"{said} (answering {later.id!r} before {head.id!r}, asked earlier, was answered)"
        )
        self._early[later.id] = head.id

    def _settle_unplaced(self, flight: Flight) -> None:
        """Lines naming no request came before this line, ``flight``'s answer: if it is
        the head's, they concerned no vector; else the head's answer was one of them, or
        missing, and the head alone is charged."""
        held, self._unplaced = self._unplaced, []
        uncounted, self._unplaced_uncounted = self._unplaced_uncounted, 0
        if flight is not self.inflight[0]:
            charge, _line = held.pop(0)
            others = len(held) + uncounted
            more = f" (and {others} more such line(s))" if others else ""
            self._charge_head(charge + more)
        for _charge, line in held:
            self._verdicts.stray(line)
        if uncounted:
            self._verdicts.stray(f"(and {uncounted} more lines naming no request)")

    def _route(self, response: Response) -> None:
        flight = self._flight_of(response)
        if flight is not None:
            if flight is self.inflight[0]:
                self._answer(flight, response)
            else:
                self._tentative = _Tentative(flight, response)
        elif response.id is not None and response.id in self._ended:
            self._answered_again(self._ended[response.id])
        elif not self.inflight:
            self._verdicts.stray(response.problem or quote(str(response.message)))
        else:
            self._hold_unplaced(response)

    def _hold_unplaced(self, response: Response) -> None:
        """Keep a line naming no request until the next line says whose it was. An adapter
        flooding such lines (``yes garbage``) is kept to MAX_HELD of them, the rest only
        counted: memory stays bounded, and the head's deadline still ends the wait."""
        self._unplaced_since = self._clock()
        if len(self._unplaced) >= MAX_HELD:
            self._unplaced_uncounted += 1
            return
        line = response.problem or quote(str(response.message))
        self._unplaced.append((self._head_charge(response), line))

    def _head_charge(self, response: Response) -> str:
        """What the head is charged with if a line naming no request was its answer."""
        if response.problem is not None:
            return f"the adapter wrote a bad line on stdout: {response.problem}"
        return (
            f"the adapter answered id {response.id!r}, which was not asked; expected "
            f"{self.inflight[0].id!r}"
        )

    def _accept(self, tentative: _Tentative) -> None:
        """The line naming a later request was its answer: the requests before it were
        skipped. Anything they wrote on stderr meanwhile is read first."""
        self._verdicts.read_stderr()
        if tentative.flight.id not in self._by_id:
            return  # its answer also came on stderr, and was charged there
        while self.inflight and self.inflight[0] is not tentative.flight:
            self._charge_head(
                f"no response: the adapter answered {tentative.flight.id!r} before this one"
            )
        if self.inflight:
            self._answer(tentative.flight, tentative.response)

    def _answer(self, flight: Flight, response: Response) -> None:
        self._remove(flight)
        if response.problem is not None:
            result = self._error(flight, f"the adapter sent a bad response: {response.problem}")
        else:
            result = self._verdicts.judged(flight, response.message)
        self._ended[flight.id] = result
        self._end(result, "answered")

    def _charge_head(self, message: str) -> None:
        flight = self.inflight[0]
        self._remove(flight)
        result = self._error(flight, message)
        self._ended[flight.id] = result
        self._end(result, "charged")  # a bad line is still a sign of life

    @staticmethod
    def _answered_again(result: Result) -> None:
        """A second line for a vector already ended: that vector misbehaved."""
        if result.status == "error":
            return  # already charged (a late answer to a vector charged with no response)
        first = f"{result.status}: {result.message}" if result.message else result.status
        result.status = "error"
        result.message = f"the adapter answered more than once (the first answer: {first})"
        result.got = None

    # -- stderr --------------------------------------------------------------------------

    def on_stderr(self, line: bytes) -> None:
        """stderr is for logs, but a protocol response there is a misrouted answer."""
        line = line.strip()
        if not (line.startswith(b"{") and b'"id"' in line):
            return  # not even shaped like a response: a log line
        response = parse_response(line)
        if response.id is None:
            return
        flight = self._by_id.get(response.id)
        if flight is None:
            self._note_stderr(self._ended.get(response.id))
            return
        if response.problem is not None:  # perhaps a log line; if the vector errors, say so
            self._stderr_answered.add(flight.id)
            return
        if self._tentative is not None and self._tentative.flight is flight:
            self._tentative = None
        if self._unplaced and flight is self.inflight[0]:
            self._settle_unplaced(flight)  # they were not its answer: this was
        self._remove(flight)
        result = self._error(flight, "the adapter wrote its response on stderr, not stdout")
        self._ended[flight.id] = result
        self._end(result, "charged")

    @staticmethod
    def _note_stderr(result: Result | None) -> None:
        """A vector already charged (no response, say) whose answer then came on stderr:
        its message says where the answer went."""
        if result is not None and result.status == "error" and ON_STDERR not in result.message:
            result.message += f"; {ON_STDERR}"

    # -- losing the process --------------------------------------------------------------

    def timed_out(self) -> Loss | None:
        """The deadline() passed with nothing said. None: a held line settled it (the next
        head's time starts now), or the head's answer turned up on stderr."""
        if self._tentative is not None:  # the head was skipped; the later answer stands
            tentative, self._tentative = self._tentative, None
            self._accept(tentative)
            if self.inflight:
                self.inflight[0].head_since = self._clock()
            return None
        head = self.inflight[0]
        self._verdicts.read_stderr()
        if not self.inflight or self.inflight[0] is not head:
            return None  # its answer came on stderr, and was charged there: the next one's turn
        if self._unplaced and self._clock() < head.head_since + head.limit:
            charge = self._unplaced[0][0]  # the grace ran out: that line was its answer
            return self._lose(
                f"{charge}; nothing followed within {UNPLACED_GRACE:g}s (the adapter was "
                "killed and restarted)",
                crash=False,
            )
        return self._lose(
            f"no response within {head.limit:g}s; the adapter was killed and restarted"
            + self._unplaced_note(),
            crash=False,
        )

    def stdout_closing(self) -> None:
        """stdout closed: a line held for naming a later request was that request's answer
        (nothing more will say otherwise). Before the exit is looked at."""
        if self._tentative is not None:
            tentative, self._tentative = self._tentative, None
            self._accept(tentative)

    def stdout_closed(self, exit_status: str | None, partial: bytes) -> Loss | None:
        """After stdout_closing(): the adapter exited (``exit_status`` describes how), or
        closed stdout and carries on (None; it is killed). ``partial``: what it wrote after
        its last newline. None: nothing was in flight (a partial line is then a stray one)."""
        if exit_status is None:
            message = "the adapter closed its stdout but kept running (it was killed)"
        else:
            message = f"the adapter {exit_status}"
        if partial:
            message += f" after writing an unterminated line {quote(partial)}"
        if self.inflight:
            return self._lose(message + " while handling this vector" + self._unplaced_note())
        if partial:
            self._verdicts.stray(quote(partial))
        return None

    def _unplaced_note(self) -> str:
        """For a head lost while lines naming no request were held: they are quoted."""
        if not self._unplaced:
            return ""
        count, first = len(self._unplaced) + self._unplaced_uncounted, self._unplaced[0][1]
        return f" (before that it wrote {count} line(s) naming no request, the first: {first})"

    def _lose(self, message: str, *, crash: bool = True) -> Loss:
        """The head is charged with the loss; the requests behind it are to be sent again,
        to a new process: nothing this one said matters any more."""
        head = self.inflight.popleft()
        self._end(self._error(head, message), "lost")
        resend = [flight.work for flight in self.inflight]
        self.inflight.clear()
        self._by_id.clear()
        self._ended.clear()
        self._tentative = None
        self._unplaced = []
        self._unplaced_uncounted = 0
        self._stderr_answered.clear()
        self._early.clear()
        return Loss(message, crash, resend)

    # -- bookkeeping ---------------------------------------------------------------------

    def _remove(self, flight: Flight) -> None:
        was_head = bool(self.inflight) and self.inflight[0] is flight
        self.inflight.remove(flight)
        del self._by_id[flight.id]
        if was_head and self.inflight:
            self.inflight[0].head_since = self._clock()
        tentative = self._tentative
        if tentative is not None and self.inflight and tentative.flight is self.inflight[0]:
            self._tentative = None  # nothing is left before it: it is the head's answer now
            self._answer(tentative.flight, tentative.response)

    def _error(self, flight: Flight, message: str) -> Result:
        if flight.id in self._stderr_answered:
            self._stderr_answered.discard(flight.id)
            message += f"; {ON_STDERR}"
        if flight.id in self._early:
            message += f"; {out_of_order_note(self._early.pop(flight.id))}"
        return self._verdicts.errored(flight, message)

    def _end(self, result: Result, how: Ending) -> None:
        if self._stderr_answered:  # (it ended: what came on stderr no longer matters)
            self._stderr_answered.discard(result.id)
        if self._early:
            self._early.pop(result.id, None)
        self._verdicts.ended(result, how)
