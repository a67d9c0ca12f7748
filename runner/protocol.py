"""The adapter protocol's messages (docs/adapter-protocol.md).

One source of truth: schemas/protocol.schema.json decides what a hello or a response is.
The common, plainly valid response shapes are recognised without calling jsonschema (that
costs tens of microseconds a line); the fast path accepts only shapes the schema accepts,
and everything else goes to the schema, for the verdict and the message
(tests/test_runner_protocol.py checks the two agree).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from itertools import repeat, takewhile
from operator import add
from typing import TYPE_CHECKING, Any

from fairvec.jsonio import MAX_NESTING, compact_ascii, deeper_than, fast_loads, fast_loads_each

if TYPE_CHECKING:  # jsonschema is imported where used: it costs start-up time
    import jsonschema

PROTOCOL_VERSION = 1
SHOWN = 120  # characters of a bad line quoted in a message
# Counting brackets is nearly free; only a line with more of them than MAX_NESTING can be
# nested that deep, so only such a line is walked.


@dataclass(frozen=True)
class Hello:
    name: str
    version: str
    algorithms: dict[str, list[str]]


@dataclass(frozen=True)
class Response:
    """One stdout line, decoded. ``id`` is the id it names, if it names one (even a bad
    response is charged to the vector it names); ``problem`` says why it is not a valid
    response, or is None and ``message`` is the valid response."""

    id: str | None
    message: dict[str, Any]
    problem: str | None = None


def request_line(vector: dict[str, Any], algorithm: str) -> str:
    """ASCII-escaped JSON: every string a vector file can hold travels, lone surrogates
    included (they have no UTF-8 form, but they have a \\uXXXX one)."""
    request = {
        "id": vector["id"],
        "algorithm": algorithm,
        "variant": vector["variant"],
        "input": vector["input"],
    }
    return json.dumps(request, ensure_ascii=True, separators=(",", ":"))


def request_bytes(vector: dict[str, Any], algorithm: str) -> bytes:
    """request_line as bytes with its newline, faster (see compact_ascii)."""
    request = {
        "id": vector["id"],
        "algorithm": algorithm,
        "variant": vector["variant"],
        "input": vector["input"],
    }
    return compact_ascii(request) + b"\n"


@cache
def protocol_schema() -> dict[str, Any]:
    text = (
        resources.files("fairvec.runner").joinpath("schemas", "protocol.schema.json").read_text()
    )
    schema: dict[str, Any] = json.loads(text)
    return schema


@cache
def _validator(definition: str) -> jsonschema.protocols.Validator:
    import jsonschema

    schema = protocol_schema()
    wrapper = {"$defs": schema["$defs"], "$ref": f"#/$defs/{definition}"}
    return jsonschema.Draft202012Validator(wrapper)


def schema_problem(message: Any, definition: str) -> str | None:
    """Why ``message`` breaks the protocol schema's ``definition``, or None."""
    import jsonschema

    error = jsonschema.exceptions.best_match(_validator(definition).iter_errors(message))
    if error is None:
        return None
    at = "/".join(str(part) for part in error.absolute_path)
    return f"{at}: {error.message}" if at else error.message


def _decode(line: bytes) -> tuple[Any, str | None]:
    """The JSON value of a line, or the reason it has none."""
    try:
        value = fast_loads(line)
    except UnicodeDecodeError as error:
        return None, f"not UTF-8 (byte {error.start}): {_quote(line)}"
    except json.JSONDecodeError as error:
        return None, f"not JSON ({error.msg} at character {error.pos}): {_quote(line)}"
    except RecursionError:
        return None, f"nested too deeply to read: {_quote(line)}"
    if line.count(b"[") + line.count(b"{") > MAX_NESTING and deeper_than(
        value, MAX_NESTING
    ):
        return None, f"nested more than {MAX_NESTING} levels deep: {_quote(line)}"
    return value, None


def parse_hello(line: bytes) -> Hello:
    message, problem = _decode(line)
    if problem:
        raise ValueError(problem)
    if not isinstance(message, dict) or message.get("type") != "hello":
        raise ValueError(f'the first line must be {{"type": "hello", ...}}, got {_quote(line)}')
    problem = None if _plain_hello(message) else schema_problem(message, "hello")
    if problem:
        raise ValueError(f"{problem} (in {_quote(line)})")
    return Hello(message["name"], message["version"], message["algorithms"])


def _plain_hello(message: dict[str, Any]) -> bool:
    """The hellos adapters send, each valid under the schema, recognised without loading
    jsonschema (whose import would delay the first request by a tenth of a second)."""
    name, version, algorithms = (message.get(key) for key in ("name", "version", "algorithms"))
    return (
        type(message.get("protocol")) is int
        and message["protocol"] == PROTOCOL_VERSION
        and type(name) is str
        and type(version) is str
        and bool(name)
        and bool(version)
        and type(algorithms) is dict
        and all(
            type(variants) is list and all(type(variant) is str for variant in variants)
            for variants in algorithms.values()
        )
    )


def parse_response(line: bytes) -> Response:
    message, problem = _decode(line)
    if problem:
        return Response(None, {}, problem)
    if not isinstance(message, dict):
        return Response(None, {}, f"not a JSON object: {_quote(line)}")
    vector_id = message.get("id")
    named = vector_id if isinstance(vector_id, str) else None
    if _plainly_valid(message):
        return Response(named, message)
    problem = schema_problem(message, "response")
    if problem:
        return Response(named, message, f"not a valid response ({problem}): {_quote(line)}")
    return Response(named, message)


def plain_response(line: bytes) -> dict[str, Any] | None:
    """The message of a line that is plainly a valid response (see _plainly_valid), or
    None, for parse_response to say what else it is. The runner's per-line fast path."""
    if line.count(b"[") + line.count(b"{") > MAX_NESTING:
        return None  # perhaps nested too deep: parse_response decides
    try:
        message = fast_loads(line)
    except (ValueError, RecursionError):  # UnicodeDecodeError and JSONDecodeError included
        return None
    if type(message) is dict and _plainly_valid(message):
        return message
    return None


def plain_responses(lines: list[bytes]) -> list[dict[str, Any]]:
    """The messages of the longest run of ``lines``, from the first, that are each plainly
    a valid response (see plain_response), C doing most of the per-line work. The first
    line is read alone first: when it is not plain, the general path takes it and the caller
    asks again from the next line, so the rest must not have been parsed for nothing (a run
    of unsupported answers would otherwise be parsed over and over)."""
    first = plain_response(lines[0]) if lines else None
    if first is None:
        return []
    return [first, *_plain_prefix(lines[1:])]


def _plain_prefix(lines: list[bytes]) -> list[dict[str, Any]]:
    opened = map(add, map(bytes.count, lines, repeat(b"[")), map(bytes.count, lines, repeat(b"{")))
    shallow = list(takewhile(lambda count: count <= MAX_NESTING, opened))
    lines = lines[: len(shallow)]  # a deeper one is left to parse_response's nesting check
    messages = fast_loads_each(lines)
    if messages is None:  # one line is not JSON, or orjson cannot read it: one by one
        found = []
        for line in lines:
            message = plain_response(line)
            if message is None:
                break
            found.append(message)
        return found
    return list(takewhile(_is_plain, messages))


def _is_plain(message: Any) -> bool:
    return type(message) is dict and _plainly_valid(message)


def _plainly_valid(message: dict[str, Any]) -> bool:
    """The shapes adapters send almost always; each is valid under the schema."""
    if type(message.get("id")) is not str or len(message) != 2:
        return False
    if "output" in message:
        return True
    error = message.get("error")
    return (
        type(error) is dict
        and type(error.get("code")) is str
        and (len(error) == 1 or (len(error) == 2 and type(error.get("message")) is str))
    )


def _quote(line: bytes | str) -> str:
    text = line.decode("utf-8", errors="replace") if isinstance(line, bytes) else line
    return json.dumps(text if len(text) <= SHOWN else text[:SHOWN] + "...")


def quote(line: bytes | str) -> str:
    """A line as reports quote it: JSON-escaped, at most SHOWN characters."""
    return _quote(line)
