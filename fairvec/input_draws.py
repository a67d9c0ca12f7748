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
import struct
from collections.abc import Callable, Mapping
from typing import Any

SURROGATES = range(0xD800, 0xE000)
UNICODE_SCALARS = 0x110000 - len(SURROGATES)
REFILL_BLOCKS = 64  # SHA-256 blocks hashed at a time (2 KiB: ten casino.mines inputs)
_WORD = struct.Struct(">Q")  # one 64-bit draw, read in place


class Stream:
    """The bytes, read front to back. Blocks are hashed REFILL_BLOCKS at a time and read
    through an offset: slicing the unread rest off on every draw cost more than the draw
    (an accumulated vector draws a million inputs)."""

    def __init__(self, seed: str) -> None:
        self._prefix = seed.encode("utf-8") + b":"
        self._counter = 0  # the next block's number
        self._buffer = b""
        self._offset = 0  # bytes of _buffer already read

    def _refill(self, count: int) -> None:
        """Keep the unread bytes and append the next blocks: at least ``count`` unread."""
        unread = self._buffer[self._offset :]
        first = self._counter
        self._counter += max(REFILL_BLOCKS, -(-(count - len(unread)) // 32))
        prefix, sha256 = self._prefix, hashlib.sha256
        numbers = range(first, self._counter)
        blocks = [sha256(b"%s%d" % (prefix, number)).digest() for number in numbers]
        self._buffer, self._offset = unread + b"".join(blocks), 0

    def take(self, count: int) -> bytes:
        if self._offset + count > len(self._buffer):
            self._refill(count)
        start = self._offset
        self._offset = start + count
        return self._buffer[start : self._offset]

    def below(self, bound: int) -> int:
        """Uniform in [0, bound) by rejection over 64-bit draws: no modulo bias."""
        limit = _limit(bound)
        while True:
            if self._offset + 8 > len(self._buffer):
                self._refill(8)
            value: int = _WORD.unpack_from(self._buffer, self._offset)[0]
            self._offset += 8
            if value < limit:
                return value % bound

    def below_each(self, bound: int, count: int) -> list[int]:
        """``count`` draws of below(bound): the same values as calling it ``count`` times,
        read with one unpack (a text draws one a character). A rejected draw only moves on
        to the next 8 bytes, so they are the first ``count`` accepted words, in order."""
        limit = _limit(bound)
        if self._offset + 8 * count > len(self._buffer):
            self._refill(8 * count)
        words = struct.unpack_from(f">{count}Q", self._buffer, self._offset)
        self._offset += 8 * count
        values = [word % bound for word in words if word < limit]
        if len(values) < count:  # a rejection (about 1 in 10^13 draws for a text's bound)
            values += self.below_each(bound, count - len(values))
        return values

    def between(self, low: int, high: int) -> int:
        return low + self.below(high - low + 1)


def _limit(bound: int) -> int:
    """below(bound)'s rejection threshold: the largest multiple of ``bound`` up to 2^64."""
    if bound <= 0:
        raise ValueError("bound must be positive")
    return (1 << 64) - (1 << 64) % bound


def _int(stream: Stream, bounds: list[int]) -> int:
    return stream.between(bounds[0], bounds[1])


def _hex(stream: Stream, digits: int) -> str:
    return stream.take((digits + 1) // 2).hex()[:digits]


def _base64(stream: Stream, count: int) -> str:
    return base64.b64encode(stream.take(count)).decode("ascii")


def _choice(stream: Stream, options: list[Any]) -> Any:
    return options[stream.below(len(options))]


def _text(stream: Stream, shape: Mapping[str, Any]) -> str:
    length = stream.between(shape["min"], shape["max"])
    alphabet = shape.get("alphabet", "unicode")
    if not length:
        return ""
    if alphabet != "unicode":
        return "".join([alphabet[index] for index in stream.below_each(len(alphabet), length)])
    # every scalar value: the draws past the surrogates' start skip over them
    codes = stream.below_each(UNICODE_SCALARS, length)
    gap, start = len(SURROGATES), SURROGATES.start
    return "".join([chr(code + gap if code >= start else code) for code in codes])


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


def drawer(fields: Mapping[str, Mapping[str, Any]]) -> Callable[[Stream], dict[str, Any]]:
    """draw_inputs for these fields, each generator looked up once rather than on every
    draw (an accumulated vector draws a million inputs from one set of fields)."""
    plan = []
    for name, generator in fields.items():
        ((kind, argument),) = generator.items()
        plan.append((name, GENERATORS[kind], argument))

    def draw_one(stream: Stream) -> dict[str, Any]:
        return {name: generate(stream, argument) for name, generate, argument in plan}

    return draw_one
