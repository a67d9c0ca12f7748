"""Remembered hashes (fairvec/file_hashes.py): a vector file whose identity on disk is
unchanged is not read to be named, and whatever is sent, judged or digested is still
checked against the hash it was chosen by. A stale or broken entry is never trusted
beyond what the file's own bytes say."""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path

import pytest
from support import MISBEHAVING, Completed, copied_families, fairvec, private_cache

from fairvec import file_hashes
from fairvec.errors import FairvecError
from fairvec.file_hashes import KnownHashes
from fairvec.vectorfiles import VectorFile, index_path, load_vector_files


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return private_cache(tmp_path, monkeypatch)


@pytest.fixture
def vectors(tmp_path: Path) -> Path:
    return copied_families(tmp_path, ("battle", "nardy"))  # two small families to edit


@pytest.fixture
def settled_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files just written count as settled (in use, a file must be a second old)."""
    monkeypatch.setattr(file_hashes, "SETTLED_NS", -(10**12))


def _unread(loaded: list[VectorFile]) -> list[bool]:
    """Of each file, whether it is skeletal and its bytes are not read yet."""
    return [bool(f.unread) and f.unread[0][0] is None for f in loaded]


def _cache_file(cache: Path) -> Path:
    return cache / KnownHashes.NAME


@pytest.mark.usefixtures("settled_at_once")
def test_an_unchanged_file_is_not_read_until_it_is_filled(vectors: Path) -> None:
    read = load_vector_files(vectors)
    whole = {f.algorithm: f.vectors for f in read}
    headers = {f.algorithm: {k: v for k, v in f.data.items() if k != "vectors"} for f in read}
    load_vector_files(vectors, skeletal=True)  # indexed
    loaded = load_vector_files(vectors, skeletal=True)
    assert loaded and all(_unread(loaded))
    for vector_file in loaded:  # the header, from the file's first bytes alone
        assert {k: v for k, v in vector_file.data.items() if k != "vectors"} == headers[
            vector_file.algorithm
        ]
    for vector_file in loaded:
        assert vector_file.vectors == whole[vector_file.algorithm]  # read and checked now
        assert not vector_file.unread


def test_a_file_written_within_the_settling_time_is_not_remembered(
    vectors: Path, own_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(The settling time made a day: on a loaded machine, a second can pass between
    copying the files and reading them.)"""
    monkeypatch.setattr(file_hashes, "SETTLED_NS", 86_400 * 10**9)
    load_vector_files(vectors, skeletal=True)
    loaded = load_vector_files(vectors, skeletal=True)
    assert loaded and not any(_unread(loaded))  # read (their times could still repeat)
    assert not _cache_file(own_cache).exists()


@pytest.mark.usefixtures("settled_at_once")
def test_a_changed_file_is_read_and_hashed_again(vectors: Path) -> None:
    target = vectors / "battle" / "move.json"
    load_vector_files(vectors, skeletal=True)
    load_vector_files(vectors, skeletal=True)
    data = json.loads(target.read_text(encoding="utf-8"))
    data["vectors"].pop()
    target.write_text(json.dumps(data), encoding="utf-8")  # another layout: never indexed
    (loaded,) = load_vector_files(vectors, lambda name: name == "battle.move", skeletal=True)
    assert loaded.sha256 == hashlib.sha256(target.read_bytes()).hexdigest()
    assert len(loaded.vectors) == len(data["vectors"])


def _stale(cache: Path, target: Path, old_sha: str) -> None:
    """The entry of ``target``: its present identity with the hash of its former bytes (what
    two writes within one clock tick would leave, were the entry remembered at once)."""
    value = json.loads(_cache_file(cache).read_text())
    value["files"][str(target)][-1] = old_sha
    _cache_file(cache).write_text(json.dumps(value))


def _rewritten(target: Path) -> None:
    """The same vectors in the generator's layout, one of them changed (so indexed too)."""
    text = target.read_text(encoding="utf-8")
    target.write_text(text.replace('"move": "fire"', '"move": "FIRE"', 1), encoding="utf-8")


@pytest.mark.usefixtures("settled_at_once")
def test_a_stale_entry_is_caught_when_the_file_is_filled(vectors: Path, own_cache: Path) -> None:
    target = vectors / "battle" / "move.json"
    old_sha = hashlib.sha256(target.read_bytes()).hexdigest()
    load_vector_files(vectors, skeletal=True)
    _rewritten(target)
    load_vector_files(vectors, skeletal=True)  # the new bytes: hashed, validated, indexed
    _stale(own_cache, target, old_sha)
    (loaded,) = load_vector_files(vectors, lambda name: name == "battle.move", skeletal=True)
    assert loaded.sha256 == old_sha and _unread([loaded]) == [True]
    with pytest.raises(FairvecError, match=r"move\.json: changed during this run .*; run again"):
        loaded.fill()
    (again,) = load_vector_files(vectors, lambda name: name == "battle.move", skeletal=True)
    assert again.sha256 == hashlib.sha256(target.read_bytes()).hexdigest()  # forgotten


@pytest.mark.parametrize("shift", [-1, 1, 10**9])
@pytest.mark.usefixtures("settled_at_once")
def test_an_index_misplacing_the_header_is_a_miss(
    vectors: Path, own_cache: Path, shift: int
) -> None:
    """The header of a file known by its hash is read from the file itself, where the
    index says it ends: an index that says it wrong only costs reading the file whole."""
    load_vector_files(vectors, skeletal=True)
    (first,) = load_vector_files(vectors, lambda name: name == "battle.move", skeletal=True)
    index = index_path(first.sha256)
    assert index is not None
    value = json.loads(index.read_text())
    value["header_bytes"] += shift
    index.write_text(json.dumps(value))
    (loaded,) = load_vector_files(vectors, lambda name: name == "battle.move", skeletal=True)
    assert _unread([loaded]) == [False] and loaded.data["algorithm"] == "battle.move"


@pytest.mark.parametrize(
    "content",
    [
        "",
        "{not json",
        "[]",
        '{"format": 0, "files": {}}',
        '{"format": 1, "files": []}',
        '{"format": 1, "files": {"%s": [1, 2, 3, 4, 5]}}',
        '{"format": 1, "files": {"%s": [1, 2, 3, 4, "5", "%s"]}}',
        '{"format": 1, "files": {"%s": [1, 2, 3, 4, 5, "not a hash"]}}',
    ],
)
@pytest.mark.usefixtures("settled_at_once")
def test_a_malformed_cache_is_a_miss(vectors: Path, own_cache: Path, content: str) -> None:
    target = vectors / "battle" / "move.json"
    sha = hashlib.sha256(target.read_bytes()).hexdigest()
    load_vector_files(vectors, skeletal=True)
    load_vector_files(vectors, skeletal=True)
    assert KnownHashes.open(own_cache).sha_of(target) == sha  # the control: a hit
    text = content.replace("%s", str(target), 1).replace("%s", sha)
    _cache_file(own_cache).write_text(text)
    assert KnownHashes.open(own_cache).sha_of(target) is None
    (loaded,) = load_vector_files(vectors, lambda name: name == "battle.move", skeletal=True)
    assert _unread([loaded]) == [False] and loaded.sha256 == sha


@pytest.mark.usefixtures("settled_at_once")
def test_a_malformed_entry_spoils_no_other_and_is_dropped_when_saved(
    vectors: Path, own_cache: Path
) -> None:
    """Entries are checked as they are looked up (not all at every open): a broken one is
    a miss for its file alone, and the next save leaves it out."""
    load_vector_files(vectors, skeletal=True)
    cache = json.loads(_cache_file(own_cache).read_text())
    move, cuts = (
        str((vectors / name).resolve()) for name in ("battle/move.json", "nardy/cuts.json")
    )
    good = cache["files"][cuts][-1]
    cache["files"][move] = [1, 2, 3, 4, "5", "not a hash"]
    _cache_file(own_cache).write_text(json.dumps(cache))
    hashes = KnownHashes.open(own_cache)
    assert hashes.sha_of(vectors / "battle" / "move.json") is None
    assert hashes.sha_of(vectors / "nardy" / "cuts.json") == good
    hashes.forget(vectors / "nardy" / "cuts.json")  # a change, so that it is saved
    hashes.save()
    saved = json.loads(_cache_file(own_cache).read_text())["files"]
    assert move not in saved and cuts not in saved and saved  # the other files' kept


def test_a_cache_that_is_a_folder_or_unwritable_is_no_error(
    vectors: Path, own_cache: Path, settled_at_once: None
) -> None:
    own_cache.mkdir(parents=True)
    _cache_file(own_cache).mkdir()
    assert len(load_vector_files(vectors, skeletal=True)) == len(load_vector_files(vectors))


@pytest.mark.usefixtures("settled_at_once")
def test_only_the_newest_entries_are_kept(
    vectors: Path, own_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(The files settled at once, so every file read is remembered, and the file read
    again is one that was not kept, whichever order the reading threads remembered in.)"""
    monkeypatch.setattr(file_hashes, "HASHES_KEPT", 3)
    files = load_vector_files(vectors)
    kept = list(KnownHashes.open(own_cache).entries)
    assert len(files) > 3 and len(kept) == 3
    target = next(f for f in files if os.path.abspath(f.path) not in kept)
    load_vector_files(vectors, lambda name: name == target.algorithm)
    kept = list(KnownHashes.open(own_cache).entries)
    assert len(kept) == 3 and kept[-1] == os.path.abspath(target.path)


def test_without_the_cache_nothing_is_remembered(
    vectors: Path, own_cache: Path, monkeypatch: pytest.MonkeyPatch, settled_at_once: None
) -> None:
    monkeypatch.setenv("FAIRVEC_NO_CACHE", "1")
    load_vector_files(vectors, skeletal=True)
    assert not any(_unread(load_vector_files(vectors, skeletal=True)))
    assert not own_cache.exists()


# -- fairvec run, end to end: the files must be a second old, as in use -------------------------


def _run(vectors: Path, report: Path, *selection: str) -> Completed:
    declared = json.dumps({"battle.move": []})
    return fairvec(
        "run", "--vectors", vectors, "--tier", "none", *selection, "--json", report,
        "--", sys.executable, str(MISBEHAVING), "--algorithms", declared,
    )  # fmt: skip


def test_a_run_from_remembered_hashes_reports_what_a_cold_one_does(
    vectors: Path, tmp_path: Path, own_cache: Path
) -> None:
    time.sleep(1.2)  # the files settle (file_hashes.SETTLED_NS)
    reports = []
    for run in ("cold", "indexed", "remembered"):
        report = tmp_path / f"{run}.json"
        done = _run(vectors, report)
        assert done.status == 0, done.stdout + done.stderr
        value = json.loads(report.read_text())
        reports.append((value["vectors_digest"], value["summary"], value["attestation"]["suite"]))
    assert reports[0] == reports[1] == reports[2]
    remembered = KnownHashes.open(own_cache).entries
    assert len(remembered) == len(list(vectors.glob("*/*.json")))


def test_a_stale_entry_of_an_unselected_file_stops_the_digest_in_one_line(
    vectors: Path, tmp_path: Path, own_cache: Path
) -> None:
    """The suite's digest is computed from the bytes its cache key names, or not at all."""
    target = vectors / "nardy" / "cuts.json"
    old_sha = hashlib.sha256(target.read_bytes()).hexdigest()
    renamed = target.read_text(encoding="utf-8").replace('"nardy.cuts/', '"nardy.cuts/x-')
    target.write_text(renamed, encoding="utf-8")
    time.sleep(1.2)  # the files settle (file_hashes.SETTLED_NS)
    only = ("--algorithm", "battle.move")  # the nardy files unselected: hashed for the key
    assert _run(vectors, tmp_path / "a.json", *only).status == 0
    assert KnownHashes.open(own_cache).sha_of(target) not in (None, old_sha)
    _stale(own_cache, target, old_sha)
    (own_cache / "digests.json").unlink()  # so the suite's digest is computed
    done = _run(vectors, tmp_path / "b.json", *only)
    lines = done.stderr.strip().splitlines()
    assert done.status == 2 and len(lines) == 1, done.stderr
    assert "cuts.json: changed during this run" in lines[0] and lines[0].endswith("run again")
    assert not (tmp_path / "b.json").exists()
    assert _run(vectors, tmp_path / "c.json", *only).status == 0  # the entry was forgotten


@pytest.mark.usefixtures("settled_at_once")
def test_a_run_reads_the_remembered_hashes_once(
    vectors: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The selection opens the cache, and the digest looks up the files it left out in the
    same hashes: a cache of 2,048 files took 3 ms to read, and was read twice a run."""
    from fairvec.runner.digests import UnselectedFiles
    from fairvec.runner.options import SelectionOptions
    from fairvec.runner.selection import select

    options = SelectionOptions(vectors=vectors, algorithms=("battle.move",))
    UnselectedFiles(vectors, select(options, skeletal=True)).get()  # every hash remembered
    opened: list[Path | None] = []
    real_open = KnownHashes.open.__func__  # type: ignore[attr-defined]

    def counted(cls: type[KnownHashes], folder: Path | None) -> KnownHashes:
        opened.append(folder)
        return real_open(cls, folder)  # type: ignore[no-any-return]

    monkeypatch.setattr(KnownHashes, "open", classmethod(counted))
    selection = select(options, skeletal=True)
    unselected = UnselectedFiles(vectors, selection).get()
    assert len(opened) == 1
    assert len(unselected) == len(list(vectors.glob("*/*.json"))) - 1
    assert all(raw is None for _sha, raw in unselected.values())  # named from the cache
