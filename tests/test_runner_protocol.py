"""One source of truth for adapter messages: runner/schemas/protocol.schema.json. The
runner's fast path for common responses must agree with the schema on every message."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import jsonschema
import pytest

from fairvec.runner.protocol import (
    parse_hello,
    parse_response,
    protocol_schema,
    request_line,
)


def schema_accepts(message: Any, definition: str) -> bool:
    schema = protocol_schema()
    validator = jsonschema.Draft202012Validator(
        {"$defs": schema["$defs"], "$ref": f"#/$defs/{definition}"}
    )
    return validator.is_valid(message)


RESPONSES: list[Any] = [
    {"id": "a", "output": {"x": 1}},
    {"id": "a", "output": None},
    {"id": "a", "error": {"code": "bad"}},
    {"id": "a", "error": {"code": "bad", "message": "why"}},
    {"id": "a", "error": {"code": "bad", "message": 3}},
    {"id": "a", "error": {"code": 3}},
    {"id": "a", "error": {}},
    {"id": "a", "error": "bad"},
    {"id": "a", "error": None},
    {"id": "a", "unsupported": True},
    {"id": "a", "unsupported": True, "reason": "not yet"},
    {"id": "a", "unsupported": True, "reason": 7},
    {"id": "a", "unsupported": False},
    {"id": "a", "unsupported": None},
    {"id": "a", "unsupported": 1},
    {"id": "a", "output": 1, "error": {"code": "bad"}},
    {"id": "a", "output": 1, "unsupported": True},
    {"id": "a"},
    {"id": 1, "output": 1},
    {"id": None, "output": 1},
    {"output": 1},
    {"id": "a", "output": 1, "extra": True},
    [],
    "text",
    7,
]


@pytest.mark.parametrize("message", RESPONSES, ids=json.dumps)
def test_the_runner_accepts_a_response_exactly_when_the_schema_does(message: Any) -> None:
    parsed = parse_response(json.dumps(message).encode())
    assert (parsed.problem is None) == schema_accepts(message, "response")


PLAIN_HELLO = {"type": "hello", "protocol": 1, "name": "n", "version": "1", "algorithms": {}}
# the optional hello fields the runner checks without jsonschema, each with values either side
CLAIM_VALUES: dict[str, list[Any]] = {
    "lone_surrogates": ["escaped", "marked", "raw", "", None, ["marked"], 1, True],
    "accumulate": [True, False, 1, 0, "true", None, [True]],
}


@pytest.mark.parametrize(
    "message",
    [
        {"type": "hello", "protocol": 1, "name": "", "version": "1", "algorithms": {}},
        {"type": "hello", "protocol": 1, "name": "n", "version": 1, "algorithms": {}},
        {"type": "hello", "protocol": 2, "name": "n", "version": "1", "algorithms": {}},
        {"type": "hello", "protocol": 1, "name": "n", "version": "1", "algorithms": {"a": [1]}},
        {"type": "hello", "protocol": 1, "name": "n", "version": "1", "algorithms": []},
        {"type": "hello", "protocol": 1, "name": "n", "version": "1"},
        {"type": "hello", "protocol": 1, "name": "n", "version": "1", "algorithms": {"a": []}},
        *({**PLAIN_HELLO, key: value} for key, values in CLAIM_VALUES.items() for value in values),
    ],
    ids=json.dumps,
)
def test_the_runner_accepts_a_hello_exactly_when_the_schema_does(message: Any) -> None:
    try:
        parse_hello(json.dumps(message).encode())
        accepted = True
    except ValueError:
        accepted = False
    assert accepted == schema_accepts(message, "hello")


def test_a_bad_response_still_names_its_vector() -> None:
    parsed = parse_response(b'{"id": "v", "unsupported": false}')
    assert parsed.id == "v" and parsed.problem is not None


@pytest.mark.parametrize(
    "line", [b"[" * 1000, b'{"id": "v", "output": ' + b"[" * 70 + b"]" * 70 + b"}", b"\xff{}"]
)
def test_unreadable_lines_are_problems_not_exceptions(line: bytes) -> None:
    assert parse_response(line).problem is not None


def test_requests_are_ascii_and_carry_any_string() -> None:
    vector = {"id": "v", "variant": None, "input": {"s": "\ud800 é \U0001f600"}}
    line = request_line(vector, "a.b")
    assert line.isascii()
    assert json.loads(line)["input"] == vector["input"]
    assert schema_accepts(json.loads(line), "request")


@pytest.mark.parametrize(("algorithms", "variants"), [(1000, 0), (1001, 0), (1, 100), (1, 101)])
def test_the_hello_bounds_are_the_schemas(algorithms: int, variants: int) -> None:
    listed = {f"a.b{n}": [f"v{v}" for v in range(variants)] for n in range(algorithms)}
    message = {"type": "hello", "protocol": 1, "name": "n", "version": "1", "algorithms": listed}
    try:
        parse_hello(json.dumps(message).encode())
        accepted = True
    except ValueError:
        accepted = False
    assert accepted == schema_accepts(message, "hello") == (algorithms <= 1000 and variants <= 100)


@pytest.mark.parametrize(
    "message",
    [
        {"id": "a", "output": "x" * 100_000, "error": {"code": "c"}},
        {"id": "a", "output": {"k": "x" * 100_000}, "unsupported": True},
    ],
)
def test_a_schema_message_never_quotes_a_whole_output(message: Any) -> None:
    problem = parse_response(json.dumps(message).encode()).problem
    assert problem is not None and len(problem) < 1000


@pytest.mark.parametrize(
    ("claims", "loads_jsonschema"),
    [
        ({"lone_surrogates": "marked", "accumulate": True}, False),  # the C and Node adapters'
        ({"accumulate": False, "lone_surrogates": "escaped"}, False),
        ({"pins": {"*": {"salt": "s"}}}, True),  # a pin's shape: the schema checks it
        ({"accumulate": "yes"}, True),  # refused, by the schema's message
    ],
)
def test_a_plain_hello_is_read_without_importing_jsonschema(
    claims: dict[str, Any], loads_jsonschema: bool
) -> None:
    """jsonschema's import is a tenth of a second before the first request (issue 20)."""
    hello = json.dumps({**PLAIN_HELLO, "algorithms": {"a.b": []}, **claims})
    program = (
        "import sys\n"
        "from fairvec.runner.protocol import parse_hello\n"
        "try:\n"
        f"    parse_hello({hello.encode()!r})\n"
        "except ValueError:\n"
        "    pass\n"
        "print('jsonschema' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == str(loads_jsonschema)
