"""The runner's fast path (plainly valid answers naming the head, judged in batches) must
end every vector exactly as the general path does. Differential: the same scripted
adapter, answering several hundred vectors in every way a port can (right, wrong, 1.0 for
1, true for 1, error codes, unsupported, garbage, wrong or later ids, duplicates, huge
integers, deep nesting), run with the fast path and without it."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from fairvec.runner.compare import judge, judge_outputs
from fairvec.runner.protocol import parse_response, plain_response, plain_responses
from fairvec.runner.results import Result, Work
from fairvec.runner.session import Session
from fairvec.vectorfiles import default_vectors_root, load_vector_files

SCRIPTED = """
import json, sys
plan = json.load(open(sys.argv[1]))
print(json.dumps(plan["hello"]), flush=True)
for line in sys.stdin:
    request = json.loads(line)
    for stream, text in plan["answers"].get(request["id"], []):
        (sys.stdout if stream == "out" else sys.stderr).write(text + "\\n")
    sys.stdout.flush()
    sys.stderr.flush()
"""

# How a vector may be answered: each returns [(stream, line), ...] for vector ``v`` (its
# id, its expected answer) and ``other`` (a later vector's id).
KINDS = [
    "right",
    "right",
    "right",
    "right-spaced",
    "float-for-int",
    "true-for-int",
    "wrong",
    "error",
    "unsupported",
    "garbage",
    "not-object",
    "extra-key",
    "huge-integer",
    "deep",
    "later-id",
    "twice",
    "silent-then-later",
]
# A head's time: no vector is left to it (a silent one is settled by the later answer that
# follows it, and the last one answers), so a loaded machine's slow answer, which both paths
# would charge as a timeout at random, is never one.
TIMEOUT = 60.0
# (Not answers on stderr: with a later id pending, whether one is read in the same batch as
# the stdout lines around it is timing, for either path; tests/test_runner_misbehaving.py
# covers them.)


def _answer(kind: str, vector: dict[str, Any], later: str | None) -> list[list[str]]:
    vid, expected = vector["id"], vector["expected"]
    body = {"error": {"code": expected["error"]}} if "error" in expected else dict(expected)
    right = json.dumps({"id": vid, **body}, separators=(",", ":"))
    if kind == "right":
        return [["out", right]]
    if kind == "right-spaced":
        return [["out", json.dumps({"id": vid, **body}, indent=None)]]
    if kind == "float-for-int":
        return [["out", _retyped(right, float)]]
    if kind == "true-for-int":
        return [["out", _retyped(right, lambda _value: True)]]
    if kind == "wrong":
        return [["out", json.dumps({"id": vid, "output": {"surely": "not"}})]]
    if kind == "error":
        return [["out", json.dumps({"id": vid, "error": {"code": "nope", "message": "m"}})]]
    if kind == "unsupported":
        return [["out", json.dumps({"id": vid, "unsupported": True, "reason": "later"})]]
    if kind == "garbage":
        return [["out", '{"id": "' + vid + '", "output": ']]
    if kind == "not-object":
        return [["out", json.dumps([vid])]]
    if kind == "extra-key":
        return [["out", json.dumps({"id": vid, **body, "debug": 1})]]
    if kind == "huge-integer":
        return [["out", json.dumps({"id": vid, "output": 123456789012345678901234567890})]]
    if kind == "deep":
        return [["out", json.dumps({"id": vid, "output": [[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]] * 9})]]
    if kind == "later-id" and later:
        return [["out", json.dumps({"id": later, "output": 1})]]
    if kind == "twice":
        return [["out", right], ["out", right]]
    if kind == "stderr":
        return [["err", right]]
    if kind == "silent-then-later" and later:  # (the last one answers: see TIMEOUT)
        return []
    return [["out", right]]


def _retyped(line: str, change: Any) -> str:
    """The answer with its first integer value (not a key) turned by ``change``."""
    message = json.loads(line)

    def walk(value: Any) -> tuple[Any, bool]:
        if type(value) is int:
            return change(value), True
        if isinstance(value, list):
            for index, item in enumerate(value):
                new, done = walk(item)
                if done:
                    return [*value[:index], new, *value[index + 1 :]], True
        if isinstance(value, dict):
            for key, item in value.items():
                new, done = walk(item)
                if done:
                    return {**value, key: new}, True
        return value, False

    return json.dumps({**message, "output": walk(message.get("output"))[0]})


def _works() -> list[Work]:
    files = load_vector_files(default_vectors_root(), lambda name: name.startswith("battle."))
    return [
        Work(vector, vector_file.algorithm, {})
        for vector_file in files
        for vector in vector_file.vectors
    ][:400]


def _plan(works: list[Work], seed: int) -> dict[str, Any]:
    chooser = random.Random(seed)
    answers = {}
    for index, work in enumerate(works):
        later = works[index + 1].vector["id"] if index + 1 < len(works) else None
        answers[work.vector["id"]] = _answer(chooser.choice(KINDS), work.vector, later)
    algorithms = sorted({work.algorithm for work in works})
    hello = {"type": "hello", "protocol": 1, "name": "scripted", "version": "0"}
    return {"hello": {**hello, "algorithms": {name: [] for name in algorithms}}, "answers": answers}


def _run(command: list[str], works: list[Work], *, fast: bool, window: int) -> list[Any]:
    session = Session(command, timeout=TIMEOUT, window=window)
    if not fast:
        session._answered_plainly = lambda _events, _start: 0  # type: ignore[method-assign,assignment]
    try:
        results = session.run(works)
    finally:
        session.close()
    return [(r.id, r.status, r.message, json.dumps(r.got, sort_keys=True)) for r in results]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_fast_path_ends_every_vector_as_the_general_path_does(
    tmp_path: Path, seed: int
) -> None:
    works = _works()
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(_plan(works, seed)), encoding="utf-8")
    script = tmp_path / "scripted.py"
    script.write_text(SCRIPTED, encoding="utf-8")
    command = [sys.executable, str(script), str(plan)]
    # Every request in flight from the start: how many are in flight when a line naming a
    # later request arrives would otherwise be timing, for either path.
    general = _run(command, works, fast=False, window=len(works))
    fast = _run(command, works, fast=True, window=len(works))
    assert fast == general
    statuses = {status for _id, status, _message, _got in fast}
    assert {"pass", "fail", "error", "skip"} <= statuses  # the plan exercised every ending


LINES = [
    b'{"id":"a","output":1}',
    b'{"id":"b","error":{"code":"x"}}',
    b'{"id":"c","output":[1,2,{"k":null}]}',
    b'{"id":"d","unsupported":true}',
    b'{"id":"e","output":123456789012345678901234}',
    b'{"id":"f","output":1',
    b"[1]",
    b'{"id":"g","output":1,"x":2}',
    b'{"id":"h","output":' + b"[" * 70 + b"]" * 70 + b"}",
    b'{"id":"j","output":[' + b",".join([b"[1,2]"] * 100) + b"]}",  # wide, not deep
    b'{"id":"k","output":' + b"[" * 64 + b"]" * 64 + b"}",  # 65 deep with the object
    b'{"id":"i","output":"\\ud800"}',
    b"\xff",
]


@pytest.mark.parametrize("start", range(len(LINES)))
def test_a_run_of_lines_is_plain_exactly_as_far_as_each_line_is(start: int) -> None:
    lines = LINES[start:] + LINES[:start]
    expected = []
    for line in lines:
        if plain_response(line) is None:
            break
        expected.append(parse_response(line).message)
    assert plain_responses(lines) == expected


def test_an_answer_of_many_arrays_side_by_side_is_plain_and_a_deep_one_is_not() -> None:
    """A tenhou answer opens hundreds of arrays, none in another: the fast path takes it
    (it took every such line one by one); what nests too deep still is not plain."""
    wide = next(line for line in LINES if line.startswith(b'{"id":"j"'))
    deep = next(line for line in LINES if line.startswith(b'{"id":"k"'))
    assert plain_response(wide) == json.loads(wide)
    one, many = json.loads(LINES[0]), json.loads(wide)
    assert plain_responses([LINES[0], wide, wide, LINES[0]]) == [one, many, many, one]
    assert plain_response(deep) is None and "nested" in (parse_response(deep).problem or "")
    assert plain_responses([LINES[0], wide, deep, LINES[0]]) == [one, many]


def test_plain_lines_are_the_valid_responses_the_general_parser_finds() -> None:
    for line in LINES:
        message = plain_response(line)
        if message is not None:
            parsed = parse_response(line)
            assert parsed.problem is None and parsed.message == message


PAIRS: list[tuple[Any, Any]] = [
    (1, 1),
    (1, 1.0),
    (1.0, 1),
    (1, True),
    (True, True),
    (0, False),
    ([1, 2], [1, 2]),
    ([1, 2], [1.0, 2]),
    ({"a": 1, "b": 2}, {"b": 2, "a": 1}),
    ({"a": 1}, {"a": 1, "b": 2}),
    ("x", "x"),
    ("x", "y"),
    (None, None),
    (None, 0),
    (2**70, 2**70),
    ("\ud800", "\ud800"),
]


def test_outputs_judged_together_are_judged_as_one_by_one() -> None:
    works = [
        Work({"id": f"v{n}", "variant": None, "input": {}, "expected": {"output": e}}, "x", {})
        for n, (e, _got) in enumerate(PAIRS)
    ]
    outputs = [got for _expected, got in PAIRS]
    one_by_one = [
        judge(w.vector, w.algorithm, {}, {"output": o}) for w, o in zip(works, outputs, strict=True)
    ]
    for work, output, alone in zip(works, outputs, one_by_one, strict=True):
        (single,) = judge_outputs([work], [output]) or [None]
        assert single is None or _shown([single]) == _shown([alone])
        assert single is not None or alone.status != "pass" or _needs_json_equal(work, output)
    assert judge_outputs(works, outputs) is None  # a lone surrogate, 2**70: orjson cannot
    # the others together: each settled as it is alone, though some in the batch differ
    writable = [n for n, (e, _got) in enumerate(PAIRS) if e not in ("\ud800", 2**70)]
    together = judge_outputs([works[n] for n in writable], [outputs[n] for n in writable])
    assert together is not None and len(together) == len(writable)
    for n, batched in zip(writable, together, strict=True):
        (single,) = judge_outputs([works[n]], [outputs[n]]) or [None]
        assert _shown([batched] if batched else []) == _shown([single] if single else [])
    assert sum(result is not None for result in together) == 6  # the passes orjson settles


def _needs_json_equal(work: Work, output: Any) -> bool:
    """The batch leaves to judge what only json_equal settles (1 against 1.0), or what
    orjson cannot write (a lone surrogate, an integer beyond 64 bits)."""
    expected = work.vector["expected"]["output"]
    try:
        return json.dumps(expected, sort_keys=True) != json.dumps(output, sort_keys=True) or (
            "\ud800" in json.dumps(expected, ensure_ascii=False) or expected == 2**70
        )
    except (TypeError, ValueError):
        return True


def _shown(results: list[Result]) -> list[tuple[str, str, str, Any]]:
    return [(r.id, r.status, r.message, r.got) for r in results]


def test_an_error_expected_is_never_passed_by_an_output_in_a_batch() -> None:
    work = Work({"id": "e", "variant": None, "input": {}, "expected": {"error": "bad"}}, "x", {})
    assert not any(judge_outputs([work], [None]) or [])


LONG_NUMBERS = [
    b'{"x":[0.0014491399184793983,0.32400917550783837]}',  # long fractions: plain floats
    b'{"x":18446744073709551615}',  # 2^64 - 1, the largest orjson reads as an integer
    b'{"x":18446744073709551616}',  # 2^64: orjson cannot; json reads the integer
    b'{"x":-1000000000000000000000000000000}',
    b"100000000000000000000",  # a bare integer at the start of the text
    b'{"x":1e1000000000000000000}',  # a long exponent (json: inf)
    b'{"x":12345678901234567890.5}',  # a long integral part, then a fraction
    b'{"x":"0.1234567890123456789012"}',  # digits in a string
]


@pytest.mark.parametrize("line", LONG_NUMBERS)
def test_long_digit_runs_parse_as_json_reads_them(line: bytes) -> None:
    """The long-integer guard: whatever orjson is let parse, it parses as json does,
    types included; a run of digits after a "." (a fraction) does not send a batch of
    answers the slow way."""
    from fairvec.jsonio import fast_loads, fast_loads_each

    expected = json.loads(line)
    for parsed in (fast_loads(line), *(fast_loads_each([line, b"{}"]) or [expected])[:1]):
        assert repr(parsed) == repr(expected)
    if line.startswith(b'{"x":[0.00'):
        assert fast_loads_each([line, b"{}"]) is not None  # orjson took the batch


def test_one_long_integer_line_does_not_send_its_batch_the_slow_way() -> None:
    """A line that may hold an integer beyond 64 bits is read by json, the rest of its batch
    by orjson: one hex digest with 19 digits in a row among 300 answers used to send all 300
    one by one. What orjson would refuse still refuses the batch."""
    from fairvec.jsonio import fast_loads_each

    plain = [b'{"id":"v%d","output":{"n":%d}}' % (n, n) for n in range(300)]
    for line in LONG_NUMBERS[1:4]:
        batch = [*plain[:150], line, *plain[150:]]
        parsed = fast_loads_each(batch)
        assert parsed is not None, line
        assert [repr(value) for value in parsed] == [repr(json.loads(one)) for one in batch]
    for refused in (b'{"x":12345678901234567890,"y":NaN}', b'{"x":1e1000000000000000000}'):
        assert fast_loads_each([*plain, refused]) is None
