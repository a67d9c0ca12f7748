"""The bundled Node.js adapter checks every input as the reference does (adapters/node/
inputs.js mirrors reference/_input_checks.py): for a sample of algorithms covering every schema
keyword, inputs with one fault of each kind, and with two faults in different places, get
the reference's code through the adapter process. And an exception inside a family function
is answered with internal-error while the rest of the batch is still answered."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from support import HANG

from fairvec.fuzz.fields import WRONG_TYPED
from fairvec.reference import InvalidInput, compute

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="Node.js is not installed (no 'node')")
PACKAGE = Path(str(resources.files("fairvec")))
ADAPTER_DIR = PACKAGE / "adapters" / "node"
VECTORS = PACKAGE / "vectors"
# Between them every keyword the checker knows: enum (text and integers), minimum, maximum,
# minItems, maxItems, uniqueItems, pattern, items, nullable types, optional fields, and the
# algorithms' own checks that must come after the schema's (tenhou.tile's players-dependent
# range, stake.shuffle's count against size, the hashes matched whole).
SAMPLE = [
    "battle.damage",
    "bustabit.games",
    "casino.commitment",
    "casino.mines_shuffling",
    "nardy.rolls",
    "stake.shuffle",
    "stake.wheel",
    "tenhou.game",
    "tenhou.mt19937",
    "tenhou.seat_order",
    "tenhou.tile",
    "videopoker.analysis",
    "videopoker.draw",
]
KEYWORDS = {"enum", "minimum", "maximum", "minItems", "maxItems", "uniqueItems", "pattern"}
PAIRS = 40  # two-fault inputs drawn per algorithm


def vector_file(algorithm: str) -> dict[str, Any]:
    family, name = algorithm.split(".", 1)
    data: dict[str, Any] = json.loads((VECTORS / family / f"{name}.json").read_text("utf-8"))
    return data


def base_input(data: dict[str, Any]) -> dict[str, Any]:
    """The valid input with the most fields (so optional fields get faults too)."""
    valid = [v["input"] for v in data["vectors"] if "output" in v["expected"]]
    chosen: dict[str, Any] = max(valid, key=lambda given: (len(given), -len(json.dumps(given))))
    return chosen


def admits(types: list[str], kind: str) -> bool:
    return kind in types or (kind == "integer" and "number" in types)


def faults(schema: dict[str, Any], value: Any) -> Iterator[tuple[str, Any]]:
    """(kind, a value with that fault) for one field's schema and valid value."""
    types = [schema["type"]] if isinstance(schema["type"], str) else schema["type"]
    for kind, wrong in WRONG_TYPED:
        if not admits(types, kind):
            yield "wrong-type", wrong
    if "string" in types:
        yield "surrogate", "\ud800x"
    if "minimum" in schema:
        yield "minimum", schema["minimum"] - 1
    if "maximum" in schema:
        yield "maximum", schema["maximum"] + 1
    if "enum" in schema:
        first = schema["enum"][0]
        yield "enum", first.upper() if isinstance(first, str) else max(schema["enum"]) + 1
    if "pattern" in schema:
        yield "pattern", value + "g"
        yield "newline", value + "\n"  # Python's `$` passes it; the algorithm's check does not
    if isinstance(value, list) and value:
        yield from array_faults(schema, value)


def array_faults(schema: dict[str, Any], value: list[Any]) -> Iterator[tuple[str, Any]]:
    if schema.get("minItems", 0) > 0:
        yield "minItems", value[: schema["minItems"] - 1]
    if "maxItems" in schema:
        yield "maxItems", value + value[:1] * (schema["maxItems"] + 1 - len(value))
    if schema.get("uniqueItems") and len(value) > 1:
        yield "uniqueItems", [value[0], *value[1:-1], value[0]]
    for kind, item in faults(schema["items"], value[-1]):
        yield kind, [*value[:-1], item]
        if schema.get("minItems", 0) > 1:  # the field's own fault comes before its item's
            yield "minItems", [*value[: schema["minItems"] - 2], item]


def object_faults(data: dict[str, Any], base: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    yield from (("not-object", value) for value in ([], "x", None, 3, [base]))
    schema = data["input_schema"]
    for name in schema["required"]:
        missing = {key: value for key, value in base.items() if key != name}
        yield "missing", missing
        yield "unknown", {**missing, "zz": 1, "AA": "\ud800"}  # unknown before missing
    yield "unknown", {**base, "extra": 1}
    first = next(iter(schema["properties"]))
    yield "missing", {**{k: v for k, v in base.items() if k != schema["required"][-1]}, first: []}


def inputs_for(algorithm: str) -> Iterator[tuple[str, Any]]:
    """(kinds, input): every single fault, then PAIRS inputs with faults in two fields."""
    data = vector_file(algorithm)
    base = base_input(data)
    yield from object_faults(data, base)
    singles = [
        (name, kind, value)
        for name, field in data["input_schema"]["properties"].items()
        if name in base
        for kind, value in faults(field, base[name])
    ]
    for name, kind, value in singles:
        yield kind, {**base, name: value}
    chance = random.Random(f"node-inputs:{algorithm}")
    pairs = [(a, b) for a in singles for b in singles if a[0] < b[0]]
    # every pair with a hash ending in "\n": the schema passes it, so the other field's
    # schema fault must win over the algorithm's own check of the hash
    chosen = [(a, b) for a, b in pairs if "newline" in (a[1], b[1])]
    chosen += chance.sample(pairs, min(PAIRS, len(pairs)))
    for (name, kind, value), (other, other_kind, other_value) in chosen:
        yield f"{kind}+{other_kind}", {**base, name: value, other: other_value}


def reference_answer(algorithm: str, given: Any) -> dict[str, Any]:
    try:
        return {"output": compute(algorithm, given, None)}
    except InvalidInput as error:
        return {"error": error.code}


def node_answers(requests: list[dict[str, Any]], adapter: Path = ADAPTER_DIR) -> list[Any]:
    """One adapter process, every request in one batch, as the runner sends them."""
    assert NODE is not None
    lines = "".join(json.dumps(request, ensure_ascii=True) + "\n" for request in requests)
    done = subprocess.run(
        [NODE, str(adapter / "adapter.js")],
        input=lines.encode("ascii"),
        capture_output=True,
        timeout=HANG,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    hello, *answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert hello["type"] == "hello"
    assert [answer["id"] for answer in answers] == [request["id"] for request in requests]
    return answers


def test_every_fault_kind_gets_the_reference_code_through_the_node_adapter() -> None:
    requests, expected, kinds = [], [], set()
    for algorithm in SAMPLE:
        for index, (kind, given) in enumerate(inputs_for(algorithm)):
            wanted = reference_answer(algorithm, given)
            assert "error" in wanted, (algorithm, kind, given)  # every input here is invalid
            ident = f"{algorithm}/{index}:{kind}"
            requests.append({"id": ident, "algorithm": algorithm, "variant": None, "input": given})
            expected.append(wanted["error"])
            kinds.update(kind.split("+"))
    # the sample reaches every kind of fault, so a kind the checker gets wrong shows here
    assert kinds >= KEYWORDS | {"wrong-type", "surrogate", "newline", "unknown", "missing"}
    got = node_answers(requests)
    wrong = [
        (request["id"], request["input"], code, answer)
        for request, code, answer in zip(requests, expected, got, strict=True)
        if answer.get("error", {}).get("code") != code
    ]
    assert not wrong, f"{len(wrong)} of {len(requests)} differ; first: {wrong[:3]}"


@pytest.mark.smoke  # the module's run kept in the inner loop
def test_a_pay_table_named_like_an_object_property_is_unknown() -> None:
    """The name "constructor" passes the pattern; a lookup without Object.hasOwn found it."""
    given = {"paytable": "constructor"}
    request = {"id": "x", "algorithm": "videopoker.analysis", "variant": None, "input": given}
    (answer,) = node_answers([request])
    assert answer["error"]["code"] == reference_answer("videopoker.analysis", given)["error"]


BROKEN_FAMILY = """'use strict';
module.exports = {
  'battle.hash': { run: () => { throw new TypeError('boom'); } },
  'zz.nowhere': { run: () => ({}) },
};
"""


def test_an_exception_is_answered_as_internal_error_and_the_batch_goes_on(tmp_path: Path) -> None:
    """A copy of the adapter with a family whose battle.hash throws (sorted last, it replaces
    the real one) and an algorithm without a vector file."""
    adapter = tmp_path / "adapters" / "node"
    shutil.copytree(ADAPTER_DIR, adapter)
    (adapter / "families" / "zz_broken.js").write_text(BROKEN_FAMILY, encoding="utf-8")
    (tmp_path / "vectors").symlink_to(VECTORS, target_is_directory=True)
    hash_input = {"input": "a"}
    ticket_input = base_input(vector_file("battle.ticket"))
    requests: list[dict[str, Any]] = [
        {"id": "throws", "algorithm": "battle.hash", "variant": None, "input": hash_input},
        {"id": "after", "algorithm": "battle.ticket", "variant": None, "input": ticket_input},
        {"id": "no-file", "algorithm": "zz.nowhere", "variant": None, "input": {}},
        {"id": "last", "algorithm": "battle.ticket", "variant": None, "input": ticket_input},
    ]
    throws, after, no_file, last = node_answers(requests, adapter)
    assert throws["error"]["code"] == "internal-error"
    assert "TypeError: boom" in throws["error"]["message"]
    assert "zz_broken.js" in throws["error"]["message"]  # where to look
    assert no_file["error"]["code"] == "internal-error"
    assert "vectors/zz/nowhere.json" in no_file["error"]["message"]
    wanted = reference_answer("battle.ticket", ticket_input)
    assert after["output"] == last["output"] == wanted["output"]
