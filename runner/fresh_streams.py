"""Accumulated streams whose expected digests no file holds (docs/accumulated.md, "Fresh
streams and partial ports"; issue 34, items 1 and 2).

A committed stream's digest and checkpoints are in the installed vector file: an adapter
that copies ``accumulated[].expected`` into its answer passed every one of them without
computing anything. So every run also draws, beside each committed stream it runs, a short
*fresh* stream of the same field generators from a seed drawn at run time (printed, in the
JSON report, and replayed by --fresh-seed), whose expected digest the reference computes
beside the runner. And a port that claims only some output fields (the hello's
``outputs``) is judged on a committed stream through the digest of those fields alone,
computed the same way.

The reference is not imported here: the command (fairvec/cli.py) hands in a
``StreamDigest`` (fairvec/fuzz/fresh.py), as it hands in the fresh vectors on pinned
inputs (docs/maintaining.md, "The dependency rule").
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from fairvec.runner.accumulated_run import Accumulated
from fairvec.runner.threads import join_awake

if TYPE_CHECKING:
    from fairvec.data_model import AccumulatedVector
    from fairvec.runner.protocol import Hello

FRESH_TAG = "accumulated-fresh"  # the tag of the fresh streams (--exclude-tag drops them)
FRESH_SUFFIX = "-fresh"  # casino.mines/accumulated@hex-text -> .../accumulated-fresh@hex-text
# Cases of a fresh stream beside a 10,000-case committed one (a stream made shorter because
# each case is costly gets as many fewer, at least one): measured in docs/accumulated.md,
# "Costs": beside the 23 committed streams, 2.2 s of the runner's CPU, most of it the
# reference's start (its imports, the specs it reads, BLS12-381 for bustabit.vx_game).
DEFAULT_FRESH_CASES = 20

# the reference's checkpoints: (algorithm, variant, stream, count, block, fields) -> the
# checkpoints, the last the digest (fields: a partial claim's, each output cut to them)
StreamDigest = Callable[
    [str, "str | None", dict[str, Any], int, int, "tuple[str, ...] | None"], list[str]
]


class StreamOptions:
    """--fresh-cases and --fresh-seed, and the reference's digest (None: no stream is made
    at run time, and a partial port's streams are skipped as before). (A plain class: a
    named tuple's field may not be called ``count``.)"""

    __slots__ = ("cases", "digest", "seed")

    def __init__(
        self,
        cases: int = DEFAULT_FRESH_CASES,
        seed: str | None = None,
        digest: StreamDigest | None = None,
    ) -> None:
        self.cases = cases
        self.seed = seed
        self.digest = digest


class FreshStreamPlan:
    """What the attestation says of the fresh streams: the seed, and each stream's id and
    cases."""

    __slots__ = ("cases", "seed", "streams")

    def __init__(self, seed: str, cases: int) -> None:
        self.seed = seed
        self.cases = cases
        self.streams: dict[str, int] = {}  # fresh stream id -> its cases

    def attested(self) -> dict[str, Any]:
        return {"seed": self.seed, "cases": self.cases, "streams": dict(self.streams)}


def attested(plan: FreshStreamPlan | None) -> dict[str, Any] | None:
    return None if plan is None else plan.attested()


def fresh_count(cases: int, committed: int) -> int:
    """A fresh stream's cases: ``cases`` beside a 10,000-case committed stream, in
    proportion beside a shorter one (bustabit.vx_game's 50 costly cases: 1), at least 1."""
    from fairvec import accumulated_digest  # (here: a run of fixed vectors never needs it)

    default = accumulated_digest.TIERS["default"]
    return max(1, -(-cases * min(committed, default) // default))


def fresh_id(committed_id: str) -> str:
    """The fresh stream's id: the committed default tier's name + ``-fresh`` (the full tier
    and the default one give the same)."""
    from fairvec import accumulated_digest  # (as above)

    head, at, variant = committed_id.partition("@")
    return head.removesuffix(accumulated_digest.FULL_SUFFIX) + FRESH_SUFFIX + at + variant


def fresh_entry(committed: AccumulatedVector, seed: str, cases: int) -> AccumulatedVector:
    """A stream of ``committed``'s field generators (pinned constants included) drawn from
    the run's ``seed``; its expected digests are filled in by ``with_digests``."""
    from fairvec import accumulated_digest  # (as above)

    count = fresh_count(cases, committed["count"])
    stream = committed["stream"]
    return {
        "id": fresh_id(committed["id"]),
        "variant": committed["variant"],
        "tier": "default",
        "stream": {"seed": f"{stream['seed']}/fresh/{seed}", "input": stream["input"]},
        "encoding": committed["encoding"],
        "count": count,
        "block": accumulated_digest.default_block(count),
        "expected": {"digest": "", "checkpoints": []},
        "tags": [*(t for t in committed["tags"] if t != "accumulated-full"), FRESH_TAG],
        "provenance": {"fresh": True, "seed": seed, "beside": committed["id"]},
    }


def for_run(
    chosen: Sequence[Accumulated],
    hello: Hello,
    options: StreamOptions,
    excluded_tags: Sequence[str] = (),
) -> tuple[list[Accumulated], FreshStreamPlan | None]:
    """``chosen`` with their digests computed where they are a partial claim's, then a
    fresh stream beside each one the adapter declares (algorithm and variant), unless
    ``options`` asks for none or --exclude-tag drops them. The plan is None when no fresh
    stream is made."""
    digest = options.digest
    if digest is None:
        return list(chosen), None
    declared = [one for one in chosen if _declared(one, hello)]
    plan = None
    fresh: list[Accumulated] = []
    if options.cases > 0 and FRESH_TAG not in excluded_tags and declared:
        import secrets

        plan = FreshStreamPlan(options.seed or secrets.token_hex(8), options.cases)
        for one in declared:
            entry = fresh_entry(one.entry, plan.seed, options.cases)
            plan.streams[entry["id"]] = entry["count"]
            fresh.append(Accumulated(entry, one.algorithm, one.fields))
    made = [
        with_digests(one, digest) if one.fields is not None and _declared(one, hello) else one
        for one in chosen
    ]
    return made + [with_digests(one, digest) for one in fresh], plan


class InBackground:
    """:func:`for_run` on a thread started here, while the fixed vectors run: its digests
    are the reference's work (2.2 s of CPU for the 23 default streams), done after the
    fixed vectors they left every adapter idle (issue 35). :meth:`result` waits for it,
    says the plan's seed on stderr (after the fixed vectors, as before: not through a
    progress bar), and raises what it raised."""

    def __init__(
        self, chosen: Sequence[Accumulated], hello: Hello, options: StreamOptions,
        excluded_tags: Sequence[str] = (),
    ) -> None:  # fmt: skip
        self._made: tuple[list[Accumulated], FreshStreamPlan | None] | None = None
        self._error: BaseException | None = None
        arguments = (chosen, hello, options, excluded_tags)
        self._committed = len(chosen)  # for_run's list: these, then the fresh ones
        # a daemon: a run that stops early (Ctrl-C, a crashed port) never waits for it
        self._thread = threading.Thread(target=self._make, args=arguments, daemon=True)
        self._thread.start()

    def _make(self, *arguments: Any) -> None:
        try:
            self._made = for_run(*arguments)
        except BaseException as error:  # handed to result(), in the main thread
            self._error = error

    def result(self) -> tuple[list[Accumulated], FreshStreamPlan | None]:
        join_awake(self._thread)
        if self._error is not None:
            raise self._error
        assert self._made is not None
        made, plan = self._made
        if plan is not None:
            print(
                f"fairvec: {len(made) - self._committed} fresh accumulated stream(s), seed "
                f"{plan.seed} (replay with --fresh-seed {plan.seed})",
                file=sys.stderr,
            )
        return made, plan


def _declared(one: Accumulated, hello: Hello) -> bool:
    variants = hello.algorithms.get(one.algorithm)
    return variants is not None and (one.variant is None or one.variant in variants)


def with_digests(one: Accumulated, digest: StreamDigest) -> Accumulated:
    """``one`` with the reference's digests: of its fields only under a partial claim."""
    entry = one.entry
    checkpoints = digest(
        one.algorithm, one.variant, dict(entry["stream"]), entry["count"], entry["block"],
        one.fields,
    )  # fmt: skip
    provenance = dict(entry["provenance"])
    if one.fields is not None:
        provenance["fields"] = list(one.fields)
    made: AccumulatedVector = {
        **entry,
        "expected": {"digest": checkpoints[-1], "checkpoints": checkpoints},
        "provenance": provenance,
    }
    return Accumulated(made, one.algorithm, one.fields)
