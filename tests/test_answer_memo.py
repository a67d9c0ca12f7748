"""The answer memo (runner/answer_memo.py): a rerun whose answer lines are byte for byte
ones that passed before is judged without reading its vector files, and must end exactly
as a run that read and judged everything. Any other answer, a changed file, a changed
judge or a broken memo file is never trusted beyond what a full run would say."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from support import (
    MISBEHAVING,
    TWO_DECLARED,
    Completed,
    Learnt,
    fairvec,
    learn_two,
    own_cache_fixture,  # noqa: F401  (a fixture, autouse)
    session_run,
    two_algorithm_run,
    two_files_fixture,  # noqa: F401  (the vectors fixture)
)

from fairvec.file_hashes import KnownHashes
from fairvec.runner import answer_memo
from fairvec.runner.answer_memo import ANSWERS_KEPT, AnswerMemo, FileMemo, parse_memo
from fairvec.runner.results import Work

DECLARED = TWO_DECLARED
KEY = {"judging": "j" * 64, "file": "f" * 64, "encoding": "escaped"}


def _memo_files(cache: Path) -> list[Path]:
    return sorted((cache / answer_memo.MEMO_FOLDER).glob("*"))


_run = two_algorithm_run


def _comparable(report: Path) -> dict[str, Any]:
    """A report without what differs from run to run (times, host)."""
    value = json.loads(report.read_text())
    results = [{k: v for k, v in r.items() if k != "seconds"} for r in value["results"]]
    return {"summary": value["summary"], "digest": value["vectors_digest"], "results": results}


# -- the memo file --------------------------------------------------------------------------


def _memo() -> FileMemo:
    memo = FileMemo({}, [])
    memo.learn_request("a/1", b'{"id":"a/1"}')
    memo.learn_request("a/2", b'{"id":"a/2"}')
    memo.learn_request("a/3", b'{"id":"a/3"}')
    memo.learn_pass("a/1", b'{"id":"a/1","output":1}')
    memo.learn_pass("a/3", b'{"id":"a/3","output":3}')
    return memo


def test_a_memo_file_reads_back_as_written() -> None:
    memo = _memo()
    memo.learn_pass("a/1", b'{"id":"a/1", "output":1}')
    read = parse_memo(memo.render(KEY), KEY)
    assert read is not None
    assert read.requests == memo.requests and read.answers == memo.answers
    assert read.passes("a/1", b'{"id":"a/1", "output":1}')  # the newest
    assert read.passes("a/1", b'{"id":"a/1","output":1}')  # and the one before
    assert read.passes("a/3", b'{"id":"a/3","output":3}')
    assert not read.passes("a/2", b'{"id":"a/2","output":2}')
    assert not read.passes("a/1", b'{"id":"a/1","output":3}')


@pytest.mark.parametrize(
    "change",
    [
        lambda raw: raw[:-1],  # cut short
        lambda raw: raw + b"x",  # a byte more
        lambda raw: raw + b"\n",  # a line more
        lambda raw: b"",
        lambda raw: b"not json\n" + raw,
        lambda raw: raw.replace(b'{"id":"a/2"}\n', b""),  # a request line less
        lambda raw: raw.replace(b'{"id":"a/2"}', b'{"id":\n"a/2"}'),  # one line in two
        lambda raw: raw.replace(b'"answered"', b'"answers"'),
        lambda raw: raw.replace(b'"ids":["a/1","a/2","a/3"]', b'"ids":["a/1","a/1","a/3"]'),
        lambda raw: raw.replace(b'"ids":["a/1","a/2","a/3"]', b'"ids":["a/1",2,"a/3"]'),
        lambda raw: raw.replace(b'"ids":["a/1","a/2","a/3"]', b'"ids":["a/1","a/2"]'),
        lambda raw: raw.replace(b'"answered":[[0,2]', b'"answered":[[2,0]'),
        lambda raw: raw.replace(b'"answered":[[0,2]', b'"answered":[[0,3]'),
        lambda raw: raw.replace(b'"answered":[[0,2]', b'"answered":[[-1,2]'),
        lambda raw: raw.replace(b'"answered":[[0,2]', b'"answered":[[0,true]'),
        lambda raw: raw.replace(b'"answered":[[0,2]', b'"answered":[[0]'),
        lambda raw: raw.replace(b'"answered":[[0,2],[]]', b'"answered":[[0,2],[],[]]'),
        lambda raw: raw.replace(b"j" * 64, b"k" * 64),  # another judging code
        lambda raw: raw.replace(b"f" * 64, b"e" * 64),  # another file
        lambda raw: raw.replace(b'"escaped"', b'"marked"'),  # another encoding
    ],
    ids=[
        "short", "long", "line-more", "empty", "not-json", "request-less",
        "request-in-two", "no-answered", "id-twice", "id-not-text", "ids-short",
        "answered-unsorted", "answered-beyond", "answered-negative", "answered-not-int",
        "answered-short", "ranks-too-many", "judging", "file", "encoding",
    ],
)  # fmt: skip
def test_a_malformed_or_foreign_memo_file_is_a_miss(change: Any) -> None:
    raw = _memo().render(KEY)
    assert parse_memo(raw, KEY) is not None
    changed = change(raw)
    assert changed != raw
    assert parse_memo(changed, KEY) is None


def _with_header(raw: bytes, **changes: Any) -> bytes:
    """``raw`` with its header's fields changed (None: removed)."""
    first, rest = raw.split(b"\n", 1)
    header = json.loads(first)
    for name, value in changes.items():
        if value is None:
            del header[name]
        else:
            header[name] = value
    return json.dumps(header, separators=(",", ":")).encode() + b"\n" + rest


@pytest.mark.parametrize(
    "sizes",
    [None, [], [10, 10], [10, 10, 10, 10], [-1, 0, 0], [1.5, 0, 0], "25,40,0", [0, 0, 0]],
    ids=["missing", "none", "short", "long", "negative", "fraction", "text", "zeros"],
)
def test_section_sizes_that_do_not_fill_the_file_exactly_are_a_miss(sizes: Any) -> None:
    raw = _memo().render(KEY)
    assert parse_memo(raw, KEY) is not None
    assert parse_memo(_with_header(raw, sizes=sizes), KEY) is None


def test_sections_whose_lines_are_not_as_counted_are_a_miss() -> None:
    """The requests and the newest answers (what a replay sends and compares) must hold
    one line each: a newline moved from one section to the other misses."""
    raw = _memo().render(KEY)
    header = json.loads(raw.split(b"\n", 1)[0])
    requests, newest, older = header["sizes"]
    moved = _with_header(raw, sizes=[requests - 1, newest + 1, older])
    assert parse_memo(moved, KEY) is None


def test_an_older_answers_section_malformed_is_forgotten_not_the_newest() -> None:
    memo = _memo()
    memo.learn_pass("a/1", b'{"id":"a/1", "output":1}')  # the older one is now in rank 1
    raw = memo.render(KEY)
    header = json.loads(raw.split(b"\n", 1)[0])
    assert header["answered"][1] == [0]
    # a line more in the older answers' section, its size told
    broken = raw.replace(b'{"id":"a/1","output":1}\n', b'{"id":"a/1","output":1}\n\n')
    broken = _with_header(broken, sizes=[*header["sizes"][:2], header["sizes"][2] + 1])
    read = parse_memo(broken, KEY)
    assert read is not None
    assert read.passes("a/1", b'{"id":"a/1", "output":1}')  # the newest, as ever
    assert not read.passes("a/1", b'{"id":"a/1","output":1}')  # the older: forgotten
    assert read.replay_of(["a/1", "a/2", "a/3"]) is None  # (a/2 has no answer)


def test_a_file_read_is_replayed_only_for_all_its_vectors_in_its_order() -> None:
    memo = FileMemo({}, [])
    for vector_id in ("a/1", "a/2"):
        memo.learn_request(vector_id, f'{{"id":"{vector_id}"}}'.encode())
        memo.learn_pass(vector_id, f'{{"id":"{vector_id}","output":0}}'.encode())
    raw = memo.render(KEY)
    read = parse_memo(raw, KEY)
    assert read is not None
    replay = read.replay_of(["a/1", "a/2"])
    assert replay is not None
    (request_start, request_end), (answer_start, answer_end) = replay.requests, replay.answers
    assert raw[request_start:request_end] == b'{"id":"a/1"}\n{"id":"a/2"}\n'
    assert raw[answer_start:answer_end] == b'{"id":"a/1","output":0}\n{"id":"a/2","output":0}\n'
    assert read.replay_of(["a/2", "a/1"]) is None and read.replay_of(["a/1"]) is None
    read.learn_pass("a/1", b'{"id":"a/1","output":1}')  # learnt since it was read: lines now
    assert read.replay_of(["a/1", "a/2"]) is None


def test_at_most_the_newest_answers_are_kept_and_a_new_request_forgets_them() -> None:
    memo = _memo()
    lines = [b'{"id":"a/1","output":%d}' % n for n in range(ANSWERS_KEPT + 2)]
    for line in lines:
        memo.learn_pass("a/1", line)
    kept = lines[::-1][:ANSWERS_KEPT]
    assert [rank["a/1"] for rank in memo.answers] == kept
    assert all(memo.passes("a/1", line) for line in kept)
    assert not memo.passes("a/1", lines[0])
    memo.learn_pass("a/4", b"{}")  # no request remembered: nothing to answer
    assert not memo.passes("a/4", b"{}")
    memo.learn_request("a/1", b'{"id":"a/1","input":2}')
    assert not any(memo.passes("a/1", line) for line in lines)
    memo.learn_request("a/5", b"two\nlines")  # not a line: not remembered
    assert "a/5" not in memo.requests


@pytest.mark.parametrize(
    "header", [b"[" * 100_000, b'{"judging":' + b"[" * 5000 + b"]" * 5000 + b"}"]
)
def test_a_header_nested_deep_is_a_miss(header: bytes) -> None:
    """orjson gives up at depth 1024; json, which reads the line then, recurses."""
    assert parse_memo(header + b"\n", KEY) is None


def test_the_judging_code_is_named_by_its_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    name = answer_memo.judging_code()
    assert len(name) == 64 and name == answer_memo.judging_code()
    monkeypatch.setattr(answer_memo, "__version__", "0.0.0-other")
    assert answer_memo.judging_code() not in ("", name)


def _two_files(folder: Path) -> tuple[AnswerMemo, list[Work]]:
    """A memo of two algorithms' files, a/1..a/3 as _memo() and b/1 passed, and the works."""
    memo = AnswerMemo(folder, [])
    other = FileMemo({}, [])
    other.learn_request("b/1", b'{"id":"b/1"}')
    other.learn_pass("b/1", b'{"id":"b/1","output":1}')
    memo._memos = {("a", "escaped"): _memo(), ("b", "escaped"): other}
    memo._served = {"a", "b"}
    works = [Work({"id": i, "variant": None}, i[0], {}) for i in ("a/1", "a/3", "b/1", "a/2")]
    return memo, works


ANSWERS = [b'{"id":"a/1","output":1}', b'{"id":"a/3","output":3}', b'{"id":"b/1","output":1}']


def test_answers_pass_in_turn_across_files_up_to_the_first_that_differs(tmp_path: Path) -> None:
    memo, works = _two_files(tmp_path)
    assert memo.passes_in_turn(works, "escaped", ANSWERS) == 3
    assert memo.passes_in_turn(works, "escaped", [*ANSWERS, b'{"id":"a/2","output":2}']) == 3
    changed = [ANSWERS[0], b'{"id":"a/3","output":4}', ANSWERS[2]]
    assert memo.passes_in_turn(works, "escaped", changed) == 1
    assert memo.passes_in_turn(works, "marked", ANSWERS) == 0  # nothing under that encoding
    memo._memos["a", "escaped"].learn_pass("a/1", b'{"id":"a/1","output":1.0}')
    assert memo.passes_in_turn(works, "escaped", ANSWERS) == 3  # (the older answer passes too)
    memo.exempt = {"a/3"}  # listed in --known-failures: judged in full
    assert memo.passes_in_turn(works, "escaped", ANSWERS) == 1


def test_requests_are_looked_up_a_file_at_a_time_in_the_works_order(tmp_path: Path) -> None:
    memo, works = _two_files(tmp_path)
    unknown = Work({"id": "c/1", "variant": None}, "c", {})
    assert memo.requests_of([*works, unknown], "escaped") == [
        b'{"id":"a/1"}', b'{"id":"a/3"}', b'{"id":"b/1"}', b'{"id":"a/2"}', None,
    ]  # fmt: skip


# -- runs -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def learnt(tmp_path_factory: pytest.TempPathFactory) -> Learnt:
    """One run that passed (its files settled), learnt once for the module's tests that
    only rerun it: each takes a copy of its cache, ``learnt_cache``."""
    return learn_two(tmp_path_factory.mktemp("learnt"))


@pytest.fixture
def learnt_cache(learnt: Learnt, own_cache: Path) -> Path:
    """This test's cache: a copy of the learnt run's (its memo, its files' hashes)."""
    shutil.copytree(learnt.cache, own_cache)
    return own_cache


def test_a_remembered_run_reports_exactly_what_a_judged_one_does(
    vectors: Path, tmp_path: Path, own_cache: Path
) -> None:
    time.sleep(1.2)  # the files settle (file_hashes.SETTLED_NS): then they need not be read
    reports = []
    for run in ("cold", "learnt", "remembered"):
        report = tmp_path / f"{run}.json"
        done = _run(vectors, report)
        assert done.status == 0, done.stdout + done.stderr
        reports.append(_comparable(report))
        if run == "cold":
            assert len(_memo_files(own_cache)) == 2  # one a file sent from
    assert reports[0] == reports[1] == reports[2]


IMPORTED_AFTER_A_RUN = """
import sys
from fairvec.cli import main
status = main(sys.argv[1:])
NOT_NEEDED = ("orjson", "dataclasses", "datetime", "fairvec.accumulated_digest")
print(status, *(name for name in NOT_NEEDED if name in sys.modules))
"""


def test_a_remembered_run_imports_neither_orjson_nor_dataclasses(
    vectors: Path, tmp_path: Path
) -> None:
    """Their imports are 16 ms of a fast port's rerun (jsonio imports orjson on first use,
    for a text worth it; runner/results.py has no dataclass): a rerun whose answers are
    all remembered needs neither; nor, without accumulated vectors (--tier none), their
    digests (runner/accumulated_run.py imports them on first use), nor datetime."""
    time.sleep(1.2)  # the files settle: the rerun knows them by their remembered hashes
    assert _run(vectors, tmp_path / "first.json").status == 0
    arguments = [
        "run", "--vectors", str(vectors), "--tier", "none", "--json", str(tmp_path / "r.json"),
        "--", sys.executable, str(MISBEHAVING), "--algorithms", DECLARED,
    ]  # fmt: skip
    done = subprocess.run(  # (elsewhere than the repository: fairvec is the installed one)
        [sys.executable, "-c", IMPORTED_AFTER_A_RUN, *arguments],
        capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[-2] == "0"  # passed, and neither imported


def _read_whole_in_a_run(vectors: Path, judging: str | None = None) -> bool:
    """One session over battle.move with the memo (under the judging code ``judging``, if
    given): whether its file was read whole (False: every answer and request came from the
    memo)."""
    results, files = session_run(vectors, ("battle.move",), judging=judging)
    assert {r.status for r in results} == {"pass"}
    return not files[0].unread


def test_a_remembered_run_reads_no_vector_file_whole(vectors: Path) -> None:
    """In process: a session over battle.move twice; the second reads nothing whole."""
    time.sleep(1.2)  # settled: the second load knows the file by its remembered hash
    assert [_read_whole_in_a_run(vectors) for _ in range(2)] == [True, False]


def test_two_installs_run_in_turn_each_keep_their_memo(vectors: Path, own_cache: Path) -> None:
    """A tox venv and a development install (two judging codes) alternating: each one's
    rerun is remembered (one memo file each), not each overwriting the other's."""
    time.sleep(1.2)  # settled: a load knows the file by its remembered hash
    installs = ["a" * 64, "b" * 64, "a" * 64, "b" * 64]
    read = [_read_whole_in_a_run(vectors, judging) for judging in installs]
    assert read == [True, True, False, False]
    assert len(_memo_files(own_cache)) == 2


def answer_memo_folder() -> Path | None:
    from fairvec.vectorfiles import cache_folder

    return cache_folder()


def test_a_changed_answer_is_judged_and_reported_whole(
    learnt: Learnt, learnt_cache: Path, tmp_path: Path
) -> None:
    vectors = learnt.vectors
    report = tmp_path / "report.json"
    done = _run(vectors, report, "wrong-output:battle.move/fire")
    assert done.status == 1, done.stdout + done.stderr
    results = {r["id"]: r for r in json.loads(report.read_text())["results"]}
    fire = results["battle.move/fire"]
    assert fire["status"] == "fail" and "expected" in fire and "got" in fire
    assert "FAIL battle.move/fire" in done.stdout and "input:" in done.stdout
    assert [r for r in results.values() if r["status"] not in ("pass", "skip")] == [fire]


def test_a_duplicate_of_a_remembered_answer_is_charged(
    learnt: Learnt, learnt_cache: Path, tmp_path: Path
) -> None:
    vectors = learnt.vectors
    report = tmp_path / "report.json"
    done = _run(vectors, report, "duplicate:battle.move/fire")
    assert done.status == 1, done.stdout + done.stderr
    fire = next(r for r in json.loads(report.read_text())["results"] if r["id"].endswith("/fire"))
    assert fire["status"] == "error" and "more than once" in fire["message"]
    assert "expected" in fire  # its file read whole for the report


def test_an_unexpected_pass_settled_by_the_memo_is_shown_whole(
    learnt: Learnt, learnt_cache: Path, tmp_path: Path
) -> None:
    vectors = learnt.vectors
    known = tmp_path / "known.txt"
    known.write_text("battle.move/fire  # said to fail\n")
    report, junit = tmp_path / "report.json", tmp_path / "junit.xml"
    done = _run(vectors, report, extra=("--known-failures", str(known), "--junit", str(junit)))
    assert done.status == 1, done.stdout + done.stderr
    assert "UNEXPECTED PASS battle.move/fire" in done.stdout
    text = junit.read_text()
    assert "input: " in text and 'got: {"output": {"ticket"' in text


@pytest.mark.parametrize("content", [b"", b"garbage\n", b'{"format":1}\n'])
def test_a_broken_memo_file_is_a_miss_and_written_anew(
    learnt: Learnt, learnt_cache: Path, tmp_path: Path, content: bytes
) -> None:
    vectors, first, own_cache = learnt.vectors, learnt.report, learnt_cache
    assert len(_memo_files(own_cache)) == 2  # (what is broken: both files' memos)
    for path in _memo_files(own_cache):
        path.write_bytes(content)
    second = tmp_path / "second.json"
    assert _run(vectors, second).status == 0
    assert _comparable(first) == _comparable(second)
    assert all(path.stat().st_size > len(content) for path in _memo_files(own_cache))


def test_a_memo_folder_that_cannot_be_written_is_no_error(
    vectors: Path, tmp_path: Path, own_cache: Path
) -> None:
    own_cache.mkdir(parents=True)
    (own_cache / answer_memo.MEMO_FOLDER).write_text("a file, not a folder")
    done = _run(vectors, tmp_path / "report.json")
    assert done.status == 0 and "Traceback" not in done.stderr, done.stderr


def test_without_the_cache_nothing_is_remembered(
    vectors: Path, tmp_path: Path, own_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAIRVEC_NO_CACHE", "1")
    assert _run(vectors, tmp_path / "report.json").status == 0
    assert not _memo_files(own_cache)


def test_pins_and_claims_are_judged_in_full(
    learnt: Learnt, learnt_cache: Path, tmp_path: Path
) -> None:
    """A claimed run (runner/claims.py) neither uses nor learns the memo."""
    vectors = learnt.vectors
    assert _memo_files(learnt_cache)  # (the memo that must not change)
    before = {path: path.read_bytes() for path in _memo_files(learnt_cache)}
    report = tmp_path / "report.json"
    done = _run(vectors, report, extra=("--fix", "battle.move:round_num=1"))
    assert done.status == 0, done.stdout + done.stderr
    assert json.loads(report.read_text())["attestation"]["claims"]["pinned"]
    assert {path: path.read_bytes() for path in _memo_files(learnt_cache)} == before


def test_a_file_sent_from_the_memo_that_changed_stops_the_run_in_one_line(
    vectors: Path, tmp_path: Path, own_cache: Path
) -> None:
    """Its hash remembered wrongly (stale): the memo serves the old file's requests, and
    the check of the file's bytes stops the run before any report is written."""
    target = vectors / "battle" / "move.json"
    old_sha = hashlib.sha256(target.read_bytes()).hexdigest()
    time.sleep(1.2)  # the files settle (file_hashes.SETTLED_NS)
    assert _run(vectors, tmp_path / "learn.json").status == 0
    text = target.read_text(encoding="utf-8")
    target.write_text(text.replace('"comment": "', '"comment": "changed: ', 1), encoding="utf-8")
    time.sleep(1.2)
    assert _run(vectors, tmp_path / "new.json").status == 0  # the new bytes hashed, indexed
    hashes = KnownHashes.open(own_cache)
    entry = hashes.entries[str(target.resolve())]  # [device, inode, size, times..., sha]
    assert isinstance(entry, list) and entry[-1] != old_sha
    hashes.entries[str(target.resolve())] = [*entry[:-1], old_sha]  # stale: the old hash
    hashes.changed = True
    hashes.save()
    report = tmp_path / "report.json"
    done = _run(vectors, report)
    lines = done.stderr.strip().splitlines()
    assert done.status == 2 and len(lines) == 1, done.stdout + done.stderr
    assert "move.json: changed during this run" in lines[0] and lines[0].endswith("run again")
    assert not report.exists()
    assert _run(vectors, report).status == 0  # the entry was forgotten


def test_a_memo_file_nested_deep_is_a_miss_in_a_run(
    learnt: Learnt, learnt_cache: Path, tmp_path: Path
) -> None:
    vectors, first, own_cache = learnt.vectors, learnt.report, learnt_cache
    for path in _memo_files(own_cache):
        path.write_bytes(b"[" * 100_000 + b"\n")
    second = tmp_path / "second.json"
    done = _run(vectors, second)
    assert done.status == 0 and "Traceback" not in done.stderr, done.stdout + done.stderr
    assert _comparable(first) == _comparable(second)


def test_an_altered_request_line_stops_the_run_once_and_is_forgotten(
    learnt: Learnt, learnt_cache: Path, tmp_path: Path
) -> None:
    """Two vectors' remembered requests swapped (a bit flip would do as well): the
    adapter answers another vector's input, the run stops in one line naming the memo
    file instead of failing the port, and the next run is whole again."""
    vectors, own_cache = learnt.vectors, learnt_cache
    (target,) = [p for p in _memo_files(own_cache) if _holds(p, b'"battle.move/fire"')]
    raw = target.read_bytes()
    fire = raw[raw.index(b'{"id":"battle.move/fire"') :].split(b"\n", 1)[0]
    grass = raw[raw.index(b'{"id":"battle.move/grass"') :].split(b"\n", 1)[0]
    assert len(fire) != len(grass) or fire != grass
    swapped = fire.replace(b"battle.move/fire", b"battle.move/grass")
    target.write_bytes(raw.replace(grass, swapped, 1) if len(swapped) == len(grass) else raw)
    if target.read_bytes() == raw:  # the lines differ in length: alter one input instead
        target.write_bytes(raw.replace(b'"round_num":1', b'"round_num":7', 1))
    assert target.read_bytes() != raw
    report = tmp_path / "report.json"
    done = _run(vectors, report)
    lines = done.stderr.strip().splitlines()
    assert done.status == 2 and len(lines) == 1, done.stdout + done.stderr
    assert target.name in lines[0] and lines[0].endswith("it is deleted: run again")
    assert not target.exists() and not report.exists()
    assert _run(vectors, report).status == 0


def _holds(path: Path, text: bytes) -> bool:
    return text in path.read_bytes()


# -- an adapter whose hello changes when it is restarted ---------------------------------------

PORT = textwrap.dedent(
    """
    import json, os, sys
    from pathlib import Path
    MARK = "\\uffff"
    def unmark(v):
        if isinstance(v, str):
            if not v.startswith(MARK):
                return v
            return bytes.fromhex(v[1:]).decode("utf-16-be", "surrogatepass")
        if isinstance(v, list):
            return [unmark(x) for x in v]
        if isinstance(v, dict):
            return {unmark(k): unmark(x) for k, x in v.items()}
        return v
    state = Path(os.environ["PORT_STATE"]); state.mkdir(parents=True, exist_ok=True)
    starts = state / "starts"
    n = int(starts.read_text() or 0) if starts.exists() else 0
    starts.write_text(str(n + 1))
    marked = os.environ.get("PORT_MARKED") == "after-restart" and n > 0
    from fairvec.reference import InvalidInput, compute, registry
    hello = {"type": "hello", "protocol": 1, "name": "port", "version": "1",
             "algorithms": {k: list(a.variants) for k, a in registry().items()}}
    if marked:
        hello["lone_surrogates"] = "marked"
    print(json.dumps(hello), flush=True)
    crash = os.environ.get("PORT_CRASH_ONCE")
    log = os.environ.get("PORT_LOG")
    for line in sys.stdin.buffer:
        if log:
            with open(log, "ab") as f:
                f.write(line)
        req = json.loads(line)
        if crash and req["id"] == crash and not (state / "crashed").exists():
            (state / "crashed").write_text("x")
            os._exit(3)
        inp = unmark(req["input"]) if marked else req["input"]
        try:
            out = {"id": req["id"], "output": compute(req["algorithm"], inp, req["variant"])}
        except InvalidInput as e:
            out = {"id": req["id"], "error": {"code": e.code}}
        print(json.dumps(out), flush=True)
    """
)


def _port_run(
    vectors: Path, tmp_path: Path, state: str, *extra: str, **variables: str
) -> tuple[Completed, Path]:
    """fairvec run over battle.move against PORT (written beside no fairvec checkout)."""
    folder = tmp_path / "port"
    folder.mkdir(exist_ok=True)
    port = folder / "port.py"
    port.write_text(PORT)
    report = tmp_path / f"{state}.json"
    environment = {"PORT_STATE": str(tmp_path / state), **variables}
    done = fairvec(
        "run", "--vectors", vectors, "--tier", "none", "--algorithm", "battle.move", "-j",
        "1", "--json", report, *extra, "--", "env", *(f"{k}={v}" for k, v in environment.items()),
        sys.executable, port,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    return done, report


def test_a_restart_that_greets_with_another_encoding_is_served_in_it(
    vectors: Path, tmp_path: Path
) -> None:
    """The first hello escapes lone surrogates; after a crash, the restarted adapter asks
    for them marked: what is resent goes out marked, and what is learnt then is kept
    under that encoding, not the first's (a later escaped port still passes)."""
    log = tmp_path / "requests.log"
    crash = {"PORT_MARKED": "after-restart", "PORT_CRASH_ONCE": "battle.move/fire"}
    _port_run(vectors, tmp_path, "learn", "--window", "1", **crash)
    _port_run(vectors, tmp_path, "crash", **crash, PORT_LOG=str(log))
    sent = log.read_bytes()
    # battle.move's three text fields: each field's lone surrogate (shape-surrogate-F),
    # U+0000 (boundary-F-nul) and leading U+FFFF (boundary-F-leading-mark) go out marked,
    # one mark each; U+FFFF inside (boundary-F-inner-mark) is no mark, only its escape
    assert b"\\ud800" not in sent and sent.count(b"\\uffff") == 3 * 3 + 3
    done, report = _port_run(vectors, tmp_path, "plain")
    failed = [r["id"] for r in json.loads(report.read_text())["results"] if r["status"] != "pass"]
    assert done.status == 0 and failed == [], failed


REORDERING = textwrap.dedent(
    """
    import json, sys
    from fairvec.reference import InvalidInput, compute, registry
    print(json.dumps({"type": "hello", "protocol": 1, "name": "p", "version": "1",
          "algorithms": {k: list(a.variants) for k, a in registry().items()}}), flush=True)
    for line in sys.stdin:
        req = json.loads(line)
        try:
            out = compute(req["algorithm"], req["input"], req["variant"])
            if isinstance(out, dict):
                out = dict(reversed(list(out.items())))  # same JSON, other key order
            answer = {"id": req["id"], "output": out}
        except InvalidInput as e:
            answer = {"id": req["id"], "error": {"code": e.code}}
        print(json.dumps(answer), flush=True)
    """
)


def test_an_unexpected_pass_shows_what_the_port_sent_with_or_without_the_memo(
    vectors: Path, tmp_path: Path, own_cache: Path
) -> None:
    """A vector --known-failures lists is judged in full: its got is the port's answer."""
    folder = tmp_path / "port"
    folder.mkdir()
    port = folder / "reordering.py"
    port.write_text(REORDERING)
    known = tmp_path / "known.txt"
    known.write_text("battle.move/fire  # said to fail\n")
    base = (
        "run", "--vectors", vectors, "--tier", "none", "--algorithm", "battle.move",
        "-j", "1", "--known-failures", known,
    )  # fmt: skip
    junits = []
    for run in ("learn", "remembered"):
        junit = tmp_path / f"{run}.xml"
        assert fairvec(*base, "--junit", junit, "--", sys.executable, port).status == 1
        junits.append([line for line in junit.read_text().splitlines() if "got: " in line])
    assert junits[0] == junits[1] and '"move": "fire", "ticket"' in junits[1][0]
