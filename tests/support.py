"""Shared test helpers: run the installed ``fairvec`` command as a user would."""

from __future__ import annotations

import atexit
import functools
import io
import json
import locale
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import pytest

REPO = Path(__file__).resolve().parent.parent
# FAIRVEC_UNDER_TEST: another fairvec command to test (an older build, to see a test fail)
FAIRVEC = os.environ.get("FAIRVEC_UNDER_TEST") or (
    shutil.which("fairvec", path=str(Path(sys.executable).parent)) or "fairvec"
)
# Whether that command exists: the package can be importable (a checkout on PYTHONPATH, an
# install without its scripts) with no `fairvec` command; the tests then run
# `python -m fairvec`, which is the same entry point (fairvec/__main__.py calls cli.entry).
FAIRVEC_FOUND = shutil.which(FAIRVEC) is not None
FAIRVEC_COMMAND: list[str] = [FAIRVEC] if FAIRVEC_FOUND else [sys.executable, "-m", "fairvec"]
# For a test that needs the command itself as one word (a shell script run with $FAIRVEC).
needs_fairvec_command = pytest.mark.skipif(
    not FAIRVEC_FOUND,
    reason=f"no installed `fairvec` command ({FAIRVEC!r} not found; set FAIRVEC_UNDER_TEST "
    "or install the package): this test runs the command by name",
)
# Seconds a child process gets before a test calls it hung: not a speed bound, but far
# beyond what the slowest run takes on a loaded machine (tools/load.sh runs the whole test
# command beside 16 busy processes on 2 cores), so a TimeoutExpired says "hung", never
# "slow". A test about speed bounds CPU seconds (children_cpu_seconds), never clock time.
HANG = 600
# The runner's --timeout for a run that is not about timeouts: per vector (times 1 + cases /
# 1,000 for a stream), a budget a loaded machine meets for the costliest vector (a
# videopoker.analysis table, a compiled port's 10,000-case stream), where the default 10 s
# is not (at load 20 on 2 cores a vector takes ten times its quiet time).
ROOMY = ("--timeout", "300")
# A test polling for something to happen (a file to appear, an orphan to be reaped) waits
# up to this long: it returns as soon as it happens, so only a failure waits it out.
PATIENCE = 120.0
# The --timeout of a run whose adapter hangs (or stalls, or never answers one vector) on
# purpose. A hang lasts forever, so the budget need only be far above what an ordinary
# answer takes on a loaded machine, a restarted adapter's first one included (its imports
# and spec reads): beside 16 busy loops on 2 cores with the scheduler's autogroups off
# (tools/load.sh), budgets of 0.3, 1 and 2 s were missed by ordinary answers (2026-11-28),
# and 3 s held. Each hang costs its test this long waiting, not computing: the other
# workers have the cores meanwhile.
HUNG = ("--timeout", "10")


def children_cpu_seconds() -> float:
    """CPU seconds (user and system) of the child processes waited for so far, and of
    theirs: take it before and after a subprocess to bound what it cost, load or not."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


MISBEHAVING = Path(__file__).resolve().parent / "adapters" / "misbehaving.py"
JUNIT_SCHEMAS = Path(__file__).resolve().parent / "junit"  # the XSDs CI tools read JUnit by
# Three battle.move vectors, one per move: small enough to reason about each one.
THREE = ["--algorithm", "battle.move", "-k", "/fire", "-k", "/grass", "-k", "/water"]
FIRE, GRASS, WATER = "battle.move/fire", "battle.move/grass", "battle.move/water"


@dataclass
class Completed:
    status: int
    stdout: str
    stderr: str

    def report(self, path: Path) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return data


# Whether support.fairvec may call fairvec's CLI in this process (see fairvec): off for the
# test running now when it is marked own_process (tests/conftest.py sets this per test).
IN_PROCESS = {"allowed": True}
# FAIRVEC_IN_PROCESS=0: every call starts the command, as before (to compare the two ways).
IN_PROCESS_OFF = os.environ.get("FAIRVEC_IN_PROCESS") == "0"
# The environment fairvec starts with here: an in-process call sees the test's changes to
# it only through the variables fairvec reads afresh on each call (the cache folder, the
# progress interval); any other change (FAIRVEC_NO_ORJSON, read once a process; a locale;
# PATH) gets a process of its own, as a user's command would.
START_ENVIRONMENT = dict(os.environ)
READ_EACH_CALL = frozenset({"FAIRVEC_CACHE_DIR", "FAIRVEC_NO_CACHE", "FAIRVEC_PROGRESS_SECONDS"})
PYTESTS_OWN = frozenset({"PYTEST_CURRENT_TEST"})  # set by pytest for each test, unread
# The signals fairvec sets handlers for (errors.stopping_signals_raise, the atomic writes'
# deferral), restored after an in-process call whatever it left.
HANDLED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE)
_NOT_GIVEN = -1.0  # fairvec's timeout when the caller gives none


def fairvec(
    *arguments: str | Path,
    timeout: float = _NOT_GIVEN,
    preexec: Callable[[], None] | None = None,
) -> Completed:
    """``fairvec ARGUMENTS`` from a folder outside the checkout (so installed package data is
    what it finds); pass --root REPO where the repository is meant.

    In this process where nothing calls for a process of its own: fairvec's CLI (cli.main,
    the command's entry) with stdout and stderr captured, the exit status from its return or
    SystemExit, the cwd, signal handlers and fairvec's in-memory caches as a fresh process
    has them. A process start costs 0.25 s of CPU (the interpreter, fairvec's imports), the
    call in process next to nothing: there were 470 such calls in the tests.

    The installed console script (``python -m fairvec`` where there is none) instead when:
    ``preexec`` is given (it runs in the child before fairvec starts: to lower a resource
    limit, say); ``timeout`` is given (the caller expects a hang to be possible: a process
    can be killed, a call cannot); the test is marked ``own_process`` (it sends signals,
    kills fairvec, looks at its exit); the environment differs from this process's start
    (but for READ_EACH_CALL); FAIRVEC_UNDER_TEST names another command."""
    if (
        preexec is None
        and timeout == _NOT_GIVEN
        and IN_PROCESS["allowed"]
        and not IN_PROCESS_OFF
        and not os.environ.get("FAIRVEC_UNDER_TEST")
        and _environment_as_at_start()
    ):
        return _in_process(arguments)
    done = subprocess.run(
        [*FAIRVEC_COMMAND, *map(str, arguments)],
        capture_output=True,
        text=True,
        timeout=HANG if timeout == _NOT_GIVEN else timeout,
        cwd=tempfile.gettempdir(),
        preexec_fn=preexec,
    )
    return Completed(done.returncode, done.stdout, done.stderr)


def _environment_as_at_start() -> bool:
    names = (set(os.environ) | set(START_ENVIRONMENT)) - READ_EACH_CALL - PYTESTS_OWN
    return all(os.environ.get(name) == START_ENVIRONMENT.get(name) for name in names)


def _in_process(arguments: tuple[str | Path, ...]) -> Completed:
    """fairvec's CLI called here, as the console script would run it (see fairvec)."""
    from fairvec import cli

    out, err = _captured("strict"), _captured("backslashreplace")  # as a pipe's streams
    folder, handlers = os.getcwd(), {number: signal.getsignal(number) for number in HANDLED_SIGNALS}
    _clear_fairvec_caches()
    os.chdir(tempfile.gettempdir())
    try:
        with redirect_stdout(out), redirect_stderr(err), _warnings_as_a_process_shows_them():
            try:
                status = cli.main([str(argument) for argument in arguments])
            except SystemExit as stop:  # argparse's usage errors, --help, --version
                status = _exit_status(stop.code)
            except Exception:  # as the interpreter ends a process on one: traceback, 1
                traceback.print_exc()
                status = 1
    finally:
        os.chdir(folder)
        for number, handler in handlers.items():
            signal.signal(number, handler)
    return Completed(status, _text(out), _text(err))


def _captured(errors: str) -> io.TextIOWrapper:
    """A stream as Python makes stdout or stderr on a pipe (``errors`` theirs): text over
    bytes, since fairvec writes some output to the bytes underneath (sys.stdout.buffer)."""
    encoding = locale.getpreferredencoding(False)
    return io.TextIOWrapper(io.BytesIO(), encoding=encoding, errors=errors)


def _text(stream: io.TextIOWrapper) -> str:
    """What subprocess.run(text=True) reads from the pipe: decoded, universal newlines."""
    stream.flush()
    assert isinstance(stream.buffer, io.BytesIO)
    text = stream.buffer.getvalue().decode(locale.getpreferredencoding(False))
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _exit_status(code: object) -> int:
    """The status the interpreter exits with on SystemExit(code), printing as it does."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


@contextmanager
def _warnings_as_a_process_shows_them() -> Iterator[None]:
    """Python's default warning filters, each warning written to (the captured) stderr: as
    a process of its own would show them, where pytest records them instead."""
    with warnings.catch_warnings():
        warnings.resetwarnings()
        for action, category in DEFAULT_WARNING_FILTERS:
            warnings.simplefilter(action, category)  # type: ignore[arg-type]

        def show(
            message: Warning | str,
            category: type[Warning],
            filename: str,
            lineno: int,
            file: Any = None,
            line: str | None = None,
        ) -> None:
            sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))

        warnings.showwarning = show
        yield


# Python's default filters (those not about __main__), last one first as filterwarnings
# adds them.
DEFAULT_WARNING_FILTERS = (
    ("ignore", ResourceWarning),
    ("ignore", ImportWarning),
    ("ignore", PendingDeprecationWarning),
    ("ignore", DeprecationWarning),
)


def _clear_fairvec_caches() -> None:
    """Empty every functools cache of fairvec's modules, as a new process has them: a test
    may rewrite a file at a path a cache keys by (a spec, a vector file)."""
    for name, module in list(sys.modules.items()):
        if name == "fairvec" or name.startswith("fairvec."):
            for value in list(vars(module).values()):
                clear = getattr(value, "cache_clear", None)
                if callable(clear) and getattr(value, "__module__", None) == name:
                    clear()


def misbehaving(*modes: str) -> list[str]:
    return ["--", sys.executable, str(MISBEHAVING), *modes]


@dataclass
class PortRun:
    done: Completed
    failed: set[str]  # ids of the vectors that failed
    total: int  # vectors run


def run_port(port: list[str | Path], algorithms: list[str]) -> PortRun:
    """``fairvec run`` over ``algorithms`` against a port."""
    with tempfile.TemporaryDirectory() as folder:
        report_path = Path(folder) / "report.json"
        selection = [part for algorithm in algorithms for part in ("--algorithm", algorithm)]
        # fixed vectors only: a wrong port is caught by them; the streams have their own
        # tests. The shape vectors too are left out: these ports model one mistake each and
        # check no input's shape (test_shape_vectors.py shows such a port is caught).
        done = fairvec(
            "run", *selection, "--tier", "none", "--exclude-tag", "shape",
            "--json", report_path, "--", *port,
        )  # fmt: skip
        results = done.report(report_path)["results"]
    failed = {result["id"] for result in results if result["status"] == "fail"}
    return PortRun(done, failed, len(results))


GiB = 1024**3
SPECIAL_KINDS = ("fifo", "dev-zero", "sparse", "folder")


def make_special(path: Path, kind: str, size: int = 3 * GiB) -> None:
    """Put at ``path`` something that is not a small regular file: a FIFO (reading it waits
    for a writer), a link to /dev/zero (endless), a sparse file (``size`` bytes to whoever
    reads it whole, nothing on disk) or a folder."""
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "sparse":
        with path.open("wb") as stream:
            stream.truncate(size)
    else:
        assert kind == "folder", kind
        path.mkdir()


def statuses(report: dict[str, Any]) -> dict[str, str]:
    return {result["id"]: result["status"] for result in report["results"]}


def result_of(report: dict[str, Any], vector_id: str) -> dict[str, Any]:
    return next(result for result in report["results"] if result["id"] == vector_id)


def run_three(tmp_path: Path, *adapter: str, extra: tuple[str, ...] = ()) -> tuple[Any, Any]:
    """``fairvec run`` over the three battle.move vectors against the misbehaving adapter
    in ``adapter``'s modes; both reports must be written and valid whatever it did."""
    json_path, junit_path = tmp_path / "report.json", tmp_path / "junit.xml"
    done = fairvec(
        "run", *THREE, *extra, "--json", json_path, "--junit", junit_path, *misbehaving(*adapter)
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert json_path.exists(), done.stdout + done.stderr
    return done, check_reports(json_path, junit_path)


def check_reports(json_path: Path, junit_path: Path) -> dict[str, Any]:
    """Both reports of a run are valid: the JSON against the report schema, the JUnit XML
    against the Jenkins and the Ant schemas. Returns the JSON report."""
    from importlib import resources

    import jsonschema

    schema_text = (
        resources.files("fairvec.runner").joinpath("schemas", "report.schema.json").read_text()
    )
    report: dict[str, Any] = json.loads(json_path.read_text(encoding="utf-8"))
    jsonschema.validate(report, json.loads(schema_text))
    for schema in junit_schemas():
        schema.validate(str(junit_path))
    return report


@functools.cache
def junit_schemas() -> list[Any]:
    import xmlschema

    schemas = [xmlschema.XMLSchema(str(xsd)) for xsd in sorted(JUNIT_SCHEMAS.glob("*.xsd"))]
    assert len(schemas) == 2, "tests/junit/ holds the Jenkins and the Ant JUnit schemas"
    return schemas


# A small release for the release and --suite tests: two algorithms, the four schemas and
# the protocol document (paths inside the package).
SMALL_RELEASE = (
    "spec/spec.schema.json",
    "spec/battle/ticket.yaml",
    "spec/nardy/cuts.yaml",
    "vectors/vectors.schema.json",
    "vectors/battle/ticket.json",
    "vectors/nardy/cuts.json",
    "runner/schemas/protocol.schema.json",
    "runner/schemas/report.schema.json",
    "docs/adapter-protocol.md",
)


def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache folder of the test's own, on (for tests of the caches)."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("FAIRVEC_CACHE_DIR", str(folder))
    monkeypatch.delenv("FAIRVEC_NO_CACHE", raising=False)
    return folder


def copied_families(tmp_path: Path, families: tuple[str, ...]) -> Path:
    """A vectors folder holding the installed suite's files of ``families``, free to edit."""
    from fairvec.vectorfiles import SCHEMA_NAME, default_vectors_root

    installed, root = default_vectors_root(), tmp_path / "vectors"
    root.mkdir()
    shutil.copy(installed / SCHEMA_NAME, root)
    for family in families:
        shutil.copytree(installed / family, root / family)
    return root


@functools.cache
def _validations(families: tuple[str, ...]) -> tuple[Path, ...]:
    """The validation cache files (validated-*.json: verdicts keyed by a file's SHA-256) of
    the installed suite's files of ``families``, made once a process in a folder of its own."""
    from fairvec.vectorfiles import load_vector_files

    folder = Path(tempfile.mkdtemp(prefix="fairvec-validations-"))
    atexit.register(shutil.rmtree, folder, True)  # (the copies made for it, at the end)
    before = {name: os.environ.get(name) for name in ("FAIRVEC_CACHE_DIR", "FAIRVEC_NO_CACHE")}
    os.environ["FAIRVEC_CACHE_DIR"] = str(folder / "cache")
    os.environ.pop("FAIRVEC_NO_CACHE", None)
    try:
        load_vector_files(copied_families(folder, families))
    finally:
        for name, value in before.items():
            os.environ.pop(name, None)
            if value is not None:
                os.environ[name] = value
    made = tuple(sorted((folder / "cache").glob("validated-*.json")))
    assert made, "the load wrote no validation cache"
    return made


def seed_validations(cache: Path, families: tuple[str, ...]) -> None:
    """Put in ``cache`` the schema's verdicts on ``families``' files, and nothing else (no
    hashes, counts, indexes, digests, memo): for tests of those other caches, whose first
    run would otherwise validate every file again (jsonschema: 2 s of CPU for battle's and
    nardy's 13). A file whose bytes differ from the installed one's is validated as ever."""
    cache.mkdir(parents=True, exist_ok=True)
    for path in _validations(families):
        shutil.copy(path, cache / path.name)


@pytest.fixture(autouse=True, name="own_cache")
def own_cache_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache folder of the test's own, on: autouse in a module that imports it."""
    return private_cache(tmp_path, monkeypatch)


def copied_files(tmp_path: Path, names: tuple[str, ...]) -> Path:
    """A vectors folder holding only the installed suite's files ``names`` (paths inside
    it, such as "battle/move.json"), free to edit."""
    from fairvec.vectorfiles import SCHEMA_NAME, default_vectors_root

    installed, root = default_vectors_root(), tmp_path / "vectors"
    root.mkdir()
    shutil.copy(installed / SCHEMA_NAME, root)
    for name in names:
        (root / name).parent.mkdir(exist_ok=True)
        shutil.copy(installed / name, root / name)
    return root


# The two files TWO_DECLARED's algorithms are in: a run of them over the whole battle and
# nardy families also read (and, without a cache, validated) their 11 other files, 2 s of
# CPU a run that says nothing more about the two that are run.
TWO_FILES = ("battle/move.json", "nardy/cuts.json")


@pytest.fixture(name="vectors")
def two_files_fixture(tmp_path: Path) -> Path:
    """battle.move's and nardy.cuts' files (TWO_DECLARED's), free to edit."""
    return copied_files(tmp_path, TWO_FILES)


# A port of two algorithms (the misbehaving adapter, its hello cut down): the answer memo's
# tests and the replay's (runner/answer_memo.py, Session._replay) run the same two files.
TWO_DECLARED = json.dumps({"battle.move": [], "nardy.cuts": []})


def two_algorithm_run(
    vectors: Path,
    report: Path,
    *modes: str,
    extra: tuple[str, ...] = (),
    timeout: float = _NOT_GIVEN,
) -> Completed:
    """``fairvec run`` of the two algorithms TWO_DECLARED names, the adapter told ``modes``."""
    return fairvec(
        "run", "--vectors", vectors, "--tier", "none", "--json", report, *extra,
        "--", sys.executable, str(MISBEHAVING), "--algorithms", TWO_DECLARED, *modes,
        timeout=timeout,
    )  # fmt: skip


class Learnt(NamedTuple):
    vectors: Path  # TWO_FILES, settled (not to be edited: tests share them)
    cache: Path  # the memo (and hashes, digests, indexes) of a run of them that passed
    report: Path  # that run's JSON report
    done: Completed  # that run


def learn_two(folder: Path) -> Learnt:
    """One run of TWO_FILES that passed, its cache kept for tests to copy (a module's
    fixture learns it once: each test's first run, learning the same, cost 1.5 s of CPU)."""
    vectors = copied_files(folder, TWO_FILES)
    cache, report = folder / "cache", folder / "learn.json"
    time.sleep(1.2)  # the files settle (file_hashes.SETTLED_NS): reruns know them by hash
    before = os.environ.get("FAIRVEC_CACHE_DIR")
    os.environ["FAIRVEC_CACHE_DIR"] = str(cache)
    try:
        done = two_algorithm_run(vectors, report)
    finally:
        os.environ.pop("FAIRVEC_CACHE_DIR")
        if before is not None:
            os.environ["FAIRVEC_CACHE_DIR"] = before
    assert done.status == 0, done.stdout + done.stderr
    return Learnt(vectors, cache, report, done)


def session_run(
    vectors: Path, algorithms: tuple[str, ...], *, jobs: int = 1, judging: str | None = None
) -> tuple[list[Any], list[Any]]:
    """In process: one session (``jobs`` > 1: parallel) over ``algorithms`` of ``vectors``
    with the answer memo (under the judging code ``judging``, if given), the adapter the
    misbehaving one declaring TWO_DECLARED. The results, in the works' order, and the
    selection's files."""
    from fairvec.runner.answer_memo import AnswerMemo
    from fairvec.runner.options import SelectionOptions
    from fairvec.runner.selection import Filler, select
    from fairvec.runner.session import ParallelSession, Session
    from fairvec.vectorfiles import cache_folder, load_vector_files

    load_vector_files(vectors, skeletal=True)  # indexed (and hashes remembered)
    selection = select(SelectionOptions(vectors=vectors, algorithms=algorithms), skeletal=True)
    memo = AnswerMemo(cache_folder(), selection.files)
    memo.judging = judging or memo.judging
    filler = Filler(selection)
    command = [sys.executable, str(MISBEHAVING), "--algorithms", TWO_DECLARED]
    keywords: dict[str, Any] = {
        "timeout": 30, "window": 64, "memo": memo,
        "before_send": filler.before_send, "before_judge": filler.before_send,
    }  # fmt: skip
    session: Session | ParallelSession = (
        ParallelSession(command, jobs=jobs, **keywords)
        if jobs > 1
        else Session(command, **keywords)
    )
    try:
        results = session.run(selection.works)
    finally:
        session.close()
    memo.check_served()
    memo.save()
    assert [r.id for r in results] == [w.vector["id"] for w in selection.works]
    return results, selection.files
