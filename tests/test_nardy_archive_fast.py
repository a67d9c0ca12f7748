"""nardy.archive's remembered 7zAES keys (reference/_nardy_archive.py, remember_seven_zip_keys):
the same keys as py7zr's own derivation, and one derivation per key, not per open."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from support import REPO

from fairvec.reference import InvalidInput, compute

pytest.importorskip("py7zr")
pytest.importorskip("pyzipper")
import py7zr.compressor
import py7zr.helpers


def remembering() -> Any:
    """The key derivation py7zr's compressor module calls (the reference's memo, once set)."""
    return getattr(py7zr.compressor, "calculate_key")  # noqa: B009 (not exported by py7zr)


SEVEN_ZIP = base64.b64encode(b"7z\xbc\xaf\x27\x1c").decode("ascii")[:6]


def seven_zip_inputs() -> list[dict[str, object]]:
    document = json.loads((REPO / "vectors" / "nardy" / "archive.json").read_text("utf-8"))
    return [
        vector["input"] for vector in document["vectors"]
        if str(vector["input"].get("archive", "")).startswith(SEVEN_ZIP)
    ]  # fmt: skip


def run(inputs: dict[str, object]) -> object:
    try:
        return compute("nardy.archive", inputs)
    except InvalidInput as error:
        return error.code


def test_remembered_keys_are_py7zr_keys() -> None:
    run(seven_zip_inputs()[0])  # installs the remembering derivation
    derive = remembering()
    for password, cycles, salt in [
        ("T7rQm2XvK9pLw4Zd", 19, b""), ("", 0, b""), ("pässwörd", 7, b"\x01" * 16),
        ("x", 0x3F, b"salt"), ("T7rQm2XvK9pLw4Ze", 10, b"\x00" * 8),
    ]:  # fmt: skip
        utf16 = password.encode("utf-16LE")
        assert derive(utf16, cycles, salt, "sha256") == py7zr.helpers.calculate_key(
            utf16, cycles, salt, "sha256"
        )


def test_a_key_is_derived_once_however_often_its_archive_is_opened() -> None:
    inputs = seven_zip_inputs()
    assert len(inputs) >= 8
    first = [run(each) for each in inputs]
    derivations = remembering().cache_info().misses
    again = [run(each) for each in inputs]
    assert again == first
    assert remembering().cache_info().misses == derivations
    assert derivations < len(inputs) / 2  # a few distinct keys (passwords right and wrong)
