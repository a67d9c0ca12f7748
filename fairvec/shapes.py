"""Shape vectors: the four codes every algorithm shares, as fixed vectors.

The shared codes (``unknown-field``, ``missing-field``, ``wrong-type``,
``not-unicode-text``; docs/spec-format.md, "Input errors") come from the input schema,
not from an algorithm's own rules, so no spec writes cases for them: the generator
derives them, for every algorithm, from one valid input of the spec (the case its
``shapes_from`` names) and the ``inputs`` schema. Each shape vector changes that
input in one place, so it has exactly one fault:

- ``shape-unknown-field``: a field ``unknown`` added (no spec has a field of that name);
- ``shape-missing-F``: each required field F left out;
- ``shape-null-F``: F is ``null`` (where the schema does not admit null): a port that
  reads null as "absent" answers missing-field or an output;
- ``shape-mistyped-F``: F holds the value of the type ports confuse it with: a number's
  decimal text for a number, a number for a string, the JSON text for an array, 1 for a
  boolean;
- ``shape-fraction-F``: an integer field holds a number with a fraction (F + 0.5 where
  that is a double with a fraction, else 0.5): JavaScript has no integer type;
- ``shape-mistyped-item-F``: an array field's first item holds its mistyped value;
- ``shape-surrogate-F``: a string field ends with a lone surrogate (U+D800).

The expected code is the reference's, like every vector's; the generator also checks it
is the shared code the rule intends, so a schema a rule does not fit (a field that admits
every type, say) is found when the vectors are generated, not by a port's author.
Field names are written with ``-`` for ``_`` in the ids (ids allow no ``_``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

UNKNOWN_FIELD = "unknown"
LONE_SURROGATE = "\ud800"


@dataclass(frozen=True)
class Shape:
    """One shape vector before its expected code is computed."""

    name: str
    input: dict[str, Any]
    code: str  # the shared code the rule intends
    rule: str
    field: str | None


def shapes(schema: Mapping[str, Any], base: Mapping[str, Any]) -> Iterator[Shape]:
    """The shape vectors of an algorithm with input schema ``schema``, derived from the
    valid input ``base``, in a fixed order: unknown field, then field by field."""
    yield Shape("shape-unknown-field", {**base, UNKNOWN_FIELD: 1}, "unknown-field", "unknown", None)
    required = set(schema.get("required", []))
    for field, field_schema in schema["properties"].items():
        yield from _field_shapes(field, field_schema, field in required, base)


def _field_shapes(
    field: str, schema: Mapping[str, Any], required: bool, base: Mapping[str, Any]
) -> Iterator[Shape]:
    slug = field.replace("_", "-")
    types = _types(schema)
    value = base.get(field, _example(types))

    def changed(rule: str, new: Any, code: str = "wrong-type") -> Shape:
        return Shape(f"shape-{rule}-{slug}", {**base, field: new}, code, rule, field)

    if required:
        dropped = {key: item for key, item in base.items() if key != field}
        yield Shape(f"shape-missing-{slug}", dropped, "missing-field", "missing", field)
    if "null" not in types:
        yield changed("null", None)
    mistyped = _mistyped(types, value)
    if mistyped is not None:
        yield changed("mistyped", mistyped)
    if "integer" in types and "number" not in types:
        yield changed("fraction", _with_fraction(value))
    items = schema.get("items")
    if "array" in types and isinstance(value, list) and value and isinstance(items, dict):
        wrong_item = _mistyped(_types(items), value[0])
        if wrong_item is not None:
            yield changed("mistyped-item", [wrong_item, *value[1:]])
    if types == ["string"]:
        yield changed("surrogate", f"{value}{LONE_SURROGATE}", "not-unicode-text")


def _types(schema: Mapping[str, Any]) -> list[str]:
    found = schema.get("type", [])
    return [found] if isinstance(found, str) else list(found)


def _example(types: list[str]) -> Any:
    """A value for a field the base input leaves out (an optional one): one of its type."""
    examples = {"string": "", "integer": 0, "number": 0.5, "array": [], "boolean": False}
    return next((examples[kind] for kind in types if kind in examples), None)


def _mistyped(types: list[str], value: Any) -> Any:
    """The value of the JSON type a port most likely confuses with ``types``, or None
    when every candidate is admitted."""
    if "integer" in types or "number" in types:
        candidate: Any = json.dumps(value) if isinstance(value, int | float) else "1"
    elif "string" in types:
        candidate = 1
    elif "array" in types:
        candidate = json.dumps(value, ensure_ascii=False)
    elif "boolean" in types:
        candidate = 1
    else:
        candidate = "1"
    return None if _admitted(types, candidate) else candidate


def _admitted(types: list[str], value: Any) -> bool:
    kind = {str: "string", int: "integer", float: "number", list: "array", bool: "boolean"}
    found = kind.get(type(value), "null")
    return found in types or (found == "integer" and "number" in types)


def _with_fraction(value: Any) -> float:
    """``value`` + 0.5 where that double keeps its fraction (|value| < 2^52), else 0.5."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 2**52:
        return value + 0.5
    return 0.5
