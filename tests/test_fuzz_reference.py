"""Fuzzing compute(): whatever the input, an output its spec allows or a coded error it lists.

Seeded and bounded (the same inputs on every run, a few seconds in all). For every
algorithm with a spec it tries random JSON-like values as the whole input, mutations of
the inputs of its real vectors (a field replaced, dropped or added; an item replaced,
appended or removed; text with a lone surrogate or spaces), and arrays with items of
every wrong type. Each must give either an output valid against the spec's output schema
(and then the input must be valid against the spec's input schema) or InvalidInput with a
code the spec lists: the codes every algorithm shares, the codes its input schema names
and the codes its error cases expect (docs/spec-format.md, "Input errors").
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from unittest.mock import ANY

import jsonschema
import pytest
from support import HANG, REPO

from fairvec.reference import InvalidInput, compute
from fairvec.specs import read_yaml

SEED = 20240601
MUTATIONS_PER_ALGORITHM = 100
RANDOM_INPUTS_PER_ALGORITHM = 15
SHARED_CODES = {"wrong-type", "missing-field", "unknown-field", "not-unicode-text"}
HUGE = 10**5000  # more digits than Python will print: the message must still be built
SCALARS: list[Any] = [
    None, True, False, 0, -1, 1, 2, 7, 52, 136, 2**32, 2**53 - 1, 2**53, 2**53 + 1, HUGE, -HUGE,
    0.5, -0.0, 1.0, 1.5, 1e308, float("inf"), float("-inf"), "", "1", "a b", " x ", "\ud800",
    "\udfff tail", "\u0000", "é", "\U0001f600", "%e3%81%82", "00" * 64,
]  # fmt: skip


def spec_ids() -> list[str]:
    return sorted(f"{p.parent.name}.{p.stem}" for p in (REPO / "spec").glob("*/*.yaml"))


def load(algorithm_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    family, name = algorithm_id.split(".", 1)
    # fairvec's own reading (libyaml where it can): the same value as yaml.safe_load, in a
    # third of the time, and this runs for every algorithm
    spec = read_yaml(REPO / "spec" / family / f"{name}.yaml", f"spec/{family}/{name}.yaml")
    vector_file = REPO / "vectors" / family / f"{name}.json"
    vectors = json.loads(vector_file.read_text(encoding="utf-8"))["vectors"]
    # mutations start from the spec's own inputs: a shape vector is one already broken
    return spec, [vector for vector in vectors if "shape" not in vector["tags"]]


def listed_codes(spec: dict[str, Any]) -> set[str]:
    codes = set(SHARED_CODES)
    codes |= {case["error"] for case in spec.get("cases", []) if "error" in case}
    stack = [spec["inputs"]]
    while stack:
        schema = stack.pop()
        error = schema.get("error")
        codes |= {error} if isinstance(error, str) else set((error or {}).values())
        stack += list(schema.get("properties", {}).values())
        stack += [schema["items"]] if isinstance(schema.get("items"), dict) else []
    return codes


def random_value(chance: random.Random, depth: int = 0) -> Any:
    roll = chance.random()
    if depth > 3 or roll < 0.6:
        return chance.choice(SCALARS)
    if roll < 0.8:
        return [random_value(chance, depth + 1) for _ in range(chance.randrange(4))]
    keys = ["a", "input", "numbers", "seed", "\ud800"]
    return {
        chance.choice(keys): random_value(chance, depth + 1) for _ in range(chance.randrange(3))
    }


def mutated(chance: random.Random, original: dict[str, Any], fields: list[str]) -> Any:
    value = json.loads(json.dumps(original))  # a deep copy
    for _ in range(chance.choice((1, 1, 2))):
        chance.choice(MUTATORS)(chance, value, fields)
    return value


def _replace_field(chance: random.Random, value: dict[str, Any], fields: list[str]) -> None:
    value[chance.choice(fields)] = random_value(chance)


def _drop_field(chance: random.Random, value: dict[str, Any], _fields: list[str]) -> None:
    if value:
        del value[chance.choice(sorted(value))]


def _add_field(chance: random.Random, value: dict[str, Any], _fields: list[str]) -> None:
    value[chance.choice(["extra", "Input", ""])] = random_value(chance)


def _change_item(chance: random.Random, value: dict[str, Any], _fields: list[str]) -> None:
    arrays = [name for name, item in value.items() if isinstance(item, list)]
    if not arrays:
        return
    items = value[chance.choice(arrays)]
    action = chance.randrange(3)
    if action == 0 and items:
        items[chance.randrange(len(items))] = chance.choice([*SCALARS, [], {}, [1]])
    elif action == 1:
        items.append(chance.choice(items) if items and chance.random() < 0.5 else 1)
    elif items:
        items.pop(chance.randrange(len(items)))


def _change_text(chance: random.Random, value: dict[str, Any], _fields: list[str]) -> None:
    texts = [name for name, item in value.items() if isinstance(item, str)]
    if texts:
        name = chance.choice(texts)
        shapes = ("\ud800{}", "{} ", " {} ", "{}\udc00x", "{}\n")
        value[name] = chance.choice(shapes).format(value[name])


MUTATORS: list[Callable[[random.Random, dict[str, Any], list[str]], None]] = [
    _replace_field, _drop_field, _add_field, _change_item, _change_item, _change_text,
]  # fmt: skip


def wrong_items(original: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Each array field with one item of each wrong type (the fuzzing's 747 crashes were
    mostly these)."""
    for name, item in original.items():
        if isinstance(item, list) and item:
            for wrong in ("1", 1.5, None, {}, [], True, HUGE, "\ud800"):
                yield {**original, name: [wrong, *item[1:]]}


def inputs_for(algorithm_id: str, chance: random.Random) -> Iterator[tuple[Any, str | None]]:
    spec, vectors = load(algorithm_id)
    fields = list(spec["inputs"]["properties"])
    for _ in range(RANDOM_INPUTS_PER_ALGORITHM):
        yield random_value(chance), None
    for _ in range(MUTATIONS_PER_ALGORITHM):
        vector = chance.choice(vectors)
        yield mutated(chance, vector["input"], fields), vector["variant"]
    for vector in vectors[:2]:
        for value in wrong_items(vector["input"]):
            yield value, vector["variant"]


def strict_integer_validator(schema: dict[str, Any]) -> Any:
    """The spec's schema, but 1.0 is not an integer (the reference's reading)."""
    checker = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _c, v: isinstance(v, int) and not isinstance(v, bool)
    )
    cls = jsonschema.validators.extend(jsonschema.Draft202012Validator, type_checker=checker)
    return cls(schema)


@pytest.mark.heavy  # fuzz draws for every algorithm
@pytest.mark.parametrize("algorithm_id", spec_ids())
def test_compute_returns_a_valid_output_or_a_listed_code(algorithm_id: str) -> None:
    chance = random.Random(f"{SEED}:{algorithm_id}")
    spec, _ = load(algorithm_id)
    codes = listed_codes(spec)
    input_check = strict_integer_validator(spec["inputs"])
    output_check = jsonschema.Draft202012Validator(spec["outputs"])
    problems: list[str] = []
    for value, variant in inputs_for(algorithm_id, chance):
        try:
            output = compute(algorithm_id, value, variant)
        except InvalidInput as error:
            if error.code not in codes:
                problems.append(f"unlisted code {error.code!r} for {shown(value)}")
            continue
        except Exception as error:
            problems.append(f"{type(error).__name__} ({error!s:.80}) for {shown(value)}")
            continue
        if not output_check.is_valid(output):
            problems.append(f"output breaks the output schema for {shown(value)}")
        if not input_check.is_valid(safe(value)):
            problems.append(f"an output for an input the schema rejects: {shown(value)}")
    assert not problems, f"{len(problems)} problems, first: {problems[:3]}"


def safe(value: Any) -> Any:
    """The value with ints too large to print replaced (jsonschema's messages print them)."""
    if isinstance(value, dict):
        return {key: safe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [safe(item) for item in value]
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return 2**64 if value > 0 else -(2**64)
    return value


def shown(value: Any) -> str:
    return repr(safe(value))[:160]


def test_the_fuzzing_reaches_every_kind_of_fault() -> None:
    """The fuzz must not pass by never leaving one path: it meets outputs, every shared
    code and constraint codes of several families."""
    seen: set[str] = set()
    outputs = 0
    for algorithm_id in ("videopoker.draw", "tenhou.seat_order", "nardy.rolls", "battle.move"):
        chance = random.Random(f"{SEED}:{algorithm_id}")
        for value, variant in inputs_for(algorithm_id, chance):
            try:
                compute(algorithm_id, value, variant)
                outputs += 1
            except InvalidInput as error:
                seen.add(error.code)
    assert outputs >= 40
    assert seen >= SHARED_CODES
    wanted = {"held-position-out-of-range", "wrong-card-count", "wrong-player-count"}
    assert wanted | {"cut-out-of-range", "round-out-of-range"} <= seen


# --- the bundled adapters survive malformed request lines --------------------------------

BAD_LINES = [
    (b"not json\n", None),
    (b"[1, 2]\n", None),
    (b"\xff\xfe\n", None),
    (b'{"algorithm": "battle.hash", "input": {"input": "a"}}\n', None),
    (b'{"id": "no-algorithm", "input": {}}\n', "no-algorithm"),
    (b'{"id": "no-input", "algorithm": "battle.hash"}\n', "no-input"),
    (b"[" * 2000 + b"\n", None),
]
GOOD_LINE = b'{"id": "good", "algorithm": "battle.hash", "input": {"input": "a"}}\n'


def adapters() -> list[list[str]]:
    commands = [[sys.executable, "-m", "fairvec.adapters.python"]]
    node = shutil.which("node")
    if node:
        commands.append([node, str(REPO / "adapters" / "node" / "adapter.js")])
    return commands


@pytest.mark.parametrize("command", adapters(), ids=lambda command: Path(command[-1]).name)
def test_a_bundled_adapter_answers_a_malformed_line_with_bad_request(command: list[str]) -> None:
    stdin = b"".join(line for line, _ in BAD_LINES) + GOOD_LINE
    done = subprocess.run(command, input=stdin, capture_output=True, timeout=HANG, check=False)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-500:]
    hello, *answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert hello["type"] == "hello"
    assert len(answers) == len(BAD_LINES) + 1
    for (_, wanted_id), answer in zip(BAD_LINES, answers, strict=False):
        assert answer == {"id": wanted_id, "error": {"code": "bad-request", "message": ANY}}
    assert answers[-1]["id"] == "good" and "output" in answers[-1]


def test_a_pattern_anchor_is_the_end_of_the_text_as_json_schema_means_it() -> None:
    """Python's ``$`` matches before a final newline; a spec pattern's does not (ECMA-262).
    A hash with a trailing newline is a pattern fault, whichever check would come later."""
    hash_hex = "4488d92d89d0ed7fbb2ea23b219d569f63207e32fc44b957858838835c1719f1"
    assert compute("bustabit.previous_hash", {"game_hash": hash_hex}, "hex-text")
    with pytest.raises(InvalidInput) as raised:
        compute("bustabit.previous_hash", {"game_hash": hash_hex + "\n"}, "hex-text")
    assert raised.value.code == "bad-hash"
    assert "must match" in raised.value.message  # the schema's check, not the algorithm's
