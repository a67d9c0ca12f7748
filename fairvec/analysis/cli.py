"""``fairvec analyze``: exact outcome distributions, the video poker return table, and the
generated verdicts page (every fairness claim of the documents, with its exact verdict).

    fairvec analyze battle.move                 # any algorithm of outcomes.ANALYSES
    fairvec analyze casino.plinko --pins 12 --plot plinko.png
    fairvec analyze videopoker --pay-table jacks-or-better
    fairvec analyze verdicts --write docs/verdicts.md
    fairvec analyze verdicts --check docs/verdicts.md   # exit 1 when the page is stale

The target was called ``claims`` until issue 36, which gave the word to what a port's hello
claims (runner/claims.py); ``fairvec analyze claims`` still works, with a note on stderr.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fairvec.analysis import ALGORITHMS
from fairvec.analysis.report import render_distribution
from fairvec.errors import FairvecError
from fairvec.extras import require
from fairvec.jsonio import write_atomically
from fairvec.regular_files import SMALL_FILE_LIMIT, check_not_special, read_regular

EXIT_OK, EXIT_FAILED = 0, 1
VERDICTS_PAGE = Path("docs/verdicts.md")
VERDICTS, OLD_VERDICTS = "verdicts", "claims"  # the target's name, and its name before issue 36
SHOWN_ROWS = 60  # larger distributions print their most biased outcomes unless --all
# The options each kind of target takes; anything else given is a usage error.
DISTRIBUTION_OPTIONS = {
    "battle.damage": {"attack"},
    "casino.jackpot": {"tickets"},
    "casino.slot": {"reel"},
    "casino.mines": {"cells"},
    "casino.plinko": {"pins"},
    "nardy.rolls": {"cuts"},
    "tenhou.shuffle": {"cells", "players"},
}
OPTION_FLAGS = {
    "pins": "--pins", "tickets": "--tickets", "cells": "--cells", "reel": "--reel",
    "attack": "--attack", "cuts": "--cuts", "players": "--players",
    "pay_table": "--pay-table", "write": "--write", "check": "--check", "plot": "--plot",
    "all": "--all",
}


def _int(text: str) -> int:
    """An integer parameter: argparse's int, but past Python's digit bound a short line
    saying so (not the whole value quoted back)."""
    from fairvec.jsonio import TooManyDigits, int_of_text, shown_text

    try:
        return int_of_text(text)
    except TooManyDigits as error:
        raise argparse.ArgumentTypeError(f"{shown_text(text)!r}: {error}") from None
    except ValueError:
        raise argparse.ArgumentTypeError(f"{shown_text(text)!r} is not a whole number") from None


def add_analyze_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    analyze = commands.add_parser(
        "analyze",
        help="exact outcome distributions, returns and the verdicts page",
        description="Compute exactly (integers and fractions over every equally likely "
        "input, no sampling) the outcome distribution of an algorithm against the one its "
        "document promises; the video poker return table of a pay table; or the page of "
        "every fairness claim of the documents with its verdict (docs/verdicts.md).",
    )
    analyze.add_argument(
        "target",
        metavar="TARGET",
        help=f"verdicts, videopoker, or one of: {', '.join(ALGORITHMS)}",
    )
    parameters = analyze.add_argument_group("parameters of some algorithms")
    parameters.add_argument("--pins", type=_int, help="casino.plinko: 8 to 16 (default 16)")
    parameters.add_argument("--tickets", type=_int, help="casino.jackpot: tickets (default 100)")
    parameters.add_argument(
        "--cells", type=_int,
        help="casino.mines: cells left at the pick, 2-25 (default 25); tenhou.shuffle: tiles "
        "left to swap with, 2-136 (default 136)",
    )
    parameters.add_argument("--reel", type=_int, help="casino.slot: reel 1 to 5 (default 1)")
    parameters.add_argument("--attack", help="battle.damage: Hit or 'Super Active' (default Hit)")
    parameters.add_argument(
        "--cuts", type=_int, nargs=2, metavar=("CUT1", "CUT2"),
        help="nardy.rolls: the two players' cuts, 1-7 (default 7 7)",
    )
    parameters.add_argument("--players", type=_int, help="tenhou.shuffle: 3 or 4 (default 4)")
    analyze.add_argument(
        "--pay-table", metavar="NAME|CUSTOM",
        help="videopoker: jacks-or-better, tens-or-better, bonus-poker; the industry's "
        "FULL-HOUSE/FLUSH (9/6, bonus:8/5, tens:6/5); or the document's dash notation, flush "
        "first (6-9-25-50-800 is 9/6)",
    )
    analyze.add_argument("--plot", type=Path, metavar="FILE.png",
                         help="also draw the exact distribution against the ideal one")
    analyze.add_argument("--all", action="store_true", help="print every outcome's row")
    analyze.add_argument("--write", type=Path, nargs="?", const=VERDICTS_PAGE, metavar="FILE",
                         help=f"verdicts: write the page (default {VERDICTS_PAGE})")
    analyze.add_argument("--check", type=Path, nargs="?", const=VERDICTS_PAGE, metavar="FILE",
                         help=f"verdicts: exit 1 if the page (default {VERDICTS_PAGE}) is stale")
    analyze.set_defaults(handler=run_analyze)


def given(arguments: argparse.Namespace) -> set[str]:
    """The options the user actually gave (argparse leaves the others None or False)."""
    return {name for name in OPTION_FLAGS if getattr(arguments, name, None) not in (None, False)}


def refuse_others(arguments: argparse.Namespace, allowed: set[str]) -> None:
    extra = sorted(given(arguments) - allowed)
    if extra:
        flags = ", ".join(OPTION_FLAGS[name] for name in extra)
        raise FairvecError(
            f"analyze {arguments.target}: {flags} does not apply here; see "
            "`fairvec analyze --help` for which target takes which option"
        )


def run_analyze(arguments: argparse.Namespace) -> int:
    if arguments.target == OLD_VERDICTS:  # kept working for scripts and CI recipes
        print(f"fairvec: note: `analyze {OLD_VERDICTS}` is now `analyze {VERDICTS}` (the old "
              "name will go in a later release)", file=sys.stderr)
        arguments.target = VERDICTS
    if arguments.target == VERDICTS:
        return run_verdicts(arguments)
    if arguments.target == "videopoker":
        return run_videopoker(arguments)
    return run_distribution(arguments)


def run_verdicts(arguments: argparse.Namespace) -> int:
    refuse_others(arguments, {"write", "check"})
    if (arguments.write is None) == (arguments.check is None):
        raise FairvecError("analyze verdicts: give exactly one of --write [FILE] or --check [FILE]")
    require("analysis", "numpy", "analyze verdicts (the video poker rows)")
    if arguments.write is not None:
        check_not_special(arguments.write, "analyze verdicts --write")
    # imports the reference (90 ms): building the command line must not (the analysis'
    # __init__; tests/test_runner.py builds every command's parser)
    from fairvec.analysis.verdicts import render

    text = render()
    if arguments.write is not None:
        write_atomically(arguments.write, text)
        print(f"wrote {arguments.write}")
        return EXIT_OK
    path: Path = arguments.check
    if not path.exists():
        raise FairvecError(f"{path}: no verdicts page there; "
                           "run `fairvec analyze verdicts --write` to create it")
    committed = read_regular(path, "the verdicts page", SMALL_FILE_LIMIT).decode(
        "utf-8", "replace")  # any bad byte makes it stale, which says what to do
    if committed != text:
        print(f"{path} is stale: run `fairvec analyze verdicts --write {path}` and commit it")
        return EXIT_FAILED
    print(f"{path} is up to date")
    return EXIT_OK


def run_videopoker(arguments: argparse.Namespace) -> int:
    refuse_others(arguments, {"pay_table"})
    if not arguments.pay_table:
        raise FairvecError("analyze videopoker: give --pay-table NAME (jacks-or-better, "
                           "tens-or-better, bonus-poker) or a custom table")
    require("analysis", "numpy", "analyze videopoker")
    from fairvec.analysis import videopoker  # NumPy: the optional 'analysis' extra

    try:
        table = videopoker.parse_pay_table(arguments.pay_table)
    except ValueError as error:  # the user's table, not a bug: say what is wrong with it
        raise FairvecError(f"analyze videopoker --pay-table: {error}") from None
    print(videopoker.render_table(videopoker.analyze(table)), end="")
    return EXIT_OK


def check_plot_path(path: Path) -> None:
    if path.suffix.lower() != ".png":
        raise FairvecError(f"--plot {path}: the plot is a PNG file; name it FILE.png")
    check_not_special(path, "--plot")


def run_distribution(arguments: argparse.Namespace) -> int:
    # imports the reference (100 ms): building the command line must not (see run_verdicts)
    from fairvec.analysis.outcomes import ANALYSES, Options

    analysis = ANALYSES.get(arguments.target)
    if analysis is None:
        raise FairvecError(f"analyze: unknown target {arguments.target!r}; it is verdicts, "
                           f"videopoker or one of {', '.join(ANALYSES)}")
    allowed = DISTRIBUTION_OPTIONS.get(arguments.target, set())
    refuse_others(arguments, allowed | {"plot", "all"})
    if arguments.plot is not None:  # checked before the analysis, which may take a while
        check_plot_path(arguments.plot)
        require("analysis", "matplotlib", "analyze --plot")
    chosen = {name: getattr(arguments, name) for name in allowed if getattr(arguments, name)}
    if "cuts" in chosen:
        chosen["cuts"] = tuple(chosen["cuts"])
    if arguments.target == "tenhou.shuffle" and "cells" not in chosen:
        chosen["cells"] = 136
    distribution = analysis(Options(**chosen))
    print(render_distribution(distribution, SHOWN_ROWS if not arguments.all else None), end="")
    if arguments.plot is not None:
        from fairvec.analysis.plot import plot  # imports the reference (see run_verdicts)

        plot(arguments.target, distribution, Options(**chosen), arguments.plot)
        print(f"plot: {arguments.plot}")
    return EXIT_OK
