"""The adapter protocol's messages (docs/adapter-protocol.md, schemas/protocol.schema.json)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

PROTOCOL_VERSION = 1
SHOWN = 120  # characters of a bad line quoted in a message


@dataclass(frozen=True)
class Hello:
    name: str
    version: str
    algorithms: dict[str, list[str]]


def request_line(vector: dict[str, Any], algorithm: str) -> str:
    request = {
        "id": vector["id"],
        "algorithm": algorithm,
        "variant": vector["variant"],
        "input": vector["input"],
    }
    return json.dumps(request, ensure_ascii=False, separators=(",", ":"))


def _json_object(line: str) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except json.JSONDecodeError:
        raise ValueError(f"not JSON: {_quote(line)}") from None
    if not isinstance(value, dict):
        raise ValueError(f"not a JSON object: {_quote(line)}")
    return value


def parse_hello(line: str) -> Hello:
    message = _json_object(line)
    if message.get("type") != "hello":
        raise ValueError(f'the first line must be {{"type": "hello", ...}}, got {_quote(line)}')
    if message.get("protocol") != PROTOCOL_VERSION:
        raise ValueError(f"protocol {message.get('protocol')!r} is not {PROTOCOL_VERSION}")
    algorithms = message.get("algorithms")
    if not isinstance(algorithms, dict) or not all(
        isinstance(variants, list) and all(isinstance(v, str) for v in variants)
        for variants in algorithms.values()
    ):
        raise ValueError('"algorithms" must map each algorithm id to a list of variant names')
    name, version = message.get("name"), message.get("version")
    if not isinstance(name, str) or not isinstance(version, str):
        raise ValueError('"name" and "version" must be strings')
    return Hello(name, version, algorithms)


def parse_response(line: str) -> dict[str, Any]:
    """A response object with a string id and exactly one of output, error, unsupported."""
    message = _json_object(line)
    if not isinstance(message.get("id"), str):
        raise ValueError(f'a response needs a string "id": {_quote(line)}')
    kinds = [key for key in ("output", "error", "unsupported") if key in message]
    if len(kinds) != 1:
        raise ValueError(
            f"a response carries exactly one of output, error, unsupported: {_quote(line)}"
        )
    error = message.get("error")
    if "error" in message and not (isinstance(error, dict) and isinstance(error.get("code"), str)):
        raise ValueError(f'"error" must be an object with a string "code": {_quote(line)}')
    return message


def _quote(line: str) -> str:
    return json.dumps(line if len(line) <= SHOWN else line[:SHOWN] + "...")
