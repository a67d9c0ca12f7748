"""Reports a CI owner can trust at a glance (issue 36, section 1): a vector's time is its
own, not the time it spent queued; a JUnit suite's time is the run's wall time; the
terminal's last line says why the exit status is what it is."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from support import run_three

from fairvec.runner.report import closing_line, counts, suite_times
from fairvec.runner.results import Result, Tally

SLEEP = 1.0  # seconds the adapter takes over battle.move/fire


def test_vectors_queued_behind_a_slow_one_are_not_charged_its_time(tmp_path: Path) -> None:
    """The vectors sent behind one that takes SLEEP seconds waited that long, but are timed
    from becoming the head: each shows a small part of SLEEP (they showed it whole). The
    only bound on wall time is the adapter's own sleep, from below."""
    done, report = run_three(tmp_path, "--sleep", str(SLEEP), "sleep:battle.move/fire")
    assert done.status == 0, done.stdout + done.stderr
    seconds = {result["id"]: result["seconds"] for result in report["results"]}
    assert seconds.pop("battle.move/fire") >= SLEEP
    assert seconds and all(value < SLEEP / 2 for value in seconds.values()), seconds
    suites = ET.parse(tmp_path / "junit.xml").getroot().findall("testsuite")
    # the run's wall time (the JSON's, to its 3 decimals), not the sum of three 1 s waits
    assert [float(suite.get("time", "")) for suite in suites] == [
        pytest.approx(report["duration_seconds"], abs=0.001)
    ]


def _results(algorithm: str, seconds: list[float]) -> list[Result]:
    vectors: list[Any] = [{"id": f"{algorithm}/{n}", "variant": None} for n in range(len(seconds))]
    return [
        Result(vector, algorithm, "pass", seconds=spent)
        for vector, spent in zip(vectors, seconds, strict=True)
    ]


def test_junit_suites_share_the_runs_wall_time() -> None:
    """Suites add up to the run's wall time, each in proportion to the adapter's time on
    it (-j 2 may overlap sessions: their sum would count that twice)."""
    groups = [_results("a.one", [3.0, 1.0]), _results("b.two", [4.0]), _results("c.three", [0.0])]
    assert suite_times(16.0, groups) == [8.0, 8.0, 0.0]
    assert suite_times(3.0, [_results("a.one", [0.0, 0.0]), _results("b.two", [0.0])]) == [2.0, 1.0]


def _tally(statuses: list[str], known: int = 0, unexpected: int = 0) -> Tally:
    results = _results("a.one", [0.0] * len(statuses))
    for result, status in zip(results, statuses, strict=True):
        result.status = status
    for result in [r for r in results if r.status in ("fail", "error")][:known]:
        result.known_failure = True
    for result in [r for r in results if r.status == "pass"][:unexpected]:
        result.unexpected_pass = True
    return Tally(results)


def test_the_closing_line_names_known_failures_and_unexpected_passes() -> None:
    """With unexpected passes the exit is 1 and the line said "0 failed"; with known
    failures the exit is 0 and it said "2 failed": it now says why."""
    plain = closing_line(counts(_tally(["pass", "pass", "fail"])))
    assert plain == "2 passed, 1 failed, 0 errors, 0 skipped"
    known = closing_line(counts(_tally(["pass", "fail", "error"], known=2)))
    assert known == (
        "1 passed, 1 failed, 1 errors, 0 skipped; 2 known failure(s) among them, listed: "
        "not failing the run"
    )
    unexpected = closing_line(counts(_tally(["pass", "pass", "fail"], known=1, unexpected=1)))
    assert unexpected.endswith(
        "; 1 known failure(s) among them, listed: not failing the run; 1 unexpected pass(es), "
        "listed as known failures: failing the run"
    )

