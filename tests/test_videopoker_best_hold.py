"""videopoker.best_hold's counting (reference/videopoker.py, hold_counts) against two plain
counts that share none of its per-deal lists (_unseen_draws) or rank codes: every draw
scored one by one with evaluate_hand, and the per-hold count by rank multisets the reference
used before issue 35, kept here whole. Both run on deals chosen for flushes, straights and
repeated ranks, the deals interleaved so a list kept from another deal or draw size shows.
No NumPy; about three seconds of CPU.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Iterator

import pytest

from fairvec.reference import videopoker as vp

DEALS = [
    [49, 17, 46, 39, 40],  # the document's deal: four clubs, J and A
    [9, 10, 11, 12, 25],  # four to a royal (10-K of spades) and an A of hearts
    [0, 1, 2, 3, 4],  # a dealt straight flush, A-5 of spades
    [0, 13, 26, 39, 5],  # four aces
    [9, 22, 10, 11, 7],  # a pair, a flush draw and a straight draw
    *(random.Random(35).sample(range(52), 5) for _ in range(2)),
]
TABLES = list(vp.PAY_TABLES)


def drawn_one_by_one(deal: list[int], held: tuple[int, ...], paytable: str) -> Counter[str]:
    """Every (5 - k)-card draw from the 47 unseen cards, scored as evaluate does."""
    unseen = [card for card in range(52) if card not in deal]
    kept = [deal[position] for position in held]
    return Counter(
        vp.evaluate_hand(kept + list(drawn), paytable)["event"]
        for drawn in itertools.combinations(unseen, 5 - len(held))
    )


# --- the count before issue 35: one hold at a time, nothing shared between holds ---------


def old_rank_multisets(available: list[int], size: int, start: int = 0) -> Iterator[list[int]]:
    if size == 0:
        yield [0] * len(available)
        return
    for rank in range(start, len(available)):
        for take in range(1, min(size, available[rank]) + 1):
            for rest in old_rank_multisets(available, size - take, rank + 1):
                rest[rank] = take
                yield rest


def old_event_of_ranks(ranks: tuple[int, ...], flush: bool, paytable: str) -> str:
    if flush:
        suits = [0] * 5
    elif len(set(ranks)) == 5:
        suits = [1, 0, 0, 0, 0]
    else:
        suits = [ranks[:index].count(rank) for index, rank in enumerate(ranks)]
    category, by_count = vp.hand_category(
        [13 * suit + rank for suit, rank in zip(suits, ranks, strict=True)]
    )
    return vp.pay_event(category, by_count, vp.PAY_TABLES[paytable])


def old_hold_counts(dealt: list[int], held: tuple[int, ...], paytable: str) -> Counter[str]:
    kept = [dealt[position] for position in held]
    kept_ranks = [number % 13 for number in kept]
    available = [4 - sum(number % 13 == rank for number in dealt) for rank in range(13)]
    kept_suits = {number // 13 for number in kept}
    flush_suits = range(4) if not kept else sorted(kept_suits) if len(kept_suits) == 1 else []
    counts: Counter[str] = Counter()
    for drawn in old_rank_multisets(available, 5 - len(kept)):
        ways = math.prod(math.comb(available[r], n) for r, n in enumerate(drawn) if n)
        ranks = tuple(sorted(kept_ranks + [r for r, n in enumerate(drawn) for _ in range(n)]))
        flushes = 0
        if len(set(ranks)) == 5:
            flushes = sum(
                all(13 * suit + r not in dealt for r, n in enumerate(drawn) if n)
                for suit in flush_suits
            )
        if flushes:
            counts[old_event_of_ranks(ranks, True, paytable)] += flushes
        if ways > flushes:
            counts[old_event_of_ranks(ranks, False, paytable)] += ways - flushes
    return counts


# --- the tests ---------------------------------------------------------------------------


def interleaved(
    deals: list[list[int]], holds: list[tuple[int, ...]]
) -> Iterator[tuple[list[int], tuple[int, ...], str]]:
    """Hold by hold, deal by deal (each deal under its own table): consecutive counts never
    share a deal, so a list cached for another deal or draw size would show."""
    for held in holds:
        for index, deal in enumerate(deals):
            yield deal, held, TABLES[index % len(TABLES)]


def test_small_draws_equal_every_draw_scored_one_by_one() -> None:
    # C(47, 2) = 1,081 draws at most: the holds keeping three to five cards
    holds = [held for held in vp.held_masks_in_tie_order() if len(held) >= 3]
    for deal, held, paytable in interleaved(DEALS, holds):
        assert vp.hold_counts(deal, held, paytable) == +drawn_one_by_one(deal, held, paytable)


@pytest.mark.heavy  # every hold
def test_every_hold_equals_the_count_before_issue_35() -> None:
    # the big draws too (up to 6,188 rank multisets, the discard-all hold's four flush
    # suits), on three deals: the royal draw, one suit throughout, a rank all dealt
    deals = DEALS[1:4]
    for deal, held, paytable in interleaved(deals, vp.held_masks_in_tie_order()):
        counts = vp.hold_counts(deal, held, paytable)
        assert counts == old_hold_counts(deal, held, paytable)
        assert sum(counts.values()) == math.comb(47, 5 - len(held))
