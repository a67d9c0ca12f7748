"""A rerun replayed (runner/session.py, Session._replay): a file's remembered requests sent
as one block, the adapter's stdout compared with the remembered answers as bytes. Every
way an adapter can leave the block (a differing byte, a crash, a hang, stderr, a line too
many or too few) hands the rest to the usual path, so a replayed run must end exactly as a
run that remembers nothing: the same verdicts, messages, charges and exit status."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from support import (
    HANG,
    HUNG,
    MISBEHAVING,
    PATIENCE,
    TWO_DECLARED,
    Completed,
    copied_files,
    fairvec,
    learn_two,
    own_cache_fixture,  # noqa: F401  (a fixture, autouse)
    session_run,
    two_algorithm_run,
    two_files_fixture,  # noqa: F401  (the vectors fixture)
)

from fairvec.runner import process as process_module
from fairvec.runner.answer_memo import FileMemo
from fairvec.runner.process import AdapterProcess, Event, Matched
from fairvec.runner.session import Session

DECLARED = TWO_DECLARED
MIDDLE = "battle.move/random-30"  # well inside the first file's block
FIRST_OF_SECOND = "nardy.cuts/document-cuts-4-5"  # the first line of the second block
LAST = "nardy.cuts/boundary-cut2-maximum-past"  # the last line of the run


_run = two_algorithm_run


def _restarts(report: Path) -> int:
    restarts: int = json.loads(report.read_text())["restarts"]
    return restarts


def _comparable(done: Completed, report: Path) -> dict[str, Any]:
    """What a run said, without what differs from run to run (times, the host)."""
    value = json.loads(report.read_text())
    results = [{k: v for k, v in r.items() if k != "seconds"} for r in value["results"]]
    return {
        "status": done.status,
        "summary": value["summary"],
        "results": results,
        "warnings": value.get("warnings"),
        "error": done.stderr.strip().splitlines()[-1:] if done.status == 2 else [],
    }


MODES = [
    ("crash", MIDDLE, ()),
    ("hang", MIDDLE, HUNG),
    ("garbage", MIDDLE, ()),
    ("wrong-id", MIDDLE, ()),
    ("stderr", MIDDLE, ()),
    ("wrong-output", MIDDLE, ()),
    ("later-id", MIDDLE, ()),
    ("two-ahead", MIDDLE, ()),
    ("stderr-late", MIDDLE, ()),
    ("partial-exit", MIDDLE, ()),
    ("close-stdout", MIDDLE, ()),
    ("flood", MIDDLE, ()),
    ("long-line", MIDDLE, ()),
    ("duplicate", MIDDLE, ()),
    ("crash", FIRST_OF_SECOND, ()),
    ("duplicate", LAST, ()),
    ("hang", FIRST_OF_SECOND, HUNG),
    # a line slower than the timeout (15 s), byte by byte (a piece each 1.5 s)
    ("drip", MIDDLE, HUNG),
    # the window holds in a replay too: at 1, these wait for a request never sent (3 s:
    # at 1 s, an ordinary answer on a machine at load 20 was once charged a timeout too)
    ("later-id", MIDDLE, ("--window", "1", "--timeout", "3")),
    ("stderr-late", MIDDLE, ("--window", "1", "--timeout", "3")),
]


class Learnt(NamedTuple):
    vectors: Path
    cache: Path  # the memo of a run of them that passed
    said: dict[str, Any]  # that run's report, comparable


@pytest.fixture(scope="module")
def learnt(tmp_path_factory: pytest.TempPathFactory) -> Learnt:
    """One run that passed, learnt once for the module's tests (each copies its memo)."""
    learnt = learn_two(tmp_path_factory.mktemp("learnt"))
    return Learnt(learnt.vectors, learnt.cache, _comparable(learnt.done, learnt.report))


@pytest.mark.parametrize(
    ("mode", "vector", "extra"), MODES, ids=[f"{m}-{v.split('/')[1]}-{len(e)}" for m, v, e in MODES]
)
def test_a_replayed_run_ends_as_one_that_remembers_nothing(
    learnt: Learnt, own_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    mode: str, vector: str, extra: tuple[str, ...],
) -> None:  # fmt: skip
    shutil.copytree(learnt.cache, own_cache)
    replayed = _run(learnt.vectors, tmp_path / "replayed.json", f"{mode}:{vector}", extra=extra)
    monkeypatch.setenv("FAIRVEC_NO_CACHE", "1")
    judged = _run(learnt.vectors, tmp_path / "judged.json", f"{mode}:{vector}", extra=extra)
    if mode == "hang":  # charged a timeout after the last answer, as ever: not two (each
        # timeout kills and restarts the adapter: counted, where a clock is not on a loaded machine)
        restarts = [_restarts(tmp_path / name) for name in ("replayed.json", "judged.json")]
        assert restarts[0] == restarts[1], restarts
    said = _comparable(replayed, tmp_path / "replayed.json")
    assert said != learnt.said  # (the mode did misbehave)
    assert said == _comparable(judged, tmp_path / "judged.json")


@pytest.mark.parametrize("startup", ["log-after-hello", "note-after-hello"])
def test_a_line_with_the_hello_is_read_as_ever(
    learnt: Learnt, own_cache: Path, tmp_path: Path, startup: str
) -> None:
    """A line that comes with the hello (a log line, on stdout or stderr) is read before
    any replay, as a run that remembers nothing reads it (it once kept a run waiting)."""
    shutil.copytree(learnt.cache, own_cache)
    vectors, report = learnt.vectors, tmp_path / "replayed.json"
    # (-j 1: at -j 2, whether the second adapter's line is read depends on whether it gets
    # a vector, which depends on when it greets, memo or not)
    replayed = _run(vectors, report, startup, extra=("-j", "1"), timeout=HANG)
    said = _comparable(replayed, report)
    assert said["status"] == 0 and said["summary"]["pass"] == 148 + 129
    at_two = _run(vectors, tmp_path / "j2.json", startup, extra=("-j", "2"), timeout=HANG)
    assert at_two.status == 0, at_two.stdout + at_two.stderr  # (nor at -j 2)
    os.environ["FAIRVEC_NO_CACHE"] = "1"
    try:
        judged = _run(vectors, tmp_path / "judged.json", startup, extra=("-j", "1"))
    finally:
        del os.environ["FAIRVEC_NO_CACHE"]
    assert said == _comparable(judged, tmp_path / "judged.json")


def test_a_smaller_line_cap_than_the_answers_remembered_is_applied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--max-line-bytes below answers that passed before (stake.cards: a deck's 52 cards):
    they are too long, as in a run that remembers nothing (the file is not replayed)."""
    vectors = copied_files(tmp_path, ("stake/cards.json",))
    time.sleep(1.2)

    def run(report: str, *extra: str) -> Completed:
        return fairvec(
            "run", "--vectors", vectors, "--tier", "none", "--algorithm", "stake.cards",
            "--json", tmp_path / report, *extra, "--", sys.executable, str(MISBEHAVING),
            "--algorithms", json.dumps({"stake.cards": []}),
        )  # fmt: skip

    assert run("learn.json").status == 0
    replayed = run("replayed.json", "--max-line-bytes", "1024")
    monkeypatch.setenv("FAIRVEC_NO_CACHE", "1")
    judged = run("judged.json", "--max-line-bytes", "1024")
    said = _comparable(replayed, tmp_path / "replayed.json")
    assert said == _comparable(judged, tmp_path / "judged.json")
    assert said["status"] == 1 and said["summary"]["error"] > 0


# -- in process: that the replay is what runs ------------------------------------------------


def _statuses(vectors: Path, jobs: int) -> list[str]:
    """One run over battle.move and nardy.cuts with the memo, in process."""
    results, _files = session_run(vectors, ("battle.move", "nardy.cuts"), jobs=jobs)
    return [r.status for r in results]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_rerun_is_replayed_and_no_memo_file_is_split_into_lines(
    vectors: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    """The second run sends both files' requests as blocks and compares their answers as
    bytes: no memo is split into lines (which a line-by-line lookup does first)."""
    time.sleep(1.2)  # settled: the second load knows the files by their remembered hashes
    statuses = _statuses(vectors, jobs)
    assert set(statuses) == {"pass"}

    def refused(_memo: FileMemo) -> None:
        raise AssertionError("a memo split into lines: the rerun was not replayed")

    monkeypatch.setattr(FileMemo, "_split", refused)
    replays: list[str] = []
    replay = Session._replay

    def noted(self: Session, replaying: Any) -> None:
        replays.append(replaying.works[0].algorithm)
        replay(self, replaying)

    monkeypatch.setattr(Session, "_replay", noted)
    statuses = _statuses(vectors, jobs)
    assert set(statuses) == {"pass"} and len(statuses) == 148 + 129
    assert set(replays) <= {"battle.move", "nardy.cuts"} and replays


# -- reading stdout against what is expected ------------------------------------------------

WRITER = """
import os, sys, time
for piece in sys.argv[1:]:
    if piece.startswith("sleep:"):
        time.sleep(float(piece[6:]))
    elif piece.startswith("err:"):
        os.write(2, piece[4:].encode() + b"\\n")
    elif piece == "close-stdout":
        os.close(1)
    else:
        os.write(1, piece.encode().replace(b"|", b"\\n"))
if os.environ.get("WRITER_HOLD"):
    time.sleep(float(os.environ["WRITER_HOLD"]))
"""
EXPECTED = b"one\ntwo\nthree\n"


def _read(*pieces: str, patience: float = 5.0, hold: bool = False) -> tuple[Matched, list[Event]]:
    """What read_expected made of a writer of ``pieces`` (``hold``: it stays up after),
    and what poll says next (the usual path's turn, where the comparison stopped)."""
    if hold:
        os.environ["WRITER_HOLD"] = str(HANG)  # (killed when read)
    try:
        process = AdapterProcess([sys.executable, "-c", WRITER, *pieces])
    finally:
        os.environ.pop("WRITER_HOLD", None)
    try:
        matched = process.read_expected(bytearray(EXPECTED), patience)
        return matched, [] if hold else _poll_to_the_end(process)
    finally:
        process.kill()


def _poll_to_the_end(process: AdapterProcess) -> list[Event]:
    """Every event until stdout ends (one poll returns what one wait found: under load the
    last line and the end of stdout may come a wait apart)."""
    events: list[Event] = []
    deadline = time.monotonic() + PATIENCE
    while process.stdout_open and time.monotonic() < deadline:
        events += process.poll(0.5)
    return events


def test_what_comes_as_expected_in_any_pieces_is_counted_whole() -> None:
    matched, _after = _read("o", "ne|tw", "sleep:0.05", "o|three|", hold=True)
    assert matched.lines == 3 and matched.events == []
    assert [lines for lines, _at in matched.progress] == [1, 3]


def test_from_a_differing_byte_on_the_rest_is_lines_as_poll_makes_them() -> None:
    matched, _after = _read("one|tw", "sleep:0.1", "x|three|", hold=True)
    assert matched.lines == 1
    assert [(e.kind, e.line) for e in matched.events] == [("stdout", b"twx"), ("stdout", b"three")]


def test_a_line_too_many_is_handed_on() -> None:
    matched, _after = _read("one|two|", "sleep:0.1", "three|four|", hold=True)
    assert matched.lines == 2  # (the read that brought the third line brought a fourth)
    assert [e.line for e in matched.events] == [b"three", b"four"]


def test_the_end_of_stdout_mid_line_is_the_usual_event() -> None:
    matched, _after = _read("one|tw", "close-stdout", hold=True)  # (stderr still open)
    assert matched.lines == 1
    assert [(e.kind, e.line) for e in matched.events] == [("stdout-closed", b"tw")]


def test_the_end_of_both_streams_is_left_to_poll() -> None:
    """An adapter that exits: its stderr ends too, and the comparison stops there, leaving
    the end of stdout to the usual path."""
    matched, after = _read("one|tw")
    ended = [(e.kind, e.line) for e in [*matched.events, *after] if e.stream == "stdout"]
    assert matched.lines <= 1 and ended[-1:] == [("stdout-closed", b"tw")]


def test_stderr_stops_the_comparison_unread() -> None:
    matched, after = _read("one|", "sleep:0.5", "err:a note", "sleep:0.2", "two|three|")
    assert matched.lines == 1 and matched.events == []
    assert [(e.kind, e.line) for e in after][:1] == [("stderr", b"a note")]


def test_a_stall_ends_the_comparison_after_the_patience() -> None:
    started = time.monotonic()
    matched, _after = _read("one|tw", hold=True, patience=0.3)
    # waited the patience out, not the writer (it holds for HANG seconds): a budget
    # between the two that a loaded machine meets, not a speed bound
    assert 0.3 <= time.monotonic() - started < PATIENCE
    assert matched.lines == 1
    assert [e.line for e in matched.events] == []  # "tw" waits in the splitter: no line yet


ECHO = "import sys\nfor line in sys.stdin:\n    print(line, end='', flush=True)"


def test_requests_are_fed_as_lines_come_within_the_window() -> None:
    """feed is called first and as lines come, with how many have: here it keeps one
    request in flight (a window of one), and the adapter answers each in turn."""
    process = AdapterProcess([sys.executable, "-c", ECHO])
    requests = [b"a\n", b"b\n", b"c\n"]
    expected = bytearray(b"".join(requests))
    fed: list[int] = []

    def feed(answered: int) -> None:
        fed.append(answered)
        if answered < len(requests):
            process.send(requests[answered])

    try:
        assert process.read_expected(expected, 5.0, feed).lines == 3
        assert fed == [0, 1, 2, 3]
    finally:
        process.kill()


def test_lines_matched_are_cut_off_and_a_later_difference_still_found(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past EXPECTED_KEPT bytes the lines matched are cut off the front of the expected
    answers: the count of lines and the rest of a line that then differs are as ever."""
    monkeypatch.setattr(process_module, "EXPECTED_KEPT", 5)
    monkeypatch.setenv("WRITER_HOLD", "1")  # (its exit would end stderr too: then poll's turn)
    expected = bytearray(EXPECTED + b"four\nfive\n")
    process = AdapterProcess([sys.executable, "-c", WRITER, "one|tw", "sleep:0.05", "o|thr",
                              "sleep:0.05", "ee|fo", "sleep:0.05", "ur|", "sleep:0.05",
                              "fiX|"])  # fmt: skip
    try:
        matched = process.read_expected(expected, 5.0)
    finally:
        process.kill()
    assert matched.lines == 4
    assert [(e.kind, e.line) for e in matched.events] == [("stdout", b"fiX")]
    assert len(expected) < len(EXPECTED)  # (what was matched was let go)


def test_an_adapter_in_a_line_is_not_replayed_into() -> None:
    """Bytes of a line already waiting in the splitter: nothing is compared."""
    process = AdapterProcess([sys.executable, "-c", WRITER, "hal", "sleep:1", "f|"])
    try:
        assert process.poll(0.5) == []  # "hal" read: no whole line yet
        matched = process.read_expected(bytearray(b"half\n"), 5.0)
        assert matched.lines == 0 and matched.events == []
    finally:
        process.kill()


def test_a_memo_file_holds_its_requests_as_one_section(vectors: Path, own_cache: Path) -> None:
    """What a replay sends is a section of the memo file's own bytes: its header's sizes
    say where each section ends."""
    time.sleep(1.2)
    _statuses(vectors, 1)
    files = sorted((own_cache / "answers-1").glob("*"))
    assert len(files) == 2
    raw = files[0].read_bytes()
    header = json.loads(raw.split(b"\n", 1)[0])
    requests = raw.split(b"\n", 1)[1][: header["sizes"][0]]
    assert requests.count(b"\n") == len(header["ids"])
    assert all(json.loads(line)["id"] in header["ids"] for line in requests.splitlines())
