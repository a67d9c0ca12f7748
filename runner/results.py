"""What the runner knows of each vector: the work to do and how it ended."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # types only: loading fairvec.data_model costs 2 ms of start-up
    from fairvec.data_model import Shown, Vector


# not-run: the run stopped before the vector was tried (the adapter kept crashing, or
# could not be restarted); the run then exits 2.
STATUSES = ("pass", "fail", "error", "skip", "not-run")
# Why a vector was skipped, as the coverage attestation counts them.
# input-not-pinned: the adapter pins an input (runner/claims.py) the vector does not hold;
# outputs-not-claimed: the vector expects none of the output fields the adapter computes.
SKIP_REASONS = (
    "algorithm-not-declared",
    "variant-not-declared",
    "adapter-unsupported",
    "input-not-pinned",
    "outputs-not-claimed",
)


@dataclass(frozen=True)
class KnownFailure:
    """One --known-failures entry: an id or glob, the reason its comment gives, its line."""

    entry: str
    reason: str
    line: int


@dataclass(slots=True)  # one per vector: slots make it smaller and faster to make
class Result:
    vector: Shown  # the vector it ended (an accumulated vector's shown form), or a stream case
    algorithm: str
    status: str  # one of STATUSES
    message: str = ""
    got: Any = None
    stderr: list[str] = field(default_factory=list)
    known_failure: bool = False
    unexpected_pass: bool = False
    seconds: float = 0.0  # from becoming the oldest unanswered request to its end
    answered_unsupported: bool = False  # a skip the adapter asked for, not one from the hello
    known: KnownFailure | None = None  # the --known-failures entry that lists it
    skip_kind: str | None = None  # which of SKIP_REASONS, when the claims decided it

    @property
    def id(self) -> str:
        return str(self.vector["id"])


@dataclass(slots=True)
class Work:
    vector: Vector  # a stream case of an accumulated vector has only a Request's fields
    algorithm: str
    output_schema: dict[str, Any]
    # a partial claim (runner/claims.py): the output fields judged; None: the whole output
    fields: tuple[str, ...] | None = None


def skip_reason(result: Result, declared: dict[str, list[str]]) -> str:
    """Which of SKIP_REASONS skipped ``result``, given the algorithms and variants the
    adapter's hello declared: the hello decides before anything is sent; an answer of
    unsupported is the adapter's own."""
    if result.skip_kind is not None:
        return result.skip_kind
    if result.answered_unsupported:
        return "adapter-unsupported"
    if result.algorithm not in declared:
        return "algorithm-not-declared"
    return "variant-not-declared"
