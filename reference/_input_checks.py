"""The one place every input is checked: against the ``inputs`` schema of the algorithm's spec.

Decision: the reference reads each algorithm's input schema from the spec file it
implements (``spec/<family>/<algorithm>.yaml``, shipped inside the package), instead of
restating types in Python. Why: the spec is the contract a port author reads and every
vector file repeats as ``input_schema``; a second copy in the reference would drift, and
the fuzzing that found 45 schema-invalid inputs getting an output was exactly that drift.
The generator passes the spec folder it generates from, so a spec edited in a checkout is
what its own cases are checked against.

Faults are reported in one fixed order, so every port can agree on the code when an input
has several (docs/spec-format.md, "Input errors"):

1. the input is not an object: ``wrong-type``;
2. a field the schema does not list: ``unknown-field`` (the first in sorted order);
3. a required field absent: ``missing-field`` (in the spec's field order);
4. a value of the wrong JSON type anywhere, items included: ``wrong-type``;
5. text holding a lone surrogate (it has no UTF-8 form): ``not-unicode-text``;
6. a value breaking a constraint (range, length, pattern, enum, uniqueness): the code the
   schema names beside the constraint with ``error``;

then the algorithm's own checks. Within steps 4 to 6 fields go in the spec's order, a
field's own constraints before its items', items in index order.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import fastjsonschema

from fairvec.errors import FairvecError
from fairvec.specs import load_spec

if TYPE_CHECKING:  # imported where an input is refused: 80 ms a process that never needs it
    import jsonschema

# JavaScript numbers hold integers exactly only up to 2^53 - 1: every integer input of a
# spec is bounded by it, so every port can hold every valid input.
MAX_SAFE_INTEGER = 2**53 - 1
# Past this many bits an int is shown by its size: Python refuses to print an int of more
# than 4,300 digits, and a message quoting a huge value helps nobody anyway.
_PRINTABLE_BITS = 64
# The keywords that constrain a value (each needs an error code) and those that shape it.
CONSTRAINTS = ("enum", "minimum", "maximum", "minItems", "maxItems", "uniqueItems", "pattern")
_STRUCTURE = {"type", "items", "properties", "required", "additionalProperties"}
_ANNOTATIONS = {"description", "default", "error", "examples", "title"}

Raise = Callable[[str, str], Exception]


class _BigInt(int):
    """An int that prints as its size, so a message about it can always be built."""

    def __repr__(self) -> str:
        return f"an integer of about {int(self.bit_length() * 0.30103) + 1} digits"

    __str__ = __repr__


def _is_integer(_checker: Any, value: Any) -> bool:
    # 1.0 (or 1e308) is not an integer here: the reference would print it as "1.0" where a
    # port prints 1. The vectors bustabit.chain_position/game-number-written-with-fraction
    # and game-number-1e308, and bustabit.chain_check/bound-written-with-fraction, send one;
    # a JavaScript port must read the request's text to tell (adapters/node/literals.js).
    return isinstance(value, int) and not isinstance(value, bool)


@cache
def _ecma_pattern(pattern: str) -> re.Pattern[str]:
    return re.compile(ecma_source(pattern))


def ecma_source(pattern: str) -> str:
    r"""A spec ``pattern`` as JSON Schema means it (ECMA-262), for Python's re: ``$`` is the
    end of the text. Python's ``$`` also matches before a final newline, which would let
    ``"<hex>\n"`` pass a ``^[0-9a-f]{64}$`` pattern; ``\Z`` is the ECMA meaning. Only an
    unescaped ``$`` outside a character class is an anchor; one inside a class is written
    ``\$`` (the same class to re), so that no bare ``$`` is left for fastjsonschema to
    rewrite (it makes every unescaped ``$`` ``\Z``, inside a class too)."""
    translated, escaped, in_class = [], False, False
    for character in pattern:
        if escaped:
            escaped = False
        elif character == "\\":
            escaped = True
        elif character == "[":
            in_class = True
        elif character == "]":
            in_class = False
        elif character == "$":
            translated.append("\\$" if in_class else "\\Z")
            continue
        translated.append(character)
    return "".join(translated)


def _pattern(
    validator: Any, pattern: str, instance: Any, _schema: Any
) -> Iterator[jsonschema.ValidationError]:
    import jsonschema

    if validator.is_type(instance, "string") and not _ecma_pattern(pattern).search(instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


@cache
def _validator_class() -> Any:
    import jsonschema

    return jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        jsonschema.Draft202012Validator,
        validators={"pattern": _pattern},
        type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
            "integer", _is_integer
        ),
    )


@dataclass(frozen=True, eq=False)
class InputSchema:
    """One algorithm's input schema, compiled once: for jsonschema (the authority on which
    fault an input has) and for fastjsonschema (the quick yes, see ``quickly_valid``)."""

    where: str  # the spec file, for messages about the spec itself
    schema: dict[str, Any]
    compiled: Callable[[Any], Any]  # fastjsonschema's validate: raises, or returns

    @cached_property
    def validator(self) -> Any:
        """jsonschema's validator, made when an input first needs it (one the quick yes
        refused): a process whose inputs are all valid never imports jsonschema."""
        return _validator_class()(self.schema)

    @property
    def fields(self) -> list[str]:
        return list(self.schema["properties"])


def spec_root_default() -> Path:
    return Path(str(resources.files("fairvec").joinpath("spec")))


@cache
def input_schema(algorithm_id: str, spec_root: Path) -> InputSchema:
    """The ``inputs`` schema of ``algorithm_id``'s spec under ``spec_root``, checked to
    give every constraint an error code and every integer a JavaScript-safe bound."""
    family, name = algorithm_id.split(".", 1)
    path = spec_root / family / f"{name}.yaml"
    where = f"spec/{family}/{name}.yaml"
    if not path.is_file():
        raise FairvecError(f"{where}: missing: the reference needs it for {algorithm_id}'s inputs")
    schema = load_spec(path, spec_root).inputs
    for place, subschema in _subschemas(schema, "inputs"):
        _check_subschema(f"{where}: {place}", subschema)
    return InputSchema(where, schema, _compiled(schema))


# -- the quick yes: fastjsonschema --------------------------------------------------------
#
# jsonschema's iter_errors took most of a cheap algorithm's time (0.05 ms of stake.dice's
# case, more with patterns and arrays: issue 35); fastjsonschema compiles the schema to
# Python and says whether an input is valid about 14 times faster. It only ever says yes:
# an input it refuses goes the whole way below, so jsonschema alone decides which fault
# and code is reported. The one harmful disagreement is a yes where the path below raises,
# and each way to it is closed:
# - the whole input must be plain JSON (``plain_json``): exact dict, list, str, int, bool
#   and None, str keys, text with a UTF-8 form, and no float that is integral or not
#   finite. That leaves the path below nothing to find in ``_prepared`` (NaN, non-JSON
#   types, lone surrogates), keeps tuples out (fastjsonschema takes them as arrays) and
#   1.0 (fastjsonschema, draft 6 on, takes it as an integer; ``_is_integer`` refuses it);
# - patterns are given translated (``ecma_source``): the same regular expression as below;
# - the root is given ``type: object``, ``additionalProperties: false`` and its required
#   fields, the unknown-field and missing-field checks below, whatever the spec says;
# - enum and uniqueItems tell True from 1 in fastjsonschema 2.22 as in jsonschema.
# tests/test_input_quick_check.py checks every committed vector's input and the fuzzer's
# draws: no yes where jsonschema's path says no.


def _compiled(schema: dict[str, Any]) -> Callable[[Any], Any]:
    translated = _translated(schema)
    translated.update(type="object", additionalProperties=False)
    translated["required"] = list(schema.get("required", []))
    # use_default=False: fastjsonschema would otherwise write the defaults into the input
    return fastjsonschema.compile(
        translated, use_default=False, use_formats=False, detailed_exceptions=False
    )


def _translated(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with every pattern in Python's terms, annotations left out."""
    copy = {key: value for key, value in schema.items() if key not in _ANNOTATIONS}
    if isinstance(schema.get("pattern"), str):
        copy["pattern"] = ecma_source(schema["pattern"])
    if isinstance(schema.get("properties"), dict):
        copy["properties"] = {
            name: _translated(field) for name, field in schema["properties"].items()
        }
    if isinstance(schema.get("items"), dict):
        copy["items"] = _translated(schema["items"])
    return copy


def quickly_valid(found: InputSchema, inputs: Any) -> bool:
    """True only for an input check_input accepts (see above); False says nothing."""
    if not plain_json(inputs):
        return False
    try:
        found.compiled(inputs)
    except fastjsonschema.JsonSchemaException:
        return False
    return True


_PLAIN_LEAVES = (int, bool, type(None))
_STR_ONLY = frozenset({str})


def plain_json(value: Any, *, integral_floats: bool = False) -> bool:
    """Whether ``value`` is JSON as a parser gives it, where fastjsonschema and the path
    below agree: see above. An explicit stack: an input may nest deeper than Python recurses.
    ``integral_floats``: let 1.0 through (the generator's output check, fairvec/generate.py,
    whose jsonschema reads it as an integer as fastjsonschema does)."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            if not item.isascii() and not _is_unicode_text(item):
                return False
        elif kind is dict:
            if not _STR_ONLY.issuperset(map(type, item)):
                return False
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif kind is float:
            if not math.isfinite(item) or (item.is_integer() and not integral_floats):
                return False
        elif kind not in _PLAIN_LEAVES:
            return False
    return True


def _subschemas(schema: dict[str, Any], place: str) -> Iterator[tuple[str, dict[str, Any]]]:
    yield place, schema
    for name, field in schema.get("properties", {}).items():
        yield from _subschemas(field, f"{place}/properties/{name}")
    if isinstance(schema.get("items"), dict):
        yield from _subschemas(schema["items"], f"{place}/items")


def _check_subschema(place: str, schema: dict[str, Any]) -> None:
    unknown = sorted(set(schema) - set(CONSTRAINTS) - _STRUCTURE - _ANNOTATIONS)
    if unknown:
        raise FairvecError(
            f"{place}: {unknown[0]}: the reference's input check does not know this keyword "
            f"(use {', '.join(CONSTRAINTS)}, or teach reference/_input_checks.py)"
        )
    for keyword in CONSTRAINTS:
        if keyword in schema and _code_for(schema, keyword) is None:
            raise FairvecError(
                f"{place}: {keyword} has no error code: add error: CODE (or error: "
                f"{{{keyword}: CODE}}) beside it"
            )
    if {"enum", "minimum", "maximum"} & set(schema) and "type" not in schema:
        raise FairvecError(f"{place}: give a type, so a wrong-typed value is wrong-type")
    types = schema.get("type")
    if "integer" in (types if isinstance(types, list) else [types]) and "enum" not in schema:
        low, high = schema.get("minimum", -math.inf), schema.get("maximum", math.inf)
        if high > MAX_SAFE_INTEGER or low < -MAX_SAFE_INTEGER:
            raise FairvecError(
                f"{place}: bound the integer within +-{MAX_SAFE_INTEGER} (2^53 - 1, what a "
                f"JavaScript number holds exactly) with minimum and maximum"
            )


def _code_for(schema: Mapping[str, Any], keyword: str) -> str | None:
    error = schema.get("error")
    if isinstance(error, str):
        return error
    if isinstance(error, dict):
        code = error.get(keyword)
        return code if isinstance(code, str) else None
    return None


def check_input(found: InputSchema, inputs: Any, fail: Raise) -> None:
    """Raise ``fail(code, message)`` for the first fault of ``inputs``, in the documented order."""
    if not quickly_valid(found, inputs):
        check_input_fully(found, inputs, fail)


def check_input_fully(found: InputSchema, inputs: Any, fail: Raise) -> None:
    """check_input without the quick yes: every input goes through jsonschema."""
    if not isinstance(inputs, dict):
        raise fail("wrong-type", f"the input must be a JSON object, not {_json_type(inputs)}")
    fields = found.fields
    unknown = sorted(str(key) for key in inputs if key not in fields)
    if unknown:
        raise fail("unknown-field", f"no field {_show(unknown[0])}; the fields are {fields}")
    for name in found.schema.get("required", []):
        if name not in inputs:
            raise fail("missing-field", f"the field {name!r} is required")
    copy, strange, surrogate = _prepared(inputs)
    if strange is not None:
        raise fail("wrong-type", f"{strange}: not a JSON value (send a finite number)")
    errors = sorted(found.validator.iter_errors(copy), key=lambda e: _order(fields, e))
    type_errors = [error for error in errors if error.validator == "type"]
    if type_errors:
        error = type_errors[0]
        raise fail(
            "wrong-type",
            f"{_path(error)}: must be {error.validator_value}, not {_json_type(error.instance)}",
        )
    if surrogate is not None:
        raise fail("not-unicode-text", f"{surrogate}: holds a lone surrogate (no UTF-8 form)")
    if errors:
        error = errors[0]
        code = _code_for(error.schema, error.validator)
        raise fail(code or "invalid-input", f"{_path(error)}: {_constraint(error)}")


def _order(fields: list[str], error: jsonschema.ValidationError) -> tuple[Any, ...]:
    path = list(error.absolute_path)
    rank = fields.index(path[0]) if path and path[0] in fields else len(fields)
    rest = tuple((0, part, "") if isinstance(part, int) else (1, 0, part) for part in path[1:])
    keyword = CONSTRAINTS.index(error.validator) if error.validator in CONSTRAINTS else -1
    return (rank, len(rest), rest, keyword)


def _prepared(value: Any) -> tuple[Any, str | None, str | None]:
    """A copy safe to validate (huge ints print as their size), the place of the first
    value JSON cannot carry (NaN, a non-text key, a non-JSON type), and of the first
    string holding a lone surrogate."""
    strange: list[str] = []
    surrogate: list[str] = []
    # an explicit stack, not recursion: an input may nest deeper than Python recurses
    root: list[Any] = [None]
    stack: list[tuple[Any, list[Any] | dict[Any, Any], Any, str]] = [(value, root, 0, "")]
    while stack:
        item, parent, slot, path = stack.pop()
        if isinstance(item, dict):
            copy: dict[str, Any] = {}
            parent[slot] = copy
            for key in reversed(list(item)):
                if not isinstance(key, str):
                    strange.append(f"{path or 'input'} key {_show(key)}")
                    continue
                stack.append((item[key], copy, key, f"{path}.{key}" if path else key))
        elif isinstance(item, list):
            parent[slot] = items = [None] * len(item)
            stack.extend((item[i], items, i, f"{path}[{i}]") for i in reversed(range(len(item))))
        else:
            parent[slot] = _leaf(item, path or "input", strange, surrogate)
    return root[0], (strange[0] if strange else None), (surrogate[0] if surrogate else None)


def _leaf(item: Any, path: str, strange: list[str], surrogate: list[str]) -> Any:
    if isinstance(item, bool) or item is None:
        return item
    if isinstance(item, int):
        return _BigInt(item) if item.bit_length() > _PRINTABLE_BITS else item
    if isinstance(item, float):
        if math.isnan(item):
            strange.append(path)
        return item
    if isinstance(item, str):
        if not _is_unicode_text(item):
            surrogate.append(path)
        return item
    strange.append(f"{path} ({type(item).__name__})")
    return None


def _is_unicode_text(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _constraint(error: jsonschema.ValidationError) -> str:
    """What the value must be, from the keyword (not jsonschema's message, which may quote
    a value too large to print)."""
    keyword, bound = error.validator, error.validator_value
    return {
        "enum": f"must be one of {bound}",
        "minimum": f"must be at least {bound}, got {_show(error.instance)}",
        "maximum": f"must be at most {bound}, got {_show(error.instance)}",
        "minItems": f"must have at least {bound} items, got {_size(error.instance)}",
        "maxItems": f"must have at most {bound} items, got {_size(error.instance)}",
        "uniqueItems": "must not repeat an item",
        "pattern": f"must match {bound}",
    }.get(str(keyword), f"breaks {keyword}")


def _size(value: Any) -> int:
    return len(value) if isinstance(value, list) else 0


def _path(error: jsonschema.ValidationError) -> str:
    return (
        "".join(
            f"[{part}]" if isinstance(part, int) else (f".{part}" if i else str(part))
            for i, part in enumerate(error.absolute_path)
        )
        or "input"
    )


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    for kind, name in ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string")):
        if isinstance(value, kind):
            return name
    return {"dict": "object", "list": "array"}.get(type(value).__name__, type(value).__name__)
