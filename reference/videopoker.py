"""Encrypted video poker of ``004_358a9db53bf25e27.txt``: ten cards from SHA-512, the
deal and the draw, the commitment, and the hand under the document's three pay tables.

A game follows these steps (spec ids in brackets):

1. ``combine_seeds`` + ``sha512_hex`` [videopoker.hash]: SHA-512 of
   ``server_seed + client_seed`` (UTF-8 text, in that order), lowercase hex.
2. ``scan_hash`` [videopoker.cards]: read the hex two characters at a time; byte % 100
   is a card when it is 51 or less and not yet found; stop at ten cards.
3. ``card`` [videopoker.card]: card n is rank n % 13 (A, 2, ..., K) of suit n div 13
   (spades, hearts, diamonds, clubs).
4. ``deal_and_draw`` [videopoker.draw]: cards 1-5 are dealt left to right; the discarded
   positions are refilled, left to right, from cards 6-10 in order.
5. ``evaluate_hand`` [videopoker.evaluate]: the hand and what the pay table pays for it.
6. ``commitment`` [videopoker.commitment]: SHA-256 of the revealed server seed equals the
   "next server seed SHA256" shown before the bet.

[videopoker.game] runs steps 1, 2, 4 and 5 for one bet.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

from fairvec.reference._algorithm import InvalidInput, Output, algorithm

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("spades", "hearts", "diamonds", "clubs")
DECK_SIZE = 52
CARDS_PER_GAME = 10  # five dealt, five queued for the draw
HAND_SIZE = 5
HEX128 = re.compile(r"[0-9a-fA-F]{128}")
HEX64 = re.compile(r"[0-9a-fA-F]{64}")


# --- the pay tables ("Analysis") -------------------------------------------------------


@dataclass(frozen=True)
class PayTable:
    """One of the document's three tables: what each event pays per credit bet ("for one")."""

    lowest_pair: int  # rank index of the lowest paying pair (A counts as 13, above K)
    pair_event: str
    pays: dict[str, int]


# The rows of the document's tables, top to bottom. Bonus Poker's four aces pays 70 as its
# row (and its Return column, 0.013720 = 70 x 325,566,459 / 1,661,102,543,100) says, not
# the 75 of the table's title (quirk bonus-poker-title).
PAY_TABLES = {
    "jacks-or-better": PayTable(
        lowest_pair=10,
        pair_event="jacks-or-better",
        pays={
            "royal-flush": 500, "straight-flush": 75, "four-of-a-kind": 20, "full-house": 9,
            "flush": 6, "straight": 4, "three-of-a-kind": 3, "two-pair": 2,
            "jacks-or-better": 1, "all-other": 0,
        },
    ),
    "tens-or-better": PayTable(
        lowest_pair=9,
        pair_event="tens-or-better",
        pays={
            "royal-flush": 500, "straight-flush": 75, "four-of-a-kind": 22, "full-house": 6,
            "flush": 5, "straight": 4, "three-of-a-kind": 3, "two-pair": 2,
            "tens-or-better": 1, "all-other": 0,
        },
    ),
    "bonus-poker": PayTable(
        lowest_pair=10,
        pair_event="jacks-or-better",
        pays={
            "royal-flush": 500, "straight-flush": 45, "four-aces": 70, "four-2s-3s-4s": 35,
            "four-5s-thru-ks": 25, "full-house": 8, "flush": 5, "straight": 4,
            "three-of-a-kind": 3, "two-pair": 2, "jacks-or-better": 1, "all-other": 0,
        },
    ),
}
BET_CREDITS = 10  # "The player must bet 10 credits"


# --- steps -----------------------------------------------------------------------------


def combine_seeds(server_seed: str, client_seed: str) -> str:
    """Server seed then client seed, once each (the worked example's hash proves it)."""
    return server_seed + client_seed


def sha512_hex(text: str) -> str:
    """PHP's ``hash('sha512', $s)``: SHA-512 of the string's bytes (UTF-8), lowercase hex."""
    return hashlib.sha512(text.encode("utf-8")).hexdigest()


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def check_hash(hash_hex: str) -> None:
    if not HEX128.fullmatch(hash_hex):
        raise InvalidInput("bad-hash", "hash is the SHA-512 digest as 128 hexadecimal digits")


def scan_hash(hash_hex: str, count: int) -> tuple[list[Output], list[int]]:
    """Read the hash two hex digits at a time until ``count`` distinct cards are found.

    Returns one row per pair read (the document's "Hash to Card Conversion" table) and
    the cards in the order found. Every pair is read, the last one (position 126)
    included, before the hash counts as used up.
    """
    check_hash(hash_hex)
    if not 1 <= count <= CARDS_PER_GAME:
        raise InvalidInput("bad-count", f"count is 1 to {CARDS_PER_GAME} cards, got {count}")
    rows: list[Output] = []
    cards: list[int] = []
    for position in range(0, len(hash_hex), 2):
        pair = hash_hex[position : position + 2]
        byte = int(pair, 16)
        value = byte % 100  # "the terminal two digits" of the decimal byte
        if value >= DECK_SIZE:
            status = "out-of-range"
        elif value in cards:
            status = "repeat"
        else:
            status = "card"
            cards.append(value)
        rows.append({"hex": pair, "byte": byte, "value": value, "status": status})
        if len(cards) == count:
            return rows, cards
    raise InvalidInput(
        "hash-exhausted",
        f"the 128 hex digits gave only {len(cards)} of the {count} cards "
        f"(found: {', '.join(map(str, cards)) or 'none'})",
    )


def card(number: int) -> Output:
    """Card ``number`` (0-51): rank from the remainder by 13, suit from the quotient.

    Both come from the value after % 100, not from the byte: the document's step 11 says
    "the result from step 4" (the byte), which would make 0x95 = 149 the 7 of no suit.
    """
    if not 0 <= number < DECK_SIZE:
        raise InvalidInput("card-out-of-range", f"a card is a number from 0 to 51, got {number}")
    return {"number": number, "rank": RANKS[number % 13], "suit": SUITS[number // 13]}


def check_cards(cards: list[int], size: int) -> None:
    if len(cards) != size:
        raise InvalidInput("wrong-card-count", f"cards holds {size} cards, got {len(cards)}")
    for number in cards:
        card(number)
    if len(set(cards)) != len(cards):
        raise InvalidInput("duplicate-card", "cards must all be different (one deck)")


def check_held(held: list[int]) -> None:
    for position in held:
        if not 1 <= position <= HAND_SIZE:
            raise InvalidInput(
                "held-position-out-of-range",
                f"held lists hand positions 1 (left) to 5 (right), got {position}",
            )
    if len(set(held)) != len(held):
        raise InvalidInput("duplicate-held-position", "held names each position at most once")


def deal_and_draw(cards: list[int], held: list[int]) -> tuple[list[int], list[int], list[int]]:
    """Deal cards 1-5; refill each discarded position, left to right, from cards 6-10.

    Returns (dealt, drawn, final). Which positions were discarded does not change which
    cards come: k discards always take the 6th to (5+k)th card.
    """
    check_cards(cards, CARDS_PER_GAME)
    check_held(held)
    dealt, queue = cards[:HAND_SIZE], iter(cards[HAND_SIZE:])
    final = [
        number if position in held else next(queue)
        for position, number in enumerate(dealt, start=1)
    ]
    drawn = [number for position, number in enumerate(final, start=1) if position not in held]
    return dealt, drawn, final


def hand_category(cards: list[int]) -> tuple[str, list[int]]:
    """The poker hand, and the ranks (A = 13) ordered by how often they occur."""
    # Rank index with the ace above the king: 2 is 1, ..., K is 12, A is 13.
    ranks = [n % 13 or 13 for n in cards]
    counts = Counter(ranks)
    by_count = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    flush = len({n // 13 for n in cards}) == 1
    distinct = sorted(counts)
    straight = len(counts) == HAND_SIZE and (
        distinct[-1] - distinct[0] == 4 or distinct == [1, 2, 3, 4, 13]  # A-2-3-4-5 too
    )
    if straight and flush:
        return ("royal-flush" if distinct[0] == 9 else "straight-flush"), by_count
    if shape == [4, 1]:
        return "four-of-a-kind", by_count
    if shape == [3, 2]:
        return "full-house", by_count
    if flush:
        return "flush", by_count
    if straight:
        return "straight", by_count
    if shape == [3, 1, 1]:
        return "three-of-a-kind", by_count
    if shape == [2, 2, 1]:
        return "two-pair", by_count
    if shape == [2, 1, 1, 1]:
        return "pair", by_count
    return "high-card", by_count


def pay_event(hand: str, by_count: list[int], table: PayTable) -> str:
    """The pay table row a hand falls in."""
    if hand == "four-of-a-kind" and "four-aces" in table.pays:
        quad = by_count[0]  # 13 is the ace, 1-3 are 2s-4s
        if quad == 13:
            return "four-aces"
        return "four-2s-3s-4s" if quad <= 3 else "four-5s-thru-ks"
    if hand == "pair":
        return table.pair_event if by_count[0] >= table.lowest_pair else "all-other"
    if hand == "high-card":
        return "all-other"
    return hand


def evaluate_hand(cards: list[int], paytable: str) -> Output:
    check_cards(cards, HAND_SIZE)
    table = PAY_TABLES.get(paytable)
    if table is None:
        raise InvalidInput(
            "unknown-paytable", f"paytable is one of {', '.join(PAY_TABLES)}, got {paytable!r}"
        )
    hand, by_count = hand_category(cards)
    event = pay_event(hand, by_count, table)
    pays = table.pays[event]
    return {"hand": hand, "event": event, "pays": pays, "payout": pays * BET_CREDITS}


def commitment_matches(server_seed: str, server_seed_hash: str) -> Output:
    if not HEX64.fullmatch(server_seed_hash):
        raise InvalidInput("bad-hash", "server_seed_hash is 64 hexadecimal digits")
    computed = sha256_hex(server_seed)
    # Compared as hexadecimal text without regard to case; never as numbers (quirk
    # php-loose-comparison).
    return {"hash": computed, "matches": computed == server_seed_hash.lower()}


# --- algorithms ------------------------------------------------------------------------


@algorithm("videopoker.hash")
def hash(server_seed: str, client_seed: str) -> Output:
    combined = combine_seeds(server_seed, client_seed)
    return {"combined_seed": combined, "hash": sha512_hex(combined)}


@algorithm("videopoker.cards")
def cards(hash: str, count: int | None = None) -> Output:
    rows, found = scan_hash(hash, CARDS_PER_GAME if count is None else count)
    return {"rows": rows, "cards": [card(number) for number in found]}


@algorithm("videopoker.card")
def card_algorithm(number: int) -> Output:
    return card(number)


@algorithm("videopoker.draw")
def draw(cards: list[int], held: list[int]) -> Output:
    dealt, drawn, final = deal_and_draw(cards, held)
    return {
        "dealt": [card(n) for n in dealt],
        "drawn": [card(n) for n in drawn],
        "final": [card(n) for n in final],
    }


@algorithm("videopoker.evaluate")
def evaluate(cards: list[int], paytable: str) -> Output:
    return evaluate_hand(cards, paytable)


@algorithm("videopoker.commitment")
def commitment(server_seed: str, server_seed_hash: str) -> Output:
    return commitment_matches(server_seed, server_seed_hash)


@algorithm("videopoker.game")
def game(server_seed: str, client_seed: str, held: list[int], paytable: str) -> Output:
    """One bet from the seeds to the payout, every stage in the output."""
    combined = combine_seeds(server_seed, client_seed)
    digest = sha512_hex(combined)
    _, found = scan_hash(digest, CARDS_PER_GAME)
    dealt, drawn, final = deal_and_draw(found, held)
    return {
        "combined_seed": combined,
        "hash": digest,
        "cards": [card(n) for n in found],
        "dealt": [card(n) for n in dealt],
        "drawn": [card(n) for n in drawn],
        "final": [card(n) for n in final],
        **evaluate_hand(final, paytable),
    }


# --- best hold ---------------------------------------------------------------------------
# [videopoker.best_hold] and [videopoker.analysis]: the hold of highest exact expected value,
# counted, not sampled. Each hold's draws are counted by the ranks they bring (at most
# 6,188 rank multisets for a five-card draw), with the flushes among them counted suit by
# suit. A deal's 32 holds all draw from the same 47 unseen cards and need only six draw
# sizes, so what a draw of each size can bring (its rank multisets, how many card draws
# each stands for, in which suits it could complete a flush) is listed once per deal
# (_unseen_draws), and each hold only adds its kept ranks and looks up the pay row.

DRAW_POOL = DECK_SIZE - HAND_SIZE  # 47 cards left to draw from
EV_DECIMALS = 6  # as the document's Probability and Return columns
RANK_BITS = 3  # a rank occurs at most 4 times in a hand: 3 bits count it


def held_masks_in_tie_order() -> list[tuple[int, ...]]:
    """The 32 holds (0-based positions) in the order that settles equal values: more cards
    held first; then the held positions, ascending, compared as lists, the smaller first."""
    holds = [
        held for size in range(HAND_SIZE + 1)
        for held in itertools.combinations(range(HAND_SIZE), size)
    ]
    return sorted(holds, key=lambda held: (-len(held), held))


def ranks_code(ranks: Iterable[int]) -> int:
    """A multiset of ranks (0 = A ... 12 = K) as one number, RANK_BITS bits counting each
    rank: the kept ranks and the drawn ranks together are then the sum of their codes."""
    return sum(1 << (RANK_BITS * rank) for rank in ranks)


def ranks_of_code(code: int) -> tuple[int, ...]:
    """The ranks a ranks_code stands for, ascending."""
    mask = (1 << RANK_BITS) - 1
    return tuple(
        rank for rank in range(13) for _ in range((code >> (RANK_BITS * rank)) & mask)
    )


class RankMultiset(NamedTuple):
    """Ranks a draw can bring, whatever the deal."""

    taken: tuple[tuple[int, int], ...]  # (rank, how many), by rank
    code: int  # the ranks_code
    rank_bits: int  # bit r set when rank r is among them
    distinct: bool  # no rank twice: the only draws that can make a flush


# The draws from one deal's 47 unseen cards that bring one rank multiset, as a plain tuple
# (code, ways, flush_suits) (a NamedTuple's constructor was a tenth of best_hold's time):
# - code: the drawn ranks' ranks_code;
# - ways: how many sets of unseen cards have these ranks;
# - flush_suits: bit s set when the draw can be all of suit s: no rank twice, and the card
#   of suit s of every drawn rank unseen (so never a rank of a card kept in suit s either).
RankDraw = tuple[int, int, int]


@functools.cache
def _rank_multisets(size: int) -> list[RankMultiset]:
    """Every multiset of ``size`` ranks (6,188 for five ranks, fewer for the smaller
    draws): the sorted tuples of ranks, grouped. Made once, for every deal."""
    multisets = []
    for ranks in itertools.combinations_with_replacement(range(13), size):
        taken = tuple((rank, len(list(group))) for rank, group in itertools.groupby(ranks))
        multisets.append(RankMultiset(
            taken=taken,
            code=ranks_code(ranks),
            rank_bits=sum(1 << rank for rank, _ in taken),
            distinct=len(taken) == size,
        ))
    return multisets


@functools.lru_cache(maxsize=2 * (HAND_SIZE + 1))
def _unseen_draws(dealt: tuple[int, ...], size: int) -> list[RankDraw]:
    """The rank multisets a ``size``-card draw from the cards not in ``dealt`` can bring,
    with how many card draws each stands for and in which suits it could make a flush.

    It depends on the deal only, not on the hold: the cache (two deals of six draw sizes)
    makes each list once for a deal's 32 holds."""
    unseen = [4 - sum(number % 13 == rank for number in dealt) for rank in range(13)]
    # choose[rank][n]: the ways to draw n of the unseen cards of rank; 0 where n is more
    # than there are, so a multiset that cannot be drawn has no ways
    choose = [[math.comb(count, n) for n in range(HAND_SIZE + 1)] for count in unseen]
    flush_suits_of = _flush_suits_by_dealt_ranks(dealt)
    dealt_ranks = sum(1 << rank for rank in {number % 13 for number in dealt})
    draws = []
    for taken, code, rank_bits, distinct in _rank_multisets(size):
        ways = 1
        for rank, n in taken:
            ways *= choose[rank][n]
        if not ways:
            continue
        # a rank drawn twice is two suits: never one suit
        flush_suits = flush_suits_of[rank_bits & dealt_ranks] if distinct else 0
        draws.append((code, ways, flush_suits))
    return draws


def _flush_suits_by_dealt_ranks(dealt: tuple[int, ...]) -> dict[int, int]:
    """For each set of the dealt cards' ranks (bit r for rank r), the suits in which none of
    those ranks was dealt: the suits a draw of distinct ranks meeting the dealt ranks in
    that set can be all of. (The draw's other ranks were not dealt in any suit.) One lookup
    a draw instead of a test a suit; at most 32 sets."""
    # dealt_in_suit[s]: bit r set when the card of rank r and suit s was dealt
    dealt_in_suit = [0] * len(SUITS)
    for number in dealt:
        dealt_in_suit[number // 13] |= 1 << (number % 13)
    ranks = sorted({number % 13 for number in dealt})
    suits_of = {}
    for chosen in range(1 << len(ranks)):
        rank_bits = sum(1 << rank for index, rank in enumerate(ranks) if chosen >> index & 1)
        suits_of[rank_bits] = sum(
            1 << suit for suit, dealt_bits in enumerate(dealt_in_suit) if not rank_bits & dealt_bits
        )
    return suits_of


def _event_of_ranks(code: int, flush: bool, paytable: str) -> str:
    """The pay row of five cards with these ranks (a ranks_code), one suit or not: any
    cards with those ranks and suits do, so it scores such a hand with evaluate's steps."""
    ranks = ranks_of_code(code)
    if flush:
        suits = [0] * HAND_SIZE
    elif len(set(ranks)) == HAND_SIZE:
        suits = [1, 0, 0, 0, 0]
    else:  # the n-th card of a rank takes suit n: all different, and never one suit
        suits = [ranks[:index].count(rank) for index, rank in enumerate(ranks)]
    hand = [13 * suit + rank for suit, rank in zip(suits, ranks, strict=True)]
    category, by_count = hand_category(hand)
    return pay_event(category, by_count, PAY_TABLES[paytable])


class PayRows(dict[int, str]):
    """The pay row of each five-card ranks_code, one suit or not, under one table: scored
    on first use and kept (at most 6,175 rank multisets), so counting a draw is a dict
    lookup."""

    def __init__(self, paytable: str, flush: bool) -> None:
        super().__init__()
        self.paytable, self.flush = paytable, flush

    def __missing__(self, code: int) -> str:
        event = self[code] = _event_of_ranks(code, self.flush, self.paytable)
        return event


@functools.cache
def pay_rows(paytable: str, flush: bool) -> PayRows:
    return PayRows(paytable, flush)


def hold_counts(dealt: list[int], held: tuple[int, ...], paytable: str) -> Counter[str]:
    """How many of the C(47, 5 - len(held)) draws end in each pay row, holding the dealt
    cards at the 0-based positions ``held`` and drawing the rest from the 47 unseen cards."""
    kept = [dealt[position] for position in held]
    kept_code = ranks_code(number % 13 for number in kept)
    kept_suits = {number // 13 for number in kept}
    # the suits a flush can be in: any with nothing kept, the kept cards' if they share one
    flush_suits = (
        (1 << len(SUITS)) - 1 if not kept
        else 1 << kept_suits.pop() if len(kept_suits) == 1
        else 0
    )
    plain_row, flush_row = pay_rows(paytable, flush=False), pay_rows(paytable, flush=True)
    # a plain dict, every row at 0: Python's fast path for dict[key] += n, which a
    # Counter (a subclass) does not take
    counts = dict.fromkeys(PAY_TABLES[paytable].pays, 0)
    draws = _unseen_draws(tuple(dealt), HAND_SIZE - len(kept))
    if not flush_suits:  # kept cards of two suits: no draw is a flush (most holds of 2 to 4)
        for code, ways, _draw_flush_suits in draws:
            counts[plain_row[kept_code + code]] += ways
        return +Counter(counts)
    for code, ways, draw_flush_suits in draws:
        # one draw of these ranks is a flush in each suit both allow
        flushes = (draw_flush_suits & flush_suits).bit_count()
        if flushes:
            counts[flush_row[kept_code + code]] += flushes
        if ways > flushes:
            counts[plain_row[kept_code + code]] += ways - flushes
    return +Counter(counts)


def exact_decimal(value: Fraction, places: int = EV_DECIMALS) -> str:
    """``value`` rounded to ``places`` decimals, halves away from zero ("0.979696")."""
    units = math.floor(abs(value) * 10**places + Fraction(1, 2))
    whole, fraction = divmod(units, 10**places)
    sign = "-" if value < 0 and units else ""
    return f"{sign}{whole}.{fraction:0{places}d}"


def rank_holds(dealt: list[int], paytable: str) -> list[Output]:
    """All 32 holds of a deal, best first: exact expected value (pays per credit) down, equal
    values in held_masks_in_tie_order."""
    table = PAY_TABLES[paytable]
    rows: list[Output] = []
    for held in held_masks_in_tie_order():
        counts = hold_counts(dealt, held, paytable)
        draws = math.comb(DRAW_POOL, HAND_SIZE - len(held))
        pays_total = sum(table.pays[event] * n for event, n in counts.items())
        ev = Fraction(pays_total, draws)
        rows.append({
            "held": [position + 1 for position in held],
            "draws": draws,
            "pays_total": pays_total,
            "ev": f"{ev.numerator}/{ev.denominator}",
            "ev_decimal": exact_decimal(ev),
            "counts": {event: counts.get(event, 0) for event in table.pays},
        })
    # sorted() is stable: equal values keep the tie order
    return sorted(rows, key=lambda row: -Fraction(row["pays_total"], row["draws"]))


@algorithm("videopoker.best_hold")
def best_hold(cards: list[int], paytable: str) -> Output:
    check_cards(cards, HAND_SIZE)
    if paytable not in PAY_TABLES:
        raise InvalidInput(
            "unknown-paytable", f"paytable is one of {', '.join(PAY_TABLES)}, got {paytable!r}"
        )
    holds = rank_holds(cards, paytable)
    best = holds[0]
    return {
        "best": {"held": best["held"], "ev": best["ev"], "counts": best["counts"]},
        "holds": [{key: row[key] for key in row if key != "counts"} for row in holds],
    }


# --- analysis ----------------------------------------------------------------------------
# [videopoker.analysis]: every deal played with best_hold's first hold, its draws counted by
# pay row. The counting is _videopoker_solver.py (NumPy, the optional extra
# fairvec[analysis]; a readable loop over 2.6 million deals would take hours): it counts
# the draws by final-hand class, fine enough for every table pay_table_of reads, and the
# table's evaluate steps (hand_category, pay_event) say which row each class is paid under.
# (Functions and constants only: the bundled adapter imports this module at every start.)

DOCUMENT_DIVISOR = 12  # the document's total 1,661,102,543,100 is the standard one / 12
LOWER_PAYS = (1, 2, 3, 4)  # pair, two pair, three of a kind, straight: as all three documents
PAIR_EVENTS = {"jacks": ("jacks-or-better", 10), "tens": ("tens-or-better", 9)}
NOTATION = r"(?:(jacks|tens):)?([0-9]{1,7}(?:-[0-9]{1,7})*)"
FORMAT_HELP = (
    "a pay table is a name (jacks-or-better, tens-or-better, bonus-poker) or the document's "
    "notation: pays from the flush up, e.g. 6-9-20-75-500 (flush, full house, four of a kind, "
    "straight flush, royal) or 5-8-25-35-70-45-500 (Bonus Poker: four 5s-Ks, 2s-4s, aces), "
    "optionally led by the pair, two pair, trips and straight pays (1-2-3-4-6-9-20-75-500) "
    "and prefixed tens: for a table paying from tens"
)


def notation_of(table: PayTable) -> str:
    """The document's title notation: pays from the flush up."""
    pays = list(table.pays.values())
    return "-".join(str(p) for p in reversed(pays[: pays.index(table.pays["flush"]) + 1]))


def parse_pay_table(text: str) -> tuple[str, PayTable]:
    """(notation, table) of a table by name, or in the document's notation (see
    FORMAT_HELP); ValueError if neither."""
    if text in PAY_TABLES:
        return notation_of(PAY_TABLES[text]), PAY_TABLES[text]
    found = re.fullmatch(NOTATION, text.strip())
    if found is None:
        raise ValueError(f"cannot read pay table {text!r}: {FORMAT_HELP}")
    pays = [int(p) for p in found.group(2).split("-")]
    if len(pays) in (5, 7):
        pays = [*LOWER_PAYS, *pays]
    if len(pays) not in (9, 11):
        raise ValueError(
            f"pay table {text!r} has {len(pays)} pays; give 5 or 7 (from the flush up), "
            "or 9 or 11 (from the pair up)"
        )
    pair_event, lowest = PAIR_EVENTS[found.group(1) or "jacks"]
    events = ["royal-flush", "straight-flush"]
    events += ["four-aces", "four-2s-3s-4s", "four-5s-thru-ks"] if len(pays) == 11 else [
        "four-of-a-kind"
    ]
    events += ["full-house", "flush", "straight", "three-of-a-kind", "two-pair", pair_event]
    row_pays = dict(zip(events, reversed(pays), strict=True))
    table = PayTable(lowest_pair=lowest, pair_event=pair_event, pays={
        **row_pays, "all-other": 0,
    })
    return text.strip(), table


def pay_table_of(paytable: str) -> tuple[str, PayTable]:
    """(notation, table) for a name or the document's notation (bad-paytable,
    unknown-paytable)."""
    if re.fullmatch(r"[a-z-]+", paytable) and paytable not in PAY_TABLES:
        raise InvalidInput(
            "unknown-paytable", f"paytable is one of {', '.join(PAY_TABLES)}, got {paytable!r}"
        )
    try:
        return parse_pay_table(paytable)
    except ValueError as error:
        raise InvalidInput("bad-paytable", str(error)) from None


def rows_of_classes(table: PayTable, examples: Sequence[Sequence[int]]) -> list[int]:
    """For each final-hand class, given by one hand of it, the index of the table row it is
    paid under: evaluate's own steps score it, so the analysis and evaluate never differ."""
    events = list(table.pays)
    rows = []
    for example in examples:
        hand, by_count = hand_category(list(example))
        rows.append(events.index(pay_event(hand, by_count, table)))
    return rows


def analyze_table(paytable: str) -> Output:
    """Every deal played with rank_holds' first hold, its draws counted by pay row
    (_videopoker_solver.py: the same counts, by inclusion-exclusion over suit classes of
    deals), in the document's weighting."""
    # NumPy: the 'analysis' extra. Imported before the input is read: without it the
    # ImportError goes up, not a coded error, since the input is not at fault (the bundled
    # adapter answers it as unsupported, with the reason).
    from fairvec.reference import _videopoker_solver  # noqa: F401

    notation, table = pay_table_of(paytable)
    return table_analysis(notation, table)


def table_analysis(notation: str, table: PayTable) -> Output:
    """analyze_table's output for a table read already (fairvec analyze videopoker's too)."""
    from fairvec.reference import _videopoker_solver as solver  # NumPy: the 'analysis' extra

    rows_of_class = rows_of_classes(table, solver.CLASS_EXAMPLES)
    pays = list(table.pays.values())
    solved = solver.count_final_hands([pays[row] for row in rows_of_class])
    standard = [0] * len(pays)  # per row, in the standard weighting
    for cls, count in enumerate(solved.counts):
        standard[rows_of_class[cls]] += count
    if sum(standard) != solver.STANDARD_TOTAL:
        raise AssertionError(f"counts total {sum(standard)}, not {solver.STANDARD_TOTAL}")
    # The document's integers are the standard ones over 12; keep the standard ones if a
    # custom table's counts are not all multiples of 12.
    divisor = DOCUMENT_DIVISOR if all(n % DOCUMENT_DIVISOR == 0 for n in standard) else 1
    rows: Output = {}
    for (event, pay), n in zip(table.pays.items(), standard, strict=True):
        probability = Fraction(n, solver.STANDARD_TOTAL)
        returns = Fraction(n * pay, solver.STANDARD_TOTAL)
        rows[event] = {
            "pays": pay,
            "combinations": n // divisor,
            "probability": f"{probability.numerator}/{probability.denominator}",
            "probability_decimal": exact_decimal(probability),
            "return": f"{returns.numerator}/{returns.denominator}",
            "return_decimal": exact_decimal(returns),
        }
    total_return = sum(
        (Fraction(n * pay, solver.STANDARD_TOTAL)
         for pay, n in zip(pays, standard, strict=True)),
        Fraction(0),
    )
    return {
        "notation": notation,
        "rows": rows,
        "total": solver.STANDARD_TOTAL // divisor,
        "return": f"{total_return.numerator}/{total_return.denominator}",
        "return_decimal": exact_decimal(total_return),
        "deal_weight": solver.DEAL_WEIGHT,
        "divisor": divisor,
        "tied_deals": solved.tied,
        "split_deals": solved.splits,
    }


@algorithm("videopoker.analysis")
def analysis(paytable: str) -> Output:
    return analyze_table(paytable)
