"""The exact distribution of the casino's number from eight uniform bytes.

``numbersFromBytes`` (reference.casino.numbers_from_bytes) sums ``byte / 256^k`` left to
right in doubles. Read the eight bytes as one big-endian integer U, uniform on [0, 2^64).
Measured in units of 2^-64, every partial sum is an integer:

* the first six terms are exact (48 bits fit in a double's 53);
* the seventh sum is rounded once to 53 significant bits, ties to even;
* the eighth sum is rounded again (two roundings, so not the same as rounding U once).

So the number is ``N(U) = rne(rne(S6 + 256 * b6) + b7)`` (S6 = U with its low 16 bits
cleared), a non-decreasing step function of U with values in [0, 1]: below 2^-11 every
multiple of 2^-64 is hit exactly once; above, the doubles of each binade are hit by runs of
U whose lengths alternate (for [1/2, 1): 7 * 2^8 and 9 * 2^8 values of U, odd and even
doubles, instead of 8 * 2^8); and 1.0 itself is hit by the top 2^10 values (probability
2^-54, outside the promised [0, 1)).

An outcome ``floor(number * m)`` (a double product, as the reference computes it) is then a
non-decreasing function of U as well, so each outcome is an interval of U. Its length is
a difference of two thresholds, each computed in closed form: no enumeration of 2^64 values.
The tests check all of this against the reference's own ``numbers_from_bytes`` on windows
of U enumerated value by value.
"""

from __future__ import annotations

import math
from functools import cache

UNITS = 1 << 64  # equally likely byte strings; a number is N(U) / UNITS
PRECISION = 53  # significant bits of an IEEE-754 double
LOW_BYTE = 255


def round_to_double(value: int) -> int:
    """Round a non-negative integer (units of 2^-64) to 53 significant bits, ties to even,
    as IEEE-754 addition does with the exact sum."""
    shift = value.bit_length() - PRECISION
    if shift <= 0:
        return value
    quotient, remainder = divmod(value, 1 << shift)
    half = 1 << (shift - 1)
    if remainder > half or (remainder == half and quotient & 1):
        quotient += 1
    return quotient << shift


def number_of(u: int) -> int:
    """N(U): the reference's double for the eight bytes of U, in units of 2^-64."""
    first_six = u >> 16 << 16
    seventh, eighth = (u >> 8) & LOW_BYTE, u & LOW_BYTE
    return round_to_double(round_to_double(first_six + (seventh << 8)) + eighth)


def _ceil_to_double(value: int) -> int:
    """The smallest double (in units) that is >= value."""
    shift = value.bit_length() - PRECISION
    if shift <= 0:
        return value
    return -((-value) >> shift) << shift


def _first_rounding_to(target: int) -> int:
    """The smallest integer whose rounding is >= ``target`` (``target`` a double)."""
    if target <= 1 << PRECISION:  # every integer is a double here
        return target
    bits = target.bit_length()
    shift = bits - PRECISION
    # The double below; a power of two has the finer spacing of the binade below it.
    below = target - (1 << (shift - 1) if target == 1 << (bits - 1) else 1 << shift)
    twice_middle = below + target
    if twice_middle & 1:
        return twice_middle // 2 + 1
    middle = twice_middle // 2
    return middle if round_to_double(middle) == target else middle + 1


def first_u_reaching(target: int) -> int:
    """The smallest U with N(U) >= target (units of 2^-64); UNITS if there is none.

    N(U) = rne(rne(256 W) + b7) with W = U >> 8: it reaches ``target`` exactly when
    rne(256 W) + b7 >= L, L the first value rounding to ``target``; so W is the first whose
    rounding is within 255 of L, and b7 the least that closes the gap.
    """
    if target <= 0:
        return 0
    if target > UNITS:
        return UNITS
    target = _ceil_to_double(target)
    least_sum = _first_rounding_to(target)
    gap = least_sum - LOW_BYTE
    w = 0 if gap <= 0 else -(-_first_rounding_to(_ceil_to_double(gap)) // 256)
    low = max(0, least_sum - round_to_double(w << 8))
    return min((w << 8) + low, UNITS)


def first_u_at_least(number: float) -> int:
    """The smallest U whose number is >= the double ``number``."""
    numerator, denominator = number.as_integer_ratio()
    return first_u_reaching(-(-(numerator << 64) // denominator))


def least_number_scaling_to(k: int, scale: float) -> float:
    """The smallest double x >= 0 with ``x * scale >= k`` in double arithmetic (inf if
    no x in [0, 1] gives it); ``floor(x * scale)`` then reaches k exactly from x on."""
    if k <= 0:
        return 0.0
    if 1.0 * scale < k:
        return math.inf
    candidate = k / scale
    if candidate * scale >= k:
        while candidate > 0 and math.nextafter(candidate, -math.inf) * scale >= k:
            candidate = math.nextafter(candidate, -math.inf)
    else:
        while candidate * scale < k:
            candidate = math.nextafter(candidate, math.inf)
    return candidate


def first_u_scaling_to(k: int, scale: float) -> int:
    """The smallest U with floor(N(U) * scale) >= k."""
    least = least_number_scaling_to(k, scale)
    return UNITS if least == math.inf else first_u_at_least(least)


@cache
def scaled_floor_thresholds(scale: int) -> tuple[int, ...]:
    """F[k] = the first U with floor(number * scale) >= k, for k = 0..scale + 1.

    Outcome k (0 <= k <= scale) is then hit by exactly F[k + 1] - F[k] values of U;
    outcome ``scale`` only by the number 1.0. Cached: Crash and Overgo share the million.
    """
    factor = float(scale)
    return tuple(first_u_scaling_to(k, factor) for k in range(scale + 2))


def scaled_floor_counts(scale: int) -> list[int]:
    """How many of the 2^64 byte strings give floor(number * scale) = k, k = 0..scale."""
    thresholds = scaled_floor_thresholds(scale)
    return [thresholds[k + 1] - thresholds[k] for k in range(scale + 1)]


def double_weights(low: float, high: float) -> dict[int, int]:
    """How many U give each double in [low, high) (a small range): run length -> how many
    doubles have it. Describes the distribution of doubles binade by binade."""
    weights: dict[int, int] = {}
    value = low
    while value < high:
        following = math.nextafter(value, math.inf)
        run = first_u_at_least(following) - first_u_at_least(value)
        weights[run] = weights.get(run, 0) + 1
        value = following
    return weights
