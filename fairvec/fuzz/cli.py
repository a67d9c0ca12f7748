"""The ``fairvec fuzz`` command line (the work is in :mod:`fairvec.fuzz.command`).

Importing this module imports nothing of the reference: ``fairvec run`` builds the same
parser, and the runner never loads the reference.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from fairvec.fuzz import MAX_DETAILS
from fairvec.runner.arguments import (
    add_pin_options,
    bounded_count,
    positive_int,
    positive_seconds,
)

MAX_SEED = 2**63 - 1


def add_fuzz_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    fuzz = commands.add_parser(
        "fuzz",
        help="compare an implementation with the reference on random inputs",
        description="Draw random inputs (spec/fuzz.yaml and the specs' input schemas), send "
        "them to an adapter and compare every answer with the reference's: fairvec fuzz "
        "[options] -- COMMAND [ARGS...], or --bundled python|node.",
    )
    adapter = fuzz.add_argument_group("adapter")
    adapter.add_argument("--bundled", choices=("python", "node"), help="use a bundled adapter")
    adapter.add_argument(
        "--timeout",
        type=positive_seconds,
        default=10.0,
        metavar="SECONDS",
        help="per-input time limit before the adapter is killed (default 10)",
    )
    adapter.add_argument(
        "--window",
        type=positive_int,
        default=64,
        metavar="N",
        help="requests sent ahead of the answers (default 64)",
    )
    run = fuzz.add_argument_group("inputs")
    run.add_argument(
        "--algorithm",
        action="append",
        default=[],
        metavar="GLOB",
        help="only algorithms matching (e.g. 'casino.*'); repeatable",
    )
    run.add_argument(
        "--seed",
        type=_seed,
        metavar="N",
        help=f"the run's seed, 0 to {MAX_SEED} (default: a random one, printed); the same "
        "seed, selection and count replay a run exactly",
    )
    run.add_argument(
        "--count",
        type=bounded_count,
        default=100,
        metavar="N",
        help="inputs per algorithm (default 100)",
    )
    run.add_argument(
        "--seconds",
        type=positive_seconds,
        metavar="S",
        help="the whole run's time limit: at S seconds the fuzzer stops waiting (the "
        "adapter is stopped if still busy) and lists the inputs left unjudged (default: "
        "no limit)",
    )
    run.add_argument(
        "--space",
        type=Path,
        metavar="FILE",
        help="the input space (default: the installed spec/fuzz.yaml)",
    )
    run.add_argument(
        "--valid-only",
        action="store_true",
        help="send only inputs the reference accepts: for a port that does not check its "
        "inputs (the summary says how many were left out)",
    )
    add_pin_options(fuzz, fresh=False)
    shrink = fuzz.add_argument_group("mismatches")
    shrink.add_argument(
        "--shrink",
        action="store_true",
        help="reduce each reported mismatch to a smaller input that still disagrees",
    )
    shrink.add_argument(
        "--shrink-attempts",
        type=positive_int,
        default=300,
        metavar="N",
        help="inputs tried while shrinking one mismatch (default 300)",
    )
    shrink.add_argument(
        "--max-details",
        type=positive_int,
        default=MAX_DETAILS,
        metavar="N",
        help=f"mismatches reported (and shrunk) in full (default {MAX_DETAILS})",
    )
    shrink.add_argument(
        "--cases",
        type=Path,
        metavar="FILE",
        help="also write every reported mismatch (YAML documents) to FILE",
    )
    fuzz.add_argument(
        "command", nargs=argparse.REMAINDER, help="-- the adapter command and its arguments"
    )
    fuzz.set_defaults(handler=_fuzz)


def _seed(text: str) -> int:
    from fairvec.jsonio import TooManyDigits, int_of_text, shown_text

    try:
        value = int_of_text(text)
    except TooManyDigits as error:
        raise argparse.ArgumentTypeError(f"{shown_text(text)!r}: {error}") from None
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {shown_text(text)!r}") from None
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"must be 0 to {MAX_SEED}")
    return value


def _fuzz(arguments: argparse.Namespace) -> int:
    from fairvec.fuzz.command import fuzz_command  # imports the reference
    from fairvec.runner.process import become_subreaper

    become_subreaper()  # as run: a descendant that escapes the adapter's group is ours
    return fuzz_command(arguments)
