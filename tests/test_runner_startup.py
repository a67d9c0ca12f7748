"""``fairvec run``'s start: the adapter is started before the vector files load (and never
left behind when loading fails), nothing slow is imported or computed before the first
request, and the digests come from a cache that is never trusted beyond what keys it.

The runs that need instrumenting go through a small driver (``DRIVER``), a separate
process that wraps a few of the runner's functions and then calls ``fairvec.cli.main``, so
the test process itself is never made a subreaper, frozen or given signal handlers.
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from support import HANG, MISBEHAVING, THREE

from fairvec import __version__
from fairvec.cli import NO_COMMAND, _command_named, _parser
from fairvec.vectorfiles import (
    DigestStream,
    canonical_items,
    default_vectors_root,
    load_vector_files,
    vectors_digest,
)

VECTORS = default_vectors_root()

# argv: RECORD FAULT fairvec-arguments...; RECORD gets one JSON line per event.
DRIVER = r"""
import json, os, signal, sys
from pathlib import Path

import fairvec.runner.run as run
import fairvec.runner.selection as selection
import fairvec.runner.session as session
import fairvec.vectorfiles as vectorfiles
from fairvec.cli import main

record, fault, marker = Path(sys.argv[1]), sys.argv[2], os.environ.get("FIRST_REQUEST")

def note(**event):
    with record.open("a") as out:
        out.write(json.dumps(event) + "\n")

def recorded(base, where):
    class Recorded(base):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            note(event="spawn", where=where, pid=self.pid)
    return Recorded

run.AdapterProcess = recorded(run.AdapterProcess, "early")
session.AdapterProcess = recorded(session.AdapterProcess, "session")

loading = selection.load_vector_files
def load(*args, **kwargs):
    if fault == "interrupt":
        raise KeyboardInterrupt
    if fault == "sigterm":
        os.kill(os.getpid(), signal.SIGTERM)
    return loading(*args, **kwargs)
selection.load_vector_files = load

fill = session.Session._fill
def first_fill(self):
    session.Session._fill = fill
    note(event="first-fill", modules=sorted(sys.modules))
    fill(self)
session.Session._fill = first_fill

def sent():
    return marker is not None and Path(marker).exists()

computing = run.digests
def digests(*args, **kwargs):
    note(event="digests", after_first_request=sent())
    return computing(*args, **kwargs)
run.digests = digests

stream = vectorfiles.DigestStream.__init__
def new_stream(self):
    note(event="digest-stream", after_first_request=sent())
    stream(self)
vectorfiles.DigestStream.__init__ = new_stream

sys.exit(main(sys.argv[3:]))
"""

# The adapters are tests/adapters/misbehaving.py in three modes:
# - one that never reads its stdin (nor greets), so it outlives fairvec unless fairvec kills it;
SLEEPER = [sys.executable, str(MISBEHAVING), "no-hello"]
# - one that implements nothing (every vector is skipped, nothing is sent);
NOTHING = [sys.executable, str(MISBEHAVING), "--algorithms", "{}"]


def marking(marker: Path) -> list[str]:
    """- one that implements battle.move, touches ``marker`` when a request arrives, and
    answers everything unsupported."""
    declared = json.dumps({"battle.move": []})
    return [sys.executable, str(MISBEHAVING), "--algorithms", declared, "--mark", str(marker),
            "all-unsupported"]  # fmt: skip


def drive(
    tmp_path: Path, arguments: list[str], *, fault: str = "none", env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """fairvec run through the driver: (the process, the events it recorded)."""
    driver, record = tmp_path / "driver.py", tmp_path / "events.jsonl"
    driver.write_text(DRIVER, encoding="utf-8")
    record.unlink(missing_ok=True)
    done = subprocess.run(
        [sys.executable, str(driver), str(record), fault, "run", *arguments],
        capture_output=True,
        text=True,
        timeout=HANG,
        cwd=tempfile.gettempdir(),
        env={**os.environ, "FAIRVEC_CACHE_DIR": str(tmp_path / "cache"), **(env or {})},
    )
    events = [json.loads(line) for line in record.read_text("utf-8").splitlines()]
    return done, events


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def small_suite(folder: Path) -> Path:
    """A vectors folder of two families (a copy, free to edit)."""
    for relative in ("battle/move.json", "battle/ticket.json", "nardy/cuts.json"):
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(VECTORS / relative, folder / relative)
    return folder


# -- the adapter starts first, and is never left behind ------------------------------------


@pytest.mark.parametrize(
    ("case", "status", "message"),
    [
        ("bad-vector-file", 2, "a vector file is not valid JSON"),
        ("no-match", 2, "no vector matches the selection"),
        ("interrupt", 130, "fairvec: interrupted"),
        ("sigterm", 143, "fairvec: stopped by SIGTERM"),
    ],
)
def test_an_adapter_started_before_loading_is_killed_when_loading_fails(
    tmp_path: Path, case: str, status: int, message: str
) -> None:
    vectors = small_suite(tmp_path / "vectors")
    selection = ["--vectors", str(vectors), "--tier", "none"]
    if case == "bad-vector-file":
        (vectors / "nardy" / "cuts.json").write_text("{not json", encoding="utf-8")
    elif case == "no-match":
        selection += ["--algorithm", "battle.*", "-k", "no-such-vector"]
    fault = case if case in ("interrupt", "sigterm") else "none"
    done, events = drive(tmp_path, [*selection, "--", *SLEEPER], fault=fault)
    pids = [event["pid"] for event in events if event["event"] == "spawn"]
    try:
        assert (done.returncode, message in done.stderr) == (status, True), done.stderr
        # started before loading (the driver's record says where), then killed and reaped
        assert [event["where"] for event in events if event["event"] == "spawn"] == ["early"]
        assert not [pid for pid in pids if alive(pid)], "the adapter was left running"
    finally:
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_the_session_takes_over_the_adapter_started_early(tmp_path: Path) -> None:
    done, events = drive(tmp_path, [*THREE, "-j", "2", "--tier", "none", "--bundled", "python"])
    assert done.returncode == 0, done.stdout + done.stderr
    # three vectors are worth one adapter: the one started early, and no other
    assert [event["where"] for event in events if event["event"] == "spawn"] == ["early"]


def test_with_jobs_the_others_are_started_by_the_session(tmp_path: Path) -> None:
    done, events = drive(
        tmp_path, ["--algorithm", "casino.*", "-j", "2", "--tier", "none", "--", *NOTHING]
    )
    assert done.returncode == 2, done.stderr  # every vector skipped: none was run
    spawned = sorted(event["where"] for event in events if event["event"] == "spawn")
    assert spawned == ["early", "session"]


# -- nothing slow before the first request -------------------------------------------------


def test_the_first_request_goes_out_before_any_digest_is_computed(tmp_path: Path) -> None:
    marker = tmp_path / "first-request"
    done, events = drive(
        tmp_path,
        [*THREE, "--tier", "none", "--", *marking(marker)],
        env={"FIRST_REQUEST": str(marker)},
    )
    assert done.returncode == 2, done.stderr  # every vector answered unsupported
    digests = [event for event in events if event["event"] in ("digests", "digest-stream")]
    # a cold cache: both digests are computed, once the first request is out
    assert [event["event"] for event in digests][:2] == ["digests", "digest-stream"]
    assert all(event["after_first_request"] for event in digests), digests


def test_nothing_for_the_reports_or_other_commands_is_imported_before_the_first_request(
    tmp_path: Path,
) -> None:
    done, events = drive(tmp_path, [*THREE, "--tier", "none", "--bundled", "python"])
    assert done.returncode == 0, done.stdout + done.stderr
    modules = set(next(e["modules"] for e in events if e["event"] == "first-fill"))
    assert "fairvec.runner.session" in modules  # (the record is of the right moment)
    late = {
        "fairvec.runner.report",  # the reports: written after the run
        "fairvec.runner.html_report",
        "xml.etree.ElementTree",
        "tqdm",  # the progress bar: only on a terminal
        "difflib",  # hints for a misspelt id
        "fairvec.release.cli",  # the other commands
        "fairvec.fuzz.cli",
        "fairvec.analysis.cli",
        "fairvec.accumulated_command",
        "fairvec.reference",
    }
    assert modules & late == set()


RUN_PATH = (
    "fairvec.cli", "fairvec.runner.cli", "fairvec.runner.run", "fairvec.runner.report",
    "fairvec.runner.accumulated_run", "fairvec.runner.answer_memo",
)  # fmt: skip
DATACLASSES_MADE = """
import importlib, inspect, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
for name, module in sorted(sys.modules.items()):
    if name.startswith("fairvec"):
        for value in vars(module).values():
            made_here = inspect.isclass(value) and value.__module__ == name
            if made_here and "__dataclass_fields__" in vars(value):
                print(f"{name}.{value.__qualname__}")
"""


def test_no_record_on_a_runs_path_is_a_dataclass() -> None:
    """A dataclass's methods are generated as it is defined: the 27 of a run's modules cost
    every run 20 ms of start-up (docs/benchmarks.md). Named tuples, or plain classes with
    slots, are made in a fraction of that."""
    done = subprocess.run(
        [sys.executable, "-c", DATACLASSES_MADE, *RUN_PATH], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""


def test_the_command_line_is_built_for_the_command_named_only() -> None:
    assert _command_named(["run", "--bundled", "node"]) == "run"
    for words in (["-h", "run"], ["--help"], ["rn"], [], ["--", "run"]):
        assert _command_named(words) is None, words  # the whole parser: help, messages
    run_only, whole = _parser("run"), _parser()
    arguments = ["run", "--tier", "none", "--", "adapter"]
    assert vars(run_only.parse_args(arguments)) == vars(whole.parse_args(arguments))


def test_the_version_is_said_without_building_any_command() -> None:
    code = (
        "import sys\n"
        "from fairvec.cli import main\n"
        "try:\n"
        "    main(['--version'])\n"
        "except SystemExit as stop:\n"
        "    assert stop.code == 0, stop.code\n"
        "import json\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    version, imported = done.stdout.splitlines()
    assert version == f"fairvec {__version__}"
    commands = {"fairvec.runner.cli", "fairvec.analysis.cli", "fairvec.release.cli"}
    commands |= {"fairvec.fuzz.cli", "fairvec.stream_command", "fairvec.accumulated_command"}
    assert commands.isdisjoint(json.loads(imported))
    # any other first word still builds what it names, or everything
    assert _command_named(["--version"]) == NO_COMMAND
    assert _command_named(["-h", "--version"]) is None


def test_loading_pauses_the_collector_and_restores_it(tmp_path: Path) -> None:
    vectors = small_suite(tmp_path / "vectors")
    was = gc.isenabled()
    try:
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            assert len(load_vector_files(vectors)) == 3
            assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


# -- the digests: one pass, cached ---------------------------------------------------------


def every_vector(root: Path) -> list[dict[str, Any]]:
    return [
        vector
        for path in sorted(root.glob("*/*.json"))
        for vector in json.loads(path.read_text("utf-8"))["vectors"]
    ]


def run_digests(
    vectors: Path, report: Path, *selection: str, env: dict[str, str]
) -> tuple[str, str, int]:
    """(the run's digest, the suite's digest, the suite's count) of a run of ``selection``."""
    done = subprocess.run(
        [sys.executable, "-m", "fairvec", "run", "--vectors", str(vectors), *selection,
         "--tier", "none", "--json", str(report), "--bundled", "python"],
        capture_output=True, text=True, timeout=HANG, cwd=tempfile.gettempdir(),
        env={**os.environ, **env},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(report.read_text("utf-8"))
    suite = data["attestation"]["suite"]
    return data["vectors_digest"], suite["digest"], suite["vectors"]


def truth(vectors: Path, kept: list[dict[str, Any]]) -> tuple[str, str, int]:
    every = every_vector(vectors)
    return vectors_digest(kept), vectors_digest(every), len(every)


def moves(vectors: Path, keyword: str = "") -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = json.loads((vectors / "battle/move.json").read_text("utf-8"))[
        "vectors"
    ]
    return [vector for vector in found if keyword in vector["id"]]


def first_vectors(root: Path, count: int) -> list[dict[str, Any]]:
    """The first ``count`` vectors of every_vector(root), reading only the files they are in."""
    found: list[dict[str, Any]] = []
    for path in sorted(root.glob("*/*.json")):
        found += json.loads(path.read_text("utf-8"))["vectors"]
        if len(found) >= count:
            return found[:count]
    raise AssertionError(f"fewer than {count} vectors in {root}")


def test_the_digest_stream_is_the_digest_of_the_list() -> None:
    vectors = first_vectors(VECTORS, 500)  # (the suite's first files: 0.5 s, not all 85)
    whole, apart = DigestStream(), DigestStream()
    whole.add(vectors[:200])
    prefix = whole.copy()
    whole.add(vectors[200:])
    apart.add_items([])
    apart.add([])
    apart.add_items(canonical_items(vectors[:77]))
    apart.add(vectors[77:])
    assert whole.digest() == apart.digest() == vectors_digest(vectors)
    assert prefix.digest() == vectors_digest(vectors[:200])  # a copy is left as it was
    assert (whole.count, DigestStream().digest()) == (500, vectors_digest([]))


@pytest.mark.parametrize("selection", [[], ["--algorithm", "battle.move", "-k", "fire"]])
def test_cached_digests_are_those_of_a_cold_run(tmp_path: Path, selection: list[str]) -> None:
    vectors = small_suite(tmp_path / "vectors")
    report, cache = tmp_path / "report.json", tmp_path / "cache"
    kept = moves(vectors, "fire") if selection else every_vector(vectors)
    expected = truth(vectors, kept)
    env = {"FAIRVEC_CACHE_DIR": str(cache)}
    assert run_digests(vectors, report, *selection, env=env) == expected  # cold
    assert (cache / "digests.json").is_file()
    assert run_digests(vectors, report, *selection, env=env) == expected  # warm
    off = {"FAIRVEC_NO_CACHE": "1", "FAIRVEC_CACHE_DIR": str(tmp_path / "unused")}
    assert run_digests(vectors, report, *selection, env=off) == expected
    assert not (tmp_path / "unused").exists()


def plant(cache: Path) -> str:
    """Replace every cached digest with one no vectors have: a run that reports it
    took it from the cache."""
    path = cache / "digests.json"
    data = json.loads(path.read_text("utf-8"))
    planted = "sha256:" + "0" * 64
    for entry in data["entries"].values():
        entry[0] = planted
    path.write_text(json.dumps(data), encoding="utf-8")
    return planted


def test_the_cache_is_keyed_by_every_file_and_the_selection(tmp_path: Path) -> None:
    vectors = small_suite(tmp_path / "vectors")
    report, cache = tmp_path / "report.json", tmp_path / "cache"
    env = {"FAIRVEC_CACHE_DIR": str(cache)}
    narrowed = ["--algorithm", "battle.move", "-k", "fire"]
    run_digests(vectors, report, *narrowed, env=env)
    planted = plant(cache)
    count = len(every_vector(vectors))
    assert run_digests(vectors, report, *narrowed, env=env) == (planted, planted, count)
    # another selection: the run's digest is another key (the suite's is the same one)
    grass = run_digests(vectors, report, "--algorithm", "battle.move", "-k", "grass", env=env)
    assert grass == (truth(vectors, moves(vectors, "grass"))[0], planted, count)
    # a file changed that the run did not select: the suite's digest misses
    cuts = vectors / "nardy" / "cuts.json"
    data = json.loads(cuts.read_text("utf-8"))
    data["vectors"] = data["vectors"][:-1]
    cuts.write_text(json.dumps(data, indent=2), encoding="utf-8")
    expected = truth(vectors, moves(vectors, "fire"))
    assert expected[2] == count - 1
    assert run_digests(vectors, report, *narrowed, env=env) == expected
    # the same vectors in other bytes (a file the run selected): every key misses
    plant(cache)
    move = vectors / "battle" / "move.json"
    move.write_text(json.dumps(json.loads(move.read_text("utf-8")), indent=1), encoding="utf-8")
    assert run_digests(vectors, report, *narrowed, env=env) == expected


@pytest.mark.parametrize(
    "content",
    [
        b"\xff\xfe not json",
        b"[]",
        b'{"format": 1, "entries": []}',
        b'{"format": 1, "entries": {"k": ["sha256:abc", 3], "j": ["x", -1], "i": 7}}',
    ],
)
def test_a_corrupted_cache_is_ignored_and_replaced(tmp_path: Path, content: bytes) -> None:
    vectors = small_suite(tmp_path / "vectors")
    report, cache = tmp_path / "report.json", tmp_path / "cache"
    env = {"FAIRVEC_CACHE_DIR": str(cache)}
    run_digests(vectors, report, env=env)
    (cache / "digests.json").write_bytes(content)
    expected = truth(vectors, every_vector(vectors))
    assert run_digests(vectors, report, env=env) == expected
    assert json.loads((cache / "digests.json").read_bytes())["format"] == 1  # written anew
    assert run_digests(vectors, report, env=env) == expected


def test_a_cache_that_cannot_be_written_is_not_an_error(tmp_path: Path) -> None:
    vectors = small_suite(tmp_path / "vectors")
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    env = {"FAIRVEC_CACHE_DIR": str(blocker / "cache")}  # no folder can be made there
    expected = truth(vectors, every_vector(vectors))
    assert run_digests(vectors, tmp_path / "report.json", env=env) == expected


def test_the_installed_suite_digest_is_the_same_from_the_cache(tmp_path: Path) -> None:
    every = every_vector(VECTORS)
    env = {**os.environ, "FAIRVEC_CACHE_DIR": str(tmp_path / "cache")}
    suites = []
    for name in ("cold.json", "warm.json"):
        report = tmp_path / name
        done = subprocess.run(
            [sys.executable, "-m", "fairvec", "run", *THREE, "--tier", "none", "--json",
             str(report), "--bundled", "python"],
            capture_output=True, text=True, timeout=HANG, cwd=tempfile.gettempdir(), env=env,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        suites.append(json.loads(report.read_text("utf-8"))["attestation"]["suite"])
    assert suites[0] == suites[1]
    assert (suites[0]["digest"], suites[0]["vectors"]) == (vectors_digest(every), len(every))


def test_the_adapters_pipes_are_widened_where_linux_allows() -> None:
    """1 MiB stdin and stdout pipes (a 64 KiB one blocks a Mines adapter every ~60 answers),
    wherever Linux allows them."""
    fcntl = pytest.importorskip("fcntl")
    if not hasattr(fcntl, "F_GETPIPE_SZ"):
        pytest.skip("no F_GETPIPE_SZ: pipe sizes are fixed here")
    from fairvec.runner.process import PIPE_BYTES, AdapterProcess

    limit = int(Path("/proc/sys/fs/pipe-max-size").read_text(encoding="ascii"))
    if limit < PIPE_BYTES and os.geteuid() != 0:  # root may pass the limit; others may not
        pytest.skip(f"pipe-max-size is {limit}: Linux allows no {PIPE_BYTES}-byte pipe here")
    adapter = AdapterProcess([sys.executable, "-c", "import sys; sys.stdin.read()"])
    try:
        stdin = adapter._stdin
        stdout = adapter._process.stdout
        assert stdin is not None and stdout is not None
        sizes = {fcntl.fcntl(fd, fcntl.F_GETPIPE_SZ) for fd in (stdin, stdout.fileno())}
        assert sizes == {PIPE_BYTES}
    finally:
        adapter._process.kill()
        adapter._process.wait()


def test_every_vector_file_is_read_by_orjson_whole_or_line_by_line_as_json_reads_it() -> None:
    """No committed file falls back to json alone (0.2 s of the start-up when 55 files held
    a lone surrogate escape), and each quick reading gives json's value exactly."""
    from fairvec.jsonio import canonical
    from fairvec.vectorfiles import _how_to_read, _known_loads

    hows = set()
    for path in sorted(VECTORS.glob("*/*.json")):
        raw = path.read_bytes()
        value = json.loads(raw)  # (parsed once: the 85 files twice were 1.5 s of CPU)
        expected = canonical(value)
        how = _how_to_read(raw, value)
        hows.add(how)
        assert how in ("orjson", "orjson-lines"), path
        assert canonical(_known_loads(raw, how)) == expected, path
    assert hows == {"orjson", "orjson-lines"}


@pytest.mark.parametrize(
    "change",
    [
        (b"\\ud800", b"\\uD800"),  # an escape written otherwise: orjson refuses the line
        (b'  "vectors": [\n', b'  "vectors":\n[\n'),  # not the generator's layout
    ],
)
def test_a_file_laid_out_otherwise_is_read_by_json(change: tuple[bytes, bytes]) -> None:
    from fairvec.jsonio import canonical
    from fairvec.vectorfiles import _how_to_read, _known_loads

    raw = (VECTORS / "battle" / "move.json").read_bytes().replace(*change)
    assert raw != (VECTORS / "battle" / "move.json").read_bytes()
    how = _how_to_read(raw, json.loads(raw))
    assert how == "json"
    assert canonical(_known_loads(raw, how)) == canonical(json.loads(raw))


@pytest.mark.parametrize(
    ("one", "other", "same"),
    [
        ({"a": 1, "b": [1.5, "x"]}, {"b": [1.5, "x"], "a": 1}, True),  # keys in another order
        ({"a": 1}, {"a": 1.0}, False),  # Python's == says equal; the texts differ
        ({"a": True}, {"a": 1}, False),
        ({"a": -0.0}, {"a": 0.0}, False),
        ({"a": "\ud800"}, {"a": "\ud800"}, True),  # orjson cannot write it: json's text decides
        ({"a": "\ud800", "b": 1}, {"a": "\ud800", "b": 1.0}, False),
        ({"a": 2**70}, {"a": 2**70}, True),  # nor a huge integer
        ({"a": 2**70}, {"a": float(2**70)}, False),
    ],
)
def test_two_readings_are_the_same_only_as_the_same_canonical_text(
    one: Any, other: Any, same: bool
) -> None:
    """The first run's check that orjson read a vector file as json did (vectorfiles.
    _same_file, jsonio.same_canonical) agrees with comparing json's canonical texts, whole
    and vector by vector: the type of a number is part of the value."""
    from fairvec.jsonio import canonical, same_canonical
    from fairvec.vectorfiles import _same_file

    assert (canonical(one) == canonical(other)) is same
    assert same_canonical(one, other) is same
    header = {"algorithm": "battle.move"}
    by_vectors = ({**header, "vectors": [one, one]}, {**header, "vectors": [one, other]})
    by_header = ({**header, "x": one, "vectors": []}, {**header, "x": other, "vectors": []})
    assert _same_file(*by_vectors) is same
    assert _same_file(*by_header) is same
