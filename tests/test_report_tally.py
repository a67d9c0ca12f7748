"""The reports count a run's results once (runner/results.py, Tally), and derive every
count, the exit status and the warnings from that: checked here against the same counts
taken result by result, the plain way, over seeded random runs that mix every status and
every mark (known failures, unexpected passes, answers of unsupported, the claims' skips),
interleaved algorithms (a resend after a crash ends out of order) and fresh algorithms the
suite does not list."""

from __future__ import annotations

import io
import random
from collections import Counter
from typing import Any, cast

import pytest

from fairvec.runner.outcome import EXIT_FAILED, EXIT_INFRASTRUCTURE, EXIT_OK, outcome, run_warnings
from fairvec.runner.report import (
    Coverage,
    RunInfo,
    SuiteSource,
    attestation,
    counts,
    is_success,
    write_human,
)
from fairvec.runner.results import SKIP_REASONS, STATUSES, Result, Tally
from fairvec.runner.session import AnySession

SUITE = ["a.one", "a.two", "b.one", "c.unlisted_by_hello"]
DECLARED = {"a.one": [], "a.two": ["v1"], "b.one": []}


class _Session:
    """What outcome() and run_warnings() read of a session."""

    def __init__(self) -> None:
        self.infrastructure_error: str | None = None
        self.stray_lines: list[str] = []
        self.early_answers: list[str] = []


def _session() -> AnySession:
    return cast("AnySession", _Session())


def _result(rng: random.Random, number: int, statuses: list[str]) -> Result:
    algorithm = rng.choice([*SUITE, "fresh.only"])
    status = rng.choice(statuses)
    variant = rng.choice([None, "v1", "v2"])
    vector: Any = {
        "id": f"{algorithm}/{number}",
        "variant": variant,
        "tags": [],
        "input": {},
        "expected": {},
    }
    result = Result(vector, algorithm, status)
    if status == "skip" and rng.random() < 0.3:
        if rng.random() < 0.5:
            result.answered_unsupported = True
        else:
            result.skip_kind = rng.choice(SKIP_REASONS)
    if status in ("fail", "error") and rng.random() < 0.3:
        result.known_failure = True
    if status == "pass" and rng.random() < 0.1:
        result.unexpected_pass = True
    return result


def _run(seed: int) -> list[Result]:
    rng = random.Random(seed)
    # a few statuses a run, so that runs with no failure (whose verdict is taken from the
    # counts alone) come as often as the others
    statuses = rng.sample(STATUSES, rng.randrange(1, len(STATUSES) + 1))
    results = [_result(rng, number, statuses) for number in range(rng.randrange(0, 400))]
    # in runs of one algorithm, as in the vectors' order, but a tenth moved out of place
    results.sort(key=lambda result: result.algorithm)
    moved = rng.sample(range(len(results)), len(results) // 10)
    shuffled = rng.sample([results[place] for place in moved], len(moved))
    for at, result in zip(moved, shuffled, strict=True):
        results[at] = result
    return results


def _info() -> RunInfo:
    suite = SuiteSource("0.0.0", "sha256:" + "0" * 64, 1, "folder", "/nowhere")
    claims: dict[str, Any] = {"pinned": {}, "pinned_by": {}, "outputs": {}, "fresh": None}
    coverage = Coverage(suite, DECLARED, SUITE, {}, [], claims)
    return RunInfo("0.0.0", "sha256:" + "0" * 64, "a", "1", ["a"], "2026-01-01T00:00:00+00:00",
                   1.0, 0, coverage, "localhost", [], None)  # fmt: skip


def _plain_reason(result: Result) -> str:
    if result.skip_kind is not None:
        return result.skip_kind
    if result.answered_unsupported:
        return "adapter-unsupported"
    if result.algorithm not in DECLARED:
        return "algorithm-not-declared"
    return "variant-not-declared"


def _plain_algorithm(results: list[Result]) -> dict[str, Any]:
    """One algorithm's coverage, counted result by result."""
    statuses = Counter(result.status for result in results)
    reasons = Counter(_plain_reason(result) for result in results if result.status == "skip")
    return {
        "selected": len(results),
        "run": statuses["pass"] + statuses["fail"] + statuses["error"],
        "passed": statuses["pass"],
        "failed": statuses["fail"],
        "errored": statuses["error"],
        "not_run": statuses["not-run"],
        "skipped": {reason: reasons[reason] for reason in SKIP_REASONS},
        "known_failures": sum(result.known_failure for result in results),
        "unexpected_passes": sum(result.unexpected_pass for result in results),
    }


def _plain_success(results: list[Result]) -> bool:
    return not any(
        (result.status in ("fail", "error") and not result.known_failure)
        or result.unexpected_pass
        or result.status == "not-run"
        for result in results
    )


@pytest.mark.parametrize("seed", range(40))
def test_the_counts_once_are_the_counts_result_by_result(seed: int) -> None:
    results = _run(seed)
    tally = Tally(results)
    algorithms = attestation(_info(), results, tally)["algorithms"]
    for name in {*SUITE, *(result.algorithm for result in results)}:
        own = [result for result in results if result.algorithm == name]
        shown = {key: algorithms[name][key] for key in _plain_algorithm(own)}
        assert shown == _plain_algorithm(own), name
    statuses = Counter(result.status for result in results)
    summary = counts(tally)
    assert summary == {
        **{status.replace("-", "_"): statuses[status] for status in STATUSES},
        "total": len(results),
        "known_failures": sum(result.known_failure for result in results),
        "unexpected_passes": sum(result.unexpected_pass for result in results),
    }
    assert is_success(results, tally) is _plain_success(results)


@pytest.mark.parametrize("seed", range(40))
def test_the_terminal_details_every_result_that_needs_attention(seed: int) -> None:
    results = _run(seed)
    terminal = io.StringIO()
    write_human(terminal, _info(), results, max_details=len(results), tally=Tally(results))
    details = [line.split()[-2] for line in terminal.getvalue().splitlines() if "  [" in line]
    assert details == [
        result.id
        for result in results
        if result.unexpected_pass
        or (result.status in ("fail", "error") and not result.known_failure)
    ]


@pytest.mark.parametrize("seed", range(40))
def test_the_exit_status_and_the_warnings_follow_the_results(seed: int) -> None:
    results = _run(seed)
    tally = Tally(results)
    ran = any(result.status in ("pass", "fail", "error") for result in results)
    # a vector not run: a session stopped (the accumulated vectors' own, here)
    stopped = any(result.status == "not-run" for result in results)
    for fail_on_skip in (False, True):
        status = outcome(_session(), results, tally, fail_on_skip=fail_on_skip)
        if not ran or stopped:
            assert status == EXIT_INFRASTRUCTURE
        elif not _plain_success(results) or (
            fail_on_skip and any(result.status == "skip" for result in results)
        ):
            assert status == EXIT_FAILED
        else:
            assert status == EXIT_OK
        warnings = run_warnings(_session(), tally, fail_on_skip=fail_on_skip)
        skipped = sum(result.status == "skip" for result in results)
        said_skipped = any("--fail-on-skip is set" in warning for warning in warnings)
        assert said_skipped is bool(fail_on_skip and skipped)
        unsupported = sum(result.answered_unsupported for result in results)
        said = any("answered unsupported to all" in warning for warning in warnings)
        assert said is bool(unsupported and not ran)
