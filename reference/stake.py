"""The Stake-style scheme: HMAC-SHA256 bytes -> floats -> game events.

Published by stake.com (provably-fair/implementation, /conversions, /game-events) and copied
nearly word for word by many operators. The stages (spec ids in brackets):

1. ``round_bytes`` [stake.bytes]: HMAC-SHA256 keyed with the server seed's text over
   ``client_seed:nonce:round``, 32 bytes per round.
2. ``generate_floats`` [stake.floats]: a byte cursor walks the rounds; each 4 bytes give
   ``b0/256 + b1/256^2 + b2/256^3 + b3/256^4`` (exact in a double: 32 bits).
3. ``pick_and_remove`` [stake.shuffle]: Stake's "Fisher-Yates", ``splice(floor(f * n), 1)``;
   ``swap_from_end`` is the textbook Fisher-Yates some verifiers use instead (a variant).
4. one game per spec (dice, limbo, mines, keno, plinko, wheel, roulette, diamonds, cards,
   video_poker) from the seeds and a nonce; crash is separate: a game hash and a salt.

Values a player sees are written as JavaScript writes them (``toFixed``, ``floor`` on doubles);
the sources' code is JavaScript, so where its semantics decide a value, the reference follows.
No code of the cited verifiers is used (several have no licence): this is written from the
published formulas.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import re
from collections.abc import Iterator
from decimal import ROUND_HALF_UP, Decimal
from itertools import islice

from fairvec.reference._algorithm import InvalidInput, Output, algorithm

MAX_SAFE_INTEGER = 2**53 - 1  # JavaScript holds (and prints) every integer up to here exactly
BYTES_PER_ROUND = 32
BYTES_PER_FLOAT = 4
MAX_FLOATS = 256  # far above the largest game (52 card events); keeps a request small
MAX_SHUFFLE_SIZE = 1000

# Shuffle readings: Stake's splice (default) and the swap-from-the-end Fisher-Yates.
SHUFFLES = ("pick-and-remove", "swap-from-end")
# Two-decimal readings: Stake floors to the cent; some verifiers round with toFixed(2).
ROUNDINGS = ("truncate", "round")

DICE_OUTCOMES = 10001  # rolls 0.00 .. 100.00
LIMBO_SCALE = 16777216  # 2^24
CRASH_SCALE = 4294967296  # 2^32
HOUSE_EDGE_FACTOR = 0.99  # a 1% edge, as the published formulas write it
MINES_CELLS = 25
KENO_SQUARES = 40
KENO_HITS = 10
MIN_ROWS, MAX_ROWS = 8, 16
ROULETTE_POCKETS = 37
DIAMONDS_GEMS = 5
GEMS = ("green", "purple", "yellow", "red", "cyan", "orange", "blue")
VIDEO_POKER_CARDS = 10  # five dealt, then the five replacements in order
DECK_SIZE = 52
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = ("♦", "♥", "♠", "♣")  # rank-major: index 0 is 2♦, 1 is 2♥, ... 51 is A♣
GAME_HASH = re.compile(r"[0-9a-f]{64}")

# Wheel payouts by segments and risk (stake.com/provably-fair/game-events, "Wheel"). The low
# risk repeats one block of ten; high pays only on the last segment.
_LOW_BLOCK = (1.5, 1.2, 1.2, 1.2, 0.0, 1.2, 1.2, 1.2, 1.2, 0.0)
_MEDIUM: dict[int, tuple[float, ...]] = {
    10: (0, 1.9, 0, 1.5, 0, 2, 0, 1.5, 0, 3),
    20: (1.5, 0, 2, 0, 2, 0, 2, 0, 1.5, 0, 3, 0, 1.8, 0, 2, 0, 2, 0, 2, 0),
    30: (1.5, 0, 1.5, 0, 2, 0, 1.5, 0, 2, 0, 2, 0, 1.5, 0, 3, 0, 1.5, 0, 2, 0,
         2, 0, 1.7, 0, 4, 0, 1.5, 0, 2, 0),
    40: (2, 0, 3, 0, 2, 0, 1.5, 0, 3, 0, 1.5, 0, 1.5, 0, 2, 0, 1.5, 0, 3, 0,
         1.5, 0, 2, 0, 2, 0, 1.6, 0, 2, 0, 1.5, 0, 3, 0, 1.5, 0, 2, 0, 1.5, 0),
    50: (2, 0, 1.5, 0, 2, 0, 1.5, 0, 3, 0, 1.5, 0, 1.5, 0, 2, 0, 1.5, 0, 3, 0,
         1.5, 0, 2, 0, 1.5, 0, 2, 0, 2, 0, 1.5, 0, 3, 0, 1.5, 0, 2, 0, 1.5, 0,
         1.5, 0, 5, 0, 1.5, 0, 2, 0, 1.5, 0),
}  # fmt: skip
_HIGH_TOP = {10: 9.9, 20: 19.8, 30: 29.7, 40: 39.6, 50: 49.5}
WHEEL_RISKS = ("low", "medium", "high")


def wheel_payouts(segments: int, risk: str) -> tuple[float, ...]:
    """The multiplier of each segment, 0 to segments - 1, for one risk."""
    if risk == "low":
        return _LOW_BLOCK * (segments // 10)
    if risk == "medium":
        return tuple(float(value) for value in _MEDIUM[segments])
    return (0.0,) * (segments - 1) + (_HIGH_TOP[segments],)


# --- helpers -----------------------------------------------------------------------------


def utf8(field: str, text: str) -> bytes:
    """Node's crypto hashes strings as UTF-8; a lone surrogate has no UTF-8 form."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput(
            "not-unicode-text", f"{field} holds a lone surrogate; send well-formed Unicode text"
        ) from None


def check_range(code: str, field: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:
        raise InvalidInput(code, f"{field} runs from {low} to {high}, got {value}")


def to_fixed(value: float, digits: int) -> str:
    """JavaScript's ``toFixed``: rounds the double's exact binary value, ties away from zero
    (Python's ``format(value, ".2f")`` rounds ties to even)."""
    quantum = Decimal(1).scaleb(-digits)
    return format(Decimal(value).quantize(quantum, rounding=ROUND_HALF_UP), "f")


def card_name(index: int) -> str:
    return RANKS[index // 4] + SUITS[index % 4]


# --- stage 1: bytes ----------------------------------------------------------------------


def hmac_message(client_seed: str, nonce: int, round_: int) -> str:
    """``${clientSeed}:${nonce}:${round}``, both numbers in plain decimal."""
    check_range("nonce-out-of-range", "nonce", nonce, 0, MAX_SAFE_INTEGER)
    check_range("round-out-of-range", "round", round_, 0, MAX_SAFE_INTEGER)
    return f"{client_seed}:{nonce}:{round_}"


def round_bytes(server_seed: str, client_seed: str, nonce: int, round_: int) -> bytes:
    """HMAC-SHA256 keyed with the server seed's UTF-8 text (never hex-decoded)."""
    key = utf8("server_seed", server_seed)
    message = utf8("client_seed", hmac_message(client_seed, nonce, round_))
    return hmac.digest(key, message, "sha256")  # hmac.new's result, in one C call


def round_stream(
    server_seed: str, client_seed: str, nonce: int, round_: int = 0
) -> Iterator[bytes]:
    """round_bytes for round, round + 1, ...: the generator's whole output for one nonce,
    32 bytes a round (``fairvec stream stake.bytes``)."""
    while True:
        yield round_bytes(server_seed, client_seed, nonce, round_)
        round_ += 1


# --- stage 2: floats ---------------------------------------------------------------------


def byte_generator(server_seed: str, client_seed: str, nonce: int, cursor: int) -> Iterator[int]:
    """Bytes from byte ``cursor`` on: round floor(cursor / 32), then the next rounds."""
    round_, offset = divmod(cursor, BYTES_PER_ROUND)
    while True:
        yield from round_bytes(server_seed, client_seed, nonce, round_)[offset:]
        round_, offset = round_ + 1, 0


def float_from_bytes(chunk: bytes) -> float:
    """b0/256 + b1/256^2 + b2/256^3 + b3/256^4, summed left to right. Every partial sum has
    at most 32 significant bits, so the double sum is exact: k / 2^32 for the big-endian k,
    and that is how it is computed (one division, not a loop: stake.mines spent a sixth of
    its time here). Exact for any chunk of up to 6 bytes (48 bits); a chunk is 4."""
    return int.from_bytes(chunk, "big") / 256.0 ** len(chunk)


def generate_floats(
    server_seed: str, client_seed: str, nonce: int, cursor: int, count: int
) -> list[float]:
    """``count`` floats from 4 bytes each, crossing into the next round after 8."""
    check_range("count-out-of-range", "count", count, 1, MAX_FLOATS)
    check_range("cursor-out-of-range", "cursor", cursor, 0, MAX_SAFE_INTEGER)
    source = byte_generator(server_seed, client_seed, nonce, cursor)
    data = bytes(islice(source, count * BYTES_PER_FLOAT))
    return [
        float_from_bytes(data[at : at + BYTES_PER_FLOAT])
        for at in range(0, len(data), BYTES_PER_FLOAT)
    ]


def game_floats(server_seed: str, client_seed: str, nonce: int, count: int) -> list[float]:
    """Every game starts at cursor 0 of its nonce."""
    return generate_floats(server_seed, client_seed, nonce, 0, count)


# --- stage 3: the shuffle ----------------------------------------------------------------


def pick_and_remove(floats: list[float], size: int) -> tuple[list[int], list[int]]:
    """Stake: ``items.splice(floor(f * items.length), 1)`` for each float in turn; the
    remaining items keep their order."""
    items = list(range(size))
    indices, picks = [], []
    for value in floats:
        index = math.floor(value * len(items))
        indices.append(index)
        picks.append(items.pop(index))
    return indices, picks


def swap_from_end(floats: list[float], size: int) -> tuple[list[int], list[int]]:
    """Textbook Fisher-Yates: j = floor(f * m) among the m items left; the pick is items[j]
    and the last remaining item moves into its place (instead of everything shifting)."""
    items = list(range(size))
    indices, picks = [], []
    for step, value in enumerate(floats):
        remaining = size - step
        index = math.floor(value * remaining)
        indices.append(index)
        picks.append(items[index])
        items[index] = items[remaining - 1]
    return indices, picks


def shuffle_picks(floats: list[float], size: int, reading: str) -> tuple[list[int], list[int]]:
    draw = pick_and_remove if reading == "pick-and-remove" else swap_from_end
    return draw(floats, size)


def check_floats(floats: list[float]) -> None:
    """Floats come from 4 bytes, so they lie in [0, 1); 1.0 cannot happen."""
    for position, value in enumerate(floats):
        if not 0.0 <= value < 1.0:
            raise InvalidInput(
                "float-out-of-range", f"floats[{position}] must lie in [0, 1), got {value}"
            )


# --- game events from one float ----------------------------------------------------------


def two_decimals(value: float) -> tuple[float, str]:
    """The ``round`` reading: toFixed(2) of the unfloored value, read back as a number."""
    text = to_fixed(value, 2)
    return float(text), text


def dice_roll(value: float, reading: str) -> tuple[float, str]:
    """truncate: floor(f * 10001) / 100; round: (f * 10001 / 100).toFixed(2)."""
    if reading == "round":
        return two_decimals(value * DICE_OUTCOMES / 100)
    result = math.floor(value * DICE_OUTCOMES) / 100
    return result, to_fixed(result, 2)


def limbo_multiplier(value: float, reading: str) -> tuple[int, float, str]:
    """k = floor(f * 2^24); truncate: max(1, floor(2^24 / (k + 1) * 0.99 * 100) / 100),
    in that order, in doubles; round: max(1, 2^24 / (k + 1) * 0.99).toFixed(2)."""
    scaled = math.floor(value * LIMBO_SCALE)
    raw = LIMBO_SCALE / (scaled + 1) * HOUSE_EDGE_FACTOR
    if reading == "round":
        return (scaled, *two_decimals(max(1.0, raw)))
    result = max(1.0, math.floor(raw * 100) / 100)
    return scaled, result, to_fixed(result, 2)


def crash_hmac(game_hash: str, salt: str) -> str:
    """HMAC-SHA256 keyed with the game hash's 64-character hex TEXT, over the salt's text."""
    if not GAME_HASH.fullmatch(game_hash):
        raise InvalidInput(
            "bad-game-hash", "game_hash is a SHA-256 hash as 64 lowercase hexadecimal digits"
        )
    key = game_hash.encode("ascii")
    return hmac.new(key, utf8("salt", salt), hashlib.sha256).hexdigest()


def crash_point(digest: str, reading: str) -> tuple[int, float, str]:
    """n = the first 8 hex digits; truncate: floor(max(1, 2^32 / (n + 1) * 0.99) * 100) / 100;
    round: max(1, 2^32 / (n + 1) * 0.99).toFixed(2)."""
    number = int(digest[:8], 16)
    raw = max(1.0, CRASH_SCALE / (number + 1) * HOUSE_EDGE_FACTOR)
    if reading == "round":
        return (number, *two_decimals(raw))
    result = math.floor(raw * 100) / 100
    return number, result, to_fixed(result, 2)


def scaled_index(value: float, size: int) -> int:
    """floor(f * size): one event out of ``size`` (Plinko 2, Roulette 37, cards 52 ...)."""
    return math.floor(value * size)


# --- registered algorithms: stages -------------------------------------------------------


@algorithm("stake.bytes")
def bytes_algorithm(server_seed: str, client_seed: str, nonce: int, round: int) -> Output:
    message = hmac_message(client_seed, nonce, round)
    return {"message": message, "bytes": round_bytes(server_seed, client_seed, nonce, round).hex()}


@algorithm("stake.floats")
def floats(server_seed: str, client_seed: str, nonce: int, cursor: int, count: int) -> Output:
    return {"floats": generate_floats(server_seed, client_seed, nonce, cursor, count)}


@algorithm("stake.shuffle", variants=SHUFFLES)
def shuffle(floats: list[float], size: int, variant: str) -> Output:
    check_range("size-out-of-range", "size", size, 1, MAX_SHUFFLE_SIZE)
    if len(floats) > size:
        raise InvalidInput("too-many-floats", f"{len(floats)} floats cannot pick from {size} items")
    check_floats(floats)
    indices, picks = shuffle_picks(floats, size, variant)
    return {"indices": indices, "picks": picks}


# --- registered algorithms: games from the seeds -----------------------------------------


def one_float(server_seed: str, client_seed: str, nonce: int) -> float:
    return game_floats(server_seed, client_seed, nonce, 1)[0]


@algorithm("stake.dice", variants=ROUNDINGS)
def dice(server_seed: str, client_seed: str, nonce: int, variant: str) -> Output:
    value = one_float(server_seed, client_seed, nonce)
    result, text = dice_roll(value, variant)
    return {"float": value, "result": result, "text": text}


@algorithm("stake.limbo", variants=ROUNDINGS)
def limbo(server_seed: str, client_seed: str, nonce: int, variant: str) -> Output:
    value = one_float(server_seed, client_seed, nonce)
    scaled, result, text = limbo_multiplier(value, variant)
    return {"float": value, "scaled": scaled, "multiplier": result, "text": text}


@algorithm("stake.crash", variants=ROUNDINGS)
def crash(game_hash: str, salt: str, variant: str) -> Output:
    digest = crash_hmac(game_hash, salt)
    number, result, text = crash_point(digest, variant)
    return {"hmac": digest, "number": number, "crash_point": result, "text": text}


def shuffled_game(
    server_seed: str, client_seed: str, nonce: int, picks: int, size: int, reading: str
) -> tuple[list[float], list[int]]:
    values = game_floats(server_seed, client_seed, nonce, picks)
    return values, shuffle_picks(values, size, reading)[1]


@algorithm("stake.mines", variants=SHUFFLES)
def mines(server_seed: str, client_seed: str, nonce: int, mines_count: int, variant: str) -> Output:
    check_range("mines-count-out-of-range", "mines_count", mines_count, 1, MINES_CELLS - 1)
    values, cells = shuffled_game(
        server_seed, client_seed, nonce, mines_count, MINES_CELLS, variant
    )
    return {"floats": values, "mines": cells, "cells": sorted(cells)}


@algorithm("stake.keno", variants=SHUFFLES)
def keno(server_seed: str, client_seed: str, nonce: int, variant: str) -> Output:
    values, picks = shuffled_game(server_seed, client_seed, nonce, KENO_HITS, KENO_SQUARES, variant)
    hits = [pick + 1 for pick in picks]  # squares are numbered 1 to 40
    return {"floats": values, "hits": hits, "squares": sorted(hits)}


@algorithm("stake.video_poker", variants=SHUFFLES)
def video_poker(server_seed: str, client_seed: str, nonce: int, variant: str) -> Output:
    values, picks = shuffled_game(
        server_seed, client_seed, nonce, VIDEO_POKER_CARDS, DECK_SIZE, variant
    )
    return {
        "floats": values,
        "indices": picks,
        "cards": [card_name(pick) for pick in picks],
        "hand": [card_name(pick) for pick in picks[:5]],
        "draws": [card_name(pick) for pick in picks[5:]],
    }


@algorithm("stake.plinko")
def plinko(server_seed: str, client_seed: str, nonce: int, rows: int) -> Output:
    check_range("rows-out-of-range", "rows", rows, MIN_ROWS, MAX_ROWS)
    values = game_floats(server_seed, client_seed, nonce, rows)
    directions = [scaled_index(value, 2) for value in values]  # 0 left, 1 right
    return {"floats": values, "directions": directions, "slot": sum(directions)}


@algorithm("stake.wheel")
def wheel(server_seed: str, client_seed: str, nonce: int, segments: int, risk: str) -> Output:
    if segments not in _HIGH_TOP:
        raise InvalidInput(
            "segments-out-of-range", f"segments is one of 10, 20, 30, 40, 50, got {segments}"
        )
    if risk not in WHEEL_RISKS:
        raise InvalidInput("unknown-risk", f"risk is low, medium or high, got {risk!r}")
    value = one_float(server_seed, client_seed, nonce)
    segment = scaled_index(value, segments)
    return {
        "float": value,
        "segment": segment,
        "multiplier": wheel_payouts(segments, risk)[segment],
    }


@algorithm("stake.roulette")
def roulette(server_seed: str, client_seed: str, nonce: int) -> Output:
    value = one_float(server_seed, client_seed, nonce)
    return {"float": value, "pocket": scaled_index(value, ROULETTE_POCKETS)}


@algorithm("stake.diamonds")
def diamonds(server_seed: str, client_seed: str, nonce: int) -> Output:
    values = game_floats(server_seed, client_seed, nonce, DIAMONDS_GEMS)
    return {"floats": values, "gems": [GEMS[scaled_index(value, len(GEMS))] for value in values]}


@algorithm("stake.cards")
def cards(server_seed: str, client_seed: str, nonce: int, count: int) -> Output:
    """Blackjack, Hilo, Baccarat: an unlimited deck, each card floor(f * 52) on its own."""
    check_range("count-out-of-range", "count", count, 1, DECK_SIZE)
    values = game_floats(server_seed, client_seed, nonce, count)
    indices = [scaled_index(value, DECK_SIZE) for value in values]
    return {"floats": values, "indices": indices, "cards": [card_name(i) for i in indices]}
