"""The output check's quick yes (fastjsonschema, fairvec/generate.py ``quickly_valid``)
never accepts an output that jsonschema rejects, and is what checks the outputs.

For every spec: a seeded sample of its committed outputs, and some made wrong in the ways the two
validators could read differently or a port's output could be wrong (a leaf of another type,
an integer past its bounds, a final newline after a pattern's text, a tuple for an array,
NaN, a field dropped or added), seeded and bounded. A quick yes where jsonschema says no is a
failure; a quick no is harmless (that output goes to jsonschema).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from support import REPO

from fairvec.generate import quick_check, quickly_valid
from fairvec.specs import load_spec

SPEC_ROOT = REPO / "spec"
SEED = "output-quick-check/v1"
OUTPUTS_CHECKED = 60  # committed outputs, per spec (all: 23,000 outputs, a minute of jsonschema)
OUTPUTS_BROKEN = 8  # of those, made wrong in every way
SPEC_PATHS = sorted(SPEC_ROOT.glob("*/*.yaml"))


def committed_outputs(family: str, name: str) -> list[Any]:
    path = REPO / "vectors" / family / f"{name}.json"
    vectors = json.loads(path.read_text(encoding="utf-8"))["vectors"]
    return [v["expected"]["output"] for v in vectors if "output" in v.get("expected", {})]


def broken(output: Any, draw: random.Random) -> Iterator[Any]:
    """``output`` with one part made wrong, each way in turn."""
    places = list(_places(output, ()))
    for path, value in draw.sample(places, min(len(places), 4)):
        for other in _wrong(value):
            yield _replaced(output, path, other)
    if isinstance(output, dict) and output:
        name = draw.choice(sorted(output))
        yield {key: value for key, value in output.items() if key != name}
        yield {**output, "unasked": 1}
    yield json.loads(json.dumps(output), parse_constant=lambda _: math.nan)
    yield (output,)


def _places(value: Any, path: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], Any]]:
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _places(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value[:3]):
            yield from _places(item, (*path, index))


def _wrong(value: Any) -> Iterator[Any]:
    if isinstance(value, bool):
        yield int(value)
        yield str(value).lower()
    elif isinstance(value, int):
        yield float(value)
        yield value + 2**53
        yield -value - 1
        yield str(value)
        yield value in (0, 1) and bool(value)
    elif isinstance(value, float):
        yield math.nan
        yield math.inf
        yield -value - 1.0
        yield str(value)
    elif isinstance(value, str):
        yield value + "\n"
        yield value.upper()
        yield value[:-1]
        yield 0
    elif isinstance(value, list):
        yield tuple(value)
        yield value + value
        yield value[:-1]
        yield [*value, None]
    elif isinstance(value, dict):
        yield list(value.values())
    yield None


def _replaced(value: Any, path: tuple[Any, ...], other: Any) -> Any:
    if not path:
        return other
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = _replaced(value[path[0]], path[1:], other)
    return copy


@pytest.mark.parametrize("path", SPEC_PATHS, ids=lambda p: f"{p.parent.name}.{p.stem}")
def test_the_quick_yes_never_accepts_what_jsonschema_refuses(path: Any) -> None:
    spec = load_spec(path, SPEC_ROOT)
    compiled = quick_check(spec.outputs)
    assert compiled is not None, f"{spec.id}: its output schema gets no quick check"
    validator = jsonschema.Draft202012Validator(spec.outputs)
    draw = random.Random(f"{SEED}/{spec.id}")
    outputs = committed_outputs(spec.family, path.stem)
    outputs = draw.sample(outputs, min(len(outputs), OUTPUTS_CHECKED))
    quick_yes = sum(quickly_valid(compiled, output) for output in outputs)
    # every committed output is valid, and the quick check is what says so
    assert all(validator.is_valid(output) for output in outputs)
    assert quick_yes == len(outputs), f"{spec.id}: {len(outputs) - quick_yes} quick noes"
    tried = refused = 0
    for output in draw.sample(outputs, min(len(outputs), OUTPUTS_BROKEN)):
        for wrong in broken(output, draw):
            tried += 1
            valid = validator.is_valid(wrong)
            refused += not valid
            assert valid or not quickly_valid(compiled, wrong), (spec.id, wrong)
    assert refused > tried // 4  # the wrong outputs are mostly wrong


def test_a_schema_using_a_keyword_read_otherwise_gets_no_quick_check() -> None:
    number = {"type": "integer", "description": "kept out"}
    assert quick_check({"type": "object", "properties": {"n": number}}) is not None
    for schema in (
        {"type": "array", "prefixItems": [number]},  # draft 7 does not know it
        {"type": "array", "items": [number]},  # draft 7's tuple form
        {"$defs": {"n": number}, "properties": {"n": {"$ref": "#/$defs/n", "minimum": 3}}},
        {"type": "object", "dependentRequired": {"a": ["b"]}},
    ):
        assert quick_check(schema) is None, schema


def test_a_pattern_is_read_as_ecma_reads_it() -> None:
    # Python's $ also matches before a final newline; the quick check must not say yes
    compiled = quick_check({"type": "string", "pattern": "^[0-9a-f]{4}$"})
    assert compiled is not None
    assert quickly_valid(compiled, "00ff")
    assert not quickly_valid(compiled, "00ff\n")
    in_class = quick_check({"type": "string", "pattern": "^[$a]+$"})
    assert in_class is not None and quickly_valid(in_class, "$a$")
