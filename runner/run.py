"""A run of ``fairvec run``, from its ``RunOptions``: the release verified (with --suite),
the adapter started, the vectors selected and sent, the outcome reported; its exit status
returned.

The runner reads vector files and talks to adapters; it never imports the reference.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from fairvec.errors import FairvecError, stopping_signals_raise
from fairvec.runner import accumulated_run, fresh_streams
from fairvec.runner import progress as progress_module
from fairvec.runner.answer_memo import AnswerMemo
from fairvec.runner.claims import (
    PINNED_TAG,
    Claims,
    FreshPlan,
    apply,
    attested,
    fresh_works,
    resolve,
)
from fairvec.runner.digests import UnselectedFiles, digests
from fairvec.runner.known_failures import (
    KnownFailureIndex,
    apply_known_failures,
    read_known_failures,
)
from fairvec.runner.options import (
    AdapterLimits,
    ReleaseOptions,
    RunOptions,
    SelectionOptions,
)
from fairvec.runner.outcome import (
    EXIT_OK,
    check_report_paths,
    coverage,
    hello_warnings,
    outcome,
    report_status,
    run_warnings,
    selection_warnings,
    write_reports,
)
from fairvec.runner.process import (
    AdapterProcess,
    AdapterStartError,
    RunnerResourceError,
    become_subreaper,
)
from fairvec.runner.protocol import Hello, parse_hello
from fairvec.runner.results import KnownFailure, Result, Tally, UnreadFile, Work
from fairvec.runner.selection import (
    Filler,
    Selection,
    nothing_selected,
    select,
    suite_algorithms,
    wanted,
)
from fairvec.runner.session import (
    AnySession,
    ParallelSession,
    Session,
    in_vector_order,
    jobs_for,
)
from fairvec.runner.unread_skips import with_unread_skips
from fairvec.vectorfiles import VectorFile, cache_folder

if TYPE_CHECKING:  # the release's tools are imported only for --suite
    from fairvec.release.verify import VerifiedSuite


def run(options: RunOptions) -> int:
    """The run's exit status (0 all passed, 1 failures, 2 the run could not be trusted);
    a usage error (fairvec exits 2 with its message) is raised as a FairvecError."""
    listed = options.known_failures
    inputs = [("--known-failures", listed)] if listed else []
    check_report_paths(options.reports.json, options.reports.junit, inputs=inputs)
    # read before the adapter starts: a bad list is a usage error, not a wasted run
    known = read_known_failures(options.known_failures) if options.known_failures else []
    # verified before anything in it is read
    with verified_release(options.release, options.selection.vectors) as release:
        if release is not None:  # its vectors are the ones selected from
            selection = options.selection._replace(vectors=release.vectors)
            options = options._replace(selection=selection)
        become_subreaper()  # so a descendant that escapes the adapter's group is still ours
        # SIGTERM and SIGHUP stop the run as Ctrl-C does, up to the last report written.
        with stopping_signals_raise():
            return _run_and_report(options, release, known)


@contextmanager
def verified_release(
    release: ReleaseOptions, vectors: Path | None
) -> Iterator[VerifiedSuite | None]:
    """With --suite, the release verified against --trusted-key and extracted to a
    temporary folder (deleted afterwards); else None. ``vectors``: the --vectors given,
    which a release replaces (so both cannot be given)."""
    if release.archive is None:
        if release.trusted_key or release.min_version:
            raise FairvecError("--trusted-key and --min-version go with --suite ARCHIVE")
        yield None
        return
    if vectors is not None:
        raise FairvecError("give either --suite ARCHIVE or --vectors DIR, not both")
    if release.trusted_key is None:
        raise FairvecError(
            f"--suite {release.archive}: give --trusted-key KEY (an allowed_signers file, an "
            "OpenSSH or a minisign public key); a release is run only once verified"
        )
    # only with --suite: the release code and its extra
    from fairvec.release.refusals import require_release_extra
    from fairvec.release.verify import open_verified_suite

    require_release_extra("fairvec run --suite")  # named as the user typed it
    with open_verified_suite(release.archive, release.trusted_key, release.min_version) as suite:
        yield suite


class _Ran(NamedTuple):  # (not a dataclass: see runner/results.py)
    """What the vectors' run left for the reports."""

    selection: Selection
    chosen: list[accumulated_run.Accumulated]  # the accumulated vectors, run after the others
    streams: fresh_streams.FreshStreamPlan | None  # the fresh streams made beside them
    session: AnySession  # closed
    results: list[Result]
    restarts: int  # of the accumulated vectors' adapter (the session counts its own)
    started_at: str  # ISO 8601, UTC
    duration: float  # seconds
    claimed: _Claimed
    unselected: UnselectedFiles | None  # for the suite's digest (None: from a release)
    # the files not read whose skips are not among the results: the tally counts them
    uncounted: tuple[UnreadFile, ...]


class _Claimed(NamedTuple):
    """The works as the adapter's claims (and --fix) leave them (runner/claims.py)."""

    claims: Claims
    works: list[Work]  # to send: the committed vectors holding the pins, then fresh ones
    skipped: list[Result]  # the committed vectors the claims skip
    order: list[Work]  # every vector's place in the report
    chosen: list[accumulated_run.Accumulated]  # the accumulated vectors to run
    accumulated_skipped: list[Result]
    plan: FreshPlan | None


def _may_select_fresh(options: RunOptions) -> bool:
    """Whether fresh vectors could be selected where no committed one is: --fix makes
    some, and a hello's pins may, which only --tag pinned or -k pinned selects alone."""
    chose = options.selection
    return bool(options.pins.fixes) or any(
        PINNED_TAG in word for word in (*chose.tags, *chose.keywords)
    )


def _claimed(
    options: RunOptions,
    selection: Selection,
    chosen: list[accumulated_run.Accumulated],
    hello: Hello,
    filler: Filler,
) -> _Claimed:
    claims = resolve(hello, options.pins.fixes, selection.files)
    if not claims:  # the usual run: nothing to do
        if not (selection.works or chosen or _unread_count(selection)):
            raise nothing_selected(options.selection.root, options.selection.algorithms)
        return _Claimed(claims, selection.works, [], selection.works, chosen, [], None)
    filler.fill(hello.algorithms)  # pins and claimed outputs are checked on whole vectors
    fresh, plan = fresh_works(claims, selection.files, hello, options.pins)
    chose = options.selection
    fresh = [
        work
        for work in fresh
        if wanted(work.vector, chose.keywords, set(chose.tags), set(chose.excluded_tags))
    ]
    if plan is not None:
        print(
            f"fairvec: {len(fresh):,} fresh vector(s) on the pinned inputs, seed {plan.seed} "
            f"(replay with --pinned-seed {plan.seed})",
            file=sys.stderr,
        )
    order = selection.works + fresh
    works, skipped = apply(order, claims, hello.algorithms)
    partial = options.streams.digest is not None  # the reference digests the fields claimed
    kept, accumulated_skipped = accumulated_run.claimed_for_run(chosen, claims, partial=partial)
    if not (order or kept or accumulated_skipped or _unread_count(selection)):
        raise nothing_selected(chose.root, chose.algorithms)
    return _Claimed(claims, works, skipped, order, kept, accumulated_skipped, plan)


def _run_and_report(
    options: RunOptions, release: VerifiedSuite | None, known: list[KnownFailure]
) -> int:
    ran = _run_vectors(options, known)
    reports = options.reports
    if ran.selection.unread and (known or reports.json is not None or reports.junit is not None):
        # each vector listed, or judged against the list: the unread files' skips made
        results = with_unread_skips(ran.results, ran.selection, options.selection)
        ran = ran._replace(results=results, uncounted=())
    apply_known_failures(ran.results, known)
    return _report(options, release, known, ran)


def _unread_count(selection: Selection) -> int:
    """The vectors selected of the files not read (all skipped)."""
    return sum(file.selected for file in selection.unread)


class _EarlyHello:
    """select's ``undeclared`` for fairvec run: whether the adapter's hello, once it has
    come, leaves an algorithm out. Looked at before each file is loaded, without waiting
    and without taking it (the session reads and checks it as ever): a fast port greets
    while the first files load, and the files of the algorithms it does not declare are
    then only counted (runner/selected_counts.py). Until the hello comes, or if it cannot
    be read (the session then says why), nothing is known: every file is loaded."""

    def __init__(self, process: AdapterProcess | None) -> None:
        self._process = process
        self._algorithms: dict[str, list[str]] | None = None

    def undeclared(self, algorithm: str) -> bool:
        if self._algorithms is None and self._process is not None:
            self._look()
        return self._algorithms is not None and algorithm not in self._algorithms

    def _look(self) -> None:
        assert self._process is not None
        for event in self._process.peek():
            if event.kind == "stderr":
                continue
            if event.kind == "stdout":
                with suppress(ValueError):
                    self._algorithms = parse_hello(event.line).algorithms
            self._process = None  # the first line decides: look no more
            return


def _may_leave_unread(options: RunOptions) -> bool:
    """Whether the files of undeclared algorithms may go unread: when no accumulated
    vector is selected (they are in the files) and no --fix names an algorithm (checked
    against the files)."""
    return options.selection.tier == "none" and not options.pins.fixes


def _listed(known: list[KnownFailure], works: list[Work]) -> set[str]:
    """The ids of ``works`` that --known-failures lists."""
    if not known:
        return set()
    index = KnownFailureIndex(known)
    return {work.vector["id"] for work in works if index.find(work.vector["id"]) is not None}


def _run_vectors(options: RunOptions, known: list[KnownFailure]) -> _Ran:
    command = list(options.command)
    # The adapter starts first, and gets ready on another core while the vectors load.
    with _spawned_early(command, options.limits) as early:
        hello = _EarlyHello(early) if _may_leave_unread(options) else None
        selection = select(
            options.selection, none_ok=True, freeze=True, skeletal=True,
            undeclared=None if hello is None else hello.undeclared,
        )  # fmt: skip
        chosen = _accumulated_for(options.selection, selection.files)
        # A selection of no vector is refused now, before the hello, unless fresh vectors
        # on pinned inputs (made once the hello is read) may be what it selects.
        selected = selection.works or chosen or _unread_count(selection)
        if not (selected or _may_select_fresh(options)):
            raise nothing_selected(options.selection.root, options.selection.algorithms)
        works = selection.works
        # read and hashed for the suite's digest while the run goes on (a release has it)
        unselected = None
        if options.release.archive is None:
            unselected = UnselectedFiles(options.selection.root, selection)
        # (as datetime's isoformat would write it, without importing datetime: 1.4 ms)
        started_at = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())
        clock = time.monotonic()
        counts = progress_module.Progress(len(works), _stream_sizes(chosen))
        how = progress_module.kind(options.reports.progress, sys.stderr)
        with progress_module.shown(counts, how):
            advance = no_progress if how == "none" else counts.vector_done
            # each file the hello's algorithms need is read whole as its first vector goes,
            # unless its requests and answers are remembered (runner/answer_memo.py)
            memo = AnswerMemo(cache_folder(), selection.files)
            filler = Filler(selection)
            session = _start_session(command, options, advance, len(works), early, filler, memo)
            try:
                claimed = _claimed(options, selection, chosen, session.hello, filler)
                # (see answer_memo: nor for a signed release, which trusts nothing local)
                memo.enabled &= not claimed.claims and options.release.archive is None
                memo.exempt = _listed(known, works)
                # the streams no file holds: fresh ones, and a partial claim's fields
                fresh = fresh_streams.InBackground(
                    claimed.chosen, session.hello, options.streams,
                    options.selection.excluded_tags,
                )  # fmt: skip
                results = session.run(claimed.works)
                memo.check_served()
                # the vectors that did not pass, whole in the reports (a stopped run's too)
                filler.fill({r.algorithm for r in results if r.status not in ("pass", "skip")})
                memo.check_requests(results)
                port = accumulated_run.PortOptions(
                    options.oracle, _checkpoint_note(counts), session.warnings.append
                )
                to_stream, stream_plan = fresh.result()
                counts.add_streams(_stream_sizes(to_stream))
                streamed, restarts = accumulated_run.run_for_run(
                    command, to_stream, lambda done: counts.stream_done(done.id),
                    port=port, jobs=options.jobs, case_seconds=_case_seconds(results, to_stream),
                    **options.limits.session_keywords(),
                )  # fmt: skip
                results = in_vector_order(results + claimed.skipped, claimed.order) + streamed
                results += claimed.accumulated_skipped
                memo.save()
            except RunnerResourceError as error:
                raise FairvecError(
                    f"the runner itself: {error} (raise the limit: ulimit -n)"
                ) from None
            finally:
                session.close()
        duration = time.monotonic() - clock
    return _Ran(
        selection, chosen, stream_plan, session, results, restarts, started_at, duration, claimed,
        unselected, uncounted=selection.unread,
    )  # fmt: skip


def _report(
    options: RunOptions, release: VerifiedSuite | None, known: list[KnownFailure], ran: _Ran
) -> int:
    """The warnings, the digests and the reports; the exit status."""
    session, results, fail_on_skip = ran.session, ran.results, options.reports.fail_on_skip
    # counted once, for the warnings, the status and the reports
    tally = Tally(results, ran.uncounted)
    suite_ids = suite_algorithms(options.selection.root)
    warnings = hello_warnings(session.hello, suite_ids, ran.selection.variants)
    warnings += session.warnings
    warnings += run_warnings(session, tally, fail_on_skip=fail_on_skip)
    warnings += selection_warnings(options.selection.excluded_tags)
    status = outcome(session, results, tally, fail_on_skip=fail_on_skip)
    suite, run_digest = digests(  # after the run
        options.selection, release, options.release.archive, ran.selection, ran.chosen,
        ran.unselected,
    )  # fmt: skip
    # the reports: once the run is over (start-up)
    from fairvec.runner.report import RunInfo

    info = RunInfo(
        suite_version=suite.version,
        vectors_digest=run_digest,
        adapter_name=session.hello.name,
        adapter_version=session.hello.version,
        command=list(options.command),
        started_at=ran.started_at,
        duration_seconds=ran.duration,
        restarts=session.restarts + ran.restarts,
        coverage=coverage(
            options.selection,
            suite,
            session.hello,
            known,
            attested(ran.claimed.claims, ran.claimed.plan),
            fresh_streams.attested(ran.streams),
        ),
        hostname=_hostname(),
        warnings=warnings,
        success=status == EXIT_OK,
    )
    write_reports(options.reports, info, results, tally)
    return report_status(session, results, tally, status)


def _accumulated_for(
    selection: SelectionOptions, files: list[VectorFile]
) -> list[accumulated_run.Accumulated]:
    """The accumulated vectors of the files loaded, by the same filters and --tier."""
    return accumulated_run.select_for_run(
        files,
        keywords=selection.keywords,
        tags=selection.tags,
        excluded_tags=selection.excluded_tags,
        tier=selection.tier,
    )


def _hostname() -> str:
    """The report's host name: uname's node name, which is what socket.gethostname returns
    on POSIX, without importing socket (3 ms, after the run); socket elsewhere."""
    if hasattr(os, "uname"):
        return os.uname().nodename
    import socket

    return socket.gethostname()


@contextmanager
def _spawned_early(command: list[str], limits: AdapterLimits) -> Iterator[AdapterProcess | None]:
    """The adapter, started before the vector files are read, for the session to take
    over (its hello is awaited there). Whatever happens before that (a bad vector file, a
    bad selection, Ctrl-C, SIGTERM) kills it on the way out: nothing is left running. If it
    cannot even be started, None: the session tries again and says why, at the point where
    it always did (so a usage error found while loading still comes first)."""
    try:
        process: AdapterProcess | None = AdapterProcess(command, max_line=limits.max_line)
    except (AdapterStartError, RunnerResourceError):
        process = None
    try:
        yield process
    finally:
        if process is not None:
            process.kill()  # a no-op once the session has ended it


def _start_session(
    command: list[str],
    options: RunOptions,
    advance: Callable[[], None],
    vectors: int,
    process: AdapterProcess | None,
    filler: Filler,
    memo: AnswerMemo,
) -> AnySession:
    """``process``: the adapter already started (_spawned_early), taken over as the first
    session's; with -j N the others are started here. The filler's hooks and the memo:
    see Session."""
    keywords = options.limits.session_keywords()
    keywords.update(before_send=filler.before_send, before_judge=filler.before_send, memo=memo)
    if advance is not no_progress:  # (else each of thousands of skips would call it)
        keywords["on_result"] = lambda _result: advance()
    jobs = jobs_for(options.jobs, vectors)
    try:
        if jobs > 1:
            return ParallelSession(command, jobs=jobs, process=process, **keywords)
        return Session(command, process=process, **keywords)
    except AdapterStartError as error:
        raise FairvecError(f"adapter {' '.join(command)}: {error}") from None
    except RunnerResourceError as error:
        raise FairvecError(f"the runner itself: {error} (raise the limit: ulimit -n)") from None


def no_progress() -> None:
    """The advance when no progress is shown."""


def _case_seconds(
    results: list[Result], streams: list[accumulated_run.Accumulated]
) -> dict[str, float]:
    """Each algorithm's median seconds a fixed vector took (its answer's time as the oldest
    request in flight): what a case of its stream will cost, roughly, to start the
    costliest streams first (accumulated_run.first_costliest). The median, so that a few
    slow vectors (chain walks) do not make a cheap algorithm's stream look costly. Nothing
    without streams (statistics' import, with decimal's and fractions', is 10 ms of a
    run)."""
    if not streams:
        return {}
    from statistics import median

    taken: dict[str, list[float]] = {}
    for result in results:
        if result.status == "pass":
            taken.setdefault(result.algorithm, []).append(result.seconds)
    return {algorithm: median(seconds) for algorithm, seconds in taken.items()}


def _stream_sizes(chosen: list[accumulated_run.Accumulated]) -> dict[str, tuple[int, int]]:
    """Each accumulated vector's cases and block, for the progress counts."""
    return {one.id: (one.count, one.block) for one in chosen}


def _checkpoint_note(counts: progress_module.Progress) -> Callable[[str, int, int], None]:
    """A stream's blocks as they are answered (by the adapter, or streamed by the runner):
    counted, and named beside the bar (accumulated_by_port.py, accumulated_run.py)."""

    def noted(vector_id: str, block: int, blocks: int) -> None:
        counts.block_done(vector_id, block)
        counts.note(f"{vector_id}: block {block} of {blocks}")

    return noted
