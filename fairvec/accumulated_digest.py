"""Accumulated vectors: the input stream, the record encoding and the running digest.

An accumulated vector (docs/accumulated.md) stands for N cases of one algorithm: case i's
input is the i-th draw of the spec's field generators from :class:`fairvec.input_draws.Stream`
seeded with the vector's seed; its answer is written as one *record* (the canonical JSON
of ``{"output": ...}`` or ``{"error": CODE}``, then a newline); the expected value is the
SHA-256 of all the records in order, with the running digest after every ``block`` cases
(the checkpoints) so a mismatch is located to its first differing block.

Shared by the generator (which feeds it the reference's answers) and the runner (which
feeds it the adapter's); it imports neither the reference nor the runner.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import partial
from typing import Any

from fairvec.input_draws import Stream, drawer

ENCODING = "fairvec-accumulated/1"  # the record encoding below; bump it if it ever changes
BLOCK = 10_000  # the full tier's cases between checkpoints
TIERS = {"default": 10_000, "full": 1_000_000}  # cases per tier
# The default tier's checkpoints: its stream in this many blocks (1,000 cases each), so that
# every run checks the running digest across blocks: a port whose checkpoint hashed only its
# own block's records agreed with a one-block stream (issue 33, gap 5).
DEFAULT_BLOCKS = 10
FULL_SUFFIX = "-full"  # the full tier's id is the default tier's name + this

# Past 2^53 a JSON number is no longer an exact double; ECMAScript (and so every
# JavaScript port) writes such an integer as the nearest double, and so do we.
_SAFE_INTEGER = 2**53 - 1
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def default_block(count: int) -> int:
    """The default tier's cases between checkpoints: a tenth of the stream (1,000 of the
    10,000 cases; 5 of a 50-case stream), rounded up, so it has DEFAULT_BLOCKS blocks (fewer
    when it has fewer than 10 cases). The full tier's block stays BLOCK, the whole default
    tier, so its first checkpoint is the default tier's digest."""
    return max(1, -(-count // DEFAULT_BLOCKS))


def cases(seed: str, generators: Mapping[str, Mapping[str, Any]]) -> Iterator[dict[str, Any]]:
    """Every case's input, in order, without end: the generated sets' own stream."""
    stream, draw = Stream(seed), drawer(generators)
    while True:
        yield draw(stream)


def record(answer: Mapping[str, Any]) -> bytes:
    """One case's record: ``{"output": ...}`` or ``{"error": CODE}`` as canonical JSON
    (RFC 8785: keys sorted by UTF-16 code units, no spaces, numbers as ECMAScript writes
    them), UTF-8, then a newline. Canonical JSON holds no raw newline, so records need no
    length prefix, and two answers JSON calls equal (1 and 1.0) give the same record.
    ``answer`` is a JSON value: dicts, lists, str, int, float, bool, None (the fast path
    would write a tuple or a UUID, which no parsed answer holds, where canonical refuses)."""
    fast = _fast_record(answer)
    return fast if fast is not None else canonical_record(answer)


def canonical_record(answer: Mapping[str, Any]) -> bytes:
    """record(), written by canonical() alone: the definition the fast path must match."""
    text = canonical(answer)
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:  # a lone surrogate: written as JSON.stringify does
        escaped = _LONE_SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)
        return escaped.encode("utf-8") + b"\n"


# -- the fast path: orjson, where its text is provably the canonical one -------------------
#
# orjson with sorted keys writes RFC 8785's text, at C speed, except in these cases, where
# record() falls back to canonical() below (tests/test_accumulated.py checks each):
# - it refuses (TypeError): a lone surrogate, an integer beyond 2^53 - 1 (OPT_STRICT_INTEGER:
#   ECMAScript writes those as doubles), a non-str key, deep nesting, any other type
#   (subclasses, dataclasses and dates are passed to ``default``, which refuses them too);
# - an astral character (a 4-byte UTF-8 sequence): orjson sorts keys by code point, RFC 8785
#   by UTF-16 unit, and the two orders differ only between an astral character and one from
#   U+E000 to U+FFFF;
# - a number as ECMAScript does not write it: an exponent (orjson writes 1e+16 and 1e-6,
#   ECMAScript 10000000000000000 and 0.000001), an integral double (2.0 for 2, -0.0 for 0);
# - null, which orjson also writes for NaN and the infinities (canonical() refuses them).
# Strings it escapes exactly as JSON.stringify does (" \ and \b \t \n \f \r, the other
# controls as \u00xx), and between 1e-5 and 1e16 it writes a non-integral double with
# the same shortest digits as ECMAScript. The checks below decide on its text with the
# strings blanked out, so a string that looks like a number changes nothing.

_orjson_record: Callable[[Any], bytes] | None = None
_orjson_tried = False  # whether _load_orjson_record ran: _orjson_record is then final
# orjson 3.x signs every exponent (1e+16, 1e-7), so that an exponent shows in the whole
# text as e+ or e-, which no hex digits form: the strings need blanking out only where
# e+, e-, ".0" then the end of a value, or null turns up (mostly inside a string).
_SIGNED_EXPONENTS = False


def _refuse(value: Any) -> Any:
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def _load_orjson_record() -> None:
    """orjson's writer, imported on the first record (a run without accumulated vectors
    never imports orjson for them: 16 ms of start-up, see fairvec/jsonio.py)."""
    global _orjson_record, _orjson_tried, _SIGNED_EXPONENTS
    _orjson_tried = True
    if os.environ.get("FAIRVEC_NO_ORJSON"):  # measure or test the pure-Python path
        return
    try:
        import orjson
    except ImportError:  # pragma: no cover - the `fast` extra is not installed
        return
    _orjson_record = partial(
        orjson.dumps,
        default=_refuse,
        option=orjson.OPT_SORT_KEYS
        | orjson.OPT_STRICT_INTEGER
        | orjson.OPT_PASSTHROUGH_SUBCLASS
        | orjson.OPT_PASSTHROUGH_DATACLASS
        | orjson.OPT_PASSTHROUGH_DATETIME,
    )
    _SIGNED_EXPONENTS = _orjson_record([1e16, 1e-7]) == b"[1e+16,1e-7]"


_ASTRAL = re.compile(rb"[\xf0-\xf4]")  # the first byte of a 4-byte UTF-8 sequence
# Outside the strings, 1-9 read as 1, E as e and a value's end (, ] }) as a comma, so that
# a few substring searches find an integral double (".0,"), an exponent ("0e", "1e": true
# and false have no digit before their e) and null. (A regular expression took longer
# than orjson itself; each search takes about 1.5 ns a byte.)
_SHAPES = bytes.maketrans(b"23456789E]}", b"11111111e,,")
_SUSPECTS = bytes.maketrans(b"-]}", b"+,,")


def _fast_record(answer: Any) -> bytes | None:
    """The record as orjson writes it, or None where that text might not be canonical."""
    if not _orjson_tried:
        _load_orjson_record()
    if _orjson_record is None:
        return None
    try:
        text = _orjson_record(answer)
    except TypeError:
        return None
    if not text.isascii() and _ASTRAL.search(text):
        return None
    if _suspect(text) and not _plain(_outside_strings(text)):
        return None
    return text + b"\n"


def _suspect(text: bytes) -> bool:
    """Whether the text may hold a number ECMAScript writes otherwise, or null."""
    if not _SIGNED_EXPONENTS:
        return True
    folded = text.translate(_SUSPECTS) + b","
    return b"e+" in folded or b".0," in folded or b"null" in folded


def _plain(outside: bytes) -> bool:
    """Whether the text outside the strings holds only numbers ECMAScript writes alike,
    and no null."""
    shapes = outside.translate(_SHAPES) + b","
    return not (b".0," in shapes or b"0e" in shapes or b"1e" in shapes or b"null" in shapes)


def _outside_strings(text: bytes) -> bytes:
    """The JSON text with every string's contents removed. An escape is a backslash and
    the next character; dropping the escaped backslashes first, then the escaped quotes,
    leaves only the quotes that open and close strings, and splitting on them puts the
    text outside strings at the even places."""
    if b"\\" in text:
        text = text.replace(b"\\\\", b"").replace(b'\\"', b"")
    return b"".join(text.split(b'"')[::2])


def canonical(value: Any) -> str:
    parts: list[str] = []
    _write(value, parts)
    return "".join(parts)


def _write(value: Any, parts: list[str]) -> None:
    if isinstance(value, str):
        parts.append(_string(value))
    elif value is True or value is False or value is None:
        parts.append(json.dumps(value))
    elif isinstance(value, int):
        parts.append(str(value) if -_SAFE_INTEGER <= value <= _SAFE_INTEGER else number(value))
    elif isinstance(value, float):
        parts.append(number(value))
    elif isinstance(value, list):
        _write_list(value, parts)
    elif isinstance(value, dict):
        _write_object(value, parts)
    else:
        raise TypeError(f"not a JSON value: {type(value).__name__}")


_PLAIN = {str, int, bool, type(None)}  # what json.dumps writes as RFC 8785 does (ints: safe)


# Built once: json.dumps with options builds a new encoder on every call.
_LIST_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_OBJECT_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _compact(value: Any, *, sort_keys: bool = False) -> str:
    return (_OBJECT_ENCODER if sort_keys else _LIST_ENCODER).encode(value)


def _write_list(items: list[Any], parts: list[str]) -> None:
    kinds = set(map(type, items))
    if kinds <= _PLAIN and _safe_integers(items, kinds):
        parts.append(_compact(items))  # the common lists: C speed
        return
    if kinds == {float}:
        text = _compact(items)
        if _plain_doubles(text):
            parts.append(text)
            return
    parts.append("[")
    for index, item in enumerate(items):
        if index:
            parts.append(",")
        _write(item, parts)
    parts.append("]")


def _write_object(members: dict[str, Any], parts: list[str]) -> None:
    values = members.values()
    kinds = set(map(type, values))
    if kinds <= _PLAIN and _safe_integers(values, kinds) and all(map(str.isascii, members)):
        # ASCII keys sort the same by code point (json.dumps) and by UTF-16 unit (RFC 8785)
        parts.append(_compact(members, sort_keys=True))
        return
    parts.append("{")
    for index, key in enumerate(sorted(members, key=_utf16)):
        if index:
            parts.append(",")
        parts.append(_string(key))
        parts.append(":")
        _write(members[key], parts)
    parts.append("}")


def _safe_integers(values: Iterable[Any], kinds: set[type]) -> bool:
    return int not in kinds or all(
        -_SAFE_INTEGER <= value <= _SAFE_INTEGER for value in values if type(value) is int
    )


def _plain_doubles(text: str) -> bool:
    """Whether json.dumps wrote a list of doubles as ECMAScript would: no exponent, no
    NaN or Infinity, and no integral double (Python writes 2.0, ECMAScript 2)."""
    return not ("e" in text or "N" in text or "I" in text or ".0," in text or ".0]" in text)


def _utf16(key: str) -> bytes:
    """RFC 8785 sorts keys by their UTF-16 code units (not by code points)."""
    return key.encode("utf-16-be", "surrogatepass")


def _string(text: str) -> str:
    # json.dumps escapes exactly what RFC 8785 escapes: " \ and the controls below U+0020
    # (\b \t \n \f \r, the rest as \u00xx in lower case); everything else is written as is.
    return _LIST_ENCODER.encode(text)


def number(value: float | int) -> str:
    """A number as ECMAScript's Number.prototype.toString writes it (RFC 8785 §3.2.2.3):
    the shortest digits that read back as the same double, as plain digits from 1e-6 to
    below 1e21, otherwise as d.ddde±n."""
    double = float(value)
    if double != double or double in (float("inf"), float("-inf")):
        raise ValueError("NaN and infinities are not JSON numbers")
    if double == 0:
        return "0"  # -0 too, as JSON.stringify writes it
    text = repr(double)
    if "e" not in text:  # from 1e-4 to below 1e16 Python writes what ECMAScript writes
        return text[:-2] if text.endswith(".0") else text  # but for 2.0 (ECMAScript: 2)
    sign = "-" if double < 0 else ""
    digits, exponent = _shortest(abs(double))
    return sign + _layout(digits, exponent)


def _shortest(double: float) -> tuple[str, int]:
    """(d, n) with double = 0.d * 10^n, d the shortest round-trip digits (Python's repr
    gives the same digits as ECMAScript: both are the shortest that read back exactly)."""
    mantissa, _, exponent_text = repr(double).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    point = len(whole) + int(exponent_text or 0)
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    return stripped.rstrip("0"), point


def _layout(digits: str, n: int) -> str:
    k = len(digits)
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + digits
    exponent = n - 1
    mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{mantissa}e{'+' if exponent > 0 else '-'}{abs(exponent)}"


class Accumulator:
    """The running SHA-256 over the records, with the digest after every ``block`` cases."""

    def __init__(self, block: int = BLOCK) -> None:
        self.block = block
        self.count = 0
        self.checkpoints: list[str] = []
        self._hash = hashlib.sha256()

    def add(self, answer: Mapping[str, Any], encoded: bytes | None = None) -> None:
        """``encoded``: record(answer), where the caller has it already."""
        self._hash.update(record(answer) if encoded is None else encoded)
        self.count += 1
        if self.count % self.block == 0:
            self.checkpoints.append(self._hash.hexdigest())

    @property
    def digest(self) -> str:
        return self._hash.hexdigest()


def first_differing_block(expected: list[str], got: list[str]) -> int | None:
    """The 1-based number of the first block whose checkpoint differs, or None."""
    for number_, (want, have) in enumerate(zip(expected, got, strict=False), start=1):
        if want != have:
            return number_
    return None


def definition(seed: str, generators: Mapping[str, Any], variant: str | None) -> str:
    """What a stream's digests depend on besides the algorithm's outputs: a full-tier
    file computed for another definition is stale."""
    text = json.dumps(
        [ENCODING, BLOCK, seed, generators, variant], sort_keys=True, ensure_ascii=False
    )
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
