"""Exact distributions: counts of equally likely inputs per outcome, and what follows.

A distribution here is never sampled. It holds, for every outcome, how many of the
equally likely inputs (2^32 tickets, 2^64 byte strings, 256 bytes, ...) give it, and the
probability the source document promises for it (the "ideal"). Everything else (the bias
of each outcome, the largest bias, the total variation distance, the return of a paying
game) is exact arithmetic on those integers, as Fractions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction
from functools import cached_property


@dataclass(frozen=True)
class Distribution:
    """The exact outcome distribution of one algorithm over its equally likely inputs.

    Both the distribution and the promise are integer weights (the promise over its own
    total), so every comparison is integer arithmetic, fast even for a million outcomes.
    """

    title: str  # what is analysed, e.g. "battle.move: ticket % 3"
    inputs: str  # what the equally likely inputs are, e.g. "2^32 tickets"
    counts: Mapping[str, int]  # outcome -> number of inputs giving it, in display order
    ideal: Mapping[str, int]  # outcome -> weight of the probability the document promises
    pays: Mapping[str, Fraction] | None = None  # outcome -> payout per unit bet, if it pays
    notes: tuple[str, ...] = field(default=())

    @cached_property
    def total(self) -> int:
        return sum(self.counts.values())

    @cached_property
    def ideal_total(self) -> int:
        return sum(self.ideal.values())

    def probability(self, outcome: str) -> Fraction:
        return Fraction(self.counts.get(outcome, 0), self.total)

    def promised(self, outcome: str) -> Fraction:
        return Fraction(self.ideal.get(outcome, 0), self.ideal_total)

    def bias(self, outcome: str) -> Fraction:
        """Exact probability minus the promised one (positive: favoured)."""
        return Fraction(self._scaled_bias(outcome), self.total * self.ideal_total)

    def _scaled_bias(self, outcome: str) -> int:
        return self.counts.get(outcome, 0) * self.ideal_total - self.ideal.get(
            outcome, 0
        ) * self.total

    def outcomes(self) -> list[str]:
        """Every outcome that happens or is promised, counted ones first."""
        return list(self.counts) + [key for key in self.ideal if key not in self.counts]

    def largest_bias(self) -> tuple[str, Fraction]:
        """The outcome whose probability is furthest from the promise, and by how much."""
        key = max(self.outcomes(), key=lambda outcome: abs(self._scaled_bias(outcome)))
        return key, self.bias(key)

    def total_variation(self) -> Fraction:
        """Half the sum of |exact - ideal|: the largest difference of any event's probability."""
        scaled = sum(abs(self._scaled_bias(key)) for key in self.outcomes())
        return Fraction(scaled, 2 * self.total * self.ideal_total)

    def expected_return(self) -> Fraction | None:
        """Sum of probability x payout (per unit bet), or None for a game that does not pay."""
        if self.pays is None:
            return None
        return sum((self.probability(key) * pay for key, pay in self.pays.items()), Fraction(0))


def residue_counts(bits: int, modulus: int) -> list[int]:
    """How many of the 2^bits integers have each remainder modulo ``modulus``.

    2^bits = q * modulus + r: the remainders below r get q + 1, the others q.
    """
    quotient, remainder = divmod(1 << bits, modulus)
    return [quotient + (1 if residue < remainder else 0) for residue in range(modulus)]


def uniform(outcomes: Iterable[str]) -> dict[str, int]:
    """The promise "each equally likely", as weights."""
    return dict.fromkeys(outcomes, 1)


def decimal(value: Fraction, digits: int = 6) -> str:
    """A fraction as a decimal with ``digits`` places, rounded half to even (display only)."""
    with localcontext() as context:
        context.prec = 80
        exact = Decimal(value.numerator) / Decimal(value.denominator)
        return format(exact.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_EVEN), "f")


def scientific(value: Fraction, digits: int = 3) -> str:
    """A fraction in scientific notation with ``digits`` significant digits (display only)."""
    if value == 0:
        return "0"
    with localcontext() as context:
        context.prec = digits
        exact = +(Decimal(value.numerator) / Decimal(value.denominator))
    return f"{exact:.{digits - 1}E}".replace("E", "e")


def power_of_two(value: int) -> str:
    """2^k for a power of two, the plain number otherwise (for readable totals)."""
    if value > 1 and value & (value - 1) == 0:
        return f"2^{value.bit_length() - 1}"
    return f"{value:,}"


def ratio(value: Fraction) -> str:
    """A small probability as "1 in N" (N rounded), for bias statements."""
    if value == 0:
        return "0"
    inverse = 1 / abs(value)
    if inverse.denominator == 1:
        exact = int(inverse)
        return f"1 in {power_of_two(exact)}"
    return f"1 in {scientific(inverse)}"
