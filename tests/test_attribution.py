"""The attribution rules (runner/attribution.py), with no adapter process: every fault of
the table in docs/adapter-protocol.md, as an event sequence and the charges it must make.

Each row feeds an :class:`Attribution` what an adapter did (requests sent, stdout lines,
stderr lines, stdout closing, the head's time running out) and states how every vector
ended (status and exact message), which lines were stray, and the loss (if the adapter was
to be killed and restarted: a crash or not, and the requests sent again). The end-to-end
tests (tests/test_runner_misbehaving.py and the like) drive real adapters through the
same rules; here each rule is checked on its own, in microseconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from fairvec.runner.attribution import (
    ON_STDERR,
    SLOW_FACTOR,
    UNPLACED_GRACE,
    Attribution,
    Ending,
    Flight,
    Loss,
    out_of_order_note,
)
from fairvec.runner.protocol import parse_response, quote
from fairvec.runner.results import Result, Work

TIMEOUT = 10.0
CAP = 16  # --max-line-bytes, for the over-long line


def ok(vector_id: str) -> bytes:
    """A valid answer naming ``vector_id``."""
    return b'{"id": "%s", "output": {}}' % vector_id.encode()


def problem(line: bytes) -> str:
    """Why the protocol refuses ``line`` (its wording is runner/protocol.py's, tested in
    tests/test_runner_protocol.py; here only whom it is charged to matters)."""
    found = parse_response(line).problem
    assert found is not None
    return found


def bad_response(line: bytes) -> str:
    return f"the adapter sent a bad response: {problem(line)}"


def bad_line(line: bytes) -> str:
    return f"the adapter wrote a bad line on stdout: {problem(line)}"


def unasked(vector_id: str, head: str) -> str:
    return f"the adapter answered id {vector_id!r}, which was not asked; expected {head!r}"


def no_response(later: str) -> str:
    return f"no response: the adapter answered {later!r} before this one"


HUNG = "no response within 10s; the adapter was killed and restarted"
EARLY_B = "(answering 'b' before 'a', asked earlier, was answered)"
EXITED = "the adapter exited (status 1) while handling this vector"
ON_STDERR_CHARGE = "the adapter wrote its response on stderr, not stdout"

# Lines that are not valid responses. Those naming a request charge it; the others name
# no request.
SCHEMA_BREAK = b'{"id": "a", "bogus": 1}'
NOT_UNSUPPORTED = b'{"id": "a", "unsupported": false}'
NAN = b'{"id": "a", "output": {"x": NaN}}'
NAN_FOR_B = b'{"id": "b", "output": {"x": NaN}}'
INFINITY = b'{"id": "a", "output": {"x": Infinity}}'
MINUS_INFINITY = b'{"id": "a", "output": {"x": -Infinity}}'
BEYOND_DOUBLE = b'{"id": "a", "output": {"x": 1e400}}'
LONG_INTEGER = b'{"id": "a", "output": {"x": %s}}' % (b"1" * 4301)
DUPLICATE_KEY = b'{"id": "a", "output": {"x": {"y": 1, "y": 2}}}'
ID_TWICE = b'{"id": "a", "id": "b", "output": {}}'
NOT_JSON = b"hello from the adapter"
NOT_UTF8 = b'{"id": "a", "output": "\xff"}'
TOO_DEEP = b'{"id": "a", "output": ' + b"[" * 70 + b"]" * 70 + b"}"
UNKNOWN_ID = b'{"id": "zz", "output": {}}'
LOG_LINE = b"loading tables..."
HALF = b'{"id": "a", "out'
LONG_START = b'{"id": "a", "out'  # the first CAP bytes of a line longer than CAP
TOO_LONG = f"a line longer than {CAP} bytes, starting {quote(LONG_START)}"


# -- the harness -------------------------------------------------------------------------


def work(vector_id: str, *, slow: bool = False) -> Work:
    vector = {"id": vector_id, "variant": None, "tags": ["slow"] if slow else []}
    return Work(vector, "test.algorithm", {})


@dataclass
class Recorder:
    """The Verdicts a session would carry out, recorded. ``written_to_stderr``: lines the
    adapter wrote on stderr and the session has not read yet (read_stderr feeds them)."""

    attribution: Attribution | None = None
    results: dict[str, Result] = field(default_factory=dict)
    endings: list[tuple[str, Ending]] = field(default_factory=list)
    strays: list[str] = field(default_factory=list)
    early: list[str] = field(default_factory=list)
    written_to_stderr: list[bytes] = field(default_factory=list)

    def judged(self, flight: Flight, message: dict[str, Any]) -> Result:
        status = "skip" if message.get("unsupported") else "pass"
        return Result(flight.work.vector, flight.work.algorithm, status)

    def errored(self, flight: Flight, message: str) -> Result:
        return Result(flight.work.vector, flight.work.algorithm, "error", message)

    def ended(self, result: Result, how: Ending) -> None:
        assert result.id not in self.results, f"{result.id} ended twice"
        self.results[result.id] = result
        self.endings.append((result.id, how))

    def stray(self, line: str) -> None:
        self.strays.append(line)

    def out_of_order(self, line: str) -> None:
        self.early.append(line)

    def read_stderr(self) -> None:
        assert self.attribution is not None
        lines, self.written_to_stderr = self.written_to_stderr, []
        for line in lines:
            self.attribution.on_stderr(line)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Outcome:
    results: dict[str, tuple[str, str]]  # id: (status, message)
    strays: list[str]
    loss: tuple[bool, list[str]] | None  # (a crash, the ids sent again)
    in_flight: list[str]
    early: list[str]  # lines answering a request before an earlier one's answer


def play(events: list[tuple[Any, ...]]) -> tuple[Outcome, Recorder, Attribution]:
    """Feed ``events`` to a fresh Attribution, as a session would."""
    recorder, clock = Recorder(), Clock()
    attribution = Attribution(recorder, clock=clock)
    recorder.attribution = attribution
    loss: Loss | None = None
    for kind, *args in events:
        if kind == "send":  # requests sent, in this order ("a b c"; "a*": tagged slow)
            works = [work(name.rstrip("*"), slow=name.endswith("*")) for name in args[0].split()]
            attribution.sent(works, TIMEOUT)
        elif kind == "out":  # a stdout line
            attribution.on_line(parse_response(args[0]))
        elif kind == "too-long":  # a stdout line passed the cap
            attribution.on_too_long(LONG_START, CAP)
        elif kind == "err":  # a stderr line, read now
            attribution.on_stderr(args[0])
        elif kind == "err-unread":  # a stderr line written, not read yet
            recorder.written_to_stderr.append(args[0])
        elif kind == "wait":  # seconds pass
            clock.now += args[0]
        elif kind == "timeout":  # the deadline passed with nothing said
            clock.now = max(clock.now, attribution.deadline())
            loss = attribution.timed_out()
        elif kind == "exit":  # stdout closed: (how the adapter exited or None, partial line)
            attribution.stdout_closing()
            loss = attribution.stdout_closed(args[0], args[1])
        elif kind == "next-run":  # a kept-open session's next block of requests
            attribution.forget_ended()
        else:
            raise AssertionError(kind)
        assert loss is None or kind in ("timeout", "exit"), "a loss ends the events"
    outcome = Outcome(
        {key: (result.status, result.message) for key, result in recorder.results.items()},
        recorder.strays,
        None if loss is None else (loss.crash, [str(w.vector["id"]) for w in loss.resend]),
        [flight.id for flight in attribution.inflight],
        recorder.early,
    )
    return outcome, recorder, attribution


@dataclass
class Row:
    """One fault: what the adapter does, and what must follow."""

    fault: str
    events: list[tuple[Any, ...]]
    results: dict[str, tuple[str, str]]
    strays: list[str] = field(default_factory=list)
    loss: tuple[bool, list[str]] | None = None
    in_flight: list[str] = field(default_factory=list)
    early: list[str] = field(default_factory=list)


PASS = ("pass", "")

# The table of docs/adapter-protocol.md ("What the runner does when things go wrong"), a
# row or more per line of it, in its order.
TABLE = [
    Row("answers in order",
        [("send", "a b c"), ("out", ok("a")), ("out", ok("b")), ("out", ok("c"))],
        {"a": PASS, "b": PASS, "c": PASS}),
    Row("answered unsupported: a skip, not a charge",
        [("send", "a"), ("out", b'{"id": "a", "unsupported": true}')], {"a": ("skip", "")}),
    # -- exit or crash while requests are waiting
    Row("exit while requests wait: the oldest unanswered errors, the rest are sent again",
        [("send", "a b c"), ("out", ok("a")), ("exit", "exited (status 1)", b"")],
        {"a": PASS, "b": ("error", EXITED)}, loss=(True, ["c"])),
    Row("killed by a signal",
        [("send", "a b"), ("exit", "was killed by SIGSEGV", b"")],
        {"a": ("error", "the adapter was killed by SIGSEGV while handling this vector")},
        loss=(True, ["b"])),
    Row("exit with nothing in flight: nobody is charged",
        [("send", "a"), ("out", ok("a")), ("exit", "exited (status 0)", b"")], {"a": PASS}),
    # -- half a line, then exit
    Row("half a line, then exit: the head, quoting it",
        [("send", "a b"), ("exit", "exited (status 1)", HALF)],
        {"a": ("error", f"the adapter exited (status 1) after writing an unterminated line "
                        f"{quote(HALF)} while handling this vector")},
        loss=(True, ["b"])),
    Row("half a line, then exit, with nothing in flight: a stray line",
        [("send", "a"), ("out", ok("a")), ("exit", "exited (status 0)", HALF)],
        {"a": PASS}, strays=[quote(HALF)]),
    # -- close stdout but keep running
    Row("stdout closed, the adapter running: the head; it is killed",
        [("send", "a b"), ("exit", None, b"")],
        {"a": ("error", "the adapter closed its stdout but kept running (it was killed) "
                        "while handling this vector")},
        loss=(True, ["b"])),
    # -- no answer within --timeout
    Row("no answer in time: the head errors; a timeout is not a crash",
        [("send", "a b"), ("timeout",)], {"a": ("error", HUNG)}, loss=(False, ["b"])),
    Row("a slow vector gets SLOW_FACTOR times the timeout",
        [("send", "a* b"), ("timeout",)],
        {"a": ("error", "no response within 100s; the adapter was killed and restarted")},
        loss=(False, ["b"])),
    Row("the next head's time starts when it becomes the head",
        [("send", "a b"), ("wait", 9.0), ("out", ok("a")), ("timeout",)],
        {"a": PASS, "b": ("error", HUNG)}, loss=(False, [])),
    # -- a line that is not a valid response
    Row("breaking the schema, naming a request: that request errors",
        [("send", "a b"), ("out", SCHEMA_BREAK)], {"a": ("error", bad_response(SCHEMA_BREAK))},
        in_flight=["b"]),
    Row('"unsupported": false', [("send", "a"), ("out", NOT_UNSUPPORTED)],
        {"a": ("error", bad_response(NOT_UNSUPPORTED))}),
    Row("a bad line naming a later request, then the head's answer: an early answer",
        [("send", "a b"), ("out", NAN_FOR_B), ("out", ok("a"))],
        {"a": PASS}, early=[f"{problem(NAN_FOR_B)} {EARLY_B}"], in_flight=["b"]),
    Row("a bad line naming a later request, then another: that request errors",
        [("send", "a b c"), ("out", NAN_FOR_B), ("out", ok("c"))],
        {"a": ("error", no_response("b")), "b": ("error", bad_response(NAN_FOR_B)),
         "c": PASS}),
    Row("not JSON, then the head's answer: a stray line",
        [("send", "a"), ("out", NOT_JSON), ("out", ok("a"))], {"a": PASS},
        strays=[problem(NOT_JSON)]),
    Row("not UTF-8, then another request's answer: the head",
        [("send", "a b"), ("out", NOT_UTF8), ("out", ok("b"))],
        {"a": ("error", bad_line(NOT_UTF8)), "b": PASS}),
    Row("nested more than 64 levels, then another request's answer: the head",
        [("send", "a b"), ("out", TOO_DEEP), ("out", ok("b"))],
        {"a": ("error", bad_line(TOO_DEEP)), "b": PASS}),
    # -- a line that is not strict JSON
    *[
        Row(f"not strict JSON ({name}): the request it names, saying which",
            [("send", "a b"), ("out", line)], {"a": ("error", bad_response(line))}, in_flight=["b"])
        for name, line in [("NaN", NAN), ("Infinity", INFINITY), ("-Infinity", MINUS_INFINITY),
                           ("1e400", BEYOND_DOUBLE), ("4,301 digits", LONG_INTEGER),
                           ("a key twice, at depth", DUPLICATE_KEY)]
    ],
    Row('"id" twice names no request: the head\'s answer next makes it stray',
        [("send", "a b"), ("out", ID_TWICE), ("out", ok("a"))], {"a": PASS},
        strays=[problem(ID_TWICE)], in_flight=["b"]),
    Row('"id" twice, then another request\'s answer: the head',
        [("send", "a b"), ("out", ID_TWICE), ("out", ok("b"))],
        {"a": ("error", bad_line(ID_TWICE)), "b": PASS}),
    # -- a line longer than --max-line-bytes
    Row("an over-long line, then another request's answer: the head",
        [("send", "a b"), ("too-long",), ("out", ok("b"))],
        {"a": ("error", f"the adapter wrote a bad line on stdout: {TOO_LONG}"), "b": PASS}),
    Row("an over-long line, then the adapter exits: the head",
        [("send", "a b"), ("too-long",), ("exit", "exited (status 1)", b"")],
        {"a": ("error", f"{EXITED} (before that it wrote 1 line(s) naming no request, the "
                        f"first: {TOO_LONG})")},
        loss=(True, ["b"])),
    # -- answer a request twice
    Row("answered twice: that request errors, naming the first verdict",
        [("send", "a b"), ("out", ok("a")), ("out", ok("a"))],
        {"a": ("error", "the adapter answered more than once (the first answer: pass)")},
        in_flight=["b"]),
    Row("answered twice, the first a bad response: already charged",
        [("send", "a"), ("out", NAN), ("out", ok("a"))], {"a": ("error", bad_response(NAN))}),
    Row("a late answer to a vector charged with no response: no second charge",
        [("send", "a b c"), ("out", ok("b")), ("out", ok("c")), ("out", ok("a"))],
        {"a": ("error", no_response("b")), "b": PASS, "c": PASS}),
    # -- a line naming no request
    Row("an unknown id, then the head's answer: a stray line, nobody charged",
        [("send", "a b"), ("out", UNKNOWN_ID), ("out", ok("a"))], {"a": PASS},
        strays=[quote(str({"id": "zz", "output": {}}))], in_flight=["b"]),
    Row("a flood of lines naming no request, then the head's answer: nobody charged",
        [("send", "a"), *[("out", UNKNOWN_ID)] * 50, ("out", ok("a"))], {"a": PASS},
        strays=[quote(str({"id": "zz", "output": {}}))] * 50),
    Row("unknown ids, then another request's answer: the head alone, for the first line",
        [("send", "a b c"), ("out", UNKNOWN_ID), ("out", NOT_JSON), ("out", ok("b"))],
        {"a": ("error", unasked("zz", "a") + " (and 1 more such line(s))"), "b": PASS},
        strays=[problem(NOT_JSON)], in_flight=["c"]),
    Row("an unknown id, then exit: the head alone, the line quoted",
        [("send", "a b"), ("out", UNKNOWN_ID), ("exit", "exited (status 1)", b"")],
        {"a": ("error", f"{EXITED} (before that it wrote 1 line(s) naming no request, the "
                        f"first: {quote(str({'id': 'zz', 'output': {}}))})")},
        loss=(True, ["b"])),
    Row("an unknown id, then the head's time runs out: the head alone",
        [("send", "a b"), ("out", UNKNOWN_ID), ("timeout",)],
        {"a": ("error", f"{HUNG} (before that it wrote 1 line(s) naming no request, the "
                        f"first: {quote(str({'id': 'zz', 'output': {}}))})")},
        loss=(False, ["b"])),
    Row("an unknown id with nothing else in flight: after the grace, it was the head's answer",
        [("send", "a"), ("out", UNKNOWN_ID), ("timeout",)],
        {"a": ("error", f"{unasked('zz', 'a')}; nothing followed within 1s (the adapter was "
                        "killed and restarted)")},
        loss=(False, [])),
    Row("a line naming no request with nothing in flight: a stray line at once",
        [("send", "a"), ("out", ok("a")), ("out", NOT_JSON)], {"a": PASS},
        strays=[problem(NOT_JSON)]),
    Row("a late line about an earlier run's vector (kept-open session): a stray line",
        [("send", "a"), ("out", ok("a")), ("next-run",), ("out", ok("a"))], {"a": PASS},
        strays=[quote(str({"id": "a", "output": {}}))]),
    # -- answer a later request first (skipping one)
    Row("skipped: the skipped request errors, the later one is judged",
        [("send", "a b c"), ("out", ok("b")), ("out", ok("c"))],
        {"a": ("error", no_response("b")), "b": PASS, "c": PASS}),
    Row("skipped two",
        [("send", "a b c d"), ("out", ok("c")), ("out", ok("d"))],
        {"a": ("error", no_response("c")), "b": ("error", no_response("c")), "c": PASS,
         "d": PASS}),
    Row("skipped, then exit: the later answer stands; nothing was in flight at the exit",
        [("send", "a b"), ("out", ok("b")), ("exit", "exited (status 0)", b"")],
        {"a": ("error", no_response("b")), "b": PASS}),
    Row("skipped, then silence: the later answer stands, no restart",
        [("send", "a b c"), ("out", ok("b")), ("timeout",)],
        {"a": ("error", no_response("b")), "b": PASS}, in_flight=["c"]),
    # -- answer with a later request's id, then answer that request, or one before it
    Row("a later id, then that request again: the head's answer carried the wrong id",
        [("send", "a b"), ("out", ok("b")), ("out", ok("b"))],
        {"a": ("error", "the adapter answered with id 'b', a later request's, not 'a', and "
                        "then answered 'b' again"), "b": PASS}),
    Row("a later id, then a request before it: the head's answer carried the wrong id",
        [("send", "a b c"), ("out", ok("c")), ("out", ok("b"))],
        {"a": ("error", "the adapter answered with id 'c', a later request's, not 'a', and "
                        "then answered 'b', which came before it"), "b": PASS},
        in_flight=["c"]),
    # -- answer with a later request's id, then the oldest unanswered request
    Row("a later id, then the head: nobody charged, warned about as out of order",
        [("send", "a b"), ("out", ok("b")), ("out", ok("a"))], {"a": PASS},
        early=[f"{quote(str({'id': 'b', 'output': {}}))} {EARLY_B}"], in_flight=["b"]),
    Row("a later id, then the head, then the later one's answer in turn: it passes",
        [("send", "a b"), ("out", ok("b")), ("out", ok("a")), ("out", ok("b"))],
        {"a": PASS, "b": PASS}, early=[f"{quote(str({'id': 'b', 'output': {}}))} {EARLY_B}"]),
    Row("a swapped pair, then silence: the later one errors, saying its answer came early",
        [("send", "a b"), ("out", ok("b")), ("out", ok("a")), ("timeout",)],
        {"a": PASS, "b": ("error", f"{HUNG}; {out_of_order_note('a')}")},
        early=[f"{quote(str({'id': 'b', 'output': {}}))} {EARLY_B}"], loss=(False, [])),
    # -- a response on stderr
    Row("a response on stderr: that request errors",
        [("send", "a b"), ("err", ok("b"))], {"b": ("error", ON_STDERR_CHARGE)}, in_flight=["a"]),
    Row("a bad response on stderr, then the vector errors: its message says so",
        [("send", "a"), ("err", NAN), ("timeout",)],
        {"a": ("error", f"{HUNG}; {ON_STDERR}")}, loss=(False, [])),
    Row("an answer on stderr after the vector was charged with no response",
        [("send", "a b c"), ("out", ok("b")), ("out", ok("c")), ("err", ok("a"))],
        {"a": ("error", f"{no_response('b')}; {ON_STDERR}"), "b": PASS, "c": PASS}),
    Row("the head answered on stderr, then a later request on stdout: stderr is read first",
        [("send", "a b c"), ("out", ok("b")), ("err-unread", ok("a")), ("out", ok("c"))],
        {"a": ("error", ON_STDERR_CHARGE), "b": PASS, "c": PASS}),
    Row("the head answered on stderr, then silence: no restart",
        [("send", "a b"), ("err-unread", ok("a")), ("timeout",)],
        {"a": ("error", ON_STDERR_CHARGE)}, in_flight=["b"]),
    Row("the head answered on stderr after lines naming no request: they were stray",
        [("send", "a b"), ("out", NOT_JSON), ("err", ok("a"))],
        {"a": ("error", ON_STDERR_CHARGE)}, strays=[problem(NOT_JSON)], in_flight=["b"]),
    # -- anything else on stderr
    Row("logs on stderr concern nobody",
        [("send", "a"), ("err", LOG_LINE), ("err", b'{"level": "info", "id": 7}'),
         ("err", UNKNOWN_ID), ("out", ok("a"))],
        {"a": PASS}),
]


@pytest.mark.parametrize("row", TABLE, ids=[row.fault for row in TABLE])
def test_each_fault_is_charged_to_the_vector_it_concerns(row: Row) -> None:
    outcome, _recorder, _attribution = play(row.events)
    assert outcome == Outcome(row.results, row.strays, row.loss, row.in_flight, row.early)


def test_the_table_covers_the_protocol_documents_faults() -> None:
    """Every line of the fault table has its rows (by the words that start it)."""
    faults = " | ".join(row.fault for row in TABLE)
    for fault in ["exit", "half a line", "stdout closed", "no answer in time", "schema",
                  "not strict JSON", '"id" twice', "over-long", "answered twice",
                  "naming no request", "skipped", "a later id", "on stderr", "logs"]:
        assert fault in faults


def test_how_each_vector_ended_is_told_to_the_budgets() -> None:
    """An answer and a charged line are signs of life (the crash budget starts again); a
    loss is not."""
    _outcome, recorder, _ = play(
        [("send", "a b c"), ("out", ok("a")), ("out", NAN_FOR_B),
         ("exit", "exited (status 1)", b"")]
    )
    assert recorder.endings == [("a", "answered"), ("b", "answered"), ("c", "lost")]
    _outcome, recorder, _ = play([("send", "a b"), ("out", ok("b")), ("out", ok("b"))])
    assert recorder.endings == [("a", "charged"), ("b", "answered")]


def test_the_window_has_room_for_one_more_while_a_line_is_held() -> None:
    _outcome, _recorder, attribution = play([("send", "a")])
    assert attribution.room(1) == 0
    attribution.on_line(parse_response(UNKNOWN_ID))
    assert attribution.room(1) == 1  # at --window 1, the next answer is needed to settle it


def test_deadlines() -> None:
    _outcome, _recorder, attribution = play([("send", "a* b")])
    start = attribution.inflight[0].head_since
    assert attribution.deadline() == start + TIMEOUT * SLOW_FACTOR
    _outcome, _recorder, attribution = play([("send", "a"), ("wait", 0.5), ("out", UNKNOWN_ID)])
    assert attribution.deadline() == start + 0.5 + UNPLACED_GRACE  # nothing else to settle it


def test_the_fast_path_ends_heads_as_answers_in_turn_do() -> None:
    """end_heads (a batch of plain answers) leaves the same state as lines one by one."""
    _outcome, recorder, attribution = play([("send", "a b c"), ("wait", 2.0)])
    heads = list(attribution.inflight)[:2]
    results = [Result(head.work.vector, "test.algorithm", "pass") for head in heads]
    attribution.end_heads(heads, results)
    assert [flight.id for flight in attribution.inflight] == ["c"]
    # b became the head as a was answered, in the same read: its 2 s queued are not its own
    assert [result.seconds for result in results] == [2.0, 0.0]
    assert attribution.settled
    attribution.on_line(parse_response(ok("a")))  # a duplicate is still caught
    assert results[0].status == "error"
    assert recorder.results == {}  # the caller hands batch results on, not the attribution


def test_a_vector_queued_behind_a_slow_one_is_timed_from_becoming_the_head() -> None:
    """Issue 36: one vector that took 1.5 s made each of the six queued behind it show
    1.52 s, whether their answers came in one read (end_heads) or a read each; a vector's
    seconds run from becoming the head to being answered (docs/adapter-protocol.md)."""
    _outcome, _recorder, attribution = play([("send", "a b c d e"), ("wait", 1.5)])
    clock = attribution._clock
    assert isinstance(clock, Clock)
    heads = list(attribution.inflight)[:3]
    results = [Result(head.work.vector, "test.algorithm", "pass") for head in heads]
    attribution.end_heads(heads, results)  # a's answer and the two behind it, in one read
    clock.now += 0.25
    d_head = attribution.inflight[0]
    d_result = Result(d_head.work.vector, "test.algorithm", "pass")
    attribution.end_heads([d_head], [d_result])  # d alone, a quarter of a second later
    assert [result.seconds for result in [*results, d_result]] == [1.5, 0.0, 0.0, 0.25]
    assert attribution.inflight[0].head_since == clock.now  # e's turn began with d's answer
