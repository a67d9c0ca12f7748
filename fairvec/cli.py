"""The ``fairvec`` command: ``generate`` (spec + reference → vectors) and ``run``
(vectors → an adapter process → a report).

Exit status: 0 all good, 1 failures (or stale vectors), 2 bad usage or infrastructure,
3 an internal error (a bug in fairvec: one line, FAIRVEC_DEBUG=1 for the traceback),
130 interrupted (Ctrl-C), 128 + N on signal N (143 for SIGTERM, 141 when the reader of
stdout went away, as in `fairvec ... | head`).
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import errno
import os
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from fairvec import __version__
from fairvec.errors import FairvecError, Interrupted, stopping_signals_raise

if TYPE_CHECKING:
    from fairvec.data_model import Expected, Vector

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_SIGNAL_BASE = 128  # the shell's convention: 128 + the signal's number


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    parser = _parser(_command_named(words))
    arguments = parser.parse_args(words)
    try:
        with stopping_signals_raise():  # SIGTERM, SIGHUP: cleaned up as on Ctrl-C
            status: int = arguments.handler(arguments)
    except FairvecError as error:
        print(f"fairvec: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("fairvec: interrupted", file=sys.stderr)
        return EXIT_SIGNAL_BASE + signal.SIGINT
    except Interrupted as stop:
        print(f"fairvec: stopped by {stop.name}", file=sys.stderr)
        return EXIT_SIGNAL_BASE + stop.signal_number
    except BrokenPipeError:  # `fairvec ... | head`: the reader left, as the shell means it
        # Point stdout at nothing, so the interpreter's final flush cannot fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_SIGNAL_BASE + signal.SIGPIPE
    except OSError as error:
        if error.filename is None and error.errno in OUTPUT_FULL:
            return _output_refused(error)
        if error.filename is None:
            return _internal_error(error)
        # A path the user gave (or one derived from it) that the system refuses: a name too
        # long, a loop of links, no permission. Said as the system says it, in one line.
        print(f"fairvec: error: {error.filename}: {error.strerror}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as error:  # a bug in fairvec: one line, and its own status
        return _internal_error(error)
    return status


def entry() -> NoReturn:
    """The ``fairvec`` command (and ``python -m fairvec``): main, its output flushed, then
    out without the interpreter's teardown, which frees a run's few hundred thousand
    objects one by one: 45 ms of a 0.35 s run (mypy ends the same way). Every file fairvec
    writes is closed (and renamed into place) before main returns; the atexit handlers a
    library registered still run (matplotlib removes a temporary config folder in one);
    callers of main itself (the tests, the pytest plugin) keep the ordinary exit."""
    if "stdout" in _reopened_closed_streams():  # as a full disk: nowhere for the output
        print(
            "fairvec: error: cannot write the output: standard output is closed (send it "
            "to /dev/null to discard it)",
            file=sys.stderr,
            flush=True,
        )
        os._exit(EXIT_USAGE)
    status = main()
    atexit._run_exitfuncs()  # CPython's own first step of an exit: the handlers, in order
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader left before the last of the output
        status = EXIT_SIGNAL_BASE + signal.SIGPIPE
    except OSError as error:  # stdout is a full disk, /dev/full, a failing device
        status = _output_refused(error)
    os._exit(status)


# The standard streams: descriptor, name in sys, mode.
STANDARD_STREAMS = ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w"))


def _reopened_closed_streams() -> list[str]:
    """The standard streams the caller closed (``>&-``, ``2>&-``, ``<&-``), each reopened
    on the null device, by name. Python leaves a closed one None: the first print to it
    failed inside fairvec (a passing run exited 1 with a traceback), and the next file or
    pipe opened took its descriptor (a report on fd 1, an error message in it)."""
    closed = []
    for descriptor, name, mode in STANDARD_STREAMS:  # lowest first: os.open takes the lowest
        if getattr(sys, name) is not None:
            continue
        try:
            os.fstat(descriptor)
        except OSError:  # closed: the null device in its place
            null = os.open(os.devnull, os.O_RDONLY if mode == "r" else os.O_WRONLY)
            if null != descriptor:
                os.dup2(null, descriptor)
                os.close(null)
            closed.append(name)
        stream = open(descriptor, mode, closefd=False, errors="backslashreplace")  # noqa: SIM115
        setattr(sys, name, stream)
    return closed


# A write fairvec's own output cannot make: nothing to report as a bug, nothing to retry.
OUTPUT_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO)


def _output_refused(error: OSError) -> int:
    """The output could not be written (stdout, which has no file name): one line, exit 2."""
    with contextlib.suppress(OSError):
        print(
            f"fairvec: error: cannot write the output: {error.strerror} (free some space, or "
            "send it elsewhere)",
            file=sys.stderr,
            flush=True,
        )
    return EXIT_USAGE


def _internal_error(error: Exception) -> int:
    """A bug in fairvec: one line, and its own status (FAIRVEC_DEBUG=1: the traceback)."""
    if os.environ.get("FAIRVEC_DEBUG"):
        raise error
    detail = " ".join(str(error).split())[:300]  # one line, whatever the exception says
    print(
        f"fairvec: internal error: {type(error).__name__}: {detail} (a bug in fairvec: "
        "please report it; FAIRVEC_DEBUG=1 shows the traceback)",
        file=sys.stderr,
    )
    return EXIT_INTERNAL


def _parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with ``command``, only that command's part of it (the
    others' modules are then not even imported: ``fairvec run`` starts sooner)."""
    parser = argparse.ArgumentParser(
        prog="fairvec",
        description="Conformance vectors and a spec runner for provably-fair game algorithms.",
    )
    parser.add_argument("--version", action="version", version=f"fairvec {__version__}")
    commands = parser.add_subparsers(title="commands", required=True, metavar="COMMAND")
    for name, add in _COMMANDS.items():
        if command is None or name == command:
            add(commands)
    return parser


# What _command_named says for ``fairvec --version``: no command is built (the version is
# printed as it is read): 0.03 s instead of 0.1 s, which importing every command's module took.
NO_COMMAND = ""


def _command_named(words: Sequence[str]) -> str | None:
    """The command the arguments name, when it is plainly one: the first word that is
    not an option (fairvec's own options take no value). None (build every command, for
    the help and for argparse's messages) when there is none or it is unknown; NO_COMMAND
    for ``--version`` first."""
    if words[:1] == ["--version"]:
        return NO_COMMAND
    for word in words:
        if word in ("--", "-h", "--help"):  # the help lists every command
            return None
        if not word.startswith("-"):
            return word if word in _COMMANDS else None
    return None


def _add_run(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    # each command's module is imported only when that command runs (start-up)
    from fairvec.runner.cli import add_run_command

    add_run_command(
        commands, fresh=_fresh_vectors, oracle=_reference_answer, stream_digest=_stream_digest
    )


def _fresh_vectors(
    algorithm: str, variants: list[str | None], pinned: dict[str, Any], count: int, seed: str
) -> list[Vector]:
    """fairvec/fuzz/fresh.py's fresh vectors, for the runner, which never imports the
    reference (imported only when an input is pinned: start-up)."""
    from fairvec.fuzz.fresh import fresh_vectors

    return fresh_vectors(algorithm, variants, pinned, count, seed)


def _stream_digest(
    algorithm: str,
    variant: str | None,
    stream: dict[str, Any],
    count: int,
    block: int,
    fields: tuple[str, ...] | None,
) -> list[str]:
    """The reference's checkpoints of a stream no file holds (a fresh one; a partial
    port's fields), for the runner: fairvec/fuzz/fresh.py."""
    from fairvec.fuzz.fresh import stream_checkpoints

    return stream_checkpoints(algorithm, variant, stream, count, block, fields)


def _reference_answer(algorithm: str, inputs: dict[str, Any], variant: str | None) -> Expected:
    """The reference's answer to one input, for the runner (which never imports the
    reference): the first differing case of an accumulated vector a port computed."""
    from fairvec.fuzz.oracle import expected

    return expected(algorithm, inputs, variant)


def _add_report(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    # (start-up: see _add_run)
    from fairvec.runner.html_report import add_report_command

    add_report_command(commands)


def _add_accumulated(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    # (start-up: see _add_run)
    from fairvec.accumulated_command import add_accumulated_command

    add_accumulated_command(commands)


def _add_fuzz(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    # (start-up: see _add_run)
    from fairvec.fuzz.cli import add_fuzz_command

    add_fuzz_command(commands)


def _add_stream(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    # (start-up: see _add_run)
    from fairvec.stream_command import add_stream_command

    add_stream_command(commands)


def _add_release(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    # (start-up: see _add_run)
    from fairvec.release.cli import add_release_command

    add_release_command(commands)


def _add_analyze(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    # (start-up: see _add_run)
    from fairvec.analysis.cli import add_analyze_command

    add_analyze_command(commands)


def _add_list(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    # (start-up: see _add_run)
    from fairvec.list_command import add_list_command

    add_list_command(commands)


def _add_generate(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from fairvec.runner.arguments import cpus, positive_int

    generate = commands.add_parser(
        "generate",
        help="write vectors/ from spec/ and the reference",
        description="Compute every vector from the spec files and the reference and write "
        "vectors/<family>/<algorithm>.json (only files whose content changes).",
    )
    generate.add_argument(
        "--root",
        type=Path,
        default=Path.cwd(),
        help="repository root (default: the current folder)",
    )
    generate.add_argument(
        "--data",
        type=Path,
        help="the folder holding upstream/, the real data (default: ROOT, which vendors it)",
    )
    generate.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if any committed file is stale"
    )
    generate.add_argument(
        "--algorithm",
        action="append",
        default=[],
        metavar="GLOB",
        help="only algorithms matching (e.g. 'casino.*'); repeatable",
    )
    generate.add_argument(
        "-j",
        "--jobs",
        type=positive_int,
        default=cpus(),
        metavar="N",
        help=f"algorithms computed in parallel (default: the number of CPUs, here {cpus()})",
    )
    generate.set_defaults(handler=_run_generate)


def _run_generate(arguments: argparse.Namespace) -> int:
    from fairvec.extras import require_for_algorithms

    # before a minute's work, not after it: every selected algorithm's extras are present
    require_for_algorithms(arguments.algorithm or ["*"], "fairvec generate")
    from fairvec.generate import generate  # the reference is imported only for this command

    root: Path = arguments.root.resolve()
    data: Path = arguments.data or root
    lines = generate(root, data, arguments.check, arguments.algorithm, arguments.jobs)
    for line in lines:
        print(line)
    if arguments.check:
        if lines:
            print(f"{len(lines)} vector file(s) are stale: run `fairvec generate` and commit them")
            return EXIT_FAILED
        print("vectors are up to date")
    elif not lines:
        print("vectors are up to date; nothing written")
    return EXIT_OK


# Each command, in the order the help lists them, by the name it is called by.
_COMMANDS: dict[str, Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None]] = {
    "generate": _add_generate,
    "list": _add_list,
    "run": _add_run,
    "report": _add_report,
    "accumulated": _add_accumulated,
    "fuzz": _add_fuzz,
    "stream": _add_stream,
    "release": _add_release,
    "analyze": _add_analyze,
}
