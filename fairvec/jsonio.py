"""Canonical JSON text, digests and atomic file writes shared by generator and runner."""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, NoReturn

from fairvec.errors import FairvecError
from fairvec.regular_files import VECTOR_FILE_LIMIT, read_regular, replace_with

# orjson (the ``fast`` extra) parses about twice as fast as the json module. It is an
# accelerator, never the judge: it refuses some JSON that json reads (a lone surrogate
# escape, NaN, a number beyond a double) and it reads an integer beyond 64 bits as a float,
# so a caller falls back to json whenever orjson refuses, and where a long integer may be
# present (see fast_loads) never asks orjson at all.
_orjson_loads: Callable[[bytes], Any] | None = None
_orjson_sorted: Callable[[Any], bytes] | None = None
_orjson_dumps: Callable[[Any], bytes] | None = None
_orjson_tried = False  # whether _load_orjson ran: the three above are then final


def _load_orjson() -> None:
    """Import orjson, on first use: it imports dataclasses, inspect, uuid, datetime and
    more (16 ms), which a rerun whose answers are all remembered never needs (see
    trusted_loads)."""
    global _orjson_loads, _orjson_sorted, _orjson_dumps, _orjson_tried
    _orjson_tried = True
    if os.environ.get("FAIRVEC_NO_ORJSON"):  # measure or test the pure-Python path
        return
    try:
        import orjson
    except ImportError:  # pragma: no cover - the pure-Python path is tested by FAIRVEC_NO_ORJSON
        return
    _orjson_loads, _orjson_dumps = orjson.loads, orjson.dumps
    _orjson_sorted = partial(orjson.dumps, option=orjson.OPT_SORT_KEYS)


def orjson_ready() -> bool:
    """Whether orjson is imported and in use: for a caller with one short text, which json
    reads as fast as importing orjson would cost (see _load_orjson)."""
    return _orjson_loads is not None


# 19 digits in a row may be an integer beyond 64 bits (orjson would make it a float).
# Found by mapping every digit to "0", "." to itself and everything else to " " (C speed,
# several times faster than a regular expression over digit-heavy text such as hex seeds).
# A run after a "." is a fraction, a float to both parsers: it is not counted, as doubles
# below 0.01 have one (0.0014491399184793983), in 8 of 100 casino.mines answers.
_DIGITS_ONLY = bytes(
    48 if 48 <= byte <= 57 else byte if byte == 46 else 32 for byte in range(256)
)
_NINETEEN_DIGITS = b" " + b"0" * 19


def _long_digits(text: bytes) -> bool:
    """Whether ``text`` holds a run of 19 or more digits not right after a "."."""
    starts = text[:19]  # a run at the very start has nothing before it to map to " "
    return (len(starts) == 19 and starts.isdigit()) or _NINETEEN_DIGITS in text.translate(
        _DIGITS_ONLY
    )


# Deeper than any real vector, spec or adapter message (they nest under ten levels), and far
# enough below Python's recursion limit that comparing, validating and printing a value
# this deep never raises RecursionError.
MAX_NESTING = 64


def canonical(value: Any) -> str:
    """Sorted keys, no spaces, UTF-8 text: the form digests are taken over."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest(value: Any) -> str:
    # surrogatepass: a vector may hold a lone surrogate (an input ports must reject)
    return "sha256:" + hashlib.sha256(canonical(value).encode("utf-8", "surrogatepass")).hexdigest()


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path`` and rename it into place,
    so a reader never sees half a file, even if we are killed mid-write."""
    replace_with(path, text.encode("utf-8"))


def compact_ascii(value: Any) -> bytes:
    """Compact JSON in ASCII (every other character a \\uXXXX escape). orjson writes it
    about ten times faster where its text is ASCII; it may write a float another way than
    json (1e16 for 1e+16: the same number). json writes what orjson cannot or would write
    in UTF-8: non-ASCII text, a lone surrogate, an integer beyond 64 bits."""
    if not _orjson_tried:
        _load_orjson()
    if _orjson_dumps is not None:
        try:
            text = _orjson_dumps(value)
        except TypeError:
            pass
        else:
            if text.isascii():
                return text
    return _ASCII_ENCODER.encode(value).encode("ascii")


# Built once: json.dumps with options builds a new encoder on every call (a third of the
# cost of a short request with a non-ASCII seed).
_ASCII_ENCODER = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"))


def fast_loads(line: bytes) -> Any:
    """One short text (an adapter's line), parsed as json.loads would, faster where orjson
    is installed; raises what json.loads raises."""
    if not _orjson_tried:
        _load_orjson()
    if _orjson_loads is not None and not _long_digits(line):
        try:
            return _orjson_loads(line)
        except ValueError:
            pass  # json decides, and says why
    return json.loads(line)


def fast_loads_each(lines: list[bytes]) -> list[Any] | None:
    """Each line parsed, as fast_loads would, with C doing the per-line work (orjson mapped
    over the lines, one long-integer guard for them all); a line that may hold an integer
    beyond 64 bits is read by json (so one such line, a hex digest with 19 digits in a row,
    does not send its whole batch the slow way). None when orjson is not installed or refuses any
    line, or json does, or json reads a NaN or an infinity, which orjson would have refused
    (then the caller parses them one by one, and says what is wrong)."""
    if not _orjson_tried:
        _load_orjson()
    if _orjson_loads is None:
        return None
    try:
        if not _long_digits(b"\n".join(lines)):
            return list(map(_orjson_loads, lines))
        loads = _orjson_loads
        return [_finite_loads(line) if _long_digits(line) else loads(line) for line in lines]
    except (ValueError, RecursionError):  # JSONDecodeError and UnicodeDecodeError included
        return None


def _finite_loads(line: bytes) -> Any:
    """json.loads, raising ValueError for NaN and the infinities (1e400 included)."""
    value = json.loads(line)
    FINITE_JSON.encode(value)
    return value


# Compact JSON that refuses NaN and the infinities (ValueError), as strict JSON does.
FINITE_JSON = json.JSONEncoder(allow_nan=False, separators=(",", ":"))


def trusted_loads(data: bytes) -> Any:
    """A text already known to parse alike under orjson and json (see vectorfiles): orjson
    where installed, json otherwise. A small text (an index, a memo's header: under
    ORJSON_WORTH) is read by json until something else has imported orjson, so that a
    rerun whose answers are all remembered never imports it (16 ms; the index files of a
    fast port's 34 algorithms, 0.6 MB, take 3 ms longer by json)."""
    if not _orjson_tried and len(data) >= ORJSON_WORTH:
        _load_orjson()
    if _orjson_loads is not None:
        return _orjson_loads(data)
    return json.loads(data)


ORJSON_WORTH = 256 * 1024  # bytes of a text worth importing orjson for (see trusted_loads)


def orjson_agrees(data: bytes, value: Any) -> bool:
    """Whether orjson reads ``data`` (already read by json as ``value``) to the same value,
    types included (so an integer it would turn into a float counts as disagreeing)."""
    if not _orjson_tried:
        _load_orjson()
    if _orjson_loads is None:
        return False
    try:
        other = _orjson_loads(data)
    except ValueError:
        return False
    return same_canonical(other, value)


def same_canonical(one: Any, other: Any) -> bool:
    """``canonical(one) == canonical(other)`` (the same JSON text, types included: 1 is not
    1.0), settled at C speed where it can be: Python's == is laxer than the texts (1 == 1.0),
    so a difference it finds is one of the texts; orjson's sorted text is canonical too (a
    value has one), so equal values have equal texts. json's canonical text is left for
    what orjson cannot write (a lone surrogate, a huge integer). json's texts of a vector
    file's two readings took 1.4 s of a first run's start (issue 35)."""
    if not _orjson_tried:
        _load_orjson()
    if one != other:
        return False
    if _orjson_sorted is not None:
        try:
            return _orjson_sorted(one) == _orjson_sorted(other)
        except TypeError:  # a lone surrogate or a huge integer
            pass
    return canonical(one) == canonical(other)


def read_json(path: Path, what: str, limit: int = VECTOR_FILE_LIMIT) -> Any:
    """The JSON value of the file at ``path`` (a regular file of at most ``limit`` bytes),
    read strictly (see parse_json), or a one-line error naming the file. The default bound
    is the largest of fairvec's JSON files' (a vector file's); pass the kind's own."""
    return parse_json(read_regular(path, what, limit), path, what)


class _NotStrictJSON(ValueError):
    """What json.loads accepts and fairvec does not; raised from json's hooks."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):  # the usual case costs one comparison
        raise _NotStrictJSON(
            f"gives the key {_first_repeated(pairs)!r} twice in one object; JSON readers "
            "differ on which one counts (Python's and orjson keep the last silently): keep one"
        )
    return value


def _first_repeated(pairs: list[tuple[str, Any]]) -> str:
    seen: set[str] = set()
    for key, _value in pairs:
        if key in seen:
            return key
        seen.add(key)
    raise AssertionError("no key repeated")


def _finite_float(text: str) -> float:
    """A number literal as json reads it, refused where it reads as an infinity (1e400 is
    valid JSON text but no double: Python reads it as inf, orjson refuses it)."""
    value = float(text)
    if math.isinf(value):
        raise _NotStrictJSON(
            f"holds {text[:40]}, a number beyond a double (it reads as infinity); write a "
            "number a double can hold, or a string"
        )
    return value


def _refuse_constant(name: str) -> NoReturn:
    raise _NotStrictJSON(
        f"holds {name}, which is no JSON number (JSON has finite numbers only, and most "
        "parsers refuse it): write a number"
    )


# Python converts at most 4,300 digits to an int by default, because the conversion takes
# quadratic time (sys.get_int_max_str_digits). Where that guard is off or looser (0, say by
# PYTHONINTMAXSTRDIGITS=0), fairvec keeps it for the files it reads: a 64 MiB digit string
# would take hours.
INT_DIGITS_LIMIT = 4300


def max_int_digits() -> int:
    """The most digits an integer in a file may have: Python's bound or ours, the lower."""
    return min(sys.get_int_max_str_digits() or INT_DIGITS_LIMIT, INT_DIGITS_LIMIT)


class TooManyDigits(ValueError):
    """An integer's text of more digits than fairvec reads (:func:`max_int_digits`)."""


def int_of_text(text: str) -> int:
    """``int(text)`` of a number typed by a user (an option's value, ``--input``'s), with
    the digit bound checked first: past it Python's int() raises a ValueError that names
    no option, and one reached the user as "internal error" (issue 34). TooManyDigits
    (a ValueError) says how many digits came; any other ValueError means no integer."""
    if len(text) > max_int_digits():  # (cheap first: the digits are counted only then)
        digits = sum(character.isdecimal() for character in text)
        if digits > max_int_digits():
            raise TooManyDigits(
                f"{digits:,} digits, more than the {max_int_digits():,} fairvec reads"
            )
    return int(text)


def shown_text(text: str, most: int = 40) -> str:
    """``text`` cut to ``most`` characters for a one-line message (a 5,000-digit value
    quoted whole is no one-line error)."""
    return text if len(text) <= most else f"{text[:most]}... ({len(text):,} characters)"


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > INT_DIGITS_LIMIT:
        raise ValueError("too many digits")
    return int(text)


def parse_json(data: bytes, path: Path, what: str) -> Any:
    """The JSON value of a file's bytes, or a one-line error naming the place and why.

    Stricter than json.loads: a key given twice in one object (at any depth; json.loads
    keeps the last, so a second "vectors" list silently replaced the first), NaN, Infinity
    and -Infinity (not JSON: other languages' parsers refuse them), a number beyond a double
    (1e400, which json.loads reads as infinity), and an integer too long
    to convert (which json.loads raises as a bare ValueError) are each a one-line error."""
    text = decode_utf8(data, str(path), what)
    # json's own int() is the fast way, and enough where Python's bound is at most ours
    parse_int = None if 0 < sys.get_int_max_str_digits() <= INT_DIGITS_LIMIT else _bounded_int
    try:
        value = json.loads(
            text,
            object_pairs_hook=_unique_keys,
            parse_constant=_refuse_constant,
            parse_float=_finite_float,
            parse_int=parse_int,
        )
    except json.JSONDecodeError as error:
        raise FairvecError(
            f"{path}:{error.lineno}:{error.colno}: {what} is not valid JSON ({error.msg})"
        ) from None
    except _NotStrictJSON as error:
        raise FairvecError(f"{path}: {what} {error}") from None
    except ValueError:  # int() refusing a digit string over the limit: nothing else raises it
        raise FairvecError(
            f"{path}: {what} holds an integer of more than {max_int_digits():,} digits, "
            "which fairvec does not read (no fairvec file needs one); check it is the file "
            "you meant"
        ) from None
    except RecursionError:
        raise FairvecError(f"{path}: {what} is nested too deeply to read") from None
    check_nesting(value, str(path), what)
    return value


def decode_utf8(data: bytes, where: str, what: str) -> str:
    """UTF-8 text, or a one-line error naming the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise FairvecError(
            f"{where}:{line}: {what} is not UTF-8 text (byte 0x{data[error.start]:02x} at "
            f"offset {error.start}); save it as UTF-8"
        ) from None


def check_nesting(value: Any, where: str, what: str) -> None:
    if deeper_than(value, MAX_NESTING):
        raise FairvecError(
            f"{where}: {what} nests arrays or objects more than {MAX_NESTING} levels deep"
        )


def deeper_than(value: Any, limit: int) -> bool:
    """Whether arrays and objects nest more than ``limit`` levels deep. Level by level,
    without recursion (the point is to refuse what recursion could not handle)."""
    level = [value] if isinstance(value, (dict, list)) else []
    for _depth in range(limit):
        if not level:
            return False
        deeper: list[Any] = []
        for container in level:
            items = container.values() if isinstance(container, dict) else container
            deeper.extend([item for item in items if isinstance(item, (dict, list))])
        level = deeper
    return bool(level)


def same_json(expected: Any, actual: Any) -> bool:
    """json_equal, fast in the common case of equal values. json_equal implies Python's ==,
    so != settles a difference at C speed; equal sorted orjson texts settle equality (the
    same text is the same JSON value); anything else (1 against 1.0, True against 1, keys
    in another order without orjson) is left to json_equal."""
    if not _orjson_tried:
        _load_orjson()
    if expected != actual:
        return False
    if _orjson_sorted is not None:
        try:
            if _orjson_sorted(expected) == _orjson_sorted(actual):
                return True
        except TypeError:  # orjson writes neither a lone surrogate nor a huge integer
            pass
    return json_equal(expected, actual)


def same_json_list(expected: list[Any], actual: list[Any]) -> bool:
    """Whether the lists are item by item the same JSON, settled at C speed or not at all:
    False also when only json_equal could tell (then compare item by item). Equal sorted
    orjson texts of two lists mean equal texts item by item, since each item's text ends
    where its JSON value ends."""
    if not _orjson_tried:
        _load_orjson()
    if _orjson_sorted is None or expected != actual:
        return False
    try:
        return _orjson_sorted(expected) == _orjson_sorted(actual)
    except TypeError:  # a lone surrogate, a huge integer, or a non-JSON sentinel
        return False


def same_json_each(expected: list[Any], actual: list[Any]) -> list[bool] | None:
    """Item by item, whether same_json_list would say the two items are the same JSON
    (False also where only json_equal could tell); None when orjson is not installed or
    cannot write an item (a lone surrogate, a huge integer)."""
    if not _orjson_tried:
        _load_orjson()
    dump = _orjson_sorted
    if dump is None:
        return None
    try:
        return [e == a and dump(e) == dump(a) for e, a in zip(expected, actual, strict=True)]
    except TypeError:
        return None


def json_equal(left: Any, right: Any) -> bool:
    """Equality as JSON sees it: 1 equals 1.0 (JSON has one number type), but
    true never equals 1, and objects compare key by key."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(json_equal, left, right))
    return type(left) is type(right) and left == right


def first_difference(expected: Any, actual: Any, path: str = "") -> str | None:
    """The JSON path of the first place ``actual`` differs from ``expected``, or None.

    Keys of ``expected`` missing from ``actual`` and extra keys in ``actual`` both count.
    """
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in expected:
            if key not in actual:
                return f"{path}.{key} (missing)"
            found = first_difference(expected[key], actual[key], f"{path}.{key}")
            if found:
                return found
        extra = [key for key in actual if key not in expected]
        return f"{path}.{extra[0]} (unexpected)" if extra else None
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        for index, (left, right) in enumerate(zip(expected, actual, strict=True)):
            found = first_difference(left, right, f"{path}[{index}]")
            if found:
                return found
        return None
    return None if json_equal(expected, actual) else (path or "(whole value)")


def contains(actual: Any, stated: Any) -> str | None:
    """Where ``actual`` disagrees with the partial object ``stated`` (None if nowhere).

    Objects are compared on the keys ``stated`` gives, recursively; everything else whole.
    """
    if isinstance(stated, dict):
        if not isinstance(actual, dict):
            return "(not an object)"
        for key, value in stated.items():
            if key not in actual:
                return f".{key} (missing)"
            inner = contains(actual[key], value)
            if inner is not None:
                return f".{key}{inner}"
        return None
    return None if json_equal(actual, stated) else ""
