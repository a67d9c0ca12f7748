"""The fuzzing loop: draw inputs, ask the reference, ask the adapter in batches, compare.

Rounds go over every selected algorithm, a few inputs each, until each has had ``count``
inputs or ``seconds`` have passed; each round is one Session.run call, so the adapter
gets many requests at once and the run goes at its speed.
"""

from __future__ import annotations

import math
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from fairvec.fuzz.oracle import ReferenceBroke, ReferenceFailure, expected
from fairvec.fuzz.plan import AlgorithmPlan, Drawn
from fairvec.fuzz.shrink import candidates, size
from fairvec.runner.results import Result, Work
from fairvec.runner.session import Session

if TYPE_CHECKING:  # types only: loading fairvec.data_model costs 2 ms of start-up
    from fairvec.data_model import Expected, Vector

ROUND_SIZE = 128  # inputs per Session.run call, shared among the algorithms still going
Slice = tuple[str, int, int]  # an algorithm and a range of input indexes


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
class Tally:
    tried: int = 0
    invalid: int = 0  # inputs the reference rejects
    mismatches: int = 0
    skipped: int = 0


@dataclass
class Outcome:
    tallies: dict[str, Tally]
    mismatches: list[Mismatch] = field(default_factory=list)
    reference_failures: list[ReferenceFailure] = field(default_factory=list)
    seconds: float = 0.0
    stopped_by_time: bool = False


class Fuzzer:
    def __init__(
        self,
        session: Session,
        plans: list[AlgorithmPlan],
        seed: str,
    ) -> None:
        self.session = session
        self.plans = {plan.id: plan for plan in plans}
        self.seed = seed

    def run(self, count: int, seconds: float | None) -> Outcome:
        """Up to ``count`` inputs per algorithm (scaled by its ``share``), within ``seconds``.

        The next round's inputs and expected answers are computed in a second thread while
        the adapter answers the current one: the reference and the adapter work at once.
        """
        started = time.monotonic()
        deadline = started + seconds if seconds is not None else None
        outcome = Outcome({plan_id: Tally() for plan_id in self.plans})
        budgets = {
            p.id: max(1, math.ceil(count * p.settings["share"])) for p in self.plans.values()
        }
        drawn = dict.fromkeys(budgets, 0)  # inputs handed out so far, per algorithm
        with ThreadPoolExecutor(max_workers=1) as pool:
            ahead = pool.submit(self._draw_and_prepare, self._next_round(budgets, drawn))
            while True:
                prepared, failures = ahead.result()
                outcome.reference_failures.extend(failures)
                if prepared is None or self.session.infrastructure_error:
                    break
                if deadline is not None and time.monotonic() >= deadline:
                    outcome.stopped_by_time = any(drawn[p] < budgets[p] for p in budgets)
                    ahead = pool.submit(self._draw_and_prepare, [])
                else:
                    ahead = pool.submit(self._draw_and_prepare, self._next_round(budgets, drawn))
                for judged in self._ask(prepared):
                    self._count(judged, outcome)
        outcome.seconds = time.monotonic() - started
        return outcome

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

    def _ask(self, prepared: list[Prepared]) -> list[Judged]:
        """The adapter's verdict on each prepared input, in one Session.run call."""
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
        if not works:
            return []
        by_id = {result.id: result for result in self.session.run(works)}
        return [Judged(p.drawn, p.expected, by_id[vector_id(p.drawn)]) for p in prepared]

    def shrink(self, mismatch: Mismatch, budget: int) -> None:
        """Replace the failing input by the smallest one found that fails the same way."""
        current = mismatch.found
        plan = self.plans[current.drawn.algorithm]
        step = 0
        while mismatch.shrink_attempts < budget and not self.session.infrastructure_error:
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
            same = [j for j in self._ask(prepared) if j.signature == mismatch.found.signature]
            if not same:
                break
            current = min(same, key=lambda judged: size(judged.drawn.input))
        if current is not mismatch.found:
            mismatch.shrunk = current


def vector_id(drawn: Drawn) -> str:
    label = f"-{drawn.label}" if drawn.label else ""
    variant = f"@{drawn.variant}" if drawn.variant else ""
    return f"{drawn.algorithm}/fuzz-{drawn.index}{label}{variant}"
