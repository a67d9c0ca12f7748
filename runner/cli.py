"""``fairvec run``: select vectors, drive an adapter through them, report.

The runner reads vector files and talks to adapters; it never imports the reference.
"""

from __future__ import annotations

import argparse
import datetime as dt
import fnmatch
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

from fairvec import __version__
from fairvec.errors import FairvecError
from fairvec.runner.process import AdapterStartError
from fairvec.runner.report import RunInfo, is_success, write_human, write_json, write_junit
from fairvec.runner.results import Result, Work
from fairvec.runner.session import Session
from fairvec.vectorfiles import default_vectors_root, load_vector_files, vectors_digest

EXIT_OK, EXIT_FAILED, EXIT_INFRASTRUCTURE = 0, 1, 2
GLOB_CHARACTERS = set("*?[")


def bundled_adapter(name: str) -> list[str]:
    if name == "python":
        # -P: never import from the current folder, which may be a fairvec checkout
        return [sys.executable, "-P", "-m", "fairvec.adapters.python"]
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
        type=_positive_float,
        default=10.0,
        metavar="SECONDS",
        help="per-vector time limit before the adapter is killed (default 10)",
    )
    adapter.add_argument(
        "--window",
        type=_positive_int,
        default=32,
        metavar="N",
        help="requests sent ahead of the answers (default 32; 1 = lockstep)",
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
        "--known-failures",
        type=Path,
        metavar="FILE",
        help="vector ids (or globs) expected to fail, one a line; one that "
        "passes is reported so the list shrinks",
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
    run.add_argument(
        "command", nargs=argparse.REMAINDER, help="-- the adapter command and its arguments"
    )
    run.set_defaults(handler=run_command)


def _positive_float(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return value


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value


def run_command(arguments: argparse.Namespace) -> int:
    command = _adapter_command(arguments)
    works = select_works(arguments)
    known = read_known_failures(arguments.known_failures) if arguments.known_failures else []
    started_at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    clock = time.monotonic()
    with _progress(len(works), enabled=_progress_wanted(arguments)) as advance:
        try:
            session = Session(
                command,
                timeout=arguments.timeout,
                window=arguments.window,
                on_result=lambda _result: advance(),
            )
        except AdapterStartError as error:
            raise FairvecError(f"adapter {' '.join(command)}: {error}") from None
        try:
            results = session.run(works)
        finally:
            session.close()
    apply_known_failures(results, known)
    info = RunInfo(
        suite_version=__version__,
        vectors_digest=vectors_digest([work.vector for work in works]),
        adapter_name=session.hello.name,
        adapter_version=session.hello.version,
        command=command,
        started_at=started_at,
        duration_seconds=time.monotonic() - clock,
        restarts=session.restarts,
    )
    write_human(sys.stdout, info, results, arguments.max_details)
    if arguments.json:
        write_json(arguments.json, info, results)
    if arguments.junit:
        write_junit(arguments.junit, info, results)
    if session.infrastructure_error:
        print(
            f"fairvec: error: the adapter stopped for good: {session.infrastructure_error}",
            file=sys.stderr,
        )
        return EXIT_INFRASTRUCTURE
    return EXIT_OK if is_success(results) else EXIT_FAILED


def _adapter_command(arguments: argparse.Namespace) -> list[str]:
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
    root = arguments.vectors or default_vectors_root()
    works = []
    globs = arguments.algorithm
    for vector_file in load_vector_files(root, lambda name: not globs or _matches_any(name, globs)):
        schema = vector_file.data["output_schema"]
        for vector in vector_file.vectors:
            if arguments.keywords and not any(
                _keyword(vector["id"], k) for k in arguments.keywords
            ):
                continue
            if arguments.tag and not set(arguments.tag) & set(vector["tags"]):
                continue
            works.append(Work(vector, vector_file.algorithm, schema))
    if not works:
        raise FairvecError(
            f"{root}: no vector matches the selection (check --algorithm, -k, --tag)"
        )
    return works


def _matches_any(name: str, globs: list[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, glob) for glob in globs)


def _keyword(vector_id: str, pattern: str) -> bool:
    if GLOB_CHARACTERS & set(pattern):
        return fnmatch.fnmatchcase(vector_id, pattern)
    return pattern in vector_id


def read_known_failures(path: Path) -> list[str]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise FairvecError(f"--known-failures {path}: cannot read it ({error.strerror})") from None
    except UnicodeDecodeError:
        raise FairvecError(f"--known-failures {path}: not UTF-8 text") from None
    entries = [line.split("#", 1)[0].strip() for line in lines]
    return [entry for entry in entries if entry]


def apply_known_failures(results: list[Result], known: list[str]) -> None:
    for result in results:
        if not _matches_any(result.id, known):
            continue
        if result.status in ("fail", "error"):
            result.known_failure = True
        elif result.status == "pass":
            result.unexpected_pass = True


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
