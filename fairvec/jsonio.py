"""Canonical JSON text, digests and atomic file writes shared by generator and runner."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from fairvec.errors import FairvecError

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
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
        os.chmod(temporary, 0o644)  # mkstemp makes 0600; vector files are for everyone
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def read_json(path: Path, what: str) -> Any:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise FairvecError(f"{path}: cannot read {what}: {error.strerror}") from None
    try:
        value = json.loads(decode_utf8(data, str(path), what))
    except json.JSONDecodeError as error:
        raise FairvecError(
            f"{path}:{error.lineno}:{error.colno}: {what} is not valid JSON ({error.msg})"
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
