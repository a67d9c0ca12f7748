"""Command-line pieces shared by the commands that drive an adapter (``fairvec run``,
``fuzz`` and ``accumulated``): the argument types, and the adapter command given as
``--bundled python|node`` or ``-- COMMAND [ARGS...]``. ``fairvec generate`` borrows the
count types and ``cpus`` for its ``--jobs``.

Kept apart from the run command so that the other commands do not import it.
"""

from __future__ import annotations

import argparse
import math
import os
import sys

from fairvec.errors import FairvecError
from fairvec.runner.claims import Fix, parse_fix

DEFAULT_PINNED_COUNT = 1000  # fresh inputs per pinned algorithm: a 1-in-33 branch ~30 times

MAX_TIMEOUT = 86400.0  # seconds; beyond a day is a mistake (and overflows the OS's timers)
MIN_LINE = 1024  # --max-line-bytes below this could not hold a hello line
MAX_COUNT = 10_000_000  # fairvec fuzz --count: ten million inputs an algorithm is hours already


def cpus() -> int:
    """The CPUs this process may run on (a container's share, not the host's count)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


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


def whole_number(text: str) -> int:
    """0 or more (--max-details 0: show no failure in full)."""
    return _at_least(text, 0)


def positive_int(text: str) -> int:
    return _at_least(text, 1)


def bounded_count(text: str) -> int:
    """A count of things to do, 1 to MAX_COUNT: more is a typing mistake, and would run for
    days rather than say so."""
    value = positive_int(text)
    if value > MAX_COUNT:
        raise argparse.ArgumentTypeError(f"{text!r}: at most {MAX_COUNT:,}")
    return value


def _at_least(text: str, least: int) -> int:
    from fairvec.jsonio import TooManyDigits, int_of_text, shown_text

    try:
        value = int_of_text(text)
    except TooManyDigits as error:
        raise argparse.ArgumentTypeError(f"{shown_text(text)!r}: {error}") from None
    except ValueError:
        raise argparse.ArgumentTypeError(f"{shown_text(text)!r} is not a whole number") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"{text!r}: must be {least} or more")
    return value


def line_cap(text: str) -> int:
    """--max-line-bytes: a whole number, at least enough for a hello line."""
    value = positive_int(text)
    if value < MIN_LINE:
        raise argparse.ArgumentTypeError(f"{text!r}: must be at least {MIN_LINE}")
    return value


def fix(text: str) -> Fix:
    try:
        return parse_fix(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def pinned_count(text: str) -> int:
    """0 (no fresh vectors) to MAX_COUNT."""
    value = whole_number(text)
    if value > MAX_COUNT:
        raise argparse.ArgumentTypeError(f"{text!r}: at most {MAX_COUNT:,}")
    return value


def seed_text(text: str) -> str:
    if not text or len(text) > 200 or not text.isprintable():
        raise argparse.ArgumentTypeError(f"{text[:40]!r}: give 1 to 200 printable characters")
    return text


def add_pin_options(parser: argparse.ArgumentParser, *, fresh: bool) -> None:
    """--fix (both commands), and for fairvec run how many fresh vectors are made on the
    pinned values and from which seed."""
    group = parser.add_argument_group("pinned inputs (docs/porting.md)")
    group.add_argument(
        "--fix",
        action="append",
        type=fix,
        default=[],
        metavar="[ALGORITHM:]FIELD=VALUE",
        help="the port hard-codes this input (e.g. salt=0000...; bustabit.crash_v2:salt=...): "
        "only inputs holding it are sent; repeatable",
    )
    if not fresh:
        return
    group.add_argument(
        "--pinned-count",
        type=pinned_count,
        default=DEFAULT_PINNED_COUNT,
        metavar="N",
        help="fresh vectors made on the pinned values, per algorithm "
        f"(default {DEFAULT_PINNED_COUNT}; 0: none)",
    )
    group.add_argument(
        "--pinned-seed",
        type=seed_text,
        metavar="SEED",
        help="seed of the fresh vectors' inputs (default: a new one, printed, to replay a run)",
    )


def adapter_command(arguments: argparse.Namespace) -> list[str]:
    """The adapter to start, from ``--bundled`` and the words after ``--`` (exactly one of
    the two)."""
    command = list(arguments.command)
    if command[:1] == ["--"]:
        command = command[1:]
    elif command[:1] and command[0].startswith("-"):  # an option after `locate ID`, say
        raise FairvecError(
            f"{command[0]}: an option after the other arguments; give the options first, "
            "and the adapter's command after --"
        )
    if arguments.bundled and command:
        raise FairvecError("give either --bundled or -- COMMAND, not both")
    if arguments.bundled:
        return bundled_adapter(arguments.bundled)
    if not command:
        raise FairvecError("no adapter: give --bundled python|node or -- COMMAND [ARGS...]")
    return command


def bundled_adapter(name: str) -> list[str]:
    """The command that starts the bundled adapter ``name`` (python or node)."""
    if name == "python":
        # -P: never import from the current folder, which may be a fairvec checkout
        return [sys.executable, "-P", "-m", "fairvec.adapters.python"]
    from importlib import resources  # only for --bundled node

    script = resources.files("fairvec").joinpath("adapters", "node", "adapter.js")
    import shutil  # (here: --bundled node alone needs it; 2 ms of every run's start)

    node = shutil.which("node")
    if node is None:
        raise FairvecError("--bundled node: no 'node' on PATH (install Node.js 20 or later)")
    return [node, str(script)]
