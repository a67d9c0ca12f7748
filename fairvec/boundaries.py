"""Boundary vectors: every bound of an input schema, at it and one past it, as fixed vectors.

A port that puts a bound one off (``<`` for ``<=``, a count from 0) answers every
vector but the one at the bound, so each bound needs a vector on both sides. Most
bounds are in the ``inputs`` schema, so the generator derives them, like the shape
vectors (fairvec/shapes.py), from the valid input of the case ``shapes_from`` names,
changing it in one place (docs/spec-format.md, "Boundary vectors"):

- ``minimum``/``maximum`` of an integer or number field (or of an array's items, the
  first item changed): the bound itself, and one past it (the integer beside it, or the
  next double: 1 + 2^-52 above a maximum of 1, -5e-324 below a minimum of 0);
- ``minItems``/``maxItems``: an array of exactly that length, and one item shorter or longer;
- an ``enum`` of integers: its smallest and largest value, and one past each;
- every free-text string (no ``pattern``, no ``enum``; an array's first string item too):
  the classes the adapter protocol treats specially (docs/adapter-protocol.md, "Lone
  surrogates in strict languages"): U+0000 inside it, U+FFFF at its start (a marked
  string) and inside it (not marked), and a character beyond the BMP (a surrogate pair,
  the other side of shape-surrogate's lone surrogate).

The past side is the constraint's own error code (the generator checks the reference
answers it); the at side is whatever the reference answers: an output, or an
algorithm's own check (stake.shuffle's floats must be below 1 though the schema's
maximum is 1: the vector at 1 shows that rule, with the same code). Bounds a schema
cannot state (a chain's era at a game number, an escape class) a spec lists under
``boundaries`` (``values`` or ``matches``); an at-side vector too costly to compute is
left out with ``skip_at`` and its reason.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fairvec.errors import FairvecError

NUL = "\x00"
MARK = "\uffff"  # the protocol's mark (runner/protocol.py)
PAIR = "\U0001f600"  # beyond the BMP: a surrogate pair in UTF-16, no lone surrogate


@dataclass(frozen=True)
class Side:
    """One side of a boundary: the value a vector must hold, and what it must answer."""

    name: str  # the vector name the generator gives it
    value: Any  # the field's value (or item, or length, or string class)
    code: str | None  # the error code this side must answer; None: whatever the reference answers
    generated: bool = True  # False: another set makes it (shape-surrogate-F)


@dataclass(frozen=True)
class Boundary:
    """A bound of one input field and its sides (usually two: at it and one past it)."""

    field: str
    kind: str  # value, item, length, text (string class), pattern (an item matches)
    label: str  # how the failure names it: "game_number maximum 110000000"
    sides: tuple[Side, ...]
    skip_at: str | None = None  # why the at side has no generated vector
    derived: bool = True  # from the schema (generated) or listed by the spec (cases)
    extra: Mapping[str, Any] = dataclasses.field(default_factory=dict)


def schema_boundaries(schema: Mapping[str, Any]) -> list[Boundary]:
    """Every bound of the ``inputs`` schema's fields, in the order of its properties."""
    found: list[Boundary] = []
    for name, field_schema in schema.get("properties", {}).items():
        found += _field_boundaries(name, field_schema)
    return found


def spec_boundaries(spec: Mapping[str, Any]) -> list[Boundary]:
    """The schema's bounds and the ones the spec's ``boundaries`` list names, with the
    ``skip_at`` reasons applied: the catalogue tests/test_boundaries.py checks."""
    derived = schema_boundaries(spec["inputs"])
    entries = spec.get("boundaries", [])
    skips = {(e["field"], e["bound"]): e["skip_at"] for e in entries if "skip_at" in e}
    known = {(b.field, b.extra.get("bound")) for b in derived}
    fields = set(spec["inputs"].get("properties", {}))
    for index, entry in enumerate(entries):
        unknown = (entry["field"], entry["bound"]) not in known if "bound" in entry else False
        if entry["field"] not in fields or unknown:
            what = f"no {entry['bound']} of" if unknown else "no field"
            raise FairvecError(
                f"spec/{spec['id'].replace('.', '/')}.yaml: boundaries/{index}: {what} "
                f"{entry['field']!r} in the input schema (name a field and a bound it has)"
            )
    result = [
        _with_skip(boundary, skips.get((boundary.field, boundary.extra.get("bound"))))
        for boundary in derived
    ]
    for entry in spec.get("boundaries", []):
        if "values" in entry:
            result.append(_listed_values(entry))
        elif "matches" in entry:
            result.append(_listed_pattern(entry))
    return result


def _with_skip(boundary: Boundary, reason: str | None) -> Boundary:
    if reason is None:
        return boundary
    return dataclasses.replace(boundary, skip_at=reason)


def _listed_values(entry: Mapping[str, Any]) -> Boundary:
    below, above = entry["values"]
    name = entry["field"]
    sides = (Side(f"{name}={below}", below, None), Side(f"{name}={above}", above, None))
    return Boundary(name, "value", f"{name} between {below} and {above}", sides, derived=False)


def _listed_pattern(entry: Mapping[str, Any]) -> Boundary:
    name, pattern = entry["field"], entry["matches"]
    side = Side(f"{name}~{pattern}", pattern, entry.get("error"))
    return Boundary(name, "pattern", f"{name} matching /{pattern}/ ({entry['text']})", (side,),
                    derived=False)  # fmt: skip


def _field_boundaries(name: str, schema: Mapping[str, Any]) -> Iterator[Boundary]:
    slug = name.replace("_", "-")
    types = _types(schema)
    if "integer" in types or "number" in types:
        yield from _number_bounds(name, slug, "value", schema, "integer" not in types)
    items = schema.get("items")
    if "array" in types:
        yield from _length_bounds(name, slug, schema)
        if isinstance(items, dict):
            item_types = _types(items)
            if "integer" in item_types or "number" in item_types:
                yield from _number_bounds(name, slug, "item", items, "integer" not in item_types)
            if _free_text(items):
                yield from _text_classes(name, slug, "item")
    if _free_text(schema):
        yield from _text_classes(name, slug, "value")


def _number_bounds(
    name: str, slug: str, kind: str, schema: Mapping[str, Any], is_double: bool
) -> Iterator[Boundary]:
    where = "-item" if kind == "item" else ""
    enum = schema.get("enum")
    if enum and all(isinstance(v, int) and not isinstance(v, bool) for v in enum):
        code = _code(schema, "enum")
        for bound, at, past in (("enum-min", min(enum), min(enum) - 1),
                                ("enum-max", max(enum), max(enum) + 1)):  # fmt: skip
            yield _two_sided(name, f"{slug}{where}-{bound}", kind, bound, at, past, code)
    for bound, direction in (("minimum", -1), ("maximum", 1)):
        if bound not in schema:
            continue
        at = schema[bound]
        beyond: Any = (
            math.nextafter(float(at), direction * math.inf) if is_double else at + direction
        )
        yield _two_sided(
            name, f"{slug}{where}-{bound}", kind, bound, at, beyond, _code(schema, bound)
        )


def _length_bounds(name: str, slug: str, schema: Mapping[str, Any]) -> Iterator[Boundary]:
    for bound, direction, short in (("minItems", -1, "min-items"), ("maxItems", 1, "max-items")):
        if bound not in schema:
            continue
        at = schema[bound]
        if at + direction < 0:
            sides = (Side(f"boundary-{slug}-{short}-at", at, None),)
            yield Boundary(name, "length", f"{name} {bound} {at}", sides, extra={"bound": bound})
            continue
        yield _two_sided(name, f"{slug}-{short}", "length", bound, at, at + direction,
                         _code(schema, bound))  # fmt: skip


def _two_sided(
    name: str, stem: str, kind: str, bound: str, at: Any, past: Any, code: str
) -> Boundary:
    sides = (
        Side(f"boundary-{stem}-at", at, None),
        Side(f"boundary-{stem}-past", past, code),
    )
    what = f"{name} items' {bound}" if kind == "item" else f"{name} {bound}"
    return Boundary(name, kind, f"{what} {at}", sides, extra={"bound": bound})


def _text_classes(name: str, slug: str, kind: str) -> Iterator[Boundary]:
    """The protocol's special strings (docs/adapter-protocol.md): each class and its
    other side, so a port that marks or decodes one class only is seen."""
    where = "-item" if kind == "item" else ""
    label = f"{name} items'" if kind == "item" else name
    yield Boundary(name, "text", f"{label} U+0000 inside", (
        Side(f"boundary-{slug}{where}-nul", "nul", None),), extra={"bound": "nul"})  # fmt: skip
    yield Boundary(name, "text", f"{label} U+FFFF first (marked) or inside (not marked)", (
        Side(f"boundary-{slug}{where}-leading-mark", "leading-mark", None),
        Side(f"boundary-{slug}{where}-inner-mark", "inner-mark", None),
    ), extra={"bound": "mark"})  # fmt: skip
    yield Boundary(name, "text", f"{label} a surrogate pair (valid) or a lone surrogate", (
        Side(f"boundary-{slug}{where}-pair", "pair", None),
        Side(f"boundary-{slug}{where}-lone-surrogate", "lone", "not-unicode-text")
        if kind == "item"
        else Side(f"shape-surrogate-{slug}", "lone", "not-unicode-text", generated=False),
    ), extra={"bound": "surrogate"})  # fmt: skip


def text_class(text: str) -> set[str]:
    """The string classes ``text`` belongs to (for the coverage check)."""
    classes = set()
    if NUL in text:
        classes.add("nul")
    if text.startswith(MARK):
        classes.add("leading-mark")
    elif MARK in text:
        classes.add("inner-mark")
    units = text.encode("utf-16-be", "surrogatepass")
    try:
        text.encode("utf-8")
        if len(units) > 2 * len(text):
            classes.add("pair")
    except UnicodeEncodeError:
        classes.add("lone")
    return classes


def with_text_class(text: str, wanted: str) -> str:
    """``text`` changed into the class ``wanted`` (keeping it non-empty and its start)."""
    if wanted == "nul":
        return f"{text[:1]}{NUL}{text[1:]}" if text else NUL
    if wanted == "leading-mark":
        return MARK + text
    if wanted == "inner-mark":
        return f"{text[:1] or 'a'}{MARK}{text[1:]}"
    if wanted == "pair":
        return text + PAIR
    if wanted == "lone":
        return text + "\ud800"
    raise ValueError(wanted)


# -- the generated vectors ----------------------------------------------------------------


@dataclass(frozen=True)
class Planned:
    """One boundary vector before its expected value is computed."""

    name: str
    input: dict[str, Any]
    code: str | None  # the code it must answer (past sides), else None
    label: str


def boundary_vectors(
    boundaries: Iterable[Boundary], schema: Mapping[str, Any], base: Mapping[str, Any]
) -> Iterator[Planned]:
    """The generated vectors of the derived boundaries, each the valid input ``base``
    changed in one field; an at side with ``skip_at`` is left out."""
    for boundary in boundaries:
        if not boundary.derived:
            continue
        field_schema = schema["properties"][boundary.field]
        for index, side in enumerate(boundary.sides):
            if not side.generated or (index == 0 and boundary.skip_at and side.code is None):
                continue
            value = _changed(boundary, side, field_schema, base.get(boundary.field))
            yield Planned(side.name, {**base, boundary.field: value}, side.code,
                          boundary.label)  # fmt: skip


def _changed(boundary: Boundary, side: Side, schema: Mapping[str, Any], value: Any) -> Any:
    if boundary.kind == "value":
        return side.value
    if boundary.kind == "item":
        items = list(value) if isinstance(value, list) and value else [side.value]
        return [side.value, *items[1:]]
    if boundary.kind == "length":
        return _resized(list(value or []), side.value, schema)
    if boundary.kind == "text" and "array" in _types(schema):
        items = value if isinstance(value, list) and value else ["a"]
        first = items[0] if isinstance(items[0], str) else "a"
        return [with_text_class(first, side.value), *items[1:]]
    if boundary.kind == "text":
        return with_text_class(value if isinstance(value, str) else "", side.value)
    raise ValueError(boundary.kind)


def _resized(items: list[Any], length: int, schema: Mapping[str, Any]) -> list[Any]:
    """``items`` cut to ``length``, or lengthened with values the item schema admits and,
    where ``uniqueItems`` asks, that the array does not hold yet."""
    if length <= len(items):
        return items[:length]
    item_schema = schema.get("items", {})
    candidates = _fillers(item_schema, items)
    grown = list(items)
    while len(grown) < length:
        grown.append(next(candidates))
    return grown


def _fillers(item_schema: Mapping[str, Any], items: Sequence[Any]) -> Iterator[Any]:
    types = _types(item_schema)
    if "integer" in types:
        low = item_schema.get("minimum", 0)
        high = item_schema.get("maximum", low + 10**6)
        taken = set(items)
        fresh = (value for value in range(low, high + 1) if value not in taken)
        yield from fresh
    while True:  # repeat the array's own items (or a value of the type) as long as needed
        yield from items or [_example(types)]


def _example(types: list[str]) -> Any:
    examples = {"string": "a", "integer": 0, "number": 0.5, "array": [], "boolean": False}
    return next((examples[kind] for kind in types if kind in examples), None)


# -- coverage (tests/test_boundaries.py) ---------------------------------------------------


def side_covered(boundary: Boundary, side: Side, vector: Mapping[str, Any]) -> bool:
    """Whether ``vector`` (a committed vector) lies on ``side`` of ``boundary``."""
    given = vector["input"]
    if not isinstance(given, dict) or boundary.field not in given:
        return False
    value = given[boundary.field]
    expected = vector["expected"]
    answer = expected.get("error")
    if side.code is not None and answer != side.code:
        return False
    return _holds(boundary, side, value)


def _holds(boundary: Boundary, side: Side, value: Any) -> bool:
    if boundary.kind == "value":
        return _same_number(value, side.value)
    if boundary.kind == "item":
        return isinstance(value, list) and any(_same_number(item, side.value) for item in value)
    if boundary.kind == "length":
        return isinstance(value, list) and len(value) == side.value
    texts = value if isinstance(value, list) else [value]
    texts = [text for text in texts if isinstance(text, str)]
    if boundary.kind == "text":
        return any(side.value in text_class(text) for text in texts)
    if boundary.kind == "pattern":
        return any(re.search(side.value, text) for text in texts)
    raise ValueError(boundary.kind)


def _same_number(value: Any, wanted: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return not isinstance(wanted, bool) and value == wanted


def uncovered(spec: Mapping[str, Any], vectors: Sequence[Mapping[str, Any]]) -> list[str]:
    """Each side of each boundary of ``spec`` no vector lies on, as a line naming it."""
    missing = []
    for boundary in spec_boundaries(spec):
        for index, side in enumerate(boundary.sides):
            if index == 0 and boundary.skip_at and side.code is None:
                continue  # an at side left out, for the reason the spec gives
            if not any(side_covered(boundary, side, vector) for vector in vectors):
                missing.append(f"{spec['id']}: {boundary.label}: no vector {side.name}")
    return missing


def _code(schema: Mapping[str, Any], keyword: str) -> str:
    error = schema.get("error")
    if isinstance(error, dict):
        return str(error[keyword])
    return str(error)


def _types(schema: Mapping[str, Any]) -> list[str]:
    found = schema.get("type", [])
    return [found] if isinstance(found, str) else list(found)


def _free_text(schema: Mapping[str, Any]) -> bool:
    return _types(schema) == ["string"] and "pattern" not in schema and "enum" not in schema
