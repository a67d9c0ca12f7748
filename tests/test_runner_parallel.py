"""fairvec run -j N: N adapter processes, every attribution guarantee kept, reports in order."""

from __future__ import annotations

import sys
import threading
import zlib
from collections import deque
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from support import MISBEHAVING, fairvec

from fairvec.runner.attribution import Attribution
from fairvec.runner.results import Result, Work
from fairvec.runner.session import (
    MIN_VECTORS_PER_JOB,
    Session,
    SlowLane,
    jobs_for,
    runs_apart_from_slow,
    with_skips_in_order,
)
from fairvec.vectorfiles import default_vectors_root, load_vector_files

# Enough vectors for two adapters (jobs_for), cheap for the reference adapter.
ALGORITHMS = ["battle.*", "casino.crash*", "casino.dice*"]
SELECTION = [part for glob in ALGORITHMS for part in ("--algorithm", glob)]
SELECTION += ["--tier", "none", "--timeout", "3"]
CRASH_ONE_IN = 199


def selected_ids() -> list[str]:
    """The selection's vector ids in vector order, as the report must list them."""
    chosen = {"casino.crash", "casino.crash_outcome", "casino.dice", "casino.dice_outcome"}
    files = load_vector_files(
        default_vectors_root(), lambda name: name in chosen or name.startswith("battle.")
    )
    return [vector["id"] for file in files for vector in file.vectors]


def adapter(*words: str) -> list[str]:
    return ["--", sys.executable, str(MISBEHAVING), *words]


def run(tmp_path: Path, jobs: int, *words: str) -> tuple[int, dict[str, Any], list[str]]:
    report, pids = tmp_path / f"report-{jobs}.json", tmp_path / f"pids-{jobs}"
    done = fairvec(
        "run", *SELECTION, "-j", str(jobs), "--json", report, *adapter("--pids", str(pids), *words)
    )
    assert report.exists(), done.stdout + done.stderr
    started = pids.read_text(encoding="ascii").split() if pids.exists() else []
    return done.status, done.report(report), started


def test_the_selection_is_worth_two_adapters() -> None:
    assert jobs_for(2, len(selected_ids())) == 2
    assert jobs_for(8, MIN_VECTORS_PER_JOB) == 1  # a small selection starts one adapter


def _works(count: int) -> list[Work]:
    return [Work({"id": f"a.b/{n}", "variant": None}, "a.b", {}) for n in range(count)]


def test_skips_merge_into_vector_order_whatever_order_the_run_ended_in() -> None:
    works = _works(12)
    skipped_at = {0, 3, 4, 7, 11}
    supported = [work for at, work in enumerate(works) if at not in skipped_at]
    skips = [Result(works[at].vector, "a.b", "skip") for at in sorted(skipped_at)]
    ran = [Result(work.vector, "a.b", "pass") for work in reversed(supported)]  # as -j ends
    merged = with_skips_in_order(ran, supported, skips, works)
    assert [result.vector for result in merged] == [work.vector for work in works]
    assert [result.status == "skip" for result in merged] == [
        at in skipped_at for at in range(len(works))
    ]
    assert {id(result) for result in merged} == {id(result) for result in ran + skips}


def test_a_run_that_ended_fewer_vectors_than_it_sent_still_lists_every_result_in_order() -> None:
    works = _works(6)
    supported = works[1:]
    skips = [Result(works[0].vector, "a.b", "skip")]
    ran = [Result(work.vector, "a.b", "pass") for work in (works[4], works[2])]
    merged = with_skips_in_order(ran, supported, skips, works)
    assert [result.vector["id"] for result in merged] == ["a.b/0", "a.b/2", "a.b/4"]


def test_crashes_at_j2_are_charged_to_exactly_their_vectors_in_vector_order(
    tmp_path: Path,
) -> None:
    ids = selected_ids()
    doomed = {i for i in ids if zlib.crc32(i.encode()) % CRASH_ONE_IN == 0}
    assert 5 <= len(doomed) < len(ids) // 50  # the test means something
    status, report, started = run(tmp_path, 2, "--crash-one-in", str(CRASH_ONE_IN))
    results = report["results"]
    assert [result["id"] for result in results] == ids  # vector order, whichever adapter
    errors = {r["id"] for r in results if r["status"] == "error"}
    assert errors == doomed
    assert all(
        "exited (status 3) while handling this vector" in r["message"]
        for r in results
        if r["id"] in doomed
    )
    assert {r["status"] for r in results if r["id"] not in doomed} == {"pass"}
    assert status == 1
    assert report["restarts"] == len(doomed)
    assert len(started) == 2 + len(doomed)  # two adapters, and one restart per crash


def test_a_garbage_line_and_a_skipped_answer_at_j2_are_charged_to_their_vectors(
    tmp_path: Path,
) -> None:
    ids = selected_ids()
    garbled, skipped = ids[3], ids[-7]
    status, report, started = run(tmp_path, 2, f"garbage:{garbled}", f"skip:{skipped}")
    by_id = {r["id"]: r for r in report["results"]}
    assert "bad line on stdout" in by_id[garbled]["message"]
    assert by_id[skipped]["status"] == "error"
    assert {r["status"] for i, r in by_id.items() if i not in (garbled, skipped)} == {"pass"}
    assert [r["id"] for r in report["results"]] == ids
    assert len(set(started)) == 2 and status == 1


def test_the_crash_budget_stops_a_hopeless_adapter_at_j2(tmp_path: Path) -> None:
    status, report, started = run(tmp_path, 2, "--crash-one-in", "1")
    statuses = [r["status"] for r in report["results"]]
    assert status == 2
    assert statuses.count("not-run") > len(statuses) - 20
    # each adapter spends at most the budget (5) in a row, then nothing more is started
    assert len(started) <= 2 * 6
    assert [r["id"] for r in report["results"]] == selected_ids()


def test_requests_go_out_before_a_slow_second_adapter_greets(tmp_path: Path) -> None:
    """-j 2: the first adapter is not held back by the second's start-up; the second joins
    when it greets (2 s later here) and the run still ends whole, in vector order."""
    log = tmp_path / "greetings"
    status, report, _started = run(tmp_path, 2, "--greet-late", str(log))
    assert status == 0
    assert [result["id"] for result in report["results"]] == selected_ids()
    events = [line.split() for line in log.read_text(encoding="ascii").splitlines()]
    hellos = sorted(float(when) for event, when in events if event == "hello")
    requests = sorted(float(when) for event, when in events if event == "request")
    assert len(hellos) == 2 and requests
    assert requests[0] < hellos[1]  # the first request did not wait for the second hello


def _work(number: int, *tags: str) -> Work:
    return Work({"id": f"a/{number}", "variant": None, "tags": list(tags)}, "a", {})


def test_each_slow_vector_is_a_run_of_its_own_so_adapters_share_them() -> None:
    """A session takes a run whole (-j): the chain walks of one file, one run, went to one
    adapter, which walked them one after the other while the other idled."""
    works = [_work(1), _work(2, "slow"), _work(3, "slow", "long-walk"), _work(4), _work(5)]
    runs = runs_apart_from_slow(works)
    assert [[w.vector["id"] for w in run] for run in runs] == [
        ["a/1"], ["a/2"], ["a/3"], ["a/4", "a/5"],
    ]  # fmt: skip
    assert len(runs_apart_from_slow([_work(1), _work(2)])) == 1
    assert runs_apart_from_slow([]) == []


def test_one_session_walks_the_slow_runs_while_another_has_ordinary_ones() -> None:
    """The memo's path (-j): the slow runs of a file (chain walks sharing stretches a port
    may remember) go to the session that took the first of them; the others take the
    ordinary runs behind them, and the slow ones too once nothing else is left."""
    runs = deque(runs_apart_from_slow(
        [_work(1), _work(2, "slow"), _work(3, "slow"), _work(4), _work(5, "slow"), _work(6, "slow")]
    ))  # fmt: skip
    lane = SlowLane()
    walker, other = cast(Session, object()), cast(Session, object())

    def took(session: Session) -> list[str]:
        run = lane.take(runs, session)
        return [] if run is None else [work.vector["id"] for work in run]

    assert took(other) == ["a/1"]
    assert took(walker) == ["a/2"]  # the first slow run: this session walks them now
    assert took(other) == ["a/4"]  # not a/3: the ordinary run behind it
    assert took(walker) == ["a/3"]
    assert took(walker) == ["a/5"]
    assert took(other) == ["a/6"]  # only slow runs left: taken by any session
    assert took(other) == [] and took(walker) == []


def _sharing(shared: deque[Work]) -> Session:
    """A session's queue-taking state alone (no adapter): what _next_works reads."""
    session = Session.__new__(Session)
    session._pending, session._shared, session._stop = deque(), shared, threading.Event()
    session._attribution = cast(Attribution, SimpleNamespace(inflight=deque()))
    return session


def test_a_session_walking_a_slow_vector_leaves_the_next_to_another() -> None:
    """Without the answer memo the works go on one shared queue (-j): each session takes up
    to its window, but at most one slow vector at a time."""
    shared = deque([_work(1), _work(2, "slow"), _work(3, "slow"), _work(4)])
    first, second = _sharing(shared), _sharing(shared)
    taken = first._next_works(256)
    assert [w.vector["id"] for w in taken] == ["a/1", "a/2"]
    first._attribution.inflight.extend(SimpleNamespace(work=w) for w in taken)
    assert first._next_works(256) == []  # still walking a/2: a/3 waits for another
    assert [w.vector["id"] for w in second._next_works(256)] == ["a/3", "a/4"]
