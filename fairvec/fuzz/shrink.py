"""Smaller inputs to try in place of a failing one.

Each round proposes inputs that are strictly smaller (shorter JSON text, then smaller
numbers): fields dropped where optional, text cut in halves, quarters, ... down to single
characters, integers pulled toward 0, arrays with fewer items. The engine keeps the
smallest candidate that still fails the same way and repeats, within a bounded number of
attempts, so shrinking always ends.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

PER_FIELD = 24  # candidates per field per round, so one long field cannot take the budget


def size(inputs: dict[str, Any]) -> tuple[int, int]:
    """The order shrinking descends: JSON length, then the magnitude of the numbers."""
    text = json.dumps(inputs, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return len(text), _magnitude(inputs)


def _magnitude(value: Any) -> int:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return 0
    if isinstance(value, int):
        return abs(value)
    if isinstance(value, float):
        return int(min(abs(value), 2**62) * 2**10)
    if isinstance(value, list):
        return sum(_magnitude(item) for item in value)
    if isinstance(value, dict):
        return sum(_magnitude(item) for item in value.values())
    return 0


def candidates(inputs: dict[str, Any], required: list[str]) -> list[dict[str, Any]]:
    """Distinct inputs smaller than ``inputs``, the boldest first."""
    limit = size(inputs)
    seen = {json.dumps(inputs, sort_keys=True)}
    found: list[dict[str, Any]] = []
    for name in inputs:
        if name not in required:
            _add({k: v for k, v in inputs.items() if k != name}, limit, seen, found)
    for name, value in inputs.items():
        for count, smaller in enumerate(_smaller(value)):
            if count >= PER_FIELD:
                break
            _add({**inputs, name: smaller}, limit, seen, found)
    return found


def _add(
    candidate: dict[str, Any], limit: tuple[int, int], seen: set[str], found: list[Any]
) -> None:
    key = json.dumps(candidate, sort_keys=True)
    if key not in seen and size(candidate) < limit:
        seen.add(key)
        found.append(candidate)


def _smaller(value: Any) -> Iterator[Any]:
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, str):
        yield from _shorter(value)
    elif isinstance(value, int):
        yield from (
            n
            for n in (0, 1, value // 2, value - 1 if value > 0 else value + 1)
            if abs(n) < abs(value)
        )
    elif isinstance(value, float):
        yield from (
            x for x in (0.0, 0.5, float(round(value, 3)), float(round(value, 6))) if x != value
        )
    elif isinstance(value, list):
        yield from _fewer(value)


def _shorter(text: str) -> Iterator[str]:
    """Cut chunks of half, a quarter, ... of the text, at every place they fit."""
    if not text:
        return
    yield ""
    chunk = len(text) // 2
    while chunk >= 1:
        for start in range(0, len(text) - chunk + 1, chunk):
            yield text[:start] + text[start + chunk :]
        chunk //= 2
    if not text.isascii():  # the same length in fewer bytes, and readable
        yield "".join(c if c.isascii() else "a" for c in text)


def _fewer(items: list[Any]) -> Iterator[list[Any]]:
    if not items:
        return
    yield []
    chunk = len(items) // 2
    while chunk >= 1:
        for start in range(0, len(items) - chunk + 1, chunk):
            yield items[:start] + items[start + chunk :]
        chunk //= 2
    for index, item in enumerate(items):
        for smaller in _smaller(item):
            yield [*items[:index], smaller, *items[index + 1 :]]
