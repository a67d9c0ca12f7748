"""The casino generator of ``000_162a66a6a1bf86ea.txt``: seeds to bytes to numbers to outcomes.

Every round follows the same stages (spec ids in brackets):

1. ``hmac_key`` [casino.hmac_key]: SHA-256 of ``server_seed + ":" + salt``; the key
   HMAC receives is either that digest as 64 hex characters (default) or its 32 raw bytes.
2. ``seeds_to_bytes`` [casino.bytes]: HMAC-SHA512(key, ``client_seed + ":" + cursor``).
3. ``numbers_from_bytes`` [casino.numbers]: eight doubles per 64 bytes, each
   ``Σ byte / 256^k`` summed left to right in IEEE-754 double precision.
4. ``index_array`` [casino.round_numbers]: the numbers of cursors 0, 1, 2, ... concatenated.
5. one outcome function per game, named as the document names it (``mines_shuffling``,
   ``tower_shuffling``, ``slot_spin``, ``plinko_bucket``, ``dice_outcome``, ...), each
   with a stage id of its own (casino.mines_shuffling, ...) and a whole-round id
   (casino.mines, ...) that runs stages 1 to 5 from the seeds.

The document's code is JavaScript; where JavaScript semantics decide a value (``splice``
past the end, ``toFixed`` rounding, double arithmetic) the reference reproduces them.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import re
import struct
from collections.abc import Iterator
from decimal import ROUND_HALF_UP, Decimal

from fairvec.reference._algorithm import InvalidInput, Output, algorithm

# The two readings of "SHA256(server_seed:salt)" as an HMAC key; the first is the default.
KEY_READINGS = ("hex-text", "raw-bytes")
# Tower: the printed code (splice at the raw number) or the Fisher-Yates the text describes.
TOWER_READINGS = ("scaled", "literal")
TOWER_ROUND_VARIANTS = ("hex-text", "raw-bytes", "hex-text-literal", "raw-bytes-literal")

MAX_CURSOR = 2**53 - 1  # JavaScript renders every safe integer in plain decimal
MAX_CURSORS = 200  # the document's largest count ("Plinko (от 2 до 200 курсоров)")
NUMBERS_PER_CURSOR = 8
MINES_CELLS = 25
MINES_NUMBERS = 24
TOWER_ROWS, TOWER_PICKS, TOWER_CELLS = 10, 4, 5
SLOT_REELS = (30, 30, 30, 30, 41)
MIN_PINS, MAX_PINS = 8, 16
MAX_SPINS = 180  # "Slot (от 1 до 180 курсоров)", one cursor per spin
MAX_BALLS = 100  # "Plinko (от 2 до 200 курсоров)", two cursors per ball
MAX_TICKETS = 2**53 - 2  # so that ticket + 1 is still an exact double
CRASH_EDGE = 0.05
OVERGO_EDGE = 0.03
BYTES_HEX = re.compile(r"[0-9a-fA-F]{128}")


# --- helpers -----------------------------------------------------------------------


def bits(value: float) -> str:
    """The IEEE-754 binary64 pattern, 16 lowercase hex digits (for bit-exact comparison)."""
    return struct.pack(">d", value).hex()


def utf8(field: str, text: str) -> bytes:
    """Node's ``update(string)`` encodes UTF-8; a lone surrogate has no UTF-8 form."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput(
            "not-unicode-text", f"{field} holds a lone surrogate; send well-formed Unicode text"
        ) from None


def to_fixed(value: float, digits: int) -> str:
    """JavaScript's ``Number.prototype.toFixed`` for values below 1e21.

    It rounds the exact binary value of the double, ties away from zero ("pick the
    larger n"); Python's ``format(value, ".2f")`` rounds ties to even instead.
    """
    quantum = Decimal(1).scaleb(-digits)
    return format(Decimal(value).quantize(quantum, rounding=ROUND_HALF_UP), "f")


def splice_one(cells: list[int | None], index: int) -> int | None:
    """``cells.splice(index, 1)[0]``: past the end JavaScript removes nothing and gives
    ``undefined`` (JSON null); only a number of exactly 1.0 reaches that."""
    if index >= len(cells):
        return None
    return cells.pop(index)


def check_number(number: float, field: str = "number") -> None:
    """Numbers come from :func:`numbers_from_bytes`, so they lie in [0, 1] (1.0 included:
    see the quirk sum-reaches-one); anything else cannot come from a round."""
    if not 0.0 <= number <= 1.0:
        raise InvalidInput(
            "number-out-of-range", f"{field} must lie in [0, 1] as the generator makes it"
        )


def check_numbers(numbers: list[float], count: int, what: str) -> None:
    if len(numbers) != count:
        raise InvalidInput(
            "wrong-number-count", f"{what} takes exactly {count} numbers, got {len(numbers)}"
        )
    for position, number in enumerate(numbers):
        check_number(number, f"numbers[{position}]")


def check_range(code: str, field: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:
        raise InvalidInput(code, f"{field} runs from {low} to {high}, got {value}")


def key_reading_of(variant: str) -> str:
    """The key reading a round variant names (``raw-bytes-literal`` reads ``raw-bytes``)."""
    return "raw-bytes" if variant.startswith("raw-bytes") else "hex-text"


# --- stages 1 to 4: seeds, bytes, numbers --------------------------------------------


def hmac_key(server_seed: str, salt: str, key_reading: str) -> tuple[str, bytes]:
    """``createHash(serverSeed + ":" + salt)``: the digest (hex) and the HMAC key bytes.

    The server seed and salt are hashed as text, never hex-decoded.
    """
    digest = hashlib.sha256(utf8("server_seed", server_seed) + b":" + utf8("salt", salt))
    if key_reading == "raw-bytes":
        return digest.hexdigest(), digest.digest()
    # hex-text: the 64 lowercase hex characters themselves are the key (their ASCII bytes)
    return digest.hexdigest(), digest.hexdigest().encode("ascii")


def hmac_message(client_seed: str, cursor: int) -> str:
    """``clientSeed + ":" + cursor``: the cursor in plain decimal, the seed verbatim."""
    check_range("cursor-out-of-range", "cursor", cursor, 0, MAX_CURSOR)
    return f"{client_seed}:{cursor}"


def seeds_to_bytes(
    server_seed: str, salt: str, client_seed: str, cursor: int, key_reading: str
) -> bytes:
    """``seedsToBytes``: HMAC-SHA512(key, message), 64 bytes."""
    _, key = hmac_key(server_seed, salt, key_reading)
    message = utf8("client_seed", hmac_message(client_seed, cursor))
    return hmac.digest(key, message, "sha512")  # hmac.new's result, in one C call


def bytes_stream(
    server_seed: str, salt: str, client_seed: str, key_reading: str, cursor: int = 0
) -> Iterator[bytes]:
    """seedsToBytes for cursor, cursor + 1, ...: the generator's whole output, 64 bytes a
    cursor, as the document's Dieharder run fed it (``fairvec stream casino.bytes``). The
    key is hashed once; each block is seeds_to_bytes' HMAC over the next cursor."""
    _, key = hmac_key(server_seed, salt, key_reading)
    keyed = hmac.new(key, digestmod=hashlib.sha512)
    prefix = utf8("client_seed", client_seed) + b":"
    while True:
        check_range("cursor-out-of-range", "cursor", cursor, 0, MAX_CURSOR)
        block = keyed.copy()
        block.update(prefix + str(cursor).encode("ascii"))
        yield block.digest()
        cursor += 1


_EIGHT_BYTES = struct.Struct("8B")


def numbers_from_bytes(data: bytes) -> list[float]:
    """``numbersFromBytes``: block t is Σ bytes[8t+k] / 256^(k+1), k = 0..7.

    Summed left to right in doubles exactly as the JavaScript does: ``pw`` is a double
    that is multiplied by 256 each step and every quotient is rounded before it is
    added. The result is NOT the exact value of the 64-bit fraction rounded once.
    """
    # One expression a block, not a loop over its bytes (a third of casino.plinko's time):
    # the same doubles, as ``pw`` is a power of two (256.0**k, folded to a constant, is
    # exact) and Python adds left to right; 0.0 + the first quotient is the quotient.
    whole = data[: len(data) // 8 * 8]
    return [
        b0 / 256.0
        + b1 / 256.0**2
        + b2 / 256.0**3
        + b3 / 256.0**4
        + b4 / 256.0**5
        + b5 / 256.0**6
        + b6 / 256.0**7
        + b7 / 256.0**8
        for b0, b1, b2, b3, b4, b5, b6, b7 in _EIGHT_BYTES.iter_unpack(whole)
    ]


def index_array(
    server_seed: str, salt: str, client_seed: str, first_cursor: int, cursors: int, key_reading: str
) -> list[float]:
    """The numbers of cursors first_cursor, first_cursor + 1, ... concatenated."""
    numbers: list[float] = []
    for cursor in range(first_cursor, first_cursor + cursors):
        numbers += numbers_from_bytes(
            seeds_to_bytes(server_seed, salt, client_seed, cursor, key_reading)
        )
    return numbers


def parse_bytes(text: str, field: str = "bytes") -> bytes:
    if not BYTES_HEX.fullmatch(text):
        raise InvalidInput("bad-bytes", f"{field} is 64 bytes as 128 hexadecimal digits")
    return bytes.fromhex(text)


# --- stage 5: the outcome of each game ------------------------------------------------


def mines_shuffling(
    numbers: list[float],
) -> tuple[list[int], list[list[int | None]], list[int | None]]:
    """Fisher-Yates by splice over cells 0..24: the scaled index of each step, the
    array before each step (as the document's table prints it) and the permutation."""
    cells: list[int | None] = list(range(MINES_CELLS))
    indices, remaining, permutation = [], [], []
    for number in numbers:
        index = math.floor(number * len(cells))
        indices.append(index)
        remaining.append(list(cells))
        permutation.append(splice_one(cells, index))
    return indices, remaining, permutation


def tower_shuffling(numbers: list[float], reading: str) -> list[list[int | None]]:
    """Ten rows, each four picks from 0..4 by splice.

    ``literal`` passes the raw number to splice as the printed code does; JavaScript
    truncates it to an integer, so every number in [0, 1) picks position 0.
    ``scaled`` uses floor(number * range.length), the Fisher-Yates the text describes.
    """
    field = []
    for row in range(TOWER_ROWS):
        cells: list[int | None] = list(range(TOWER_CELLS))
        permutation = []
        for pick in range(TOWER_PICKS):
            number = numbers[row * TOWER_PICKS + pick]
            # literal: splice's ToIntegerOrInfinity truncates the raw number
            literal = reading == "literal"
            index = math.trunc(number) if literal else math.floor(number * len(cells))
            permutation.append(splice_one(cells, index))
        field.append(permutation)
    return field


def slot_spin(numbers: list[float]) -> list[int]:
    """The first five numbers times each reel's length (30, 30, 30, 30, 41), floored."""
    return [math.floor(numbers[reel] * length) for reel, length in enumerate(SLOT_REELS)]


def plinko_bucket(numbers: list[float]) -> tuple[list[int], int]:
    """Each number gives floor(number * 2) (exactly 0.5 gives 1); the bucket is the sum."""
    directions = [math.floor(number * 2) for number in numbers]
    return directions, sum(directions)


def dice_outcome(number: float) -> tuple[int, float]:
    """floor(number * 10001) / 100: the integer roll and the double result."""
    roll = math.floor(number * 10001)
    return roll, roll / 100


def double_outcome(number: float) -> int:
    return math.floor(number * 15)


def x50_outcome(number: float) -> int:
    """Printed under the name doubleOutcome, but with 54 sectors."""
    return math.floor(number * 54)


def jackpot_outcome(number: float, tickets: int) -> int:
    """floor(number * tickets) + 1, the product rounded as a double first."""
    return math.floor(number * float(tickets)) + 1


def multiplier_outcome(number: float, edge: float) -> tuple[int, float, str]:
    """Crash and Overgo: max(1, 1000000 / (floor(number * 1000000) + 1) * (1 - edge)).

    In this order, in doubles: divide first, then multiply by the double 1 - edge;
    then toFixed(2). Returns the floored scale, the double and its two-decimal text.
    """
    scaled = math.floor(number * 1000000)
    value = max(1.0, 1000000.0 / float(scaled + 1) * (1.0 - edge))
    return scaled, value, to_fixed(value, 2)


# --- registered algorithms: the generator's stages -------------------------------------


@algorithm("casino.hmac_key", variants=KEY_READINGS)
def hmac_key_algorithm(server_seed: str, salt: str, variant: str) -> Output:
    digest, key = hmac_key(server_seed, salt, variant)
    return {"digest": digest, "key": key.hex()}


@algorithm("casino.bytes", variants=KEY_READINGS)
def bytes_algorithm(
    server_seed: str, salt: str, client_seed: str, cursor: int, variant: str
) -> Output:
    message = hmac_message(client_seed, cursor)
    data = seeds_to_bytes(server_seed, salt, client_seed, cursor, variant)
    return {"message": message, "bytes": data.hex()}


@algorithm("casino.numbers")
def numbers(bytes: str) -> Output:
    values = numbers_from_bytes(parse_bytes(bytes))
    return {"numbers": values, "numbers_bits": [bits(value) for value in values]}


@algorithm("casino.round_numbers", variants=KEY_READINGS)
def round_numbers(
    server_seed: str, salt: str, client_seed: str, cursors: int, variant: str
) -> Output:
    check_range("cursors-out-of-range", "cursors", cursors, 1, MAX_CURSORS)
    values = index_array(server_seed, salt, client_seed, 0, cursors, variant)
    return {"numbers": values, "numbers_bits": [bits(value) for value in values]}


@algorithm("casino.commitment", variants=KEY_READINGS)
def commitment(
    server_seed: str, salt: str, client_seed: str, bytes: list[str], variant: str
) -> Output:
    """The revealed seeds reproduce the bytes the round showed, cursor by cursor."""
    check_range("cursors-out-of-range", "len(bytes)", len(bytes), 1, MAX_CURSORS)
    shown = [parse_bytes(text, f"bytes[{cursor}]") for cursor, text in enumerate(bytes)]
    computed = [
        seeds_to_bytes(server_seed, salt, client_seed, cursor, variant)
        for cursor in range(len(shown))
    ]
    return {"bytes": [data.hex() for data in computed], "matches": computed == shown}


# --- registered algorithms: outcomes from numbers (the document's functions) ----------


@algorithm("casino.mines_shuffling")
def mines_shuffling_algorithm(numbers: list[float], mines_count: int) -> Output:
    check_numbers(numbers, MINES_NUMBERS, "minesShuffling")
    check_range("mines-count-out-of-range", "mines_count", mines_count, 1, MINES_NUMBERS)
    indices, remaining, permutation = mines_shuffling(numbers)
    return {
        "indices": indices,
        "remaining": remaining,
        "permutation": permutation,
        "mines": permutation[:mines_count],
    }


@algorithm("casino.tower_shuffling", variants=TOWER_READINGS)
def tower_shuffling_algorithm(numbers: list[float], variant: str) -> Output:
    check_numbers(numbers, TOWER_ROWS * TOWER_PICKS, "the Tower shuffle")
    return {"field": tower_shuffling(numbers, variant)}


@algorithm("casino.slot_spin")
def slot_spin_algorithm(numbers: list[float]) -> Output:
    check_numbers(numbers, NUMBERS_PER_CURSOR, "slotSpin (one cursor)")
    return {"positions": slot_spin(numbers)}


@algorithm("casino.plinko_bucket")
def plinko_bucket_algorithm(numbers: list[float]) -> Output:
    if not MIN_PINS <= len(numbers) <= MAX_PINS:
        raise InvalidInput(
            "pins-out-of-range",
            f"plinkoBucket takes one number per pin, {MIN_PINS} to {MAX_PINS}, got {len(numbers)}",
        )
    check_numbers(numbers, len(numbers), "plinkoBucket")
    directions, bucket = plinko_bucket(numbers)
    return {"directions": directions, "bucket": bucket}


def dice_output(number: float) -> Output:
    roll, result = dice_outcome(number)
    text = to_fixed(result, 2)
    return {"roll": roll, "result": result, "result_bits": bits(result), "text": text}


def multiplier_output(number: float, edge: float) -> Output:
    scaled, value, text = multiplier_outcome(number, edge)
    return {"scaled": scaled, "value": value, "value_bits": bits(value), "multiplier": text}


@algorithm("casino.dice_outcome")
def dice_outcome_algorithm(number: float) -> Output:
    check_number(number)
    return dice_output(number)


@algorithm("casino.double_outcome")
def double_outcome_algorithm(number: float) -> Output:
    check_number(number)
    return {"sector": double_outcome(number)}


@algorithm("casino.x50_outcome")
def x50_outcome_algorithm(number: float) -> Output:
    check_number(number)
    return {"sector": x50_outcome(number)}


@algorithm("casino.jackpot_outcome")
def jackpot_outcome_algorithm(number: float, tickets: int) -> Output:
    check_number(number)
    check_range("tickets-out-of-range", "tickets", tickets, 1, MAX_TICKETS)
    return {"ticket": jackpot_outcome(number, tickets)}


@algorithm("casino.crash_outcome")
def crash_outcome_algorithm(number: float) -> Output:
    check_number(number)
    return multiplier_output(number, CRASH_EDGE)


@algorithm("casino.overgo_outcome")
def overgo_outcome_algorithm(number: float) -> Output:
    check_number(number)
    return multiplier_output(number, OVERGO_EDGE)


# --- registered algorithms: whole rounds from the seeds ----------------------------------


def single_number(server_seed: str, salt: str, client_seed: str, variant: str) -> float:
    """One-cursor games use the first number of cursor 0."""
    return index_array(server_seed, salt, client_seed, 0, 1, key_reading_of(variant))[0]


def with_number(number: float, output: Output) -> Output:
    return {"number": number, "number_bits": bits(number), **output}


@algorithm("casino.mines", variants=KEY_READINGS)
def mines(server_seed: str, salt: str, client_seed: str, mines_count: int, variant: str) -> Output:
    check_range("mines-count-out-of-range", "mines_count", mines_count, 1, MINES_NUMBERS)
    values = index_array(server_seed, salt, client_seed, 0, 3, variant)
    _, _, permutation = mines_shuffling(values)
    return {
        "numbers": values,
        "numbers_bits": [bits(value) for value in values],
        "permutation": permutation,
        "mines": permutation[:mines_count],
    }


@algorithm("casino.tower", variants=TOWER_ROUND_VARIANTS)
def tower(server_seed: str, salt: str, client_seed: str, variant: str) -> Output:
    values = index_array(server_seed, salt, client_seed, 0, 5, key_reading_of(variant))
    reading = "literal" if variant.endswith("-literal") else "scaled"
    return {
        "numbers": values,
        "numbers_bits": [bits(value) for value in values],
        "field": tower_shuffling(values, reading),
    }


@algorithm("casino.slot", variants=KEY_READINGS)
def slot(server_seed: str, salt: str, client_seed: str, spins: int, variant: str) -> Output:
    """Spin s of a round uses cursor s (one cursor per spin)."""
    check_range("spins-out-of-range", "spins", spins, 1, MAX_SPINS)
    return {
        "spins": [
            slot_spin(index_array(server_seed, salt, client_seed, spin, 1, variant))
            for spin in range(spins)
        ]
    }


@algorithm("casino.plinko", variants=KEY_READINGS)
def plinko(
    server_seed: str, salt: str, client_seed: str, pins: int, balls: int, variant: str
) -> Output:
    """Ball b of a round uses cursors 2b and 2b + 1 and the first ``pins`` of their numbers."""
    check_range("pins-out-of-range", "pins", pins, MIN_PINS, MAX_PINS)
    check_range("balls-out-of-range", "balls", balls, 1, MAX_BALLS)
    buckets = []
    for ball in range(balls):
        values = index_array(server_seed, salt, client_seed, 2 * ball, 2, variant)
        buckets.append(plinko_bucket(values[:pins])[1])
    return {"buckets": buckets}


@algorithm("casino.dice", variants=KEY_READINGS)
def dice(server_seed: str, salt: str, client_seed: str, variant: str) -> Output:
    number = single_number(server_seed, salt, client_seed, variant)
    return with_number(number, dice_output(number))


@algorithm("casino.double", variants=KEY_READINGS)
def double(server_seed: str, salt: str, client_seed: str, variant: str) -> Output:
    number = single_number(server_seed, salt, client_seed, variant)
    return with_number(number, {"sector": double_outcome(number)})


@algorithm("casino.x50", variants=KEY_READINGS)
def x50(server_seed: str, salt: str, client_seed: str, variant: str) -> Output:
    number = single_number(server_seed, salt, client_seed, variant)
    return with_number(number, {"sector": x50_outcome(number)})


@algorithm("casino.jackpot", variants=KEY_READINGS)
def jackpot(server_seed: str, salt: str, client_seed: str, tickets: int, variant: str) -> Output:
    check_range("tickets-out-of-range", "tickets", tickets, 1, MAX_TICKETS)
    number = single_number(server_seed, salt, client_seed, variant)
    return with_number(number, {"ticket": jackpot_outcome(number, tickets)})


@algorithm("casino.crash", variants=KEY_READINGS)
def crash(server_seed: str, salt: str, client_seed: str, variant: str) -> Output:
    number = single_number(server_seed, salt, client_seed, variant)
    return with_number(number, multiplier_output(number, CRASH_EDGE))


@algorithm("casino.overgo", variants=KEY_READINGS)
def overgo(server_seed: str, salt: str, client_seed: str, variant: str) -> Output:
    number = single_number(server_seed, salt, client_seed, variant)
    return with_number(number, multiplier_output(number, OVERGO_EDGE))
