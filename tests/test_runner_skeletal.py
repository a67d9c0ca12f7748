"""Skeletal loading (issue 20): ``fairvec run`` chooses its vectors from each file's cached
index (id, variant, tags) and reads whole only the files of the algorithms the adapter's
hello declares. A run must end exactly as a run that read everything whole, and the index,
being a cache, is never trusted beyond what the file itself says.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from support import MISBEHAVING, copied_families, fairvec, private_cache

from fairvec.errors import FairvecError
from fairvec.vectorfiles import (
    default_vectors_root,
    index_path,
    load_vector_files,
)

VECTORS = default_vectors_root()
FAMILIES = ("battle", "nardy")


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return private_cache(tmp_path, monkeypatch)


@pytest.fixture
def vectors(tmp_path: Path) -> Path:
    return copied_families(tmp_path, FAMILIES)


def test_a_second_load_is_skeletal_and_fills_into_the_same_dicts(vectors: Path) -> None:
    whole = {f.algorithm: f.vectors for f in load_vector_files(vectors)}
    first = load_vector_files(vectors, skeletal=True)  # a cold cache: whole, and indexed
    assert all(not f.unread for f in first)
    second = load_vector_files(vectors, skeletal=True)
    assert second and all(f.unread for f in second)
    for vector_file in second:
        held = list(vector_file.chosen_by)  # what a selection's works hold
        assert all(set(vector) == {"id", "variant", "tags"} for vector in held)
        assert vector_file.vectors == whole[vector_file.algorithm]  # filled on first use
        assert all(a is b for a, b in zip(held, vector_file.vectors, strict=True))
        assert not vector_file.unread


def test_without_the_cache_every_file_is_read_whole(
    vectors: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAIRVEC_NO_CACHE", "1")
    load_vector_files(vectors, skeletal=True)
    assert all(not f.unread for f in load_vector_files(vectors, skeletal=True))


def _index_of(vectors: Path, relative: str) -> Path:
    loaded = load_vector_files(vectors, lambda name: name == relative, skeletal=True)
    path = index_path(loaded[0].sha256)
    assert path is not None and path.is_file()
    return path


HEADER = '"header_bytes": 10'


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"{not json",
        b"[]",
        # each malformed in one way, beside a well-formed header
        b'{%s, "ids": ["a"], "variants": [null], "tags": [0], "tag_lists": []}' % HEADER.encode(),
        b'{%s, "ids": [1], "variants": [null], "tags": [0], "tag_lists": [[]]}' % HEADER.encode(),
        b'{%s, "ids": ["a"], "variants": [null, null], "tags": [0], "tag_lists": [[]]}'
        % HEADER.encode(),
        b'{%s, "ids": ["a"], "variants": [null], "tags": [0], "tag_lists": [[1]]}'
        % HEADER.encode(),
        # well-formed columns, no end of the header or a malformed one
        b'{"ids": ["a"], "variants": [null], "tags": [0], "tag_lists": [[]]}',
        b'{"header_bytes": "10", "ids": ["a"], "variants": [null], "tags": [0], "tag_lists": [[]]}',
        b'{"header_bytes": -1, "ids": ["a"], "variants": [null], "tags": [0], "tag_lists": [[]]}',
    ],
)
def test_a_malformed_index_is_a_miss(vectors: Path, content: bytes) -> None:
    index = _index_of(vectors, "battle.move")
    index.write_bytes(content)
    (loaded,) = load_vector_files(vectors, lambda name: name == "battle.move", skeletal=True)
    assert not loaded.unread  # read whole, as without a cache


def test_an_index_that_is_a_fifo_is_a_miss_not_a_hang(vectors: Path) -> None:
    index = _index_of(vectors, "battle.move")
    index.unlink()
    os.mkfifo(index)
    (loaded,) = load_vector_files(vectors, lambda name: name == "battle.move", skeletal=True)
    assert not loaded.unread


def _tamper(index: Path, change: str) -> None:
    value = json.loads(index.read_text())
    if change == "id":
        value["ids"][3] = value["ids"][3] + "-renamed"
    elif change == "variant":
        value["variants"][0] = "invented"
    elif change == "tags":
        value["tag_lists"].append(["invented"])
        value["tags"][0] = len(value["tag_lists"]) - 1
    else:  # one vector fewer
        for column in ("ids", "variants", "tags"):
            value[column].pop()
    index.write_text(json.dumps(value))


@pytest.mark.parametrize("change", ["id", "variant", "tags", "count"])
def test_an_index_that_disagrees_with_its_file_stops_the_run_in_one_line(
    vectors: Path, change: str
) -> None:
    _tamper(_index_of(vectors, "battle.move"), change)
    done = fairvec(
        "run", "--vectors", vectors, "--tier", "none", "--algorithm", "battle.move",
        "--bundled", "python",
    )  # fmt: skip
    assert done.status == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "move.json" in lines[0] and "does not match the file" in lines[0], lines[0]
    assert "FAIRVEC_NO_CACHE=1" in lines[0]


def _comparable(report: dict[str, Any]) -> dict[str, Any]:
    """A JSON report without what differs between any two runs (times, host)."""
    results = [{k: v for k, v in r.items() if k != "seconds"} for r in report["results"]]
    kept = {k: report[k] for k in ("vectors_digest", "summary", "success", "attestation")}
    kept["attestation"] = {k: v for k, v in kept["attestation"].items() if k != "runner"}
    return {**kept, "results": results}


@pytest.mark.parametrize(
    "selection",
    [[], ["-k", "1"], ["--tag", "invalid"], ["--exclude-tag", "invalid"]],
    ids=["all", "keyword", "tag", "excluded-tag"],
)
def test_a_warm_run_reports_exactly_what_a_cold_one_does(
    vectors: Path, tmp_path: Path, selection: list[str]
) -> None:
    """An adapter of one algorithm over two families: the others skipped from skeletons."""
    declared = json.dumps({"battle.move": [], "nardy.cuts": []})
    adapter = ["--", sys.executable, str(MISBEHAVING), "--algorithms", declared]
    reports = []
    for run in ("cold", "warm"):
        report = tmp_path / f"{run}.json"
        done = fairvec(
            "run", "--vectors", vectors, "--tier", "none", *selection, "--json", report,
            *adapter,
        )  # fmt: skip
        assert done.status in (0, 1), done.stdout + done.stderr
        reports.append(_comparable(json.loads(report.read_text())))
    assert reports[0] == reports[1]
    skipped = [r for r in reports[1]["results"] if r["status"] == "skip"]
    assert skipped and {r["skip_reason"] for r in skipped} == {"algorithm-not-declared"}


def test_an_index_that_cannot_be_written_is_no_error(
    vectors: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As for the other caches (root is never refused, so the refusal is simulated)."""

    def refused(*_args: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refused)
    loaded = load_vector_files(vectors, skeletal=True)
    assert loaded and all(not f.unread for f in load_vector_files(vectors, skeletal=True))


@pytest.mark.parametrize("content", [b"", b"{not json"])
def test_a_broken_index_is_written_anew(vectors: Path, content: bytes) -> None:
    index = _index_of(vectors, "battle.move")
    index.write_bytes(content)
    load_vector_files(vectors, lambda name: name == "battle.move", skeletal=True)  # a miss
    (loaded,) = load_vector_files(vectors, lambda name: name == "battle.move", skeletal=True)
    assert loaded.unread  # repaired: skeletal again


def _moved_after_vectors(text: str, key: str) -> str:
    """The file with ``key`` (a list) moved after "vectors": valid, not the generator's layout."""
    start = text.index(f'\n  "{key}": [\n')
    end = text.index("\n  ],\n", start) + len("\n  ],")
    block = text[start:end]
    text = text[:start] + text[end:]
    return text[: -len("\n}\n")] + "," + block.rstrip(",") + "\n}\n"


# Valid vector files laid out otherwise than the generator does (found by a hostile trial:
# each was read wrongly, or was an internal error, once its index was cached).
LAYOUTS = {
    "accumulated-after-vectors": (
        "battle/attack.json",
        lambda t: _moved_after_vectors(t, "accumulated"),
    ),
    "variants-after-vectors": (
        "bustabit/previous_hash.json",
        lambda t: _moved_after_vectors(t, "variants"),
    ),
    "the-marker-nested-in-the-header": (
        "battle/move.json",
        lambda t: t.replace(
            '"input_schema": {\n    "type": "object",',
            '"input_schema": {\n    "type": "object",\n  "vectors": [\n1\n],',
            1,
        ),
    ),
}


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_file_laid_out_otherwise_is_never_skeletal(
    vectors: Path, tmp_path: Path, layout: str
) -> None:
    relative, change = LAYOUTS[layout]
    target = vectors / relative
    target.parent.mkdir(exist_ok=True)
    before = (VECTORS / relative).read_text(encoding="utf-8")
    target.write_text(change(before), encoding="utf-8")
    assert target.read_text(encoding="utf-8") != before
    algorithm = relative.removesuffix(".json").replace("/", ".")
    for _ in range(2):  # cold, then warm
        (loaded,) = load_vector_files(vectors, lambda name: name == algorithm, skeletal=True)
        assert not loaded.unread
    declared = json.dumps({algorithm: loaded.variants})
    adapter = ["--", sys.executable, str(MISBEHAVING), "--algorithms", declared]
    reports = []
    for run in ("cold", "warm"):
        report = tmp_path / f"{run}.json"
        # (one seed for both: each run draws its own fresh streams otherwise, issue 34)
        done = fairvec("run", "--vectors", vectors, "--algorithm", algorithm, "--json", report,
                       "--fresh-seed", "skeletal", *adapter)  # fmt: skip
        assert done.status in (0, 1), done.stdout + done.stderr
        reports.append(_comparable(json.loads(report.read_text())))
    assert reports[0] == reports[1]


def test_a_header_unlike_the_files_is_found_when_the_file_is_read_whole(vectors: Path) -> None:
    """An index cached for bytes whose header, read alone, is not the file (only a
    tampered cache does that): found when the file is read whole."""
    relative, change = LAYOUTS["accumulated-after-vectors"]
    target = vectors / relative
    target.write_text(change(target.read_text(encoding="utf-8")), encoding="utf-8")
    (loaded,) = load_vector_files(vectors, lambda name: name == "battle.attack")
    index = index_path(loaded.sha256)
    assert index is not None
    index.parent.mkdir(parents=True, exist_ok=True)
    vectors_of = loaded.vectors
    index.write_text(json.dumps({
        "header_bytes": target.read_bytes().find(b',\n  "vectors": [\n'),
        "ids": [v["id"] for v in vectors_of],
        "variants": [v["variant"] for v in vectors_of],
        "tags": list(range(len(vectors_of))),
        "tag_lists": [v["tags"] for v in vectors_of],
    }))  # fmt: skip
    (skeletal,) = load_vector_files(vectors, lambda name: name == "battle.attack", skeletal=True)
    assert skeletal.unread and "accumulated" not in skeletal.data
    with pytest.raises(FairvecError, match="does not match the file; delete it"):
        skeletal.fill()


# -- each file read as its first vector is sent (runner/selection.py, Filler) -----------------


def test_a_file_is_read_whole_only_once_one_of_its_vectors_is_sent(vectors: Path) -> None:
    from fairvec.runner.options import SelectionOptions
    from fairvec.runner.selection import Filler, select

    load_vector_files(vectors, skeletal=True)  # indexed
    options = SelectionOptions(vectors=vectors, algorithms=("battle.move", "nardy.cuts"))
    selection = select(options, skeletal=True)
    by_algorithm = {f.algorithm: f for f in selection.files}
    assert all(f.unread for f in by_algorithm.values())
    filler = Filler(selection)
    first = [w for w in selection.works if w.algorithm == "battle.move"][:3]
    filler.before_send(first)
    assert not by_algorithm["battle.move"].unread and by_algorithm["nardy.cuts"].unread
    assert all("input" in work.vector and "expected" in work.vector for work in first)
    filler.before_send(first)  # again: nothing more is read
    assert by_algorithm["nardy.cuts"].unread


def test_sessions_on_threads_never_send_a_vector_still_being_read() -> None:
    """-j: a second session asking for a file the first is reading waits for it."""
    import threading
    import time

    from fairvec.runner.results import Work
    from fairvec.runner.selection import Filler, Selection

    class SlowFile:
        algorithm = "a.b"

        def __init__(self) -> None:
            self.unread = [(None, "orjson")]
            self.reads = 0

        def fill(self) -> None:
            self.reads += 1
            time.sleep(0.2)
            self.unread.clear()

    slow = SlowFile()
    filler = Filler(Selection([slow], [], {}))  # type: ignore[list-item]
    work = Work({"id": "a.b/1"}, "a.b", {})  # type: ignore[typeddict-item]
    seen: list[bool] = []

    def send() -> None:
        filler.before_send([work])
        seen.append(not slow.unread)  # what a session would send: whole, every time

    threads = [threading.Thread(target=send) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == [True] * 4 and slow.reads == 1


def test_a_stopped_run_reports_the_vectors_it_never_sent_whole(
    vectors: Path, tmp_path: Path
) -> None:
    """The adapter crashes, and then on every restart: the run stops with vectors of a
    file never read (nardy.cuts); the report still gives each its expectation."""
    declared = json.dumps({"battle.move": [], "nardy.cuts": []})
    marker = tmp_path / "started"
    adapter = [
        "--", sys.executable, str(MISBEHAVING), "--algorithms", declared,
        "crash-after-restart", str(marker), "crash:battle.move/fire",
    ]  # fmt: skip
    reports = []
    for run in ("cold", "warm"):  # read whole, then skeletal
        marker.unlink(missing_ok=True)
        report = tmp_path / f"{run}.json"
        done = fairvec(
            "run", "--vectors", vectors, "--tier", "none", "-j", "1", "--window", "1",
            "--json", report, "--algorithm", "battle.move", "--algorithm", "nardy.cuts",
            *adapter,
        )  # fmt: skip
        assert done.status == 2 and "Traceback" not in done.stderr, done.stderr
        results = json.loads(report.read_text())["results"]
        not_run = [r for r in results if r["status"] == "not-run"]
        assert any(r["id"].startswith("nardy.cuts/") for r in not_run)
        assert all("expected" in r for r in not_run)
        reports.append(_comparable(json.loads(report.read_text())))
    assert reports[0]["results"] == reports[1]["results"]


def test_a_skeleton_keeps_its_id_while_it_is_filled(vectors: Path) -> None:
    """-j with the answer memo: one session may read a vector's id (to look up its
    remembered request) while another fills the vector's file; the id, variant and tags
    are never missing meanwhile."""
    import sys
    import threading

    load_vector_files(vectors, skeletal=True)  # indexed
    missing: list[str] = []
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can
    try:
        for _ in range(3):
            (loaded,) = load_vector_files(
                vectors, lambda name: name == "battle.move", skeletal=True
            )
            held = list(loaded.chosen_by)
            done = threading.Event()
            reader = threading.Thread(target=_read_until, args=(held, done, missing))
            reader.start()
            loaded.fill()
            done.set()
            reader.join()
            assert all("input" in vector for vector in held)
    finally:
        sys.setswitchinterval(previous)
    assert missing == []


def _read_until(held: list[Any], done: Any, missing: list[str]) -> None:
    """Read each vector's id and tags over and over until ``done`` is set."""
    while not done.is_set():
        for vector in held:
            if "id" not in vector or "tags" not in vector:
                missing.append(str(vector))


@pytest.mark.parametrize(
    ("tags", "excluded"),
    [
        ((), ("generated",)),
        (("invalid",), ()),
        (("invalid", "shape"), ("document-example",)),
        (("generated",), ("modulo-bias",)),
    ],
)
def test_tags_select_from_skeletons_what_they_select_from_whole_files(
    vectors: Path, monkeypatch: pytest.MonkeyPatch, tags: tuple[str, ...], excluded: tuple[str, ...]
) -> None:
    """--tag and --exclude-tag, decided once per list of tags the skeletons share, keep
    exactly the vectors a whole file's (each with its own list) keep, in order."""
    from fairvec.runner.options import SelectionOptions
    from fairvec.runner.selection import select

    options = SelectionOptions(vectors=vectors, tags=tags, excluded_tags=excluded)
    select(options, skeletal=True)  # indexed
    skeletal = select(options, skeletal=True)
    assert all(f.unread for f in skeletal.files)
    monkeypatch.setenv("FAIRVEC_NO_CACHE", "1")
    whole = select(options)
    ids = [work.vector["id"] for work in skeletal.works]
    assert ids == [work.vector["id"] for work in whole.works]
    assert 0 < len(ids) < sum(len(f.vectors) for f in whole.files)  # (a real choice)
