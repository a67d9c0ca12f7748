"""``fairvec run``'s command line: its flags, and the one place they become a
``RunOptions`` (runner/options.py) for the run (runner/run.py), which does the work.

The selection, the digests and the reports live in modules of their own
(runner/selection.py, runner/digests.py, runner/outcome.py) and take plain values.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from fairvec.runner import accumulated_run
from fairvec.runner.arguments import (
    adapter_command,
    add_pin_options,
    cpus,
    line_cap,
    positive_int,
    positive_seconds,
    whole_number,
)
from fairvec.runner.claims import PinOptions
from fairvec.runner.fresh_streams import DEFAULT_FRESH_CASES, StreamOptions
from fairvec.runner.options import (
    AdapterLimits,
    ReleaseOptions,
    ReportOptions,
    RunOptions,
    SelectionOptions,
)
from fairvec.runner.process import DEFAULT_MAX_LINE
from fairvec.runner.run import run
from fairvec.runner.session import MAX_CRASHES, MAX_TIMEOUTS

if TYPE_CHECKING:
    from fairvec.runner.accumulated_by_port import Oracle
    from fairvec.runner.claims import FreshVectors
    from fairvec.runner.fresh_streams import StreamDigest

# Requests in flight: enough that the runner reads and judges answers in batches, not a
# few at a time (docs/benchmarks.md: 32 left the Node port waiting on the runner).
DEFAULT_WINDOW = 256


def add_run_command(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    fresh: FreshVectors | None = None,
    oracle: Oracle | None = None,
    stream_digest: StreamDigest | None = None,
) -> None:
    """``fresh``: what computes fresh vectors on pinned inputs; ``oracle``: the reference's
    answer to one input; ``stream_digest``: the reference's digest of a stream no file
    holds (all three the reference's, which the runner never imports: fairvec/cli.py gives
    them)."""
    parser = commands.add_parser(
        "run",
        help="check an implementation through its adapter",
        description="Run the vectors through an adapter process (docs/adapter-protocol.md): "
        "fairvec run [options] -- COMMAND [ARGS...], or --bundled python|node.",
    )
    adapter = parser.add_argument_group("adapter")
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
        default=cpus(),
        metavar="N",
        help="adapter processes run in parallel (default: the number of CPUs, here "
        f"{cpus()}; fewer for a small selection)",
    )
    adapter.add_argument(
        "--max-line-bytes",
        type=line_cap,
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
    select = parser.add_argument_group("selection")
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
    accumulated_run.add_tier_option(select)
    select.add_argument(
        "--fresh-cases",
        type=whole_number,
        default=DEFAULT_FRESH_CASES,
        metavar="N",
        help="cases of the fresh stream drawn at run time beside each accumulated vector "
        f"(default {DEFAULT_FRESH_CASES}, fewer beside a costly short stream; 0: none)",
    )
    select.add_argument(
        "--fresh-seed",
        metavar="SEED",
        help="the fresh streams' seed (default: a new one, printed): replays a run's streams",
    )
    select.add_argument(
        "--known-failures",
        type=Path,
        metavar="FILE",
        help="vector ids (or globs) expected to fail, one a line, each with an optional "
        "'# reason'; one that passes is reported so the list shrinks",
    )
    add_pin_options(parser, fresh=True)
    parser.set_defaults(fresh=fresh, oracle=oracle, stream_digest=stream_digest)
    release = parser.add_argument_group("a verified release (docs/ci.md)")
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
    output = parser.add_argument_group("reports")
    output.add_argument("--json", type=Path, metavar="FILE", help="write a JSON report")
    output.add_argument("--junit", type=Path, metavar="FILE", help="write a JUnit XML report")
    output.add_argument(
        "--max-details",
        type=whole_number,
        default=20,
        metavar="N",
        help="failures shown in full on the terminal (default 20)",
    )
    output.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar on a terminal, and no progress line (every 10 s) in a log",
    )
    output.add_argument(
        "--fail-on-skip",
        action="store_true",
        help="exit 1 if any vector is skipped (for CI that wants every vector checked)",
    )
    parser.add_argument(
        "command", nargs=argparse.REMAINDER, help="-- the adapter command and its arguments"
    )
    parser.set_defaults(handler=run_command)


def run_command(arguments: argparse.Namespace) -> int:
    return run(run_options(arguments))


def run_options(arguments: argparse.Namespace) -> RunOptions:
    """The flags as the run takes them. The adapter command is checked first (a usage
    error there comes before any other)."""
    return RunOptions(
        command=tuple(adapter_command(arguments)),
        jobs=arguments.jobs,
        limits=AdapterLimits(
            timeout=arguments.timeout,
            window=arguments.window,
            max_line=arguments.max_line_bytes,
            max_crashes=arguments.max_crashes,
            max_timeouts=arguments.max_timeouts,
        ),
        selection=SelectionOptions(
            vectors=arguments.vectors,
            algorithms=tuple(arguments.algorithm),
            keywords=tuple(arguments.keywords),
            tags=tuple(arguments.tag),
            excluded_tags=tuple(arguments.exclude_tag),
            tier=arguments.tier,
        ),
        known_failures=arguments.known_failures,
        release=ReleaseOptions(
            archive=arguments.suite,
            trusted_key=arguments.trusted_key,
            min_version=arguments.min_version,
        ),
        reports=ReportOptions(
            json=arguments.json,
            junit=arguments.junit,
            max_details=arguments.max_details,
            progress=not arguments.no_progress,
            fail_on_skip=arguments.fail_on_skip,
        ),
        pins=PinOptions(
            fixes=tuple(arguments.fix),
            count=arguments.pinned_count,
            seed=arguments.pinned_seed,
            fresh=arguments.fresh,
        ),
        oracle=arguments.oracle,
        streams=StreamOptions(
            arguments.fresh_cases, arguments.fresh_seed, digest=arguments.stream_digest
        ),
    )
