"""``fairvec run``: select vectors, drive an adapter through them, report.

The runner reads vector files and talks to adapters; it never imports the reference.
"""

from __future__ import annotations

import argparse
import datetime as dt
import fnmatch
import math
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from fairvec import __version__
from fairvec.errors import FairvecError, Interrupted
from fairvec.regular_files import check_not_special, write_all_or_none
from fairvec.runner import accumulate as accumulated
from fairvec.runner.known_failures import apply_known_failures, read_known_failures
from fairvec.runner.process import (
    DEFAULT_MAX_LINE,
    AdapterProcess,
    AdapterStartError,
    RunnerResourceError,
    become_subreaper,
)
from fairvec.runner.protocol import Hello
from fairvec.runner.results import KnownFailure, Result, Work
from fairvec.runner.session import (
    MAX_CRASHES,
    MAX_TIMEOUTS,
    AnySession,
    ParallelSession,
    Session,
    jobs_for,
)
from fairvec.vectorfiles import (
    DigestCache,
    DigestStream,
    ValidationCache,
    VectorFile,
    algorithm_of,
    canonical_items,
    default_vectors_root,
    digest_key,
    load_vector_files,
    read_unchecked,
    read_vector_bytes,
    vector_file_paths,
)

if TYPE_CHECKING:  # the reports are imported once the run is over: not on the way to it
    from fairvec.release.verify import VerifiedSuite
    from fairvec.runner.report import Coverage, RunInfo, SuiteSource

EXIT_OK, EXIT_FAILED, EXIT_INFRASTRUCTURE = 0, 1, 2
GLOB_CHARACTERS = set("*?[")
MAX_TIMEOUT = 86400.0  # seconds; beyond a day is a mistake (and overflows the OS's timers)
SHOWN_UNKNOWN = 10  # unknown algorithm ids of a hello named one by one, with a hint
MIN_LINE = 1024  # --max-line-bytes below this could not hold a hello line
# Requests in flight: enough that the runner reads and judges answers in batches, not a
# few at a time (docs/benchmarks.md: 32 left the Node port waiting on the runner).
DEFAULT_WINDOW = 256


def bundled_adapter(name: str) -> list[str]:
    if name == "python":
        # -P: never import from the current folder, which may be a fairvec checkout
        return [sys.executable, "-P", "-m", "fairvec.adapters.python"]
    import shutil

    script = resources.files("fairvec").joinpath("adapters", "node", "adapter.js")
    node = shutil.which("node")
    if node is None:
        raise FairvecError("--bundled node: no 'node' on PATH (install Node.js 20 or later)")
    return [node, str(script)]


def add_run_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = commands.add_parser(
        "run",
        help="check an implementation through its adapter",
        description="Run the vectors through an adapter process (docs/adapter-protocol.md): "
        "fairvec run [options] -- COMMAND [ARGS...], or --bundled python|node.",
    )
    adapter = run.add_argument_group("adapter")
    adapter.add_argument("--bundled", choices=("python", "node"), help="use a bundled adapter")
    adapter.add_argument(
        "--timeout",
        type=positive_seconds,
        default=10.0,
        metavar="SECONDS",
        help="per-vector time limit before the adapter is killed (default 10)",
    )
    adapter.add_argument(
        "--window",
        type=positive_int,
        default=DEFAULT_WINDOW,
        metavar="N",
        help=f"requests sent ahead of the answers (default {DEFAULT_WINDOW}; 1 = lockstep)",
    )
    adapter.add_argument(
        "-j",
        "--jobs",
        type=positive_int,
        default=_cpus(),
        metavar="N",
        help="adapter processes run in parallel (default: the number of CPUs, here "
        f"{_cpus()}; fewer for a small selection)",
    )
    adapter.add_argument(
        "--max-line-bytes",
        type=_line_cap,
        default=DEFAULT_MAX_LINE,
        metavar="N",
        help="longest line read from the adapter; a longer one errors its vector "
        f"(default {DEFAULT_MAX_LINE}, 16 MiB)",
    )
    adapter.add_argument(
        "--max-crashes",
        type=positive_int,
        default=MAX_CRASHES,
        metavar="N",
        help="crashes, exits or failed restarts in a row, with no answer in between, "
        f"before the run stops and the rest is not run (default {MAX_CRASHES}; a timeout "
        "is not counted here)",
    )
    adapter.add_argument(
        "--max-timeouts",
        type=positive_int,
        default=MAX_TIMEOUTS,
        metavar="N",
        help="timeouts in a row, with no answer in between, before the run stops and the "
        f"rest is not run (default {MAX_TIMEOUTS})",
    )
    select = run.add_argument_group("selection")
    select.add_argument(
        "--vectors", type=Path, metavar="DIR", help="vector folder (default: the installed vectors)"
    )
    select.add_argument(
        "--algorithm",
        action="append",
        default=[],
        metavar="GLOB",
        help="only algorithms matching (e.g. 'battle.*'); repeatable",
    )
    select.add_argument(
        "-k",
        dest="keywords",
        action="append",
        default=[],
        metavar="PATTERN",
        help="only vector ids matching a glob, or containing the text; repeatable",
    )
    select.add_argument(
        "--tag",
        action="append",
        default=[],
        metavar="TAG",
        help="only vectors carrying this tag (e.g. document-example); repeatable",
    )
    select.add_argument(
        "--exclude-tag",
        action="append",
        default=[],
        metavar="TAG",
        help="leave out vectors carrying this tag (e.g. slow); repeatable",
    )
    accumulated.add_tier_option(select)
    select.add_argument(
        "--known-failures",
        type=Path,
        metavar="FILE",
        help="vector ids (or globs) expected to fail, one a line, each with an optional "
        "'# reason'; one that passes is reported so the list shrinks",
    )
    release = run.add_argument_group("a verified release (docs/ci.md)")
    release.add_argument(
        "--suite",
        type=Path,
        metavar="ARCHIVE",
        help="run the vectors of this release (fairvec-vectors-X.Y.Z.tar.gz), verified first",
    )
    release.add_argument(
        "--trusted-key",
        type=Path,
        metavar="KEY",
        help="the key --suite must be signed by: allowed_signers, OpenSSH or minisign public key",
    )
    release.add_argument(
        "--min-version",
        metavar="X.Y.Z",
        help="refuse a --suite release older than this (a rollback)",
    )
    output = run.add_argument_group("reports")
    output.add_argument("--json", type=Path, metavar="FILE", help="write a JSON report")
    output.add_argument("--junit", type=Path, metavar="FILE", help="write a JUnit XML report")
    output.add_argument(
        "--max-details",
        type=int,
        default=20,
        metavar="N",
        help="failures shown in full on the terminal (default 20)",
    )
    output.add_argument("--no-progress", action="store_true", help="never draw a progress bar")
    output.add_argument(
        "--fail-on-skip",
        action="store_true",
        help="exit 1 if any vector is skipped (for CI that wants every vector checked)",
    )
    run.add_argument(
        "command", nargs=argparse.REMAINDER, help="-- the adapter command and its arguments"
    )
    run.set_defaults(handler=run_command)


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (math.isfinite(value) and 0 < value <= MAX_TIMEOUT):
        raise argparse.ArgumentTypeError(
            f"{text!r}: give a number of seconds more than 0 and at most {MAX_TIMEOUT:g}"
        )
    return value


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: must be 1 or more")
    return value


def _line_cap(text: str) -> int:
    value = positive_int(text)
    if value < MIN_LINE:
        raise argparse.ArgumentTypeError(f"{text!r}: must be at least {MIN_LINE}")
    return value


def run_command(arguments: argparse.Namespace) -> int:
    command = adapter_command(arguments)
    check_report_paths(arguments.json, arguments.junit)
    # read before the adapter starts: a bad list is a usage error, not a wasted run
    known = read_known_failures(arguments.known_failures) if arguments.known_failures else []
    with verified_release(arguments) as release:  # verified before anything in it is read
        return _run(arguments, command, release, known)


def _run(
    arguments: argparse.Namespace,
    command: list[str],
    release: VerifiedSuite | None,
    known: list[KnownFailure],
) -> int:
    become_subreaper()  # so a descendant that escapes the adapter's group is still ours
    # SIGTERM and SIGHUP stop the run as Ctrl-C does, up to the last report written.
    with _signals_stop_the_run():
        return _run_and_report(arguments, command, release, known)


def _run_and_report(
    arguments: argparse.Namespace,
    command: list[str],
    release: VerifiedSuite | None,
    known: list[KnownFailure],
) -> int:
    # The adapter starts first, and gets ready on another core while the vectors load.
    with _spawned_early(command, arguments) as early:
        selection = _select(arguments, none_ok=True, freeze=True)
        chosen = accumulated.select_for_run(arguments, selection.files)
        if not selection.works and not chosen:
            raise _nothing_selected(arguments)
        works = selection.works
        started_at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        clock = time.monotonic()
        with _progress(len(works) + len(chosen), enabled=_progress_wanted(arguments)) as advance:
            session = _start_session(command, arguments, advance, len(works), early)
            try:
                results = session.run(works)
                streamed, restarts = accumulated.run_for_run(command, arguments, chosen, advance)
                results += streamed
            except RunnerResourceError as error:
                raise FairvecError(
                    f"the runner itself: {error} (raise the limit: ulimit -n)"
                ) from None
            finally:
                session.close()
        duration = time.monotonic() - clock
    apply_known_failures(results, known)
    warnings = hello_warnings(session.hello, _suite_algorithms(arguments), selection.variants)
    warnings += session.warnings + run_warnings(
        session, results, fail_on_skip=arguments.fail_on_skip
    )
    status = outcome(session, results, fail_on_skip=arguments.fail_on_skip)
    suite, run_digest = digests(arguments, release, selection, chosen)  # after the run
    from fairvec.runner.report import RunInfo

    info = RunInfo(
        suite_version=suite.version,
        vectors_digest=run_digest,
        adapter_name=session.hello.name,
        adapter_version=session.hello.version,
        command=command,
        started_at=started_at,
        duration_seconds=duration,
        restarts=session.restarts + restarts,
        coverage=coverage(arguments, suite, session.hello, known),
        hostname=_hostname(),
        warnings=warnings,
        success=status == EXIT_OK,
    )
    _write_reports(arguments, info, results)
    return _report_status(session, results, status)


def _hostname() -> str:
    import socket

    return socket.gethostname()


def _cpus() -> int:
    """The CPUs this process may run on (a container's share, not the host's count)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


@contextmanager
def _spawned_early(
    command: list[str], arguments: argparse.Namespace
) -> Iterator[AdapterProcess | None]:
    """The adapter, started before the vector files are read, for the session to take
    over (its hello is awaited there). Whatever happens before that (a bad vector file, a
    bad selection, Ctrl-C, SIGTERM) kills it on the way out: nothing is left running. If it
    cannot even be started, None: the session tries again and says why, at the point where
    it always did (so a usage error found while loading still comes first)."""
    try:
        process: AdapterProcess | None = AdapterProcess(
            command, max_line=arguments.max_line_bytes
        )
    except (AdapterStartError, RunnerResourceError):
        process = None
    try:
        yield process
    finally:
        if process is not None:
            process.kill()  # a no-op once the session has ended it


def _start_session(
    command: list[str],
    arguments: argparse.Namespace,
    advance: Callable[[], None],
    vectors: int,
    process: AdapterProcess | None = None,
) -> AnySession:
    """``process``: the adapter already started (_spawned_early), taken over as the first
    session's; with -j N the others are started here."""
    options: dict[str, Any] = {
        "timeout": arguments.timeout,
        "window": arguments.window,
        "max_line": arguments.max_line_bytes,
        "max_crashes": arguments.max_crashes,
        "max_timeouts": arguments.max_timeouts,
        "on_result": lambda _result: advance(),
    }
    jobs = jobs_for(arguments.jobs, vectors)
    try:
        if jobs > 1:
            return ParallelSession(command, jobs=jobs, process=process, **options)
        return Session(command, process=process, **options)
    except AdapterStartError as error:
        raise FairvecError(f"adapter {' '.join(command)}: {error}") from None
    except RunnerResourceError as error:
        raise FairvecError(f"the runner itself: {error} (raise the limit: ulimit -n)") from None


def outcome(session: AnySession, results: list[Result], *, fail_on_skip: bool) -> int:
    if session.infrastructure_error or not _any_run(results):
        return EXIT_INFRASTRUCTURE
    from fairvec.runner.report import is_success

    if not is_success(results):
        return EXIT_FAILED
    if fail_on_skip and any(result.status == "skip" for result in results):
        return EXIT_FAILED
    return EXIT_OK


def _any_run(results: list[Result]) -> bool:
    return any(result.status in ("pass", "fail", "error") for result in results)


def _report_status(session: AnySession, results: list[Result], status: int) -> int:
    """The one line on stderr that says why the status is 2."""
    if session.infrastructure_error:
        print(
            f"fairvec: error: the run stopped: {session.infrastructure_error}", file=sys.stderr
        )
    elif not _any_run(results):
        print(
            "fairvec: error: no vector was run: every selected vector was skipped "
            "(see the warnings above; check the hello's algorithm ids and variants)",
            file=sys.stderr,
        )
    return status


def _write_reports(arguments: argparse.Namespace, info: RunInfo, results: list[Result]) -> None:
    """The terminal report, then every report file asked for, all or none (a signal while
    they are written waits for the last one). ``--json -`` sends the JSON report to
    standard output, and the terminal report to standard error."""
    from fairvec.runner.report import render_json, render_junit, write_human

    to_stdout = _is_stdout(arguments.json)
    terminal = sys.stderr if to_stdout else sys.stdout
    terminal.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
    write_human(terminal, info, results, arguments.max_details)
    files = []
    if arguments.json is not None and not to_stdout:
        files.append((arguments.json, render_json(info, results), "--json"))
    if arguments.junit is not None:
        files.append((arguments.junit, render_junit(info, results), "--junit"))
    write_all_or_none(files)
    if to_stdout:
        sys.stdout.write(render_json(info, results))
        sys.stdout.flush()


def _is_stdout(path: Path | None) -> bool:
    return path is not None and str(path) == "-"


def check_report_paths(*paths: Path | None) -> None:
    """Before the run, not after it: a report that cannot be written wastes the run, and a
    path that names a device or a FIFO must never be replaced by a file."""
    given = [(option, path) for option, path in zip(("--json", "--junit"), paths, strict=True)]
    if _is_stdout(given[1][1]):
        raise FairvecError("--junit -: only the JSON report can go to standard output")
    chosen = [(option, path) for option, path in given if path is not None and not _is_stdout(path)]
    if len(chosen) == 2 and chosen[0][1].resolve() == chosen[1][1].resolve():
        raise FairvecError(f"--json and --junit are both {chosen[0][1]}: give two files")
    for option, path in chosen:
        if path.is_dir():
            raise FairvecError(f"{option} {path}: is a folder; give a file name in it")
        check_not_special(path, option)
        folder = path.absolute().parent
        while not folder.exists():
            folder = folder.parent
        if not folder.is_dir():
            raise FairvecError(f"{option} {path}: {folder} is not a folder")
        _probe_writable(option, path, folder)


def _probe_writable(option: str, path: Path, folder: Path) -> None:
    """Create and remove a file where the report will go (missing folders below ``folder``
    are made when it is written, as pytest's --junitxml does). Permission bits alone say
    yes for root or for /proc, where no file can be made."""
    import tempfile

    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".fairvec-probe-"):
            pass
    except OSError as error:
        raise FairvecError(
            f"{option} {path}: cannot write in {folder} ({error.strerror}); choose another place"
        ) from None


@contextmanager
def _signals_stop_the_run() -> Iterator[None]:
    """SIGTERM and SIGHUP end the run like Ctrl-C does: the adapter and everything it
    started are killed on the way out (Session.close), then fairvec exits 128 + N."""

    def stop(number: int, _frame: FrameType | None) -> None:
        raise Interrupted(number, signal.Signals(number).name)

    wanted = (signal.SIGTERM, signal.SIGHUP)
    previous = {number: signal.signal(number, stop) for number in wanted}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def adapter_command(arguments: argparse.Namespace) -> list[str]:
    command = list(arguments.command)
    if command[:1] == ["--"]:
        command = command[1:]
    if arguments.bundled and command:
        raise FairvecError("give either --bundled or -- COMMAND, not both")
    if arguments.bundled:
        return bundled_adapter(arguments.bundled)
    if not command:
        raise FairvecError("no adapter: give --bundled python|node or -- COMMAND [ARGS...]")
    return command


def select_works(arguments: argparse.Namespace) -> list[Work]:
    return _select(arguments).works


@dataclass(frozen=True)
class Selection:
    files: list[VectorFile]  # the files of the algorithms selected, whole
    works: list[Work]  # the vectors selected, in the files' order
    variants: dict[str, list[str]]  # the variants of each algorithm selected


def _select(
    arguments: argparse.Namespace, *, none_ok: bool = False, freeze: bool = False
) -> Selection:
    """``freeze``: see load_vector_files (for fairvec run, which holds them to the end)."""
    root = arguments.vectors or default_vectors_root()
    works: list[Work] = []
    variants: dict[str, list[str]] = {}
    globs = arguments.algorithm
    keywords = arguments.keywords
    tags = set(arguments.tag)
    excluded = set(getattr(arguments, "exclude_tag", []))
    files = load_vector_files(
        root, lambda name: not globs or _matches_any(name, globs), freeze=freeze
    )
    for vector_file in files:
        schema = vector_file.data["output_schema"]
        algorithm = vector_file.algorithm
        variants[algorithm] = [v["id"] for v in vector_file.data.get("variants", [])]
        if not (keywords or tags or excluded):  # every vector (the common case, made fast)
            works += [Work(vector, algorithm, schema) for vector in vector_file.vectors]
            continue
        for vector in vector_file.vectors:
            if keywords and not any(_keyword(vector["id"], k) for k in keywords):
                continue
            if tags and tags.isdisjoint(vector["tags"]):
                continue
            if excluded and not excluded.isdisjoint(vector["tags"]):
                continue
            works.append(Work(vector, algorithm, schema))
    if not works and not none_ok:  # none_ok: the caller also selects accumulated vectors
        raise _nothing_selected(arguments)
    return Selection(files, works, variants)


def _nothing_selected(arguments: argparse.Namespace) -> FairvecError:
    root = arguments.vectors or default_vectors_root()
    hint = _algorithm_hint(arguments.algorithm, _suite_algorithms(arguments))
    return FairvecError(
        f"{root}: no vector matches the selection (check --algorithm, -k, --tag, "
        f"--exclude-tag){hint}"
    )


def _algorithm_hint(globs: list[str], suite: set[str]) -> str:
    """For an --algorithm that matches nothing, the suite's closest id, as for the hello."""
    import difflib

    for glob in globs:
        if not any(fnmatch.fnmatchcase(name, glob) for name in suite):
            close = difflib.get_close_matches(glob, sorted(suite), n=1)
            if close:
                return f"; --algorithm {glob!r} matches nothing: did you mean {close[0]!r}?"
    return ""


def _suite_algorithms(arguments: argparse.Namespace) -> set[str]:
    root = arguments.vectors or default_vectors_root()
    return {algorithm_of(path) for path in root.glob("*/*.json")}


def hello_warnings(
    hello: Hello, suite: set[str], variants: dict[str, list[str]]
) -> list[str]:
    """What in the hello would make vectors skip silently: unknown algorithm ids (likely
    misspelt), unknown variants, and [] for an algorithm that has variants."""
    import difflib

    named = set(hello.algorithms)
    warnings = []
    if not named & suite:
        warnings.append("the hello names no algorithm the suite has: every vector is skipped")
    unknown = sorted(named - suite)
    for algorithm in unknown[:SHOWN_UNKNOWN]:
        close = difflib.get_close_matches(algorithm, sorted(suite), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        warnings.append(f"the hello names {algorithm!r}, which the suite does not have{hint}")
    if len(unknown) > SHOWN_UNKNOWN:  # each hint costs a fuzzy match against the suite
        warnings.append(
            f"the hello names {len(unknown) - SHOWN_UNKNOWN:,} more algorithms the suite "
            "does not have"
        )
    for algorithm in sorted(named & set(variants)):
        listed, known = hello.algorithms[algorithm], variants[algorithm]
        for variant in listed:
            if variant not in known:
                has = f"has variants {', '.join(known)}" if known else "has no variants"
                warnings.append(
                    f"the hello lists variant {variant!r} of {algorithm}, which {has}"
                )
        if known and not listed:
            warnings.append(
                f"the hello lists no variant of {algorithm} ([]), which has variants "
                f"{', '.join(known)}: its vectors are skipped"
            )
    return warnings


def run_warnings(
    session: AnySession, results: list[Result], *, fail_on_skip: bool
) -> list[str]:
    warnings = []
    sent = [r for r in results if r.status in ("pass", "fail", "error") or r.answered_unsupported]
    if sent and all(result.answered_unsupported for result in sent):
        warnings.append(f"the adapter answered unsupported to all {len(sent)} vectors it was sent")
    if session.stray_lines:
        warnings.append(
            f"the adapter wrote {len(session.stray_lines)} line(s) that no request asked "
            f"for, the first: {session.stray_lines[0]}"
        )
    skipped = sum(result.status == "skip" for result in results)
    if fail_on_skip and skipped:
        warnings.append(f"{skipped} vector(s) skipped, and --fail-on-skip is set")
    return warnings


def _matches_any(name: str, globs: list[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, glob) for glob in globs)


def _keyword(vector_id: str, pattern: str) -> bool:
    if GLOB_CHARACTERS & set(pattern):
        return fnmatch.fnmatchcase(vector_id, pattern)
    return pattern in vector_id


# -- a verified release, and the coverage attestation ---------------------------------------


@contextmanager
def verified_release(arguments: argparse.Namespace) -> Iterator[VerifiedSuite | None]:
    """With --suite, the release verified against --trusted-key and extracted to a
    temporary folder (deleted afterwards), and --vectors pointed at it; else None."""
    if arguments.suite is None:
        if arguments.trusted_key or arguments.min_version:
            raise FairvecError("--trusted-key and --min-version go with --suite ARCHIVE")
        yield None
        return
    if arguments.vectors is not None:
        raise FairvecError("give either --suite ARCHIVE or --vectors DIR, not both")
    if arguments.trusted_key is None:
        raise FairvecError(
            f"--suite {arguments.suite}: give --trusted-key KEY (an allowed_signers file, an "
            "OpenSSH or a minisign public key); a release is run only once verified"
        )
    from fairvec.release.errors import require_release_extra
    from fairvec.release.verify import open_verified_suite

    require_release_extra("fairvec run --suite")  # named as the user typed it
    with open_verified_suite(
        arguments.suite, arguments.trusted_key, arguments.min_version
    ) as release:
        arguments.vectors = release.vectors
        yield release


def digests(
    arguments: argparse.Namespace,
    release: VerifiedSuite | None,
    selection: Selection,
    chosen: list[accumulated.Accumulated],
) -> tuple[SuiteSource, str]:
    """What the vectors were drawn from, with the digest of all of its vectors (the signed
    one for a release; else computed as the release builder does), and the digest of the
    vectors run (the fixed ones, then the accumulated ones).

    Both come from the digest cache when it has them, keyed by fairvec's version, every
    vector file's place and SHA-256, and the selection; else they are computed in one pass
    over the vectors, each canonicalised once. Called after the run: a digest never delays
    the first request."""
    from fairvec.runner.report import SuiteSource

    root: Path = arguments.vectors or default_vectors_root()
    cache = DigestCache.open()
    run_key = digest_key(
        files=_placed(root, [(f.path, f.sha256) for f in selection.files]),
        selection=_selection_options(arguments),
        tier=getattr(arguments, "tier", "default"),
    )
    run = cache.get(run_key)
    if release is not None:
        suite = SuiteSource(
            release.version,
            release.digest,
            release.manifest.vectors,
            "release",
            str(arguments.suite),
            release.signer,
        )
        if run is None:
            run = _computed(root, selection, chosen, {}, suite=False)[1]
            cache.add(run_key, *run)
        cache.save()
        return suite, run[0]
    # The suite: every vector file, the unselected ones read (and only on a miss parsed).
    loaded = {f.path: f.sha256 for f in selection.files}
    unselected = {
        path: _read_vector_file(path) for path in vector_file_paths(root) if path not in loaded
    }
    hashes = {**loaded, **{path: sha for path, (sha, _raw) in unselected.items()}}
    suite_key = digest_key(files=_placed(root, sorted(hashes.items())))
    whole = cache.get(suite_key)
    if whole is None:
        whole, run = _computed(root, selection, chosen, unselected, suite=True)
        cache.add(suite_key, *whole)
        cache.add(run_key, *run)
    elif run is None:
        run = _computed(root, selection, chosen, {}, suite=False)[1]
        cache.add(run_key, *run)
    cache.save()
    installed = arguments.vectors is None
    version = __version__ if installed else "unversioned"
    source = "installed" if installed else "folder"
    return SuiteSource(version, whole[0], whole[1], source, str(root)), run[0]


def _computed(
    root: Path,
    selection: Selection,
    chosen: list[accumulated.Accumulated],
    unselected: dict[Path, tuple[str, bytes]],
    *,
    suite: bool,
) -> tuple[tuple[str, int], tuple[str, int]]:
    """(the suite's digest and count, the run's digest and count), in one pass: every
    vector is canonicalised once, and fed to the suite's hash, the run's, or both. With
    ``suite`` False only the run's is computed (the first pair is then meaningless)."""
    run = DigestStream()
    everything = DigestStream() if suite else None
    picked = {id(work.vector) for work in selection.works}
    loaded = {f.path: f for f in selection.files}
    paths = vector_file_paths(root) if suite else [f.path for f in selection.files]
    known = ValidationCache.open() if unselected else None
    for path in paths:
        vector_file = loaded.get(path)
        if vector_file is None:  # in the suite, not selected
            assert everything is not None and known is not None
            sha, raw = unselected[path]
            everything.add(read_unchecked(path, raw, sha, known)["vectors"])
            continue
        vectors = vector_file.vectors
        taken = [vector for vector in vectors if id(vector) in picked]
        if everything is None:
            run.add(taken)
        elif len(taken) == len(vectors):  # the whole file: one canonical text for both
            if everything.count == run.count:  # nothing left out so far: the same hash
                run.add(vectors)
                everything = run.copy()
                continue
            items = canonical_items(vectors)
            everything.add_items(items)
            run.add_items(items)
        else:
            items = canonical_items(vectors)
            everything.add_items(items)
            run.add_items([item for item, v in zip(items, vectors, strict=True) if id(v) in picked])
    if run.count != len(selection.works):  # the works are the files' vectors, in order
        raise RuntimeError(f"the run's digest covers {run.count} of {len(selection.works)}")
    whole = (everything.digest(), everything.count) if everything is not None else ("", 0)
    run.add([one.vector for one in chosen])
    return whole, (run.digest(), run.count)


def _read_vector_file(path: Path) -> tuple[str, bytes]:
    """(SHA-256, bytes) of a vector file, to key the digest cache."""
    import hashlib

    raw = read_vector_bytes(path)  # bounded: an unselected FIFO must not hang the digest
    return hashlib.sha256(raw).hexdigest(), raw


def _placed(root: Path, hashes: list[tuple[Path, str]]) -> list[list[str]]:
    return [[path.relative_to(root).as_posix(), sha] for path, sha in hashes]


def _selection_options(arguments: argparse.Namespace) -> dict[str, list[str]]:
    return {
        "algorithm": list(arguments.algorithm),
        "keyword": list(arguments.keywords),
        "tag": list(arguments.tag),
        "exclude_tag": list(getattr(arguments, "exclude_tag", [])),
    }


def coverage(
    arguments: argparse.Namespace, suite: SuiteSource, hello: Hello, known: list[KnownFailure]
) -> Coverage:
    from fairvec.runner.report import Coverage

    selection = {
        "algorithm": list(arguments.algorithm),
        "keyword": list(arguments.keywords),
        "tag": list(arguments.tag),
        "exclude_tag": list(arguments.exclude_tag),
    }
    return Coverage(
        suite=suite,
        declared={name: list(variants) for name, variants in sorted(hello.algorithms.items())},
        algorithms=sorted(_suite_algorithms(arguments)),
        selection=selection,
        known_failures=known,
    )


def _progress_wanted(arguments: argparse.Namespace) -> bool:
    return not arguments.no_progress and sys.stderr.isatty() and not os.environ.get("CI")


@contextmanager
def _progress(total: int, *, enabled: bool) -> Iterator[Callable[[], None]]:
    if not enabled:
        yield lambda: None
        return
    from tqdm import tqdm

    with tqdm(total=total, unit="vec", file=sys.stderr, leave=False) as bar:

        def advance() -> None:
            bar.update(1)

        yield advance
