"""Values for one field, valid or invalid, from its JSON Schema and the input space.

The schema says what a field may hold (type, range, pattern, enum, length, uniqueness);
spec/fuzz.yaml says how often each kind of value is drawn. Valid values stay inside the
schema; invalid ones break exactly one of its constraints, or the type. Whether the
reference then accepts or rejects a value, and with which code, is the reference's call.
"""

from __future__ import annotations

import base64
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from fairvec.fuzz.picker import Picker

JSON_SAFE = 2**53 - 1  # the largest integer every JSON reader holds exactly
SURROGATES = range(0xD800, 0xE000)
# One character outside a pattern's class, tried in this order: the first not in the class.
OUTSIDE = ["g", "G", "z", " ", "-", "é", "0", "a", "A"]
# Values of each JSON type for wrong-type; those the schema's type admits are left out.
# 1.0 and 1e308 are numbers written with a fraction or an exponent: wrong-type for an
# integer field, though integral (JSON.parse reads 1.0 as 1; issue 34, section 6).
WRONG_TYPED: list[tuple[str, Any]] = [
    ("string", "1"),
    ("number", 1.5),
    ("number", 1.0),
    ("number", 1e308),
    ("integer", 7),
    ("boolean", True),
    ("null", None),
    ("array", []),
    ("object", {}),
]
_CLASS_PATTERN = re.compile(r"^\^\[([^\]]+)\](?:\{(\d+)(?:,(\d+))?\}|(\+)|(\*))\$$")


class Nothing:
    """No value of the kind asked for applies to this schema."""


NOTHING = Nothing()


def json_types(schema: Mapping[str, Any]) -> list[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [str(k) for k in kind]
    if "enum" in schema:
        return sorted({_type_of(value) for value in schema["enum"]})
    return []


def _type_of(value: Any) -> str:
    for kind, name in ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string")):
        if isinstance(value, kind):
            return name
    return "null" if value is None else "array" if isinstance(value, list) else "object"


def admits(types: list[str], value: Any) -> bool:
    kind = _type_of(value)
    return kind in types or (kind == "integer" and "number" in types)


class Pattern:
    """A pattern of the one shape the specs use, ^[class]{n}$ (also {m,n}, + and *)."""

    def __init__(self, alphabet: str, low: int, high: int) -> None:
        self.alphabet, self.low, self.high = alphabet, low, high

    @classmethod
    def parse(cls, pattern: str) -> Pattern | None:
        found = _CLASS_PATTERN.match(pattern)
        if not found:
            return None
        alphabet = _expand_class(found.group(1))
        if alphabet is None:
            return None
        if found.group(4):
            return cls(alphabet, 1, 64)
        if found.group(5):
            return cls(alphabet, 0, 64)
        low = int(found.group(2))
        high = int(found.group(3)) if found.group(3) else low
        return cls(alphabet, low, high)

    def draw(self, picker: Picker) -> str:
        length = picker.between(self.low, self.high)
        letters = self.alphabet
        both_cases = any(c.islower() for c in letters) and any(c.isupper() for c in letters)
        if both_cases and picker.chance(0.5):  # half the time one case only, as engines print
            case = str.lower if picker.chance(0.5) else str.upper
            letters = "".join(c for c in letters if case(c) == c)
        return "".join(picker.item(letters) for _ in range(length))

    def outside(self) -> str:
        return next(c for c in OUTSIDE if c not in self.alphabet)


def _expand_class(text: str) -> str | None:
    if text.startswith("^") or "\\" in text:
        return None
    characters: list[str] = []
    index = 0
    while index < len(text):
        if index + 2 < len(text) and text[index + 1] == "-":
            low, high = ord(text[index]), ord(text[index + 2])
            characters.extend(chr(code) for code in range(low, high + 1))
            index += 3
        else:
            characters.append(text[index])
            index += 1
    return "".join(dict.fromkeys(characters))


class FieldFuzzer:
    """Draws field values for one algorithm's settings (a merged spec/fuzz.yaml section set)."""

    def __init__(self, settings: Mapping[str, Any]) -> None:
        self.settings = settings

    # ----- valid values -----

    def valid(self, schema: Mapping[str, Any], current: Any, picker: Picker) -> Any:
        """A value the schema accepts, often derived from ``current`` (the base input's)."""
        if "enum" in schema:
            return picker.item(schema["enum"])
        types = json_types(schema)
        if not types:
            return current
        if "null" in types and (len(types) == 1 or picker.chance(0.2)):
            return None
        kind = picker.item([t for t in types if t != "null"])
        makers: dict[str, Callable[[Mapping[str, Any], Any, Picker], Any]] = {
            "string": self._string,
            "integer": self._integer,
            "number": self._number,
            "array": self._array,
            "boolean": lambda _s, _c, p: p.chance(0.5),
            "object": lambda _s, c, _p: c if isinstance(c, dict) else {},
        }
        return makers[kind](schema, current, picker)

    def _string(self, schema: Mapping[str, Any], current: Any, picker: Picker) -> str:
        if "pattern" in schema:
            pattern = Pattern.parse(schema["pattern"])
            if pattern is None:  # a shape we cannot draw: keep the spec's own value
                return current if isinstance(current, str) else ""
            if isinstance(current, str) and picker.chance(0.3):
                changed = current.upper() if picker.chance(0.5) else current.lower()
                if re.search(schema["pattern"], changed):
                    return changed
            return pattern.draw(picker)
        return self.text(current, picker)

    def text(self, current: Any, picker: Picker) -> str:
        strings = self.settings["strings"]
        kinds = strings["kinds"]
        usable = {
            name: kind["weight"]
            for name, kind in kinds.items()
            if "transform" not in kind or isinstance(current, str)
        }
        if not any(weight > 0 for weight in usable.values()):  # only transforms, no value
            return ""
        kind = kinds[picker.weighted(usable)]
        if "transform" in kind:
            return self._transform(kind["transform"], current, picker)
        if "encode" in kind:
            raw = picker.take(picker.between(*kind["bytes"]))
            if kind["encode"] == "base64":
                return base64.b64encode(raw).decode("ascii")
            return raw.hex().upper() if kind["encode"] == "hex-upper" else raw.hex()
        return _characters(kind, kind.get("length", strings["length"]), picker)

    def _transform(self, how: str, current: str, picker: Picker) -> str:
        if how == "spaced":
            spaces = self.settings["strings"]["spaces"]
            side = picker.below(3)  # 0 before, 1 after, 2 both
            before = picker.item(spaces) if side != 1 else ""
            after = picker.item(spaces) if side != 0 else ""
            return before + current + after
        if how == "resample":  # keeps the value's alphabet: a valid-looking sequence, seed, ...
            letters = sorted(set(current)) or ["a"]
            length = picker.between(0, 2 * len(current) + 1)
            return "".join(picker.item(letters) for _ in range(length))
        if how == "upper":
            return current.upper()
        if how == "lower":
            return current.lower()
        return current + current

    def _integer(self, schema: Mapping[str, Any], current: Any, picker: Picker) -> int:
        low, high = _integer_bounds(schema)
        settings = self.settings["integers"]
        inside = [b for b in settings["boundaries"] if low <= b <= high]
        near = (
            [n for n in (current - 1, current + 1) if low <= n <= high] if _is_int(current) else []
        )
        weights = dict(settings["kinds"])
        if not inside:
            weights["boundary"] = 0
        if not near:
            weights["near"] = 0
        kind = picker.weighted(weights) if any(w > 0 for w in weights.values()) else "uniform"
        if kind == "boundary":
            return int(picker.item(inside))
        if kind == "bound":
            return picker.item(sorted({low, min(low + 1, high), max(high - 1, low), high}))
        if kind == "small":
            return picker.between(low, min(low + 16, high))
        if kind == "near":
            return int(picker.item(near))
        return picker.between(low, high)

    def _number(self, schema: Mapping[str, Any], current: Any, picker: Picker) -> float:
        low = float(schema.get("minimum", -1e300))
        high = float(schema.get("maximum", 1e300))
        settings = self.settings["numbers"]
        specials = [float(s) for s in settings["specials"] if low <= s <= high]
        weights = dict(settings["kinds"])
        if not specials:
            weights["special"] = 0
        if not _is_number(current):
            weights["cell"] = 0
        kind = picker.weighted(weights) if any(w > 0 for w in weights.values()) else "uniform"
        if kind == "special":
            return float(picker.item(specials))
        if kind == "bound":
            return picker.item([low, math.nextafter(low, high), math.nextafter(high, low), high])
        if kind == "cell":
            grid = int(settings["grid"])
            value = (math.floor(float(current) * grid) + picker.unit()) / grid
            return min(max(value, low), high)
        return low + (high - low) * picker.unit()

    def _array(self, schema: Mapping[str, Any], current: Any, picker: Picker) -> list[Any]:
        items = list(current) if isinstance(current, list) else []
        shortest = schema.get("minItems", 0)
        longest = schema.get("maxItems")
        cap = self.settings["arrays"]["cap"]
        weights = dict(self.settings["arrays"]["kinds"])
        if not items:
            weights["item"] = 0
        if longest is None:
            weights["longest"] = 0
        kind = picker.weighted(weights) if any(w > 0 for w in weights.values()) else "resize"
        if kind == "item":
            at = picker.below(len(items))
            items[at] = self.valid(schema.get("items", {}), items[at], picker)
            if schema.get("uniqueItems") and not _unique(items):
                return list(current)
            return items
        if kind == "shortest":
            length = shortest
        elif kind == "longest":
            length = int(longest) if longest is not None else shortest
        else:
            top = max(shortest, min(longest if longest is not None else cap, cap))
            length = picker.between(shortest, top)
        return self._resized(schema, items, length, picker)

    def _resized(
        self, schema: Mapping[str, Any], items: list[Any], length: int, picker: Picker
    ) -> list[Any]:
        result = items[:length]
        item_schema = schema.get("items", {})
        unique = bool(schema.get("uniqueItems"))
        tries = 0
        while len(result) < length and tries < 4 * length + 20:
            tries += 1
            value = self.valid(item_schema, picker.item(items) if items else None, picker)
            if unique and any(_same(value, other) for other in result):
                continue
            result.append(value)
        return result

    # ----- invalid values -----

    def invalid(self, schema: Mapping[str, Any], current: Any, picker: Picker) -> Any:
        """A value breaking one of the schema's constraints (or its type), or NOTHING
        when no invalid kind applies."""
        makers: dict[str, Callable[[Mapping[str, Any], Any, Picker], Any]] = {
            "out-of-range": self._out_of_range,
            "pattern": self._bad_pattern,
            "enum": self._not_in_enum,
            "length": self._bad_length,
            "duplicate": self._duplicated,
            "item": self._bad_item,
            "wrong-type": self._wrong_type,
            "integral": self._integral,
        }
        weights = dict(self.settings["invalid_kinds"])
        while any(weight > 0 for weight in weights.values()):
            kind = picker.weighted(weights)
            value = makers[kind](schema, current, picker)
            if value is not NOTHING:
                return value
            weights[kind] = 0
        return NOTHING

    def _out_of_range(self, schema: Mapping[str, Any], _current: Any, picker: Picker) -> Any:
        types = json_types(schema)
        if "enum" in schema or not {"minimum", "maximum"} & set(schema):
            return NOTHING
        if "integer" in types:
            low, high = _integer_bounds(schema)
            outside = [b for b in self.settings["integers"]["boundaries"] if not low <= b <= high]
            beyond = [n for n in (low - 1, high + 1) if abs(n) <= JSON_SAFE + 1]
            return picker.item([*beyond, *outside]) if beyond or outside else NOTHING
        if "number" in types:
            candidates = []
            if "minimum" in schema:
                candidates.append(math.nextafter(float(schema["minimum"]), -math.inf))
            if "maximum" in schema:
                candidates.append(math.nextafter(float(schema["maximum"]), math.inf))
                candidates.append(float(schema["maximum"]) + 0.01)
            # the far ends of a double, past any bound a spec writes
            candidates.extend(e for e in (-1e308, 1e308) if not _within(schema, e))
            return picker.item(candidates)
        return NOTHING

    def _bad_pattern(self, schema: Mapping[str, Any], current: Any, picker: Picker) -> Any:
        pattern = Pattern.parse(schema.get("pattern", "")) if "pattern" in schema else None
        if pattern is None:
            return NOTHING
        text = current if isinstance(current, str) and current else pattern.draw(picker)
        how = picker.below(3)
        if how == 0 and text:
            return text[:-1]
        if how == 1:
            return text + picker.item(pattern.alphabet)
        at = picker.below(len(text)) if text else 0
        return text[:at] + pattern.outside() + text[at + 1 :]

    def _not_in_enum(self, schema: Mapping[str, Any], current: Any, picker: Picker) -> Any:
        options = schema.get("enum")
        if not options:
            return NOTHING
        texts = [o for o in options if isinstance(o, str)]
        numbers = [o for o in options if _is_int(o)]
        candidates: list[Any] = []
        for text in texts:
            candidates.extend([text.upper(), text.title(), text + " ", text.replace("-", "_")])
        if numbers:
            candidates.extend([min(numbers) - 1, max(numbers) + 1])
        candidates = [c for c in candidates if c not in options]
        return picker.item(candidates) if candidates else NOTHING

    def _bad_length(self, schema: Mapping[str, Any], current: Any, picker: Picker) -> Any:
        if "array" not in json_types(schema):
            return NOTHING
        items = list(current) if isinstance(current, list) else []
        lengths = []
        if schema.get("minItems", 0) > 0:
            lengths.append(schema["minItems"] - 1)
        if "maxItems" in schema and schema["maxItems"] < 100_000:
            lengths.append(schema["maxItems"] + 1)
        if not lengths:
            return NOTHING
        relaxed = {k: v for k, v in schema.items() if k not in ("minItems", "maxItems")}
        return self._resized(relaxed, items, picker.item(lengths), picker)

    def _duplicated(self, schema: Mapping[str, Any], current: Any, picker: Picker) -> Any:
        if not schema.get("uniqueItems") or not isinstance(current, list) or not current:
            return NOTHING
        items = list(current)
        copy = picker.item(items)
        if len(items) < schema.get("maxItems", len(items) + 1):
            items.insert(picker.below(len(items) + 1), copy)
        elif len(items) > 1:
            items[-1] = items[0]
        else:
            return NOTHING
        return items

    def _bad_item(self, schema: Mapping[str, Any], current: Any, picker: Picker) -> Any:
        if (
            not isinstance(current, list)
            or not current
            or not isinstance(schema.get("items"), dict)
        ):
            return NOTHING
        items = list(current)
        at = picker.below(len(items))
        value = self.invalid(schema["items"], items[at], picker)
        if value is NOTHING:
            return NOTHING
        items[at] = value
        return items

    def _wrong_type(self, schema: Mapping[str, Any], _current: Any, picker: Picker) -> Any:
        types = json_types(schema)
        if not types:
            return NOTHING
        candidates = [
            value
            for _name, value in WRONG_TYPED
            if not admits(types, value)
            # by JSON type too: 1.0 is no member of an integer enum holding 1
            and not any(_same(value, option) for option in schema.get("enum", []))
        ]
        return picker.item(candidates) if candidates else NOTHING

    def _integral(self, schema: Mapping[str, Any], current: Any, picker: Picker) -> Any:
        """An integer field's value as a double: the same value written `10000001.0` (a
        port reading JSON with JavaScript's JSON.parse sees the integer and computes), or
        a double far past any bound. wrong-type either way (docs/spec-format.md)."""
        types = json_types(schema)
        if "integer" not in types or "number" in types:
            return NOTHING
        if _is_int(current) and abs(current) <= JSON_SAFE and picker.chance(0.75):
            return float(current)
        return picker.item([1e308, -1e308, 1.0])


def _characters(kind: Mapping[str, Any], length: list[int], picker: Picker) -> str:
    count = picker.between(length[0], length[1])
    ranges = kind["ranges"]
    marks = kind.get("marks")
    joiners = kind.get("joiners", [])
    out: list[str] = []
    for index in range(count):
        if index and joiners and picker.chance(0.5):
            out.append(chr(picker.item(joiners)))
        out.append(_code_point(ranges, picker))
        if marks:
            out.extend(
                _code_point(marks["ranges"], picker) for _ in range(picker.between(0, marks["max"]))
            )
    return "".join(out)


def _code_point(ranges: list[list[int]], picker: Picker) -> str:
    low, high = picker.item(ranges)
    code = picker.between(low, high)
    if code in SURROGATES:  # not a scalar value: it has no UTF-8 form and cannot travel
        code = 0xFFFD
    return chr(code)


def _integer_bounds(schema: Mapping[str, Any]) -> tuple[int, int]:
    low: float = schema.get("minimum", -JSON_SAFE)
    high: float = schema.get("maximum", JSON_SAFE)
    return max(math.ceil(low), -JSON_SAFE), min(math.floor(high), JSON_SAFE)


def _within(schema: Mapping[str, Any], value: float) -> bool:
    return bool(schema.get("minimum", value) <= value <= schema.get("maximum", value))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _same(left: Any, right: Any) -> bool:
    return _type_of(left) == _type_of(right) and left == right


def _unique(items: list[Any]) -> bool:
    return all(not _same(a, b) for i, a in enumerate(items) for b in items[i + 1 :])
