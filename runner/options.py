"""What ``fairvec run`` is asked to do, as plain values: the command line builds a
``RunOptions`` from its flags (runner/cli.py, in one place), and the run
(runner/run.py), the selection, the digests and the reports read it. Nothing here knows
about argparse.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from fairvec.runner.claims import PinOptions
from fairvec.runner.fresh_streams import StreamOptions
from fairvec.vectorfiles import default_vectors_root

if TYPE_CHECKING:  # (a run of fixed vectors alone never imports the accumulated modules)
    from fairvec.runner.accumulated_by_port import Oracle


class SelectionOptions(NamedTuple):  # (not a dataclass: see runner/results.py)
    """Which vectors to run: each filter left empty selects everything."""

    vectors: Path | None = None  # the vector folder; None: the installed vectors
    algorithms: tuple[str, ...] = ()  # --algorithm globs
    keywords: tuple[str, ...] = ()  # -k: vector id globs, or text an id contains
    tags: tuple[str, ...] = ()  # --tag: a vector carrying any of them
    excluded_tags: tuple[str, ...] = ()  # --exclude-tag: a vector carrying none of them
    tier: str = "default"  # --tier of the accumulated vectors: default, full or none

    @property
    def root(self) -> Path:
        return self.vectors or default_vectors_root()

    def recorded(self) -> dict[str, list[str]]:
        """The filters as the digest cache keys them and the coverage attestation shows
        them (under the names of the options)."""
        return {
            "algorithm": list(self.algorithms),
            "keyword": list(self.keywords),
            "tag": list(self.tags),
            "exclude_tag": list(self.excluded_tags),
        }


class AdapterLimits(NamedTuple):
    """How each adapter process is driven, and when it is given up on. The field names are
    the session's keyword arguments (runner/session.py)."""

    timeout: float  # seconds per vector
    window: int  # requests sent ahead of the answers
    max_line: int  # bytes in a line from the adapter
    max_crashes: int  # in a row, before the run stops
    max_timeouts: int  # in a row, before the run stops

    def session_keywords(self) -> dict[str, Any]:
        return {
            "timeout": self.timeout,
            "window": self.window,
            "max_line": self.max_line,
            "max_crashes": self.max_crashes,
            "max_timeouts": self.max_timeouts,
        }


class ReleaseOptions(NamedTuple):
    """--suite: a signed release to run, verified first (docs/ci.md)."""

    archive: Path | None  # None: no release, the vectors of SelectionOptions
    trusted_key: Path | None
    min_version: str | None  # an older release is refused (a rollback)


class ReportOptions(NamedTuple):
    json: Path | None  # "-" for standard output
    junit: Path | None
    max_details: int  # failures shown in full on the terminal
    progress: bool  # a progress bar, when stderr is a terminal outside CI
    fail_on_skip: bool  # a skipped vector fails the run


class RunOptions(NamedTuple):
    """Everything ``fairvec run`` was asked for."""

    command: tuple[str, ...]  # the adapter and its arguments
    jobs: int  # adapter processes in parallel, at most
    limits: AdapterLimits
    selection: SelectionOptions
    known_failures: Path | None  # the list of vectors expected to fail
    release: ReleaseOptions
    reports: ReportOptions
    pins: PinOptions = PinOptions()  # (immutable: one for every RunOptions)
    # the reference's answer to one input, given by the command (fairvec/cli.py; the runner
    # never imports the reference): names the first differing case of an accumulated
    # vector an adapter computed itself. None: the report names the block.
    oracle: Oracle | None = None
    # --fresh-cases, --fresh-seed, and the reference's digest of a stream no file holds
    # (runner/fresh_streams.py; given by the command, as ``oracle``)
    streams: StreamOptions = StreamOptions(digest=None)
