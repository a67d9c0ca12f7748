"""The adapter protocol's messages (docs/adapter-protocol.md).

One source of truth: schemas/protocol.schema.json decides what a hello or a response is.
The common, plainly valid response shapes are recognised without calling jsonschema (that
costs tens of microseconds a line); the fast path accepts only shapes the schema accepts,
and everything else goes to the schema, for the verdict and the message
(tests/test_runner_protocol.py checks the two agree).
"""

from __future__ import annotations

import json
import math
import re
import sys
from functools import cache
from itertools import repeat, takewhile
from operator import add
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from fairvec.jsonio import (
    FINITE_JSON,
    MAX_NESTING,
    compact_ascii,
    deeper_than,
    fast_loads_each,
    orjson_ready,
)

if TYPE_CHECKING:  # jsonschema is imported where used, data_model never: start-up time
    import jsonschema

    from fairvec.data_model import Request

PROTOCOL_VERSION = 1
SHOWN = 120  # characters of a bad line quoted in a message
SHOWN_PROBLEM = 300  # characters of a schema message kept (jsonschema quotes the whole value)
# What a hello may name (protocol.schema.json says the same: maxProperties, maxItems). The
# suite has 77 algorithms and at most 4 variants of one; the bound keeps a hello's cost,
# and the warnings and attestation it leads to, small (a hello naming 100,000 algorithms
# made a run of 108 vectors take 200 s).
MAX_HELLO_ALGORITHMS = 1000
MAX_HELLO_VARIANTS = 100
# Counting brackets is nearly free; only a line with more of them than MAX_NESTING can be
# nested that deep, so only such a line is walked.


# How requests carry a string holding a lone surrogate (docs/adapter-protocol.md, "Lone
# surrogates"): as a JSON escape (the default), or marked (MARK, then the string's UTF-16
# code units as four hex digits each), for JSON libraries that cannot decode the escape.
SURROGATE_ENCODINGS = ("escaped", "marked")
MARK = "\uffff"


class Hello(NamedTuple):  # (not a dataclass: see runner/results.py)
    name: str
    version: str
    algorithms: dict[str, list[str]]
    # optional claims (runner/claims.py): algorithm id or "*" -> field -> pinned value,
    # and algorithm id -> the output fields the adapter computes ({} for none)
    pins: dict[str, dict[str, Any]]
    outputs: dict[str, list[str]]
    lone_surrogates: str = "escaped"  # one of SURROGATE_ENCODINGS
    accumulate: bool = False  # computes accumulated vectors itself (accumulated_by_port.py)


class Response(NamedTuple):
    """One stdout line, decoded. ``id`` is the id it names, if it names one (even a bad
    response is charged to the vector it names); ``problem`` says why it is not a valid
    response, or is None and ``message`` is the valid response."""

    id: str | None
    message: dict[str, Any]
    problem: str | None = None


def request_line(vector: Request, algorithm: str) -> str:
    """ASCII-escaped JSON: every string a vector file can hold travels, lone surrogates
    included (they have no UTF-8 form, but they have a \\uXXXX one)."""
    request = {
        "id": vector["id"],
        "algorithm": algorithm,
        "variant": vector["variant"],
        "input": vector["input"],
    }
    return json.dumps(request, ensure_ascii=True, separators=(",", ":"))


def request_bytes(vector: Request, algorithm: str) -> bytes:
    """request_line as bytes with its newline, faster (see compact_ascii)."""
    request = {
        "id": vector["id"],
        "algorithm": algorithm,
        "variant": vector["variant"],
        "input": vector["input"],
    }
    return compact_ascii(request) + b"\n"


def marked_request_bytes(vector: Request, algorithm: str) -> bytes:
    """request_bytes for an adapter whose hello asks for ``"lone_surrogates": "marked"``:
    every string of the input (keys included) that holds a lone surrogate or U+0000 (which
    a C string cannot hold), or begins with MARK, travels as MARK followed by its UTF-16
    code units, four lowercase hex digits each. Exact both ways: a string beginning with
    MARK is always marked, so a marked string is never mistaken for one that was not."""
    line = request_bytes(vector, algorithm)
    if not _may_need_marks(line):
        return line  # nothing to mark (the usual case)
    marked: Request = {**vector, "input": _marked(vector["input"])}
    return request_bytes(marked, algorithm)


# The escapes of a UTF-16 surrogate pair (a character beyond the BMP: an emoji in a seed),
# and of any surrogate: one left once the pairs are taken out is lone. Over the suite,
# 5,135 requests hold a pair and nothing to mark.
_SURROGATE_PAIR = re.compile(rb"\\ud[89ab][0-9a-f]{2}\\ud[c-f][0-9a-f]{2}")
_SURROGATE = re.compile(rb"\\ud[89a-f]")


def _may_need_marks(line: bytes) -> bool:
    """Whether a request line (ASCII JSON) may hold a string to mark: one with a lone
    surrogate, U+0000 or U+FFFF. Never wrong one way: where it cannot tell, the exact path
    (_marked) decides. The patterns read every backslash as the start of an escape, which
    holds unless the line has an escaped backslash ("\\\\ud83d" is text, not a surrogate)."""
    if b"\\u0000" in line or b"\\uffff" in line:
        return True
    if _SURROGATE.search(line) is None:
        return False
    if b"\\\\" in line:
        return True
    return _SURROGATE.search(_SURROGATE_PAIR.sub(b"", line)) is not None


def _marked(value: Any) -> Any:
    if isinstance(value, str):
        return _marked_text(value)
    if isinstance(value, list):
        return [_marked(item) for item in value]
    if isinstance(value, dict):
        return {_marked_text(key): _marked(item) for key, item in value.items()}
    return value


def _marked_text(text: str) -> str:
    if "\x00" not in text and not text.startswith(MARK):
        if text.isascii():
            return text
        try:
            text.encode("utf-8")
            return text  # no lone surrogate
        except UnicodeEncodeError:
            pass
    return MARK + text.encode("utf-16-be", "surrogatepass").hex()


@cache
def protocol_schema() -> dict[str, Any]:
    # beside this module (not through importlib.resources: 1.3 ms of every run's imports)
    text = (Path(__file__).parent / "schemas" / "protocol.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@cache
def _validator(definition: str) -> jsonschema.protocols.Validator:
    import jsonschema  # start-up: 35 ms of `fairvec run`; only a suspect message needs it

    schema = protocol_schema()
    wrapper = {"$defs": schema["$defs"], "$ref": f"#/$defs/{definition}"}
    return jsonschema.Draft202012Validator(wrapper)


def schema_problem(message: Any, definition: str) -> str | None:
    """Why ``message`` breaks the protocol schema's ``definition``, or None."""
    import jsonschema  # start-up: see _validator

    error = jsonschema.exceptions.best_match(_validator(definition).iter_errors(message))
    if error is None:
        return None
    at = "/".join(str(part) for part in error.absolute_path)
    said = error.message  # may quote the whole value (an output of megabytes): cut
    if len(said) > SHOWN_PROBLEM:
        said = said[:SHOWN_PROBLEM] + "..."
    return f"{at}: {said}" if at else said


def _decode(line: bytes) -> tuple[Any, str | None]:
    """The JSON value of a line, or the reason it is not strict JSON. With a reason, the
    value is what json read anyway where its id can still be trusted (so the line is
    charged to the vector it names), else None."""
    try:
        value, problem = _read(line)
    except UnicodeDecodeError as error:
        return None, f"not UTF-8 (byte {error.start}): {_quote(line)}"
    except json.JSONDecodeError as error:
        return None, f"not JSON ({error.msg} at character {error.pos}): {_quote(line)}"
    except RecursionError:
        return None, f"nested too deeply to read: {_quote(line)}"
    if problem is not None:
        return value, f"{problem}: {_quote(line)}"
    if line.count(b"[") + line.count(b"{") > MAX_NESTING and deeper_than(value, MAX_NESTING):
        return None, f"nested more than {MAX_NESTING} levels deep: {_quote(line)}"
    return value, None


# -- strict JSON ---------------------------------------------------------------------------
# Python's json reads NaN, Infinity and -Infinity, reads 1e400 as infinity, refuses an
# integer of more than 4,300 digits with a bare ValueError, and keeps the last of duplicate
# keys; orjson refuses the first four but keeps the last duplicate too. None of that may
# pass: a report holding NaN is not JSON, and a duplicate key hides one of two answers.
# The fast path stays fast: a parsed value written back out holds one ":" per key it kept,
# plus the ":" inside its strings; the line holds one per key it had, plus the same ":"
# (some perhaps escaped as \u003a, which b"u003" over-counts). Equal counts mean no key
# was dropped; any doubt goes to the exact, slower reading (_read_exactly).


def _read(line: bytes) -> tuple[Any, str | None]:
    """The value of a line and, when it is not strict JSON, why; raises what json.loads
    raises for a line that is no JSON at all."""
    # orjson's, which refuses NaN and the infinities; not imported for this line alone (a
    # hello: a rerun whose answers are remembered may need orjson for nothing else)
    parsed = fast_loads_each([line]) if orjson_ready() else None
    if parsed is not None and _no_key_dropped(compact_ascii(parsed[0]).count(b":"), line):
        return parsed[0], None
    try:
        value = json.loads(line)
        written = FINITE_JSON.encode(value)  # ValueError for NaN and the infinities
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise
    except ValueError:  # too many digits, or not finite: the exact reading says which
        return _read_exactly(line)
    if _no_key_dropped(written.count(":"), line):
        return value, None
    return _read_exactly(line)


def _no_key_dropped(written_colons: int, line: bytes) -> bool:
    """Whether a value written with ``written_colons`` ":" surely kept every key of
    ``line`` (see above)."""
    escaped = line.count(b"u003") if b"\\" in line else 0  # (no backslash: none; memchr)
    return written_colons == line.count(b":") + escaped


def keys_kept(messages: list[Any], lines: list[bytes]) -> bool:
    """Whether ``messages``, orjson's reading of ``lines``, surely kept every key: one
    check for a whole batch (each line's count can only fall short, never exceed)."""
    joined = b"\n".join(lines)
    return _no_key_dropped(compact_ascii(messages).count(b":"), joined)


# (the words fairvec/accumulated_digest.py uses when it meets one in an accumulated case's answer)
NOT_A_NUMBER = "the answer is not JSON: NaN and infinities are not JSON numbers"


class _Exact:
    """json.loads' hooks, noting the first way the text is not strict JSON and reading on
    (so that the line's id is still known)."""

    def __init__(self) -> None:
        self.problem: str | None = None
        self.id_doubled = False

    def note(self, problem: str) -> None:
        if self.problem is None:
            self.problem = problem

    def constant(self, name: str) -> None:
        self.note(f"{NOT_A_NUMBER} (it holds {name}; send null, or the value as a string)")

    def number(self, text: str) -> float:
        value = float(text)
        if math.isinf(value):
            self.note(
                f"{NOT_A_NUMBER} (it holds {text[:40]}, beyond a double: it reads as "
                "infinity; send it as a string)"
            )
        return value

    def integer(self, text: str) -> int | None:
        try:
            return int(text)
        except ValueError:  # beyond sys.get_int_max_str_digits()
            self.note(
                f"an integer of {len(text.lstrip('-')):,} digits, more than the "
                f"{sys.get_int_max_str_digits():,} the runner reads (send it as a string)"
            )
            return None

    def pairs(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        value = dict(pairs)
        if len(value) < len(pairs):
            twice = _first_repeated([key for key, _ in pairs])
            self.id_doubled = self.id_doubled or twice == "id"
            self.note(f"duplicate key {twice!r} in one object (send each key once)")
        return value


def _first_repeated(keys: list[str]) -> str:
    seen: set[str] = set()
    for key in keys:
        if key in seen:
            return key
        seen.add(key)
    return ""


def _read_exactly(line: bytes) -> tuple[Any, str | None]:
    """The slow reading: every number, constant and object seen by a hook."""
    exact = _Exact()
    value = json.loads(
        line,
        object_pairs_hook=exact.pairs,
        parse_constant=exact.constant,
        parse_float=exact.number,
        parse_int=exact.integer,
    )
    if exact.id_doubled:
        return None, exact.problem  # which of the two ids is the answer's? neither is sure
    return value, exact.problem


def parse_hello(line: bytes) -> Hello:
    message, problem = _decode(line)
    if problem:
        raise ValueError(problem)
    if not isinstance(message, dict) or message.get("type") != "hello":
        raise ValueError(f'the first line must be {{"type": "hello", ...}}, got {_quote(line)}')
    _check_hello_size(message.get("algorithms"))
    problem = None if _plain_hello(message) else schema_problem(message, "hello")
    if problem:
        raise ValueError(f"{problem} (in {_quote(line)})")
    _check_claims_declared(message)
    return Hello(
        message["name"],
        message["version"],
        message["algorithms"],
        pins=message.get("pins", {}),
        outputs=message.get("outputs", {}),
        lone_surrogates=message.get("lone_surrogates", "escaped"),
        accumulate=message.get("accumulate", False),
    )


def _check_claims_declared(message: dict[str, Any]) -> None:
    """A pin or an output claim for an algorithm the hello does not declare is a slip."""
    declared = message["algorithms"]
    for key in ("pins", "outputs"):
        for algorithm in message.get(key, {}):
            if key == "pins" and "@" in algorithm:
                _check_variant_pin_declared(algorithm, declared)
            elif algorithm not in declared and not (key == "pins" and algorithm == "*"):
                also = " (or pin it for every algorithm with *)" if key == "pins" else ""
                raise ValueError(
                    f"{key}/{algorithm[:80]}: not among the hello's algorithms: declare it "
                    f"in 'algorithms' too{also}"
                )


def _check_variant_pin_declared(scope: str, declared: dict[str, list[str]]) -> None:
    """A pin of one variant (``ALGORITHM@VARIANT``, runner/claims.py) names a variant the
    hello declares for that algorithm."""
    algorithm, _, variant = scope.partition("@")
    if variant not in declared.get(algorithm, []):
        raise ValueError(
            f"pins/{scope[:80]}: the hello does not declare the variant {variant[:40]!r} of "
            f"{algorithm[:80]}: list it under 'algorithms' too"
        )


def _check_hello_size(algorithms: Any) -> None:
    """Refuse a hello naming more than the protocol allows, before anything walks it (the
    schema says the same, but its message would quote the whole object)."""
    if not isinstance(algorithms, dict):
        return
    if len(algorithms) > MAX_HELLO_ALGORITHMS:
        raise ValueError(
            f"algorithms: {len(algorithms):,} named, more than the {MAX_HELLO_ALGORITHMS:,} a "
            "hello may name: name only the algorithms you implement"
        )
    for algorithm, variants in algorithms.items():
        if isinstance(variants, list) and len(variants) > MAX_HELLO_VARIANTS:
            raise ValueError(
                f"algorithms/{algorithm[:80]}: {len(variants):,} variants listed, more than "
                f"the {MAX_HELLO_VARIANTS} a hello may list for one algorithm"
            )


def _plain_hello(message: dict[str, Any]) -> bool:
    """The hellos adapters send, each valid under the schema, recognised without loading
    jsonschema (whose import would delay the first request by a tenth of a second)."""
    name, version, algorithms = (message.get(key) for key in ("name", "version", "algorithms"))
    if any(key in message for key in ("pins", "outputs")):
        return False  # the claims' shapes: the schema checks them
    return (
        message.get("lone_surrogates", "escaped") in ("escaped", "marked")
        and type(message.get("accumulate", False)) is bool
        and type(message.get("protocol")) is int
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
        return Response(_named(message), {}, problem)
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


def parse_accumulate_answer(line: bytes) -> Response:
    """A line answering an accumulate request (a progress line, or the answer), judged by
    the ``accumulateAnswer`` definition; as parse_response otherwise."""
    message, problem = _decode(line)
    if problem:
        return Response(_named(message), {}, problem)
    if not isinstance(message, dict):
        return Response(None, {}, f"not a JSON object: {_quote(line)}")
    problem = schema_problem(message, "accumulateAnswer")
    if problem:
        return Response(_named(message), message, f"{problem}: {_quote(line)}")
    return Response(message["id"], message)


def _named(message: Any) -> str | None:
    """The id a line names, if it names one readably."""
    vector_id = message.get("id") if isinstance(message, dict) else None
    return vector_id if isinstance(vector_id, str) else None


def plain_response(line: bytes) -> dict[str, Any] | None:
    """The message of a line that is plainly a valid response (see _plainly_valid), or
    None, for parse_response to say what else it is. The runner's per-line fast path."""
    try:
        message, problem = _read(line)
    except (ValueError, RecursionError):  # UnicodeDecodeError and JSONDecodeError included
        return None
    if (
        problem is None
        and type(message) is dict
        and _plainly_valid(message)
        and not _too_deep(message, _opened(line))
    ):
        return message
    return None


def _opened(line: bytes) -> int:
    """How many arrays and objects a line opens: the most it can nest."""
    return line.count(b"[") + line.count(b"{")


def _too_deep(message: Any, opened: int) -> bool:
    """Whether a message nests more than MAX_NESTING deep (parse_response then says so).
    A line opening no more than that cannot (most lines: settled by counting, in C); a
    tenhou answer opens hundreds of arrays side by side, and is measured."""
    return opened > MAX_NESTING and deeper_than(message, MAX_NESTING)


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
    messages = fast_loads_each(lines)
    if messages is not None:  # a deeper one is left to parse_response's nesting check
        shallow = _shallow_prefix(messages, lines)
        lines, messages = lines[:shallow], messages[:shallow]
    if messages is None or not keys_kept(messages, lines):  # one by one: which line is it?
        found = []
        for line in lines:
            message = plain_response(line)
            if message is None:
                break
            found.append(message)
        return found
    return list(takewhile(_is_plain, messages))


def _shallow_prefix(messages: list[Any], lines: list[bytes]) -> int:
    """How many of the first messages nest no more than MAX_NESTING deep."""
    # _opened for each line, the counting mapped in C
    brackets, braces = map(bytes.count, lines, repeat(b"[")), map(bytes.count, lines, repeat(b"{"))
    opened = list(map(add, brackets, braces))
    if not opened or max(opened) <= MAX_NESTING:  # the usual batch, settled in C
        return len(messages)
    for index, (message, count) in enumerate(zip(messages, opened, strict=True)):
        if _too_deep(message, count):
            return index
    return len(messages)


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
