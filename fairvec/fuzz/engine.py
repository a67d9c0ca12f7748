"""The fuzzing loop: draw inputs, ask the reference, ask the adapter in batches, compare.

Rounds go over every selected algorithm, a few inputs each, until each has had ``count``
inputs or ``seconds`` have passed; each round is one Session.run call, so the adapter
gets many requests at once and the run goes at its speed.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Generic, TypeVar, cast

from fairvec.fuzz.oracle import ReferenceBroke, ReferenceFailure, expected
from fairvec.fuzz.plan import AlgorithmPlan, Drawn
from fairvec.fuzz.shrink import candidates, size
from fairvec.runner.claims import narrow
from fairvec.runner.results import Result, Work
from fairvec.runner.session import Session

if TYPE_CHECKING:  # types only: loading fairvec.data_model costs 2 ms of start-up
    from fairvec.data_model import Expected, Vector

ROUND_SIZE = 128  # inputs per Session.run call, shared among the algorithms still going
Slice = tuple[str, int, int]  # an algorithm and a range of input indexes
UNWIND_SECONDS = 1.0  # after the deadline closed the session, how long its thread gets to end
# An adapter that gives no answer within --timeout: the session kills it and says so with
# this message (runner/attribution.py); a slow input, not a port's mismatch.
NO_RESPONSE = "no response within "
OUT_OF_TIME = "out of time"  # --seconds ran out while the input was in flight
T = TypeVar("T")


class _Background(Generic[T]):
    """``function(*arguments)`` in a daemon thread, waited for with a time limit: work
    still going at the deadline is left behind (a daemon thread never holds up the exit)."""

    def __init__(self, function: Callable[..., T], *arguments: object) -> None:
        self._done = threading.Event()
        self._value: T | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(
            target=self._call, args=(function, arguments), daemon=True, name="fairvec-fuzz"
        )
        self._thread.start()

    def _call(self, function: Callable[..., T], arguments: tuple[object, ...]) -> None:
        try:
            self._value = function(*arguments)
        except BaseException as error:  # handed to whoever waits for it
            self._error = error
        finally:
            self._done.set()

    def wait(self, seconds: float | None) -> bool:
        """Whether it ended within ``seconds`` (None: however long it takes)."""
        return self._done.wait(None if seconds is None else max(seconds, 0.0))

    def result(self) -> T:
        if self._error is not None:
            raise self._error
        return cast("T", self._value)


@dataclass
class Prepared:
    drawn: Drawn
    expected: Expected


@dataclass
class Judged:
    drawn: Drawn
    expected: Expected
    result: Result

    @property
    def signature(self) -> tuple[str, bool, str]:
        """How it fails: the status, whether an error was expected, what came back."""
        got = self.result.got or {}
        kind = "error" if "error" in got else "output" if "output" in got else "none"
        return self.result.status, "error" in self.expected, kind


@dataclass
class Mismatch:
    found: Judged
    shrunk: Judged | None = None
    shrink_attempts: int = 0


@dataclass
class Unjudged:
    """An input drawn but not judged: --seconds ran out while it was in flight (with the
    reference or the adapter), or the adapter gave no answer within --timeout. Never a
    port's mismatch."""

    algorithm: str
    id: str
    reason: str  # OUT_OF_TIME, or the session's timeout message
    input: dict[str, object] | None = None  # shown for a timeout: the input that was slow


@dataclass
class Tally:
    tried: int = 0
    invalid: int = 0  # inputs the reference rejects
    mismatches: int = 0
    skipped: int = 0
    unjudged: int = 0  # out of time, or no answer within --timeout
    left_out: int = 0  # invalid inputs not sent (--valid-only)


@dataclass
class Outcome:
    tallies: dict[str, Tally]
    mismatches: list[Mismatch] = field(default_factory=list)
    reference_failures: list[ReferenceFailure] = field(default_factory=list)
    unjudged: list[Unjudged] = field(default_factory=list)
    seconds: float = 0.0
    stopped_by_time: bool = False


class Fuzzer:
    def __init__(
        self,
        session: Session,
        plans: list[AlgorithmPlan],
        seed: str,
        outputs: dict[str, tuple[str, ...]] | None = None,
        *,
        valid_only: bool = False,
    ) -> None:
        self.session = session
        # --valid-only: inputs the reference rejects are not sent (a port that does not
        # check its inputs is fuzzed on what it computes; the summary says how many)
        self.valid_only = valid_only
        # partial claims (runner/claims.py): algorithm -> the output fields judged
        self.outputs = outputs or {}
        self.plans = {plan.id: plan for plan in plans}
        self.seed = seed
        self.deadline: float | None = None  # time.monotonic() when --seconds runs out
        self.cut_off = False  # the deadline closed the session: nothing more can be sent

    def run(self, count: int, seconds: float | None, started: float | None = None) -> Outcome:
        """Up to ``count`` inputs per algorithm (scaled by its ``share``), within ``seconds``
        from ``started`` (default: now), the work in flight included: at the deadline the
        fuzzer stops waiting, closes the session (killing the adapter) if it is still
        answering, and lists what was left unjudged.

        The next round's inputs and expected answers are computed in a second thread while
        the adapter answers the current one: the reference and the adapter work at once.
        """
        started = time.monotonic() if started is None else started
        self.deadline = started + seconds if seconds is not None else None
        outcome = Outcome({plan_id: Tally() for plan_id in self.plans})
        budgets = {
            p.id: max(1, math.ceil(count * p.settings["share"])) for p in self.plans.values()
        }
        drawn = dict.fromkeys(budgets, 0)  # inputs handed out so far, per algorithm
        batch = self._next_round(budgets, drawn)
        ahead = _Background(self._draw_and_prepare, batch)
        while True:
            if not ahead.wait(self._left()):  # the reference is still at it: time is up
                self._unjudged_slices(batch, outcome)
                outcome.stopped_by_time = True
                break
            prepared, failures = ahead.result()
            outcome.reference_failures.extend(failures)
            if prepared is None or self.session.infrastructure_error:
                break
            if self._out_of_time():
                self._unjudged_prepared(prepared, outcome)
                outcome.stopped_by_time = True
                break
            batch = self._next_round(budgets, drawn)
            ahead = _Background(self._draw_and_prepare, batch)
            if self.valid_only:
                prepared = self._without_invalid(prepared, outcome)
            judged, left = self._ask(prepared)
            for one in judged:
                self._count(one, outcome)
            self._unjudged_prepared(left, outcome)
            if left or self.cut_off:
                self._unjudged_slices(batch, outcome)  # drawn meanwhile, never to be sent
                outcome.stopped_by_time = True
                break
        if self._out_of_time() and any(drawn[p] < budgets[p] for p in budgets):
            outcome.stopped_by_time = True
        outcome.seconds = time.monotonic() - started
        return outcome

    def _left(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()

    def _out_of_time(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def _unjudged_slices(self, batch: list[Slice], outcome: Outcome) -> None:
        for plan_id, start, end in batch:
            for index in range(start, end):
                drawn = Drawn(plan_id, index, {}, None)
                self._unjudged(drawn, OUT_OF_TIME, outcome, show_input=False)

    def _unjudged_prepared(self, prepared: list[Prepared], outcome: Outcome) -> None:
        for p in prepared:
            self._unjudged(p.drawn, OUT_OF_TIME, outcome, show_input=False)

    @staticmethod
    def _unjudged(drawn: Drawn, reason: str, outcome: Outcome, *, show_input: bool) -> None:
        outcome.tallies[drawn.algorithm].unjudged += 1
        shown = drawn.input if show_input else None
        outcome.unjudged.append(Unjudged(drawn.algorithm, vector_id(drawn), reason, shown))

    def _next_round(self, budgets: dict[str, int], drawn: dict[str, int]) -> list[Slice]:
        """The next batch: an equal part of it for each algorithm still going."""
        going = [plan_id for plan_id in self.plans if drawn[plan_id] < budgets[plan_id]]
        part = max(1, ROUND_SIZE // len(going)) if going else 0
        batch: list[Slice] = []
        for plan_id in going:
            end = min(drawn[plan_id] + part, budgets[plan_id])
            batch.append((plan_id, drawn[plan_id], end))
            drawn[plan_id] = end
        return batch

    def _draw_and_prepare(
        self, batch: list[Slice]
    ) -> tuple[list[Prepared] | None, list[ReferenceFailure]]:
        """The batch's inputs with the reference's answers (None when the batch is empty)."""
        if not batch:
            return None, []
        inputs = [
            self.plans[plan_id].draw(self.seed, index)
            for plan_id, start, end in batch
            for index in range(start, end)
        ]
        return self._prepare(inputs)

    def _count(self, judged: Judged, outcome: Outcome) -> None:
        tally = outcome.tallies[judged.drawn.algorithm]
        status = judged.result.status
        if status == "skip":
            tally.skipped += 1
            return
        if slow(judged.result):  # the adapter's time limit, not a wrong answer
            self._unjudged(judged.drawn, judged.result.message, outcome, show_input=True)
            return
        tally.tried += 1
        tally.invalid += "error" in judged.expected
        if status in ("fail", "error"):
            tally.mismatches += 1
            outcome.mismatches.append(Mismatch(judged))

    def _prepare(self, batch: list[Drawn]) -> tuple[list[Prepared], list[ReferenceFailure]]:
        """Each input with the reference's answer; inputs the reference breaks on apart."""
        prepared: list[Prepared] = []
        failures: list[ReferenceFailure] = []
        for drawn in batch:
            try:
                prepared.append(
                    Prepared(drawn, expected(drawn.algorithm, drawn.input, drawn.variant))
                )
            except ReferenceBroke as broke:
                failures.append(broke.failure)
        return prepared, failures

    def _ask(self, prepared: list[Prepared]) -> tuple[list[Judged], list[Prepared]]:
        """The adapter's verdict on each prepared input, in one Session.run call, and the
        inputs left unjudged when the deadline came first (the session is then closed)."""
        works = [
            Work(
                # a vector but for its provenance, which the session does not read
                cast(
                    "Vector",
                    {
                        "id": vector_id(p.drawn),
                        "variant": p.drawn.variant,
                        "input": p.drawn.input,
                        "expected": p.expected,
                        "tags": ["fuzz"],
                    },
                ),
                p.drawn.algorithm,
                self.plans[p.drawn.algorithm].spec.outputs,
            )
            for p in prepared
        ]
        works = [self._claimed(work) for work in works]
        if not works:
            return [], []
        if self.cut_off or self._out_of_time():
            return [], prepared
        by_id = self._results_by_deadline(works)
        judged = [
            Judged(p.drawn, p.expected, by_id[vector_id(p.drawn)])
            for p in prepared
            if vector_id(p.drawn) in by_id
        ]
        left = [p for p in prepared if vector_id(p.drawn) not in by_id]
        return judged, left

    @staticmethod
    def _without_invalid(prepared: list[Prepared], outcome: Outcome) -> list[Prepared]:
        kept = []
        for one in prepared:
            if "error" in one.expected:
                outcome.tallies[one.drawn.algorithm].left_out += 1
            else:
                kept.append(one)
        return kept

    def _claimed(self, work: Work) -> Work:
        """Under a partial claim, the work judged on the fields claimed (an input whose
        expected output has none of them is judged whole: the port then fails it, and
        should claim the field or refuse the input)."""
        fields = self.outputs.get(work.algorithm)
        if fields is None:
            return work
        return narrow(work, fields) or work

    def _results_by_deadline(self, works: list[Work]) -> dict[str, Result]:
        """Session.run's results by id; with a deadline, run in a second thread and, if
        the deadline comes first, only the results that ended before it (collected as
        they end): the session is closed, which kills the adapter, and the thread is left
        to unwind (what it reports after the cut is not looked at).

        The adapter is kept up between rounds (``keep_open``): restarting it for every
        batch of 128 inputs cost the bundled Node port 0.3 to 2 s of CPU a round; the
        command closes the session at the end."""
        if self.deadline is None:
            return {result.id: result for result in self.session.run(works, keep_open=True)}
        ended: dict[str, Result] = {}
        lock = threading.Lock()
        cut = False

        def keep(result: Result) -> None:
            with lock:
                if not cut:
                    ended[result.id] = result

        session = self.session
        before = session.on_result
        session.on_result = keep
        try:
            running = _Background(partial(session.run, keep_open=True), works)
            if running.wait(self._left()):
                return {result.id: result for result in running.result()}
            with lock:
                cut = True
                kept = dict(ended)
            self.cut_off = True
            session.close()  # kills the adapter: the session's thread stops waiting for it
            running.wait(UNWIND_SECONDS)
            return kept
        finally:
            session.on_result = before

    def shrink(self, mismatch: Mismatch, budget: int) -> None:
        """Replace the failing input by the smallest one found that fails the same way."""
        current = mismatch.found
        plan = self.plans[current.drawn.algorithm]
        step = 0
        while (
            mismatch.shrink_attempts < budget
            and not self.session.infrastructure_error
            and not self.cut_off
            and not self._out_of_time()
        ):
            proposals = candidates(current.drawn.input, plan.required)
            proposals = proposals[: budget - mismatch.shrink_attempts]
            if not proposals:
                break
            step += 1
            batch = [
                Drawn(
                    current.drawn.algorithm,
                    current.drawn.index,
                    proposal,
                    current.drawn.variant,
                    mismatch.found.drawn.how,
                    f"shrink-{step}-{n}",
                )
                for n, proposal in enumerate(proposals)
            ]
            mismatch.shrink_attempts += len(batch)
            prepared, _broke = self._prepare(batch)  # the reference breaking: not this mismatch
            answered, _left = self._ask(prepared)  # the deadline: shrunk as far as it got
            same = [
                j
                for j in answered
                if j.signature == mismatch.found.signature and not slow(j.result)
            ]
            if not same:
                break
            current = min(same, key=lambda judged: size(judged.drawn.input))
        if current is not mismatch.found:
            mismatch.shrunk = current


def vector_id(drawn: Drawn) -> str:
    label = f"-{drawn.label}" if drawn.label else ""
    variant = f"@{drawn.variant}" if drawn.variant else ""
    return f"{drawn.algorithm}/fuzz-{drawn.index}{label}{variant}"


def slow(result: Result) -> bool:
    """The adapter gave no answer within --timeout (the session killed it): the input was
    slow, which says nothing about the port's answers."""
    return result.status == "error" and result.message.startswith(NO_RESPONSE)
