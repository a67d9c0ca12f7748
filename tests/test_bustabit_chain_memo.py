"""The bustabit chain walks' memo (reference/bustabit.py, "the chain walks' memo"): a walk
that jumps remembered segments answers exactly as the plain step-by-step walk does.

Short synthetic chains: landmarks are made frequent (one hash in 16 instead of 4,096) and
the bounds small, so a few thousand steps cross hundreds of segments."""

from __future__ import annotations

import hashlib
import itertools
import random
import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest

from fairvec.reference import bustabit

RULES = bustabit.CHAIN_RULES


@pytest.fixture(autouse=True)
def small_memo(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Landmarks one hash in 16 (first 4 bits zero), segments up to 64 steps, an empty memo."""
    monkeypatch.setattr(bustabit, "LANDMARK_BELOW", {"raw-bytes": b"\x10", "hex-text": b"1"})
    monkeypatch.setattr(bustabit, "MAX_SEGMENT", 64)
    bustabit.forget_walks()
    yield
    bustabit.forget_walks()  # the real landmarks' memo must not hold these


def plain_walk(game_hash: bytes, steps: int, rule: str) -> bytes:
    """The chain rule itself, one hash at a time (no memo, no walk form)."""
    for _ in range(steps):
        text = game_hash.hex().encode("ascii") if rule == "hex-text" else game_hash
        game_hash = hashlib.sha256(text).digest()
    return game_hash


def plain_steps(game_hash: bytes, target: bytes, max_steps: int, rule: str) -> int | None:
    for steps in range(max_steps + 1):
        if game_hash == target:
            return steps
        game_hash = plain_walk(game_hash, 1, rule)
    return None


def start(seed: int) -> bytes:
    return hashlib.sha256(b"chain memo test %d" % seed).digest()


def segments(rule: str) -> dict[bytes, tuple[bytes, int]]:
    return bustabit._segments[rule]


@pytest.mark.parametrize("rule", RULES)
def test_memo_walks_equal_plain_walks(rule: str) -> None:
    """Random lengths from a few starts, and from hashes down their chains (mid-segment
    starts): walks overlap each other, many ride remembered segments."""
    draw = random.Random(f"walks {rule}")
    chains = [plain_chain(start(seed), 1500, rule) for seed in range(3)]
    for _ in range(60):
        chain = draw.choice(chains)
        at = draw.randrange(700)
        steps = draw.randrange(800)
        assert bustabit.walk_exactly(chain[at], steps, rule) == chain[at + steps]
    assert bustabit.remembered_segments() > 100  # the memo was used, not only filled


def plain_chain(game_hash: bytes, length: int, rule: str) -> list[bytes]:
    chain = [game_hash]
    for _ in range(length):
        chain.append(plain_walk(chain[-1], 1, rule))
    return chain


@pytest.mark.parametrize("rule", RULES)
def test_the_memo_saves_the_steps_walked_before(rule: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A walk over a stretch walked before computes at most a segment's steps at each end,
    and the segments too long to remember: without the memo this one costs 2,000 steps."""
    first = start(7)
    end = bustabit.walk_exactly(first, 2000, rule)
    counted = count_hashes(monkeypatch)
    assert bustabit.walk_exactly(first, 2000, rule) == end
    assert len(counted) < 400  # (the segments longer than MAX_SEGMENT are walked)


def count_hashes(monkeypatch: pytest.MonkeyPatch) -> list[None]:
    """A list that grows by one for each SHA-256 the reference computes from now on."""
    counted: list[None] = []
    real = hashlib.sha256

    def counting(data: bytes = b"") -> Any:
        counted.append(None)
        return real(data)

    monkeypatch.setattr(bustabit.hashlib, "sha256", counting)
    return counted


@pytest.mark.parametrize("rule", RULES)
def test_walk_chain_finds_a_target_inside_a_remembered_segment(rule: str) -> None:
    """Every hash of a walked stretch as the target, from the stretch's start: the answer
    is its first step count, also where it lies inside a segment the walk could jump."""
    chain = plain_chain(start(11), 600, rule)
    bustabit.walk_exactly(chain[0], 600, rule)  # remembers the stretch's segments
    inside = [
        steps for steps, value in enumerate(chain)
        if steps and not bustabit._is_landmark(bustabit._walk_form(value, rule), rule)
    ]  # fmt: skip
    assert len(inside) > 400
    for steps in range(len(chain)):
        assert bustabit.walk_chain(chain[0], chain[steps], 600, rule) == steps


@pytest.mark.parametrize("rule", RULES)
def test_walk_chain_agrees_with_the_plain_walk(rule: str) -> None:
    """Random starts down a remembered chain, targets on it (before and after the start)
    or off it, random max_steps: reached or not, and the steps, as the plain walk says."""
    draw = random.Random(f"chain {rule}")
    chain = plain_chain(start(13), 900, rule)
    bustabit.walk_exactly(chain[0], 900, rule)
    for _ in range(80):
        at, max_steps = draw.randrange(400), draw.randrange(500)
        target = draw.choice([draw.choice(chain), start(99)])
        expected = plain_steps(chain[at], target, max_steps, rule)
        assert bustabit.walk_chain(chain[at], target, max_steps, rule) == expected


@pytest.mark.parametrize("rule", RULES)
def test_max_steps_stops_before_a_remembered_segment_ends(rule: str) -> None:
    """Targets p steps on with max_steps p - 1 (not reached) and p (reached), and exact
    walks ending at every step: no jump runs past the bound."""
    chain = plain_chain(start(17), 400, rule)
    bustabit.walk_exactly(chain[0], 400, rule)
    for steps in range(1, 401):
        assert bustabit.walk_chain(chain[0], chain[steps], steps - 1, rule) is None
        assert bustabit.walk_chain(chain[0], chain[steps], steps, rule) == steps
        assert bustabit.walk_exactly(chain[0], steps, rule) == chain[steps]


@pytest.mark.parametrize("rule", RULES)
def test_a_walk_from_a_remembered_landmark_never_jumps_past_its_limit(rule: str) -> None:
    """Exact walks that start on a remembered landmark, or one step before it, with at
    most the steps of the segment ahead: each ends at its own step count. A jump test that
    let such a walk take the whole segment (the campaign's `taken * d <= limit`, `taken **
    d <= limit`: true at 0 steps taken) would overshoot; only an earlier walk in the same
    process remembers the segment, so no vector can show it (mutation/survivors.yaml)."""
    chain = plain_chain(start(23), 400, rule)
    bustabit.walk_exactly(chain[0], 400, rule)  # remembers the stretch's segments
    table = segments(rule)
    landmarks = [at for at in range(1, 400) if bustabit._walk_form(chain[at], rule) in table]
    assert len(landmarks) > 5
    for at in landmarks:
        length = table[bustabit._walk_form(chain[at], rule)][1]
        for before in (0, 1):
            for steps in range(1, length + before + 1):
                got = bustabit.walk_exactly(chain[at - before], steps, rule)
                assert got == chain[at - before + steps], (at, before, steps)


def test_the_memo_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """At most MEMO_SEGMENTS segments, none longer than MAX_SEGMENT; walks past a full
    memo stay exact."""
    monkeypatch.setattr(bustabit, "MEMO_SEGMENTS", 25)
    monkeypatch.setattr(bustabit, "MAX_SEGMENT", 20)
    for rule in RULES:
        chain = plain_chain(start(19), 1200, rule)
        assert bustabit.walk_exactly(chain[0], 1200, rule) == chain[-1]
        assert bustabit.walk_chain(chain[0], chain[1100], 1200, rule) == 1100
    assert bustabit.remembered_segments() == 25
    assert all(steps <= 20 for table in bustabit._segments.values() for _, steps in table.values())


def test_a_full_memo_stays_within_a_few_megabytes() -> None:
    """The bound in bytes: a remembered segment's cost (measured on 400 of them, the larger
    hex-text form) times MEMO_SEGMENTS, at most 4 MB."""
    first = start(23)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        bustabit.walk_exactly(first, 8000, "hex-text")
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    count = bustabit.remembered_segments()
    assert count > 400
    assert grown / count * bustabit.MEMO_SEGMENTS <= 4_000_000


@pytest.mark.parametrize("rule", RULES)
def test_a_walk_that_starts_on_a_landmark_remembers_its_first_segment_at_its_length(
    rule: str,
) -> None:
    """A walk standing on a landmark at its start remembers the segment to the next
    landmark with that segment's own step count (the campaign's `(value, 1)` and `(value,
    -1)` for the start's landmark_at remembered it one step off: a later walk in the same
    process jumping it would miscount, which no vector can show: mutation/survivors.yaml)."""
    chain = plain_chain(start(29), 400, rule)
    form = [bustabit._walk_form(value, rule) for value in chain]
    landmarks = [at for at, value in enumerate(form) if bustabit._is_landmark(value, rule)]
    pairs = [
        (first, second) for first, second in itertools.pairwise(landmarks)
        if second - first <= bustabit.MAX_SEGMENT
    ]  # fmt: skip
    assert len(pairs) > 5
    for first, second in pairs:
        bustabit.forget_walks()
        bustabit.walk_exactly(chain[first], second - first, rule)  # from a landmark to the next
        assert segments(rule) == {form[first]: (form[second], second - first)}
