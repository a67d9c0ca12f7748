"""Deterministic inputs for generated vector sets.

A generated set names a seed string; :class:`Stream` turns it into bytes with
SHA-256 in counter mode (block ``i`` is ``SHA-256(seed || ":" || i)``, ``i`` in
decimal), so any language can reproduce a set, and adding a set never moves another.
Each input field is drawn by one *field generator* (``spec.schema.json``,
``$defs.fieldGenerator``), in the order the spec lists the fields.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable, Mapping
from typing import Any

SURROGATES = range(0xD800, 0xE000)
UNICODE_SCALARS = 0x110000 - len(SURROGATES)


class Stream:
    def __init__(self, seed: str) -> None:
        self._seed = seed.encode("utf-8")
        self._counter = 0
        self._buffer = b""

    def take(self, count: int) -> bytes:
        while len(self._buffer) < count:
            block = hashlib.sha256(self._seed + b":" + str(self._counter).encode()).digest()
            self._buffer += block
            self._counter += 1
        taken, self._buffer = self._buffer[:count], self._buffer[count:]
        return taken

    def below(self, bound: int) -> int:
        """Uniform in [0, bound) by rejection over 64-bit draws: no modulo bias."""
        if bound <= 0:
            raise ValueError("bound must be positive")
        limit = (1 << 64) - (1 << 64) % bound
        while True:
            value = int.from_bytes(self.take(8), "big")
            if value < limit:
                return value % bound

    def between(self, low: int, high: int) -> int:
        return low + self.below(high - low + 1)


def _int(stream: Stream, bounds: list[int]) -> int:
    return stream.between(bounds[0], bounds[1])


def _hex(stream: Stream, digits: int) -> str:
    return stream.take((digits + 1) // 2).hex()[:digits]


def _base64(stream: Stream, count: int) -> str:
    return base64.b64encode(stream.take(count)).decode("ascii")


def _choice(stream: Stream, options: list[Any]) -> Any:
    return options[stream.below(len(options))]


def _character(stream: Stream, alphabet: str) -> str:
    if alphabet != "unicode":
        return alphabet[stream.below(len(alphabet))]
    code = stream.below(UNICODE_SCALARS)
    return chr(code + len(SURROGATES) if code >= SURROGATES.start else code)


def _text(stream: Stream, shape: Mapping[str, Any]) -> str:
    length = stream.between(shape["min"], shape["max"])
    alphabet = shape.get("alphabet", "unicode")
    return "".join(_character(stream, alphabet) for _ in range(length))


def _list(stream: Stream, shape: Mapping[str, Any]) -> list[Any]:
    length = stream.between(shape["min"], shape["max"])
    return [draw(stream, shape["of"]) for _ in range(length)]


def _sample(stream: Stream, shape: Mapping[str, Any]) -> list[Any]:
    pool = list(shape["from"])
    size = stream.between(shape["min"], min(shape["max"], len(pool)))
    chosen = sorted(_distinct_indices(stream, len(pool), size))
    return [pool[index] for index in chosen]


def _distinct_indices(stream: Stream, population: int, size: int) -> set[int]:
    chosen: set[int] = set()
    while len(chosen) < size:
        chosen.add(stream.below(population))
    return chosen


def _uuid(stream: Stream, _: object) -> str:
    raw = bytearray(stream.take(16))
    raw[6] = (raw[6] & 0x0F) | 0x40  # version 4
    raw[8] = (raw[8] & 0x3F) | 0x80  # RFC 4122 variant
    text = raw.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def _double(stream: Stream, bounds: list[float]) -> float:
    """A double on the grid of 2^53 steps across [low, high): the top 53 bits of a
    64-bit draw, k, give low + (high - low) * k / 2^53 (exact when [low, high) is [0, 1))."""
    step = (int.from_bytes(stream.take(8), "big") >> 11) / 2.0**53
    return float(bounds[0]) + (float(bounds[1]) - float(bounds[0])) * step


def _concat(stream: Stream, parts: list[Mapping[str, Any]]) -> str:
    """The parts drawn in order, each a string, joined with nothing between them."""
    drawn = [draw(stream, part) for part in parts]
    if not all(isinstance(value, str) for value in drawn):
        raise ValueError("every part of a concat generator must draw a string")
    return "".join(drawn)


def _permutation(stream: Stream, size: int) -> list[int]:
    """0..size-1 shuffled by Fisher-Yates from the top: swap item i with item below(i + 1)."""
    items = list(range(size))
    for i in range(size - 1, 0, -1):
        j = stream.below(i + 1)
        items[i], items[j] = items[j], items[i]
    return items


def _percent(stream: Stream, generator: Mapping[str, Any]) -> str:
    """The drawn text's UTF-8 bytes, every one written %XX, each hex letter in upper or
    lower case by one bit of a stream byte per escape (Tenhou's logs write upper case;
    a decoder must take both, as RFC 3986 says)."""
    text = draw(stream, generator)
    if not isinstance(text, str):
        raise ValueError("a percent generator must draw a string")
    raw = text.encode("utf-8")
    escapes = []
    for byte, case in zip(raw, stream.take(len(raw)), strict=True):
        high, low = f"{byte >> 4:X}", f"{byte & 15:X}"
        escapes.append(
            "%" + (high.lower() if case & 1 else high) + (low.lower() if case & 2 else low)
        )
    return "".join(escapes)


GENERATORS: dict[str, Callable[[Stream, Any], Any]] = {
    "const": lambda _stream, value: value,
    "int": _int,
    "hex": _hex,
    "base64": _base64,
    "choice": _choice,
    "text": _text,
    "list": _list,
    "sample": _sample,
    "uuid": _uuid,
    "concat": _concat,
    "permutation": _permutation,
    "double": _double,
    "percent": _percent,
}


def draw(stream: Stream, generator: Mapping[str, Any]) -> Any:
    """Draw one value; ``generator`` has exactly one key, the kind (schema-checked)."""
    ((kind, argument),) = generator.items()
    return GENERATORS[kind](stream, argument)


def draw_inputs(stream: Stream, fields: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    return {name: draw(stream, generator) for name, generator in fields.items()}
