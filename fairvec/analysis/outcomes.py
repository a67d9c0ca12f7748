"""The exact outcome distribution of every outcome algorithm of the five families.

Each function returns a :class:`Distribution` over the algorithm's equally likely raw
inputs (2^32 tickets, 2^64 byte strings, 256 bytes, die faces), computed by counting
residues or thresholds, never by sampling. The outcome rules come from the reference
(``fairvec.reference.*``), so what is analysed is what the vectors pin down.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from fairvec.analysis import numbers
from fairvec.analysis.exact import (
    Distribution,
    decimal,
    ratio,
    residue_counts,
    scientific,
    uniform,
)
from fairvec.errors import FairvecError
from fairvec.reference import battle, casino, nardy, tenhou, videopoker

TICKET_BITS = 32
NARDY_SEQUENCE = 10000  # "последовательность из 10000 чисел от 1 до 6"
CRASH_SCALE = 1000000
CRASH_TARGETS = (101, 110, 150, 200, 300, 500, 1000, 10000, 100000, 1000000)
Extreme = tuple[int, Fraction]  # a cash-out target in cents and its exact return


@dataclass(frozen=True)
class Options:
    """The parameters some analyses take (the command line's options)."""

    pins: int = 16
    tickets: int = 100
    cells: int = 25
    reel: int = 1
    attack: str = "Hit"
    cuts: tuple[int, int] = (7, 7)
    players: int = 4


def check(condition: bool, message: str) -> None:
    if not condition:
        raise FairvecError(message)


# --- battle (001): a uniform 32-bit ticket ----------------------------------------------


def move_counts(bits: int) -> dict[str, int]:
    """Tickets of ``bits`` bits per move (32 in the game; fewer in the brute-force tests)."""
    counts: dict[str, int] = dict.fromkeys(battle.MOVES, 0)
    for value, n in enumerate(residue_counts(bits, 3)):
        counts[battle.move_from_ticket(value)] += n
    return counts


def attack_counts(bits: int) -> dict[str, int]:
    """Tickets per attack outcome: the reference classifies each residue of % 100."""
    counts: dict[str, int] = dict.fromkeys(battle.ATTACKS, 0)
    for value, n in enumerate(residue_counts(bits, 100)):
        counts[battle.attack_from_ticket(value)[1]] += n
    return counts


def damage_counts(bits: int, attack: str) -> dict[str, int]:
    """Tickets per damage; the reference's damage depends on the ticket only through
    its residue, so the residue's representative gives it."""
    modulus = 21 if attack == "Hit" else 15
    return {str(battle.damage_from_ticket(value, attack)): n
            for value, n in enumerate(residue_counts(bits, modulus))}


def battle_move(options: Options) -> Distribution:
    return Distribution(
        title="battle.move: ticket % 3 (0 fire, 1 grass, 2 water)",
        inputs="2^32 tickets (the first 4 bytes of SHA-256)",
        counts=move_counts(TICKET_BITS),
        ideal=uniform(battle.MOVES),
    )


def battle_attack(options: Options) -> Distribution:
    counts = attack_counts(TICKET_BITS)
    return Distribution(
        title="battle.attack: ticket % 100 (0-19 Miss, 20-51 Super Active, 52-99 Hit)",
        inputs="2^32 tickets",
        counts=counts,
        ideal={"Miss": 20, "Super Active": 32, "Hit": 48},  # the ranges' widths, of 100
        notes=("2^32 = 96 (mod 100): tickets 0-95 each come from one more 32-bit value "
               "than 96-99, all four of which are Hit",),
    )


def battle_damage(options: Options) -> Distribution:
    check(options.attack in ("Hit", "Super Active"),
          f"--attack is Hit or 'Super Active' (a Miss always does 0), got {options.attack!r}")
    modulus = 21 if options.attack == "Hit" else 15
    counts = damage_counts(TICKET_BITS, options.attack)
    return Distribution(
        title=f"battle.damage ({options.attack}): ticket % {modulus} + "
        f"{battle.damage_from_ticket(0, options.attack)}",
        inputs="2^32 tickets",
        counts=counts,
        ideal=uniform(counts),
    )


# --- casino (000): the number from 8 bytes -----------------------------------------------


def scaled(title: str, scale: int, label: Callable[[int], str], promised: int) -> Distribution:
    """floor(number * scale) over the 2^64 byte strings; ``promised`` outcomes 0..promised-1
    are the document's range (the outcome ``scale`` comes only from the number 1.0)."""
    counts = {label(k): n for k, n in enumerate(numbers.scaled_floor_counts(scale)) if n}
    return Distribution(
        title=title,
        inputs="2^64 byte strings (8 uniform bytes -> numbersFromBytes)",
        counts=counts,
        ideal=uniform(label(k) for k in range(promised)),
        notes=(f"the number 1.0 (probability 2^-54) gives {label(scale)}, "
               "outside the promised range",),
    )


def casino_numbers(options: Options) -> Distribution:
    """The top binade [1/2, 1) of the number, split in 16 equal slices (a picture of the
    distribution of doubles; the notes give the run lengths of every binade)."""
    counts = numbers.scaled_floor_counts(32)[16:]
    notes = [f"[2^-{e}, 2^-{e - 1}): {describe_runs(e)}" for e in range(1, 13)]
    notes.append("below 2^-11 every multiple of 2^-64 is one byte string (exact); "
                 f"1.0 is {numbers.UNITS - numbers.first_u_at_least(1.0)} byte strings "
                 "(probability 2^-54)")
    return Distribution(
        title="casino.numbers: floor(number * 32) in [1/2, 1]",
        inputs="2^64 byte strings",
        counts={f"{k}/32": n for k, n in enumerate(counts, start=16)},
        ideal=dict.fromkeys((f"{k}/32" for k in range(16, 32)), 1),
        notes=tuple(notes),
    )


def describe_runs(binade: int) -> str:
    """How many byte strings each double of a binade gets (sampled after its first double,
    which also takes the rounding from the binade below)."""
    low = 2.0 ** -binade
    spacing = math.ulp(low)
    start = low + spacing
    runs = numbers.double_weights(start, start + 64 * spacing)
    ideal = int(spacing * numbers.UNITS)
    if len(runs) == 1:
        return f"spacing 2^{int(math.log2(spacing))}: every double is hit by {ideal} (exact)"
    shown = " and ".join(f"{run}" for run in sorted(runs))
    return (f"spacing 2^{int(math.log2(spacing))}: the doubles are hit by {shown} byte strings "
            f"in turn, not {ideal} each")


def casino_dice(options: Options) -> Distribution:
    return scaled("casino.dice: floor(number * 10001) / 100", 10001,
                  lambda k: f"{k // 100}.{k % 100:02d}", 10001)


def casino_double(options: Options) -> Distribution:
    return scaled("casino.double: floor(number * 15)", 15, str, 15)


def casino_x50(options: Options) -> Distribution:
    return scaled("casino.x50: floor(number * 54)", 54, str, 54)


def casino_jackpot(options: Options) -> Distribution:
    check(1 <= options.tickets <= 1000000,
          f"--tickets is 1 to 1000000 for an exact table (one threshold per ticket), "
          f"got {options.tickets}")
    return scaled(f"casino.jackpot: floor(number * {options.tickets}) + 1",
                  options.tickets, lambda k: str(k + 1), options.tickets)


def casino_slot(options: Options) -> Distribution:
    check(1 <= options.reel <= len(casino.SLOT_REELS), f"--reel is 1 to 5, got {options.reel}")
    length = casino.SLOT_REELS[options.reel - 1]
    return scaled(f"casino.slot: reel {options.reel}, floor(number * {length})",
                  length, str, length)


def casino_mines(options: Options) -> Distribution:
    check(2 <= options.cells <= casino.MINES_CELLS,
          f"--cells is the number of cells left at a step, 2 to 25, got {options.cells}")
    picked = scaled(f"casino.mines: the pick with {options.cells} cells left, "
                    f"floor(number * {options.cells})", options.cells, str, options.cells)
    notes = (*picked.notes, mines_permutation_note())
    return Distribution(picked.title, picked.inputs, picked.counts, picked.ideal, None, notes)


def mines_permutation_note() -> str:
    """The 24 picks use 24 different 8-byte blocks, so they are independent and the
    probability of an order of the cells is the product of its picks' probabilities."""
    likeliest = Fraction(1)
    for cells in range(casino.MINES_CELLS, 1, -1):
        counts = numbers.scaled_floor_counts(cells)[:cells]
        likeliest *= Fraction(max(counts) * cells, numbers.UNITS)
    return (f"likeliest order of the 25 cells: {scientific(likeliest - 1)} above 1/25! "
            "(relative)")


def casino_tower(options: Options) -> Distribution:
    """The printed code: splice(numbers[i], 1) truncates the raw number."""
    counts: dict[str, int] = {}
    for position, n in enumerate(numbers.scaled_floor_counts(1)):
        counts[str(position)] = n  # trunc(number) is floor(number * 1)
    return Distribution(
        title="casino.tower (printed code): splice at trunc(number), 5 cells",
        inputs="2^64 byte strings",
        counts=counts,
        ideal=uniform(str(position) for position in range(casino.TOWER_CELLS)),
        notes=("the Fisher-Yates the text describes (floor(number * cells)) is "
               "`casino.mines --cells 5` to `--cells 2`",),
    )


def casino_plinko(options: Options) -> Distribution:
    check(casino.MIN_PINS <= options.pins <= casino.MAX_PINS,
          f"--pins is {casino.MIN_PINS} to {casino.MAX_PINS}, got {options.pins}")
    return plinko(options.pins, tuple(numbers.scaled_floor_counts(2)))


def plinko(pins: int, directions: tuple[int, ...]) -> Distribution:
    """The bucket is the sum of independent directions 0, 1 (and 2, from the number 1.0)."""
    buckets = [1]
    for _ in range(pins):
        following = [0] * (len(buckets) + len(directions) - 1)
        for bucket, ways in enumerate(buckets):
            for direction, n in enumerate(directions):
                following[bucket + direction] += ways * n
        buckets = following
    return Distribution(
        title=f"casino.plinko: {pins} pins, the bucket is the sum of floor(number * 2)",
        inputs=f"(2^64)^{pins} byte strings",
        counts={str(bucket): n for bucket, n in enumerate(buckets) if n},
        ideal={str(k): math.comb(pins, k) for k in range(pins + 1)},  # binomial, of 2^pins
        notes=(f"one pin: left {directions[0]}, right {directions[1]}, "
               f"2 (the number 1.0) {directions[2]} of 2^64",),
    )


def money(cents: int) -> str:
    """Cents as the two-decimal text toFixed(2) gives."""
    return f"{cents // 100}.{cents % 100:02d}"


def crash_cents(k: int, edge: float) -> int:
    """The reference's multiplier for floor(number * 10^6) = k, in cents: the double
    max(1, 1000000 / (k + 1) * (1 - edge)), then toFixed(2) (half up on its exact value)."""
    value = max(1.0, 1000000.0 / float(k + 1) * (1.0 - edge))
    numerator, denominator = value.as_integer_ratio()
    return (200 * numerator + denominator) // (2 * denominator)


@cache
def crash_table(edge: float) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """cents[k] for k = 0..10^6 and F, the thresholds of floor(number * 10^6)."""
    cents = tuple(crash_cents(k, edge) for k in range(CRASH_SCALE + 1))
    return cents, numbers.scaled_floor_thresholds(CRASH_SCALE)


def cashout_return(edge: float, target: int) -> Fraction:
    """The exact return of cashing out at ``target`` cents: target/100 x P(multiplier >=
    target). The multiplier falls as k grows, so the winners are the k below a bound."""
    cents, thresholds = crash_table(edge)
    low, high = 0, len(cents)  # the first k whose multiplier is below target
    while low < high:
        middle = (low + high) // 2
        if cents[middle] >= target:
            low = middle + 1
        else:
            high = middle
    return Fraction(target * thresholds[low], 100 * numbers.UNITS)


@cache
def return_range(edge: float) -> tuple[Extreme, Extreme, Extreme]:
    """The lowest and highest return (target, return) over every multiplier that occurs
    from 1.01 up, and the lowest over every target in cents, also those between two
    multipliers that occur (such a target wins only as often as the next one up)."""
    cents, thresholds = crash_table(edge)
    scale = 100 * numbers.UNITS
    best: Extreme = (0, Fraction(0))
    worst: Extreme = (0, Fraction(2))
    gap: Extreme = (0, Fraction(2))
    for k in range(CRASH_SCALE):
        if cents[k] == cents[k + 1] or cents[k] < 101:
            continue
        winners = thresholds[k + 1]  # every U whose k is at most this one
        between = max(cents[k + 1] + 1, 101)
        if cents[k] * winners > best[1] * scale:
            best = (cents[k], Fraction(cents[k] * winners, scale))
        if cents[k] * winners < worst[1] * scale:
            worst = (cents[k], Fraction(cents[k] * winners, scale))
        if between * winners < gap[1] * scale:
            gap = (between, Fraction(between * winners, scale))
    return worst, best, gap


def multiplier(name: str, edge: float) -> Distribution:
    cents, thresholds = crash_table(edge)
    counts: dict[str, int] = {}
    ideal: dict[str, int] = {}
    for k in range(CRASH_SCALE + 1):
        text = money(cents[k])
        counts[text] = counts.get(text, 0) + thresholds[k + 1] - thresholds[k]
        if k < CRASH_SCALE:
            ideal[text] = ideal.get(text, 0) + 1  # k uniform on 0..10^6 - 1
    worst, best, gap = return_range(edge)
    targets = (*CRASH_TARGETS, cents[0])
    notes = [f"cash out at {money(target)}: return {decimal(cashout_return(edge, target))}"
             for target in targets]
    notes.append(f"over every multiplier that occurs from 1.01: lowest return "
                 f"{decimal(worst[1])} at {money(worst[0])}, highest {decimal(best[1])} at "
                 f"{money(best[0])}; a target between two that occur can do worse "
                 f"({decimal(gap[1])} at {money(gap[0])})")
    return Distribution(
        title=f"casino.{name}: max(1, 1000000 / (floor(number * 10^6) + 1) * (1 - {edge}))"
        ".toFixed(2)",
        inputs="2^64 byte strings",
        counts=counts,
        ideal=ideal,
        notes=tuple(notes),
    )


def casino_crash(options: Options) -> Distribution:
    return multiplier("crash", casino.CRASH_EDGE)


def casino_overgo(options: Options) -> Distribution:
    return multiplier("overgo", casino.OVERGO_EDGE)


# --- video poker (004): uniform bytes ----------------------------------------------------


def videopoker_card(options: Options) -> Distribution:
    """A byte is a card when byte % 100 <= 51; which card, over the accepted bytes."""
    counts: dict[str, int] = {}
    for byte in range(256):
        value = byte % 100
        if value < videopoker.DECK_SIZE:
            label = card_label(value)
            counts[label] = counts.get(label, 0) + 1
    return Distribution(
        title="videopoker.card: byte % 100, a card when 51 or less",
        inputs="the 156 of 256 bytes that give a card",
        counts=counts,
        ideal=uniform(counts),
        notes=("byte % 100 itself is not uniform: 0-55 come from three bytes, 56-99 from two",
               f"a 64-byte hash yields fewer than ten different cards with probability "
               f"{ratio(videopoker_exhausted())}"),
    )


def card_label(value: int) -> str:
    card = videopoker.card(value)
    return f"{value} {card['rank']}{str(card['suit'])[0]}"


@cache
def videopoker_exhausted() -> Fraction:
    """P(the 64 bytes of SHA-512 hold fewer than ten different cards)."""
    copies = 3  # bytes per card: n, n + 100, n + 200
    return too_few_cards(64, videopoker.CARDS_PER_GAME, videopoker.DECK_SIZE, copies, 256)


def too_few_cards(length: int, needed: int, deck: int, copies: int, alphabet: int) -> Fraction:
    """P(a uniform string of ``length`` symbols holds fewer than ``needed`` different cards),
    each of ``deck`` cards written by ``copies`` of the ``alphabet`` symbols: strings are
    counted by cards found so far, symbol by symbol (a new card is copies x unseen cards)."""
    ways = [1] + [0] * needed
    for _ in range(length):
        following = [0] * len(ways)
        for found, n in enumerate(ways):
            if found == needed:
                following[found] += n * alphabet
                continue
            new = copies * (deck - found)
            following[found + 1] += n * new
            following[found] += n * (alphabet - new)
        ways = following
    return Fraction(sum(ways[:-1]), alphabet**length)


# --- nardy (003): a uniform sequence of faces ---------------------------------------------


def nardy_rolls(options: Options) -> Distribution:
    first, second = options.cuts
    check(first in nardy.CUTS and second in nardy.CUTS,
          f"--cuts takes two cuts from 1 to 7, got {first} {second}")
    pairs = nardy_pairs(first, second)
    used = [position for pair in pairs for position in pair]
    check(len(set(used)) == len(used), "a position is used twice")  # never: pairs are disjoint
    counts: dict[str, int] = {}
    roll = pairs[0]
    for faces in range(nardy.FACES**2):  # every value of the two numbers under roll 1
        sequence = [1] * max(roll)
        sequence[roll[0] - 1], sequence[roll[1] - 1] = faces // 6 + 1, faces % 6 + 1
        text = nardy.roll_text(sequence, roll)
        counts[text] = counts.get(text, 0) + 1
    return Distribution(
        title=f"nardy.rolls: cuts {first} and {second}, start {nardy.start_position(first, second)}"
        f", mask {nardy.mask_string(first, second)}",
        inputs="the 36 values of the two numbers a roll reads",
        counts=counts,
        ideal=uniform(counts),
        notes=(f"{len(pairs)} rolls from {NARDY_SEQUENCE} numbers, at {len(used)} different "
               "positions: every roll is uniform and the rolls are independent",),
    )


def nardy_pairs(first: int, second: int) -> list[tuple[int, int]]:
    start = nardy.start_position(first, second)
    mask = nardy.mask_string(first, second)
    return nardy.pair_up(nardy.kept_positions(NARDY_SEQUENCE, start, mask))


# --- tenhou (002): uniform 32-bit words of SHA-512 ----------------------------------------


def tenhou_shuffle(options: Options) -> Distribution:
    check(2 <= options.cells <= tenhou.WALL_SIZE[4],
          f"--cells is the number of tiles left to swap with, 2 to 136, got {options.cells}")
    counts = residue_counts(TICKET_BITS, options.cells)
    check(options.players in tenhou.WALL_SIZE, f"--players is 3 or 4, got {options.players}")
    return Distribution(
        title=f"tenhou.shuffle: rnd[i] % {options.cells} (the swap offset)",
        inputs="2^32 words",
        counts={str(offset): n for offset, n in enumerate(counts)},
        ideal=uniform(str(offset) for offset in range(options.cells)),
        notes=(f"whole {tenhou.WALL_SIZE[options.players]}-tile wall: the likeliest is "
               f"{scientific(tenhou_likeliest_wall(options.players) - 1)} above "
               f"1/{tenhou.WALL_SIZE[options.players]}! (relative)",),
    )


def tenhou_likeliest_wall(players: int) -> Fraction:
    return likeliest_shuffle(tenhou.WALL_SIZE[players], TICKET_BITS)


def likeliest_shuffle(size: int, bits: int) -> Fraction:
    """The likeliest result of the shuffle over ``bits``-bit words, relative to 1/size!.

    The steps use different words, and each result comes from exactly one choice per
    step, so a result's probability is the product of its choices' probabilities."""
    product = Fraction(1)
    for choices in range(2, size + 1):
        product *= Fraction(max(residue_counts(bits, choices)) * choices, 1 << bits)
    return product


def tenhou_dice(options: Options) -> Distribution:
    counts = residue_counts(TICKET_BITS, 6)
    return Distribution(
        title="tenhou.dice: rnd[135] % 6 and rnd[136] % 6, each die",
        inputs="2^32 words",
        counts={str(face + 1): n for face, n in enumerate(counts)},
        ideal=uniform(str(face) for face in range(1, 7)),
    )


ANALYSES: dict[str, Callable[[Options], Distribution]] = {
    "battle.move": battle_move,
    "battle.attack": battle_attack,
    "battle.damage": battle_damage,
    "casino.numbers": casino_numbers,
    "casino.dice": casino_dice,
    "casino.double": casino_double,
    "casino.x50": casino_x50,
    "casino.jackpot": casino_jackpot,
    "casino.slot": casino_slot,
    "casino.mines": casino_mines,
    "casino.tower": casino_tower,
    "casino.plinko": casino_plinko,
    "casino.crash": casino_crash,
    "casino.overgo": casino_overgo,
    "videopoker.card": videopoker_card,
    "nardy.rolls": nardy_rolls,
    "tenhou.shuffle": tenhou_shuffle,
    "tenhou.dice": tenhou_dice,
}
