"""What a run of ``fairvec run`` comes to, once the vectors have run: the warnings about
the adapter's hello and the run, the exit status (and the one line that explains a 2), the
coverage attestation, and the reports written (their paths are checked before the run).

The report renderers (runner/report.py) are imported only here and only then: nothing
for the reports is on the way to the first request.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairvec.errors import FairvecError
from fairvec.regular_files import check_not_an_input, check_not_special, write_all_or_none
from fairvec.runner.options import ReportOptions, SelectionOptions
from fairvec.runner.protocol import Hello
from fairvec.runner.results import (
    ANSWERED_UNSUPPORTED,
    RAN,
    KnownFailure,
    Result,
    Tally,
)
from fairvec.runner.selection import suite_algorithms
from fairvec.runner.session import AnySession

if TYPE_CHECKING:
    from fairvec.runner.report import Coverage, RunInfo, SuiteSource

EXIT_OK, EXIT_FAILED, EXIT_INFRASTRUCTURE = 0, 1, 2
SHOWN_UNKNOWN = 10  # unknown algorithm ids of a hello named one by one, with a hint


# -- the warnings --------------------------------------------------------------------------


def hello_warnings(hello: Hello, suite: set[str], variants: dict[str, list[str]]) -> list[str]:
    """What in the hello would make vectors skip silently: unknown algorithm ids (likely
    misspelt), unknown variants, and [] for an algorithm that has variants."""
    named = set(hello.algorithms)
    warnings = []
    if not named & suite:
        warnings.append("the hello names no algorithm the suite has: every vector is skipped")
    unknown = sorted(named - suite)
    for algorithm in unknown[:SHOWN_UNKNOWN]:
        import difflib  # 2 ms: only when the hello names an unknown algorithm

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
                warnings.append(f"the hello lists variant {variant!r} of {algorithm}, which {has}")
        if known and not listed:
            warnings.append(
                f"the hello lists no variant of {algorithm} ([]), which has variants "
                f"{', '.join(known)}: its vectors are skipped"
            )
    return warnings


def run_warnings(session: AnySession, tally: Tally, *, fail_on_skip: bool) -> list[str]:
    """``tally``: the run's results, counted (runner/results.py)."""
    warnings = []
    counted = tally.statuses
    # (an answer of unsupported is a skip: then it was sent nothing else)
    unsupported = sum(map(ANSWERED_UNSUPPORTED, tally.marked))
    if unsupported and not any(counted[status] for status in RAN):
        warnings.append(
            f"the adapter answered unsupported to all {unsupported} vectors it was sent"
        )
    if session.stray_lines:
        warnings.append(
            f"the adapter wrote {len(session.stray_lines)} line(s) that no request asked "
            f"for, the first: {session.stray_lines[0]}"
        )
    if session.early_answers:
        warnings.append(
            f"the adapter answered {len(session.early_answers)} request(s) out of order, "
            "before an earlier-asked request's answer (answers come in request order; "
            f"such an answer is not judged), the first: {session.early_answers[0]}"
        )
    skipped = counted["skip"]
    if fail_on_skip and skipped:
        warnings.append(f"{skipped} vector(s) skipped, and --fail-on-skip is set")
    return warnings


# Tags every port must pass (docs/tags.md): excluding them is allowed, and said.
CHECKS_EVERY_PORT_MAKES = {
    "invalid": "the invalid inputs every port must refuse with the spec's error code",
    "shape": "the malformed inputs (missing, mistyped, unknown fields) every port must refuse",
}


def selection_warnings(excluded_tags: tuple[str, ...]) -> list[str]:
    """--exclude-tag of a tag that is not an opt-out: the run then checks less than the
    spec asks of every port (docs/tags.md lists the opt-outs)."""
    return [
        f"--exclude-tag {tag} leaves out {what}: this run does not check them"
        for tag, what in CHECKS_EVERY_PORT_MAKES.items()
        if tag in excluded_tags
    ]


# -- the exit status -----------------------------------------------------------------------


def run_stopped(session: AnySession, results: list[Result], tally: Tally) -> str | None:
    """Why the run stopped before its end (--max-crashes, --max-timeouts, an adapter that
    could not be restarted), or None: the fixed vectors' session's reason, else that of the
    accumulated vectors' own session, which its not-run results carry."""
    if session.infrastructure_error:
        return session.infrastructure_error
    if not tally.statuses["not-run"]:
        return None
    stopped = next(result for result in results if result.status == "not-run")
    return stopped.message.removeprefix("not run: ") or f"{stopped.id} was not run"


def outcome(session: AnySession, results: list[Result], tally: Tally, *, fail_on_skip: bool) -> int:
    """``tally``: the ``results``, counted."""
    if run_stopped(session, results, tally) or not _any_run(tally):
        return EXIT_INFRASTRUCTURE
    # the reports: once the run is over (start-up)
    from fairvec.runner.report import is_success

    if not is_success(results, tally):
        return EXIT_FAILED
    if fail_on_skip and tally.statuses["skip"]:
        return EXIT_FAILED
    return EXIT_OK


def _any_run(tally: Tally) -> bool:
    return any(tally.statuses[status] for status in RAN)


def report_status(session: AnySession, results: list[Result], tally: Tally, status: int) -> int:
    """The one line on stderr that says why the status is 2 (``tally``: the ``results``,
    counted)."""
    stopped = run_stopped(session, results, tally)
    if stopped:
        print(f"fairvec: error: the run stopped: {stopped}", file=sys.stderr)
    elif not _any_run(tally):
        print(
            "fairvec: error: no vector was run: every selected vector was skipped "
            "(see the warnings above; check the hello's algorithm ids and variants)",
            file=sys.stderr,
        )
    return status


# -- the coverage attestation --------------------------------------------------------------


def coverage(
    selection: SelectionOptions,
    suite: SuiteSource,
    hello: Hello,
    known: list[KnownFailure],
    claims: dict[str, Any] | None = None,
    fresh_streams: dict[str, Any] | None = None,
) -> Coverage:
    # (as above)
    from fairvec.runner.report import Coverage

    return Coverage(
        suite=suite,
        declared={name: list(variants) for name, variants in sorted(hello.algorithms.items())},
        algorithms=sorted(suite_algorithms(selection.root)),
        selection=selection.recorded(),
        known_failures=known,
        claims=claims or {"pinned": {}, "pinned_by": {}, "outputs": {}, "fresh": None},
        fresh_streams=fresh_streams,
    )


# -- the reports ---------------------------------------------------------------------------


def write_reports(
    reports: ReportOptions, info: RunInfo, results: list[Result], tally: Tally
) -> None:
    """The terminal report, then every report file asked for, all or none (a signal while
    they are written waits for the last one). ``--json -`` sends the JSON report to
    standard output, and the terminal report to standard error."""
    # (as above)
    from fairvec.runner.report import render_json, render_junit, write_human

    to_stdout = _is_stdout(reports.json)
    terminal = sys.stderr if to_stdout else sys.stdout
    # (a stream that cannot, such as a StringIO a caller of fairvec.cli.main passes, is
    # written as it is: it holds text, and any text goes in)
    reconfigure = getattr(terminal, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(errors="backslashreplace")
    write_human(terminal, info, results, reports.max_details, tally)
    files = []
    if reports.json is not None and not to_stdout:
        files.append((reports.json, render_json(info, results, tally), "--json"))
    if reports.junit is not None:
        files.append((reports.junit, render_junit(info, results, tally), "--junit"))
    write_all_or_none(files)
    if to_stdout:
        sys.stdout.write(render_json(info, results, tally))
        sys.stdout.flush()


def _is_stdout(path: Path | None) -> bool:
    return path is not None and str(path) == "-"


def check_report_paths(*paths: Path | None, inputs: Sequence[tuple[str, Path]] = ()) -> None:
    """Before the run, not after it: a report that cannot be written wastes the run, and a
    path that names a device or a FIFO, or one of the run's ``inputs`` ((option, path)
    pairs: --known-failures), must never be replaced by a file."""
    given = [(option, path) for option, path in zip(("--json", "--junit"), paths, strict=True)]
    if _is_stdout(given[1][1]):
        raise FairvecError("--junit -: only the JSON report can go to standard output")
    chosen = [(option, path) for option, path in given if path is not None and not _is_stdout(path)]
    # realpath, not resolve(): a link loop is reported below as the path's, not raised here
    if len(chosen) == 2 and os.path.realpath(chosen[0][1]) == os.path.realpath(chosen[1][1]):
        raise FairvecError(f"--json and --junit are both {chosen[0][1]}: give two files")
    for option, path in chosen:
        check_not_an_input(path, option, inputs)
        try:
            _check_report_path(option, path)
        except OSError as error:  # a name too long, a loop of links, ...
            raise FairvecError(
                f"{option} {path}: cannot write a report there ({error.strerror}); "
                "give another path"
            ) from None


def _check_report_path(option: str, path: Path) -> None:
    if path.is_dir():
        raise FairvecError(f"{option} {path}: is a folder; give a file name in it")
    check_not_special(path, option)  # a loop of links is refused here, naming it
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
    try:
        import tempfile  # (only to probe a report's folder: 4 ms of start-up otherwise)

        with tempfile.NamedTemporaryFile(dir=folder, prefix=".fairvec-probe-"):
            pass
    except OSError as error:
        raise FairvecError(
            f"{option} {path}: cannot write in {folder} ({error.strerror}); choose another place"
        ) from None
