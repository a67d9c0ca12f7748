"""The NumPy core of [videopoker.analysis] (reference/videopoker.py analyze_table): for pay
values per final-hand class, every one of the C(52,5) = 2,598,960 deals played with the
hold of highest exact expected value (ties broken as spec/videopoker/best_hold.yaml says),
and every draw of every deal counted by the final hand it makes, in the standard weighting
(each deal weighs lcm(C(47,0), ..., C(47,5)) = 7,669,695, shared equally among the
C(47,k) draws of its hold). Which pay row a class falls in, and the document's division
by 12, are reference/videopoker.py's: this module knows no pay table, and imports no other
part of fairvec (it needs NumPy, the optional extra ``fairvec[analysis]``).

How it is fast:

* ``N_k[S]``: for every set S of k <= 4 cards, how many five-card hands containing S fall
  in each final-hand class; built once from the 2,598,960 hands (one bincount per way of
  choosing k of the 5 positions).
* Inclusion-exclusion: the draws of a hold H from a deal D (never drawing a discarded
  card) are the hands containing H minus, with alternating signs, those containing
  H and some discarded cards: count(H) = sum over T within D - H of (-1)^|T| N[H + T].
  Over the 32 subsets of a deal that is a Moebius transform of 32 lookups.
* Pay sums are linear in the counts, so the 32 expected values of a deal come from 32
  lookups of per-set pay sums (one number, not one per class); the per-class counts of the
  chosen holds are summed at the end through the same identity, per set rather than per deal.
* Suit isomorphism: deals that differ by a renaming of suits play alike, so only the
  134,459 classes are solved, each weighted by its size.

Public: CLASSES and CLASS_EXAMPLES (the final-hand classes), count_final_hands (the whole
count for one table) and hold_pay_sums (the per-deal values, which tests compare with the
readable reference ``videopoker.best_hold``).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Int64s = npt.NDArray[np.int64]

DECK = 52
HAND = 5
DEALS = math.comb(DECK, HAND)  # 2,598,960
LEFT = DECK - HAND  # 47 cards to draw from
# Each deal weighs the lcm of the draw counts, so every draw's share is an integer.
DEAL_WEIGHT = math.lcm(*(math.comb(LEFT, k) for k in range(HAND + 1)))  # 7,669,695
STANDARD_TOTAL = DEALS * DEAL_WEIGHT  # 19,933,230,517,200

# Final-hand classes fine enough for every table reference/videopoker.py reads: the quads
# split as Bonus Poker pays them, the pairs split at tens and jacks. Pay tables map them to
# rows.
CLASSES = (
    "royal-flush", "straight-flush", "four-aces", "four-2s-3s-4s", "four-5s-thru-ks",
    "full-house", "flush", "straight", "three-of-a-kind", "two-pair",
    "pair-jacks-to-aces", "pair-tens", "pair-2s-to-9s", "high-card",
)
# One hand of each class (card n is rank n % 13, A = 0, of suit n // 13): scoring it with the
# reference's evaluate tells which row of a table the class falls in, so the two never differ.
CLASS_EXAMPLES = (
    (0, 9, 10, 11, 12), (1, 2, 3, 4, 5), (0, 13, 26, 39, 1), (1, 14, 27, 40, 0),
    (4, 17, 30, 43, 0), (1, 14, 27, 2, 15), (0, 2, 4, 6, 8), (0, 14, 28, 42, 4),
    (1, 14, 27, 3, 5), (1, 14, 2, 15, 4), (10, 23, 1, 3, 5), (9, 22, 1, 3, 5),
    (8, 21, 1, 3, 5), (0, 15, 30, 45, 11),
)
NCLASS = len(CLASSES)
MASKS = range(1 << HAND)  # bit i set = position i+1 held
POPCOUNT = np.array([bin(m).count("1") for m in MASKS])
# Share of a deal's weight each draw of a hold gets, by mask: lcm / C(47, cards drawn).
DRAW_SHARE = np.array([DEAL_WEIGHT // math.comb(LEFT, HAND - c) for c in POPCOUNT], np.int64)


def _tie_order() -> list[int]:
    """Masks in the spec's order for equal values: more cards held first, then the held
    positions (ascending) compared as lists, the smaller first."""
    def key(mask: int) -> tuple[int, list[int]]:
        return -bin(mask).count("1"), [i for i in range(HAND) if mask >> i & 1]

    return sorted(MASKS, key=key)


TIE_ORDER = np.array(_tie_order())


# --- the pay-table-independent part (built once per process) ----------------------------


@dataclass(frozen=True)
class _Deck:
    counts: list[Int64s]  # counts[k][rank of a k-card set] = hands containing it, by class
    weights: Int64s  # how many deals each class stands for
    deal_class: Int64s  # the final-hand class of each class's deal as dealt
    deal_keys: Int64s  # each class's key, also the card set of the deal standing for it
    subset_ranks: Int64s  # (mask, class) -> rank of the held cards among sets of their size
    keys: Int64s  # suit-class key of every deal, for the rare classes that must be split


BINOMIAL = np.array([[math.comb(n, k) for k in range(HAND + 1)] for n in range(DECK + 1)])


def _combinations(n: int, k: int) -> npt.NDArray[np.int8]:
    """All k-sets of range(n), cards ascending, in lexicographic order (vectorised)."""
    tails = np.arange(n, dtype=np.int8)[:, None]  # 1-sets
    for _ in range(k - 1):
        blocks = [
            np.hstack([np.full((int((tails[:, 0] > head).sum()), 1), head, np.int8),
                       tails[tails[:, 0] > head]])
            for head in range(n)
        ]
        tails = np.vstack([b for b in blocks if len(b)])
    return tails


def _colex_rank(cards: npt.NDArray[np.int8], positions: Sequence[int]) -> Int64s:
    """Rank of the cards at ``positions`` (ascending) among all sets of that size:
    sum of C(card_j, j+1), the combinatorial number system."""
    rank = np.zeros(len(cards), np.int64)
    for j, position in enumerate(positions):
        rank += BINOMIAL[:, j + 1][cards[:, position]]
    return rank


# Bit masks of ranks (A = bit 0 ... K = bit 12) that are straights; 10-J-Q-K-A is royal.
_STRAIGHTS = [0b1111 << 9 | 1] + [0b11111 << low for low in range(9)]
_IS_STRAIGHT = np.zeros(1 << 13, bool)
_IS_STRAIGHT[_STRAIGHTS] = True
# Number of equal pairs among the five ranks -> shape: 1 pair, 2 two pair, 3 trips,
# 4 full house, 6 quads.
_PAIR, _TWO_PAIR, _TRIPS, _FULL, _QUADS = 1, 2, 3, 4, 6


def _classify(hands: npt.NDArray[np.int8]) -> npt.NDArray[np.int8]:
    """The final-hand class (index into CLASSES) of every hand (cards ascending)."""
    ranks = hands % 13
    high = (ranks + 12) % 13  # 2 is 0, ..., K is 11, A is 12
    equal_pairs = np.zeros(len(hands), np.int8)
    paired_rank = np.full(len(hands), -1, np.int8)  # the rank of some equal pair
    for i, j in itertools.combinations(range(HAND), 2):
        same = ranks[:, i] == ranks[:, j]
        equal_pairs += same
        paired_rank = np.where(same, high[:, i], paired_rank)
    rank_set = np.zeros(len(hands), np.int64)
    for j in range(HAND):
        rank_set |= np.int64(1) << ranks[:, j].astype(np.int64)
    straight = _IS_STRAIGHT[rank_set]
    suits = hands // 13
    flush = suits[:, 0] == suits[:, -1]  # cards ascend, so suits do too
    c = CLASSES.index
    out = np.full(len(hands), c("high-card"), np.int8)
    paired = equal_pairs == _PAIR
    out[paired] = np.select(
        [paired_rank[paired] >= 9, paired_rank[paired] == 8],
        [c("pair-jacks-to-aces"), c("pair-tens")],
        c("pair-2s-to-9s"),
    )
    out[equal_pairs == _TWO_PAIR] = c("two-pair")
    out[equal_pairs == _TRIPS] = c("three-of-a-kind")
    out[straight] = c("straight")
    out[flush] = c("flush")
    out[equal_pairs == _FULL] = c("full-house")
    quads = equal_pairs == _QUADS
    out[quads] = np.select(
        [paired_rank[quads] == 12, paired_rank[quads] <= 2],
        [c("four-aces"), c("four-2s-3s-4s")],
        c("four-5s-thru-ks"),
    )
    out[straight & flush] = c("straight-flush")
    out[straight & flush & (rank_set == _STRAIGHTS[0])] = c("royal-flush")
    return out


def _held_positions(mask: int) -> list[int]:
    return [i for i in range(HAND) if mask >> i & 1]


def _subset_counts(hands: npt.NDArray[np.int8], hand_class: npt.NDArray[np.int8]) -> list[Int64s]:
    """counts[k][S]: hands containing the k-set S, by class. The 4-sets are counted from the
    hands; each smaller table from the next: a hand holding a k-set T holds 5 - k of the
    (k+1)-sets containing T, so counts[k][T] = sum of counts[k+1][T + card] / (5 - k)."""
    cells = np.zeros(math.comb(DECK, HAND - 1) * NCLASS, np.int64)
    for positions in itertools.combinations(range(HAND), HAND - 1):
        ranks = _colex_rank(hands, positions) * NCLASS + hand_class
        cells += np.bincount(ranks, minlength=len(cells))
    counts = [cells.reshape(-1, NCLASS)]
    for size in range(HAND - 1, 0, -1):
        sets = _combinations(DECK, size)
        larger = counts[0][_colex_rank(sets, range(size))]
        smaller = np.zeros((math.comb(DECK, size - 1), NCLASS), np.int64)
        cells = (np.arange(NCLASS) + np.zeros((len(sets), 1), np.int64)).ravel()
        for positions in itertools.combinations(range(size), size - 1):
            target = np.repeat(_colex_rank(sets, positions) * NCLASS, NCLASS) + cells
            # float sums of integers are exact below 2^53 (here below 2^22)
            smaller += np.bincount(
                target, weights=larger.ravel(), minlength=smaller.size
            ).astype(np.int64).reshape(smaller.shape)
        counts.insert(0, smaller // (HAND - size + 1))
    return counts


def _suit_keys(hands: npt.NDArray[np.int8]) -> Int64s:
    """A key no renaming of suits changes: the four suits' rank sets, sorted."""
    cards = np.zeros(len(hands), np.int64)
    for j in range(HAND):
        cards |= np.int64(1) << hands[:, j].astype(np.int64)
    a, b, c, d = (cards >> 13 * suit & 0x1FFF for suit in range(4))
    # a sorting network for four values
    a, b = np.minimum(a, b), np.maximum(a, b)
    c, d = np.minimum(c, d), np.maximum(c, d)
    a, c = np.minimum(a, c), np.maximum(a, c)
    b, d = np.minimum(b, d), np.maximum(b, d)
    b, c = np.minimum(b, c), np.maximum(b, c)
    key: Int64s = a | b << 13 | c << 26 | d << 39
    return key


def _mask_ranks(deals: npt.NDArray[np.int8]) -> Int64s:
    return np.stack([_colex_rank(deals, _held_positions(mask)) for mask in MASKS])


@functools.cache
def _hands() -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8]]:
    hands = _combinations(DECK, HAND)
    return hands, _classify(hands)


def _cards_of(masks: Int64s) -> npt.NDArray[np.int8]:
    """The five cards, ascending, of each 52-bit card set (bit n = card n)."""
    bits = (masks[:, None] >> np.arange(DECK, dtype=np.int64)) & 1
    cards: npt.NDArray[np.int8] = np.nonzero(bits)[1].astype(np.int8).reshape(-1, HAND)
    return cards


@functools.cache
def _deck() -> _Deck:
    hands, hand_class = _hands()
    keys = _suit_keys(hands)
    # A key is also the card set of one deal of its class (suit i gets the i-th smallest
    # rank set): that deal stands for the class.
    unique_keys, sizes = np.unique(keys, return_counts=True)
    deals = _cards_of(unique_keys)
    return _Deck(
        counts=_subset_counts(hands, hand_class),
        weights=sizes.astype(np.int64),
        deal_class=_classify(deals).astype(np.int64),
        deal_keys=unique_keys,
        subset_ranks=_mask_ranks(deals),
        keys=keys,
    )


# --- solving one table -------------------------------------------------------------------


def _moebius(values: Int64s) -> Int64s:
    """Per deal (axis 1), from 'hands containing the held set' to 'hands containing the held
    set and no other card of the deal' over the 32 masks (axis 0): the inclusion-exclusion
    above, one bit at a time."""
    out = values.copy()
    cube = out.reshape((2,) * HAND + (-1,))  # axis HAND-1-b is bit b of the mask
    for axis in range(HAND):
        without = (slice(None),) * axis + (0,)
        with_ = (slice(None),) * axis + (1,)
        cube[without] -= cube[with_]
    return out


def _pay_sums(
    per_set: list[Int64s], deal_class: Int64s, ranks: Int64s
) -> Int64s:
    """(mask, deal) -> total pays over the hold's draws."""
    values = np.empty(ranks.shape, np.int64)
    for mask in MASKS:
        size = int(POPCOUNT[mask])
        values[mask] = per_set[HAND][deal_class] if size == HAND else per_set[size][ranks[mask]]
    return _moebius(values)


def _per_set_pays(deck: _Deck, class_pays: Int64s) -> list[Int64s]:
    """Per k-set, the total pays of the hands containing it; last, the pays by class."""
    return [counts @ class_pays for counts in deck.counts] + [class_pays]


def hold_pay_sums(class_pays: Int64s, deals: npt.NDArray[np.int8]) -> Int64s:
    """For each deal (five cards, positions 1-5 in the given order) and mask (bit i:
    position i+1 held), the total pays over the hold's C(47, k) draws: EV = sum / C(47, k).
    ``class_pays``: what a final hand of each of CLASSES pays."""
    order = np.argsort(deals, axis=1)
    ascending = np.take_along_axis(deals, order, axis=1)
    per_set = _per_set_pays(_deck(), class_pays)
    sums = _pay_sums(per_set, _classify(ascending).astype(np.int64), _mask_ranks(ascending)).T
    # mask over given positions -> mask over ascending positions
    place = np.argsort(order, axis=1)  # place[d, i]: where position i went
    moved = np.zeros((len(deals), len(MASKS)), np.int64)
    for mask in MASKS:
        for position in _held_positions(mask):
            moved[:, mask] |= 1 << place[:, position]
    return np.take_along_axis(sums, moved, axis=1)


def _best_holds(values: Int64s) -> tuple[Int64s, Int64s, npt.NDArray[np.bool_]]:
    """(chosen mask, best value, tied?) per deal, equal values settled by TIE_ORDER."""
    ordered = values[TIE_ORDER]
    best = ordered.max(axis=0)
    at_best = ordered == best
    return TIE_ORDER[np.argmax(at_best, axis=0)], best, at_best.sum(axis=0) > 1


@dataclass(frozen=True)
class Solved:
    counts: list[int]  # per class, standard weighting
    tied: int  # deals with more than one best hold
    splits: int  # of those, deals whose best holds end in different final hands


def count_final_hands(class_pays: Sequence[int]) -> Solved:
    """For a table paying ``class_pays`` for a final hand of each of CLASSES: every deal
    played with its best hold, the weighted draws by final-hand class (standard weighting,
    totalling STANDARD_TOTAL), and the deals with tied best holds."""
    return _solve(_deck(), np.array(class_pays, np.int64))


def _solve(deck: _Deck, class_pays: Int64s) -> Solved:
    values = _pay_sums(_per_set_pays(deck, class_pays), deck.deal_class, deck.subset_ranks)
    values *= DRAW_SHARE[:, None]
    chosen, best, ties = _best_holds(values)
    splits = _splitting_ties(deck, values, best, ties)
    weights = np.where(splits, 0, deck.weights)  # split classes: deal by deal, below
    counts = _final_counts(deck, chosen, weights, deck.subset_ranks, deck.deal_class)
    if splits.any():
        counts += _solve_deal_by_deal(deck, class_pays, np.nonzero(splits)[0])
    return Solved(
        counts=[int(n) for n in counts],
        tied=int(deck.weights[ties].sum()),
        splits=int(deck.weights[splits].sum()),
    )


def _final_counts(
    deck: _Deck, chosen: Int64s, weights: Int64s, ranks: Int64s, deal_class: Int64s
) -> Int64s:
    """Per class, the weighted draws of the chosen holds, through the same identity: a hold
    H's draws are sum over S containing H of (-1)^(|S|-|H|) x (hands containing S), summed
    per set S first (one coefficient per set) and multiplied out once."""
    share = weights * DRAW_SHARE[chosen]
    coefficients = [np.zeros(math.comb(DECK, k)) for k in range(HAND)] + [np.zeros(NCLASS)]
    bound = 0
    for mask in MASKS:
        inside = (chosen & mask) == chosen
        sign = np.where((POPCOUNT[mask] - POPCOUNT[chosen]) % 2 == 0, 1, -1)
        weight = np.where(inside, share * sign, 0)
        bound += int(np.abs(weight).sum())
        size = int(POPCOUNT[mask])
        target = deal_class if size == HAND else ranks[mask]
        coefficients[size] += np.bincount(target, weights=weight, minlength=len(coefficients[size]))
    # float64 sums of integers are exact below 2^53: the bound makes sure of it
    if bound >= 2**53:
        raise OverflowError("weights too large for exact float64 sums")
    total = coefficients[HAND].astype(np.int64)
    for size in range(HAND):
        exact = coefficients[size].astype(np.int64)
        if size <= 2:  # a product may pass 2^63 here: Python integers
            total += np.array([
                sum(int(a) * int(b) for a, b in zip(exact, column, strict=True) if a)
                for column in deck.counts[size].T.tolist()
            ], dtype=object).astype(np.int64)
        else:  # at most 1,176 hands hold a 3-set: no overflow
            total += exact @ deck.counts[size]
    return total


def _splitting_ties(
    deck: _Deck, values: Int64s, best: Int64s, ties: npt.NDArray[np.bool_]
) -> npt.NDArray[np.bool_]:
    """Classes whose best holds do not all end alike: there the tie-break, which reads
    positions, can differ between the deals of one class."""
    splits = np.zeros(len(best), bool)
    for index in np.nonzero(ties)[0]:
        outcomes = set()
        for mask in np.nonzero(values[:, index] == best[index])[0]:
            counts = _hold_counts(deck, int(index), int(mask))
            outcomes.add(tuple((counts * DRAW_SHARE[mask]).tolist()))
        splits[index] = len(outcomes) > 1
    return splits


def _hold_counts(deck: _Deck, index: int, hold: int) -> Int64s:
    """The draws of one hold of one class's deal, by final-hand class."""
    counts = np.zeros(NCLASS, np.int64)
    for mask in MASKS:
        if mask & hold != hold:
            continue
        sign = -1 if (POPCOUNT[mask] - POPCOUNT[hold]) % 2 else 1
        size = int(POPCOUNT[mask])
        if size == HAND:
            counts[deck.deal_class[index]] += sign
        else:
            counts += sign * deck.counts[size][deck.subset_ranks[mask, index]]
    return counts


def _solve_deal_by_deal(deck: _Deck, class_pays: Int64s, classes: Int64s) -> Int64s:
    """Every deal of the given classes solved on its own (weight 1, its own positions)."""
    hands, hand_class = _hands()
    members = np.nonzero(np.isin(deck.keys, deck.deal_keys[classes]))[0]
    deals = hands[members]
    ranks = _mask_ranks(deals)
    values = hold_pay_sums(class_pays, deals).T * DRAW_SHARE[:, None]
    chosen, _, _ = _best_holds(values)
    weights = np.ones(len(deals), np.int64)
    return _final_counts(deck, chosen, weights, ranks, hand_class[members].astype(np.int64))
