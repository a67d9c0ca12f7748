"""Random choices over the documented byte stream (fairvec.input_draws.Stream).

Everything the fuzzer draws goes through a :class:`Picker`, so one seed gives one run, in
any order of algorithms, on any machine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from fairvec.input_draws import Stream

T = TypeVar("T")
_UNIT = 2.0**53


class Picker:
    def __init__(self, seed: str) -> None:
        self.stream = Stream(seed)

    def below(self, bound: int) -> int:
        return self.stream.below(bound)

    def between(self, low: int, high: int) -> int:
        return self.stream.between(low, high)

    def unit(self) -> float:
        """A double in [0, 1) on the grid of 2^-53: the top 53 bits of 8 stream bytes."""
        return (int.from_bytes(self.stream.take(8), "big") >> 11) / _UNIT

    def chance(self, probability: float) -> bool:
        return self.unit() < probability

    def item(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def weighted(self, weights: Mapping[str, float]) -> str:
        """A key, with probability proportional to its weight (keys in the mapping's order)."""
        live = [(key, weight) for key, weight in weights.items() if weight > 0]
        if not live:
            raise ValueError("no positive weight")
        point = self.unit() * sum(weight for _key, weight in live)
        for key, weight in live:
            point -= weight
            if point < 0:
                return key
        return live[-1][0]

    def take(self, count: int) -> bytes:
        return self.stream.take(count)

    def shuffled(self, items: Sequence[Any]) -> list[Any]:
        result = list(items)
        for i in range(len(result) - 1, 0, -1):
            j = self.below(i + 1)
            result[i], result[j] = result[j], result[i]
        return result
