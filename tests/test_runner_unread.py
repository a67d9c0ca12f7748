"""The files of the algorithms a port does not declare, left unread (issue 20): once the
adapter's hello is in, ``fairvec run`` counts such a file's selected vectors from the
counts it remembered (runner/selected_counts.py) instead of reading it, and makes its
skips only for a report that lists them (runner/unread_skips.py). A run must end exactly
as a run that read every file: the same summary, reports, known failures and digests.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import MISBEHAVING, PATIENCE, copied_families, private_cache, seed_validations

import fairvec.runner.run as run_module
from fairvec.cli import main
from fairvec.file_hashes import SETTLED_NS
from fairvec.runner.process import AdapterProcess
from fairvec.runner.results import Tally, UnreadFile
from fairvec.runner.selected_counts import NAME as COUNTS_NAME
from fairvec.runner.selection import Selection

# battle's files come before nardy's in the suite: declaring one nardy algorithm leaves
# unread files both before and after the one that is run
DECLARED = json.dumps({"nardy.cuts": []})
ADAPTER = ["--", sys.executable, str(MISBEHAVING), "--algorithms", DECLARED]


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache of the test's own, holding only the schema's verdicts on the files (what
    is left unread is decided by the hashes and counts, learnt afresh by each test)."""
    folder = private_cache(tmp_path, monkeypatch)
    seed_validations(folder, ("battle", "nardy"))
    return folder


@pytest.fixture(scope="module")
def vectors(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """battle and nardy, copied a second ago: a file's SHA-256 is remembered by its
    identity only once its times have settled (fairvec/file_hashes.py), and a file is left
    unread only when it is (no test here changes them)."""
    root = copied_families(tmp_path_factory.mktemp("suite"), ("battle", "nardy"))
    time.sleep(SETTLED_NS / 1e9 + 0.1)
    return root


class _GreetedFirst(run_module._EarlyHello):
    """The run's look at the hello, made to wait for it (up to PATIENCE) at its first look:
    a fast port's hello is in before the first file loads; a Python adapter's may not be."""

    def undeclared(self, algorithm: str) -> bool:
        deadline = time.monotonic() + PATIENCE
        while self._process is not None and time.monotonic() < deadline:
            self._look()
            time.sleep(0.005)
        return super().undeclared(algorithm)


@pytest.fixture
def selections(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Selection]]:
    """The selection of each run in this process, in order; the hello awaited first."""
    made: list[Selection] = []
    select = run_module.select

    def kept(*arguments: Any, **keywords: Any) -> Selection:
        made.append(select(*arguments, **keywords))
        return made[-1]

    monkeypatch.setattr(run_module, "select", kept)
    monkeypatch.setattr(run_module, "_EarlyHello", _GreetedFirst)
    yield made


def _run(vectors: Path, *options: str | Path) -> int:
    """fairvec run, in process, of the port declaring DECLARED over ``vectors``."""
    words = ["run", "--vectors", vectors, "--tier", "none", "--no-progress", *options, *ADAPTER]
    return main(list(map(str, words)))


def _comparable(report: dict[str, Any]) -> dict[str, Any]:
    """A JSON report without what differs from run to run (times)."""
    kept = {k: v for k, v in report.items() if k not in ("started_at", "duration_seconds")}
    kept["results"] = [{k: v for k, v in r.items() if k != "seconds"} for r in report["results"]]
    return kept


def _terminal(text: str) -> str:
    """The terminal report without its one line of times."""
    return "\n".join(line for line in text.splitlines() if not line.startswith("adapter "))


@pytest.mark.parametrize(
    "filters",
    [[], ["--exclude-tag", "invalid"]],  # (-k: the run's digest test below)
    ids=["all", "excluded-tag"],
)
def test_a_run_that_reads_no_undeclared_file_reports_what_one_that_reads_them_does(
    vectors: Path,
    tmp_path: Path,
    selections: list[Selection],
    capsys: pytest.CaptureFixture[str],
    filters: list[str],
) -> None:
    outputs, reports = [], []
    for run in ("read", "unread", "unread-digested"):
        if run == "unread-digested":  # the digests computed with the unread files read
            (tmp_path / "cache" / "digests.json").unlink()
        report, junit = tmp_path / f"{run}.json", tmp_path / f"{run}.xml"
        status = _run(vectors, *filters, "--json", report, "--junit", junit)
        assert status == 0
        outputs.append(_terminal(capsys.readouterr().out))
        reports.append(_comparable(json.loads(report.read_text())))
    first, then = selections[0], selections[1]
    assert not first.unread  # no count remembered yet: every file read
    unread = {file.algorithm: file.selected for file in then.unread}
    assert "nardy.cuts" not in unread and "battle.move" in unread and "nardy.rolls" in unread
    assert {f.algorithm for f in then.files} == {"nardy.cuts"}
    skipped = {}
    for result in reports[0]["results"]:
        if result["status"] == "skip":
            skipped[result["algorithm"]] = skipped.get(result["algorithm"], 0) + 1
    assert unread == skipped  # every undeclared algorithm's vectors, counted
    assert reports[0] == reports[1] == reports[2]
    assert outputs[0] == outputs[1] == outputs[2]


def test_without_a_report_the_unread_skips_are_counted_not_made(
    vectors: Path, selections: list[Selection], capsys: pytest.CaptureFixture[str]
) -> None:
    outputs = []
    for _ in range(2):
        assert _run(vectors) == 0
        outputs.append(_terminal(capsys.readouterr().out))
    assert selections[1].unread and outputs[0] == outputs[1]
    assert "algorithm(s) the adapter does not declare, skipped" in outputs[1]


def test_a_known_failure_among_the_unread_vectors_is_reported_not_checked(
    vectors: Path, tmp_path: Path, selections: list[Selection], capsys: pytest.CaptureFixture[str]
) -> None:
    listed = tmp_path / "known.txt"
    listed.write_text("battle.move/*  # listed, never run by this port\n")
    reports = []
    for run in ("read", "unread"):
        report = tmp_path / f"{run}.json"
        assert _run(vectors, "--known-failures", listed, "--json", report) == 0
        reports.append(_comparable(json.loads(report.read_text())))
    capsys.readouterr()
    assert selections[1].unread
    assert reports[0] == reports[1]
    entry = reports[1]["attestation"]["known_failures"][0]
    assert entry["not_checked"] > 0 and entry["still_failing"] == 0


def test_a_count_remembered_wrong_is_found_when_the_file_is_read_and_forgotten(
    vectors: Path, tmp_path: Path, selections: list[Selection], capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(vectors) == 0
    counts = tmp_path / "cache" / COUNTS_NAME
    value = json.loads(counts.read_text())
    # one more, and the file one vector more: a count that could be true, so only reading
    # the file finds it wrong
    value["entries"] = {k: [count + 1, total + 1] for k, (count, total) in value["entries"].items()}
    counts.write_text(json.dumps(value))
    capsys.readouterr()
    status = _run(vectors, "--json", tmp_path / "report.json")
    said = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(said) == 1
    assert "not the" in said[0] and "this run counted" in said[0] and "run again" in said[0]
    assert not (tmp_path / "report.json").exists()
    assert _run(vectors, "--json", tmp_path / "report.json") == 0  # the count forgotten


def test_the_counts_are_remembered_only_with_a_cache(
    vectors: Path, selections: list[Selection], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAIRVEC_NO_CACHE", "1")
    for _ in range(2):
        assert _run(vectors) == 0
    every_file = sorted(vectors.glob("*/*.json"))  # each family folder's vector files
    assert not selections[1].unread and len(selections[1].files) == len(every_file)


def test_with_accumulated_vectors_selected_every_file_is_read(
    vectors: Path, selections: list[Selection]
) -> None:
    for _ in range(2):
        main(["run", "--vectors", str(vectors), "--no-progress", "--tier", "default", *ADAPTER])
    assert not selections[1].unread


def test_the_tally_counts_unread_skips_and_no_empty_file() -> None:
    unread = [
        UnreadFile(Path("a/b.json"), "0" * 64, "a.b", 3),
        UnreadFile(Path("a/c.json"), "1" * 64, "a.c", 0),
    ]
    tally = Tally([], unread)
    assert tally.total == 3 and tally.statuses["skip"] == 3
    assert set(tally.by_algorithm) == {"a.b"}


def test_a_look_at_what_the_adapter_said_takes_nothing_from_the_next_read() -> None:
    process = AdapterProcess(["sh", "-c", "echo hello; echo said >&2; echo more; sleep 5"])
    try:
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline:
            if [e for e in process.peek() if e.kind == "stdout"]:
                break
            time.sleep(0.005)
        looked = list(process.peek())
        assert looked and looked[0].line == b"hello"
        read = process.poll(1)
        assert read[: len(looked)] == looked
        while len([e for e in read if e.kind == "stdout"]) < 2 and time.monotonic() < deadline:
            read += process.poll(1)
        assert [e.line for e in read if e.kind == "stdout"] == [b"hello", b"more"]
        assert not process.peek() or b"hello" not in [e.line for e in process.peek()]
    finally:
        process.kill()


# Counts that cannot be true, each made of the run's own entries ([selected, total]):
# read on trust, a run writing no report said "0 skipped" or "5000000000000000000 skipped"
# and exited 0 (issue 34). Each is a miss: the file is read and counted.
TAMPERED = {
    "all-zero": lambda entry: [0, 0],
    "zero-of-the-total": lambda entry: [0, entry[1]],
    "beyond-the-file-s-size": lambda entry: [10**18, 10**18],
    "more-than-the-total": lambda entry: [entry[1] + 1, entry[1]],
    "negative": lambda entry: [-1, entry[1]],
    "not-an-integer": lambda entry: [float(entry[0]), entry[1]],
    "a-truth-value": lambda entry: [True, True],
    "a-bare-count": lambda entry: entry[0],
}


def test_a_count_that_cannot_be_true_is_a_miss_and_the_file_is_read(
    vectors: Path, tmp_path: Path, selections: list[Selection], capsys: pytest.CaptureFixture[str]
) -> None:
    """Each of TAMPERED in turn, in one test (a run each, after one honest run)."""
    assert _run(vectors) == 0
    honest = _terminal(capsys.readouterr().out)
    counts = tmp_path / "cache" / COUNTS_NAME
    remembered = json.loads(counts.read_text())
    for number, (name, tamper) in enumerate(TAMPERED.items(), 1):
        value = {**remembered, "entries": {k: tamper(e) for k, e in remembered["entries"].items()}}
        counts.write_text(json.dumps(value))
        assert _run(vectors) == 0, name
        assert not selections[number].unread, name  # every file read: no count was taken
        assert _terminal(capsys.readouterr().out) == honest, name


def test_entries_of_one_file_disagreeing_on_its_vectors_are_a_miss(
    vectors: Path, tmp_path: Path, selections: list[Selection], capsys: pytest.CaptureFixture[str]
) -> None:
    """Under a second filter the same file's count is kept again: if the two entries say
    the file holds different numbers of vectors, one is wrong, and neither is taken."""
    assert _run(vectors) == 0
    capsys.readouterr()
    assert _run(vectors, "-k", "1") == 0
    honest = _terminal(capsys.readouterr().out)
    counts = tmp_path / "cache" / COUNTS_NAME
    value = json.loads(counts.read_text())
    seen: set[str] = set()
    for key, (count, total) in value["entries"].items():
        sha = key.partition(":")[0]
        if sha in seen:  # the second entry of a file: one vector more, still plausible
            value["entries"][key] = [count, total + 1]
        seen.add(sha)
    counts.write_text(json.dumps(value))
    assert _run(vectors, "-k", "1") == 0
    assert not selections[2].unread
    assert _terminal(capsys.readouterr().out) == honest


def test_the_fewest_bytes_a_vector_takes_is_below_the_smallest_valid_vector() -> None:
    """MIN_VECTOR_BYTES bounds a file's vectors by its size: it must not be more than the
    smallest vector the schema allows, written compactly."""
    import jsonschema

    from fairvec.runner.selected_counts import MIN_VECTOR_BYTES
    from fairvec.vectorfiles import vector_schema

    schema = vector_schema()
    smallest = {"id": "a.b/c", "variant": None, "input": {}, "expected": {"error": "x"},
                "tags": [], "provenance": ""}  # fmt: skip
    vector = schema["$defs"]["vector"]
    provenance = vector["properties"]["provenance"]
    for value in ("", {}, [], 0, None):  # the shortest provenance the schema takes
        try:
            jsonschema.validate(value, {**provenance, "$defs": schema["$defs"]})
        except jsonschema.ValidationError:
            continue
        smallest["provenance"] = value
        break
    jsonschema.validate(smallest, {**vector, "$defs": schema["$defs"]})
    assert len(json.dumps(smallest, separators=(",", ":"))) >= MIN_VECTOR_BYTES


@pytest.mark.parametrize("content", [b"{", b"[]", b'{"format": 2, "entries": {"x": -1}}', None])
def test_a_malformed_or_special_counts_file_is_a_miss_not_an_error(
    vectors: Path,
    tmp_path: Path,
    selections: list[Selection],
    capsys: pytest.CaptureFixture[str],
    content: bytes | None,
) -> None:
    assert _run(vectors) == 0  # the caches made: indexes, hashes, counts
    counts = tmp_path / "cache" / COUNTS_NAME
    counts.unlink()
    if content is None:  # a FIFO: read, it would hang the run
        os.mkfifo(counts)
    else:
        counts.write_bytes(content)
    capsys.readouterr()
    assert _run(vectors) == 0
    assert not selections[1].unread and not capsys.readouterr().err


def test_a_parallel_run_leaves_the_same_files_unread_and_reports_the_same(
    vectors: Path, tmp_path: Path, selections: list[Selection], capsys: pytest.CaptureFixture[str]
) -> None:
    reports = []
    for run, jobs in (("read", "1"), ("unread", "2")):
        report = tmp_path / f"{run}.json"
        assert _run(vectors, "-j", jobs, "--json", report) == 0
        reports.append(_comparable(json.loads(report.read_text())))
    capsys.readouterr()
    assert selections[1].unread and reports[0] == reports[1]


def test_the_run_s_digest_computed_alone_takes_the_unread_files_vectors(
    vectors: Path, tmp_path: Path, selections: list[Selection], capsys: pytest.CaptureFixture[str]
) -> None:
    """The suite's digest remembered and the run's not: the run's alone is computed, the
    unread files read for it (their vectors picked by the filters, as a read file's are)."""
    reports = []
    for run in ("read", "unread", "run-digest-forgotten"):
        if run == "run-digest-forgotten":
            digests = tmp_path / "cache" / "digests.json"
            value = json.loads(digests.read_text())
            largest = max(entry[1] for entry in value["entries"].values())  # the suite's
            value["entries"] = {k: e for k, e in value["entries"].items() if e[1] == largest}
            digests.write_text(json.dumps(value))
        report = tmp_path / f"{run}.json"
        assert _run(vectors, "-k", "1", "--json", report) == 0
        reports.append(_comparable(json.loads(report.read_text())))
    capsys.readouterr()
    assert selections[2].unread
    assert reports[0] == reports[1] == reports[2]
    suite = reports[0]["attestation"]["suite"]["vectors"]
    assert len(reports[0]["results"]) < suite  # (so the two digests' entries differ)
