"""The input check's quick yes (fastjsonschema, reference/_input_checks.py ``quickly_valid``)
never accepts an input that jsonschema's whole path rejects.

For every algorithm with a spec: every committed vector's input, the fuzzer's draws
(``fairvec fuzz``'s AlgorithmPlan, valid and invalid, seeded and bounded) and a few
values made to split the two (1.0 for an integer, True for 1, a tuple for an array, a
pattern's text with a final newline). A quick yes where ``check_input_fully`` raises is a
failure; a quick no is harmless (that input goes the whole way).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from support import REPO

from fairvec.fuzz.plan import AlgorithmPlan
from fairvec.fuzz.space import load_space
from fairvec.reference import _input_checks
from fairvec.reference._input_checks import (
    InputSchema,
    check_input_fully,
    input_schema,
    quickly_valid,
)
from fairvec.specs import load_spec

FUZZ_SEED = "quick-check/v1"
FUZZ_DRAWS = 40  # per algorithm
SPLIT = 4  # valid inputs made into lookalikes, per algorithm
SPEC_ROOT = REPO / "spec"


class Rejected(Exception):
    pass


def _reject(code: str, message: str) -> Exception:
    return Rejected(f"{code}: {message}")


def spec_ids() -> list[str]:
    return sorted(f"{p.parent.name}.{p.stem}" for p in SPEC_ROOT.glob("*/*.yaml"))


def vector_inputs(algorithm_id: str) -> Iterator[Any]:
    family, name = algorithm_id.split(".", 1)
    path = REPO / "vectors" / family / f"{name}.json"
    if path.is_file():
        for vector in json.loads(path.read_text(encoding="utf-8"))["vectors"]:
            if "input" in vector:
                yield vector["input"]


def fuzz_inputs(algorithm_id: str) -> Iterator[Any]:
    family, name = algorithm_id.split(".", 1)
    spec = load_spec(SPEC_ROOT / family / f"{name}.yaml", SPEC_ROOT)
    plan = AlgorithmPlan(spec, load_space().for_algorithm(algorithm_id), list(spec.variants))
    for index in range(FUZZ_DRAWS):
        yield plan.draw(FUZZ_SEED, index).input


def splitters(found: InputSchema, valid: dict[str, Any]) -> Iterator[Any]:
    """A valid input with one field made a value the two checks could read differently."""
    for name, value in valid.items():
        for other in _lookalikes(value):
            yield {**valid, name: other}


def _lookalikes(value: Any) -> Iterator[Any]:
    if isinstance(value, bool):
        yield int(value)
    elif isinstance(value, int):
        yield float(value)
        yield value in (0, 1) and bool(value)
        yield 2**70
    elif isinstance(value, str):
        yield value + "\n"
        yield value + "\ud800"
    elif isinstance(value, list):
        yield tuple(value)
        yield value + value[:1]  # a repeat, for uniqueItems
        yield [float(item) if type(item) is int else item for item in value]
        yield [bool(item) if item in (0, 1) else item for item in value]


def disagreements(found: InputSchema, inputs: list[Any]) -> list[str]:
    found_wrong = []
    for value in inputs:
        if not quickly_valid(found, value):
            continue
        try:
            check_input_fully(found, value, _reject)
        except Rejected as error:
            found_wrong.append(f"{value!r:.200}: quick yes, but {error}")
    return found_wrong


def inputs_of(algorithm_id: str, found: InputSchema) -> list[Any]:
    inputs = [*vector_inputs(algorithm_id), *fuzz_inputs(algorithm_id)]
    valid = [v for v in inputs if isinstance(v, dict) and quickly_valid(found, v)]
    for value in valid[:SPLIT]:
        inputs.extend(splitters(found, value))
    return inputs


@pytest.mark.heavy  # every algorithm's vectors and draws
@pytest.mark.parametrize("algorithm_id", spec_ids())
def test_the_quick_check_never_accepts_what_jsonschema_rejects(algorithm_id: str) -> None:
    found = input_schema(algorithm_id, SPEC_ROOT)
    inputs = inputs_of(algorithm_id, found)
    assert disagreements(found, inputs) == []
    # the check has something to judge: the quick yes is given to some of these inputs
    assert any(isinstance(v, dict) and quickly_valid(found, v) for v in inputs)


def _schema_of(schema: dict[str, Any]) -> InputSchema:
    return InputSchema("test", schema, _compiled(schema))


def _compiled(schema: dict[str, Any]) -> Any:
    return _input_checks._compiled(schema)


def test_without_the_plain_json_walk_the_quick_check_accepts_what_jsonschema_rejects(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What the test above catches if the walk is dropped: fastjsonschema takes 1.0 as an
    integer, a tuple as an array and a lone surrogate as text."""
    for algorithm_id in ("stake.dice", "nardy.rolls", "stake.mines"):
        found = input_schema(algorithm_id, SPEC_ROOT)
        inputs = inputs_of(algorithm_id, found)
        assert disagreements(found, inputs) == []
        with monkeypatch.context() as patched:
            patched.setattr(_input_checks, "plain_json", lambda value: True)
            assert disagreements(found, inputs) != [], algorithm_id


def test_the_root_is_closed_whatever_the_spec_says() -> None:
    """check_input refuses an unknown field whatever the schema's additionalProperties;
    so does the quick check, which is given the root closed."""
    schema = {**input_schema("stake.dice", SPEC_ROOT).schema, "additionalProperties": True}
    found = _schema_of(schema)
    valid = next(v for v in vector_inputs("stake.dice") if quickly_valid(found, v))
    assert not quickly_valid(found, {**valid, "extra": 1})
    opened = _schema_of(schema)
    opened_compiled = _input_checks.fastjsonschema.compile(
        _input_checks._translated(schema), use_default=False
    )
    object.__setattr__(opened, "compiled", opened_compiled)  # the root left as the spec has it
    assert disagreements(opened, [{**valid, "extra": 1}]) != []


def test_a_dollar_in_a_class_is_a_dollar_sign_to_both_checks() -> None:
    """``[$a]`` is a dollar sign or an a; fastjsonschema's own rewrite of every bare ``$``
    would make it ``[\\Z a]``, which re refuses, so the pattern is given translated."""
    schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {"a": {"type": "string", "pattern": "^[$a]+$", "error": "bad-a"}},
    }
    found = _schema_of(schema)
    assert quickly_valid(found, {"a": "$a$"})
    assert not quickly_valid(found, {"a": "$a\n"})
    assert disagreements(found, [{"a": "$a\n"}, {"a": "$"}, {"a": "b"}, {"a": "a\n"}]) == []
    with pytest.raises(Exception, match="bad escape"):
        _input_checks.fastjsonschema.compile(schema, use_default=False)


def test_the_quick_check_leaves_the_input_as_it_was() -> None:
    """fastjsonschema writes a schema's defaults into the input unless told not to."""
    found = input_schema("nardy.rolls", SPEC_ROOT)
    valid = next(v for v in vector_inputs("nardy.rolls") if "forbidden_rolls" not in v)
    before = json.dumps(valid, sort_keys=True)
    assert quickly_valid(found, valid)
    assert json.dumps(valid, sort_keys=True) == before
