"""MANIFEST.json: the one document a release's signatures cover, and version numbers."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import jsonschema

from fairvec.errors import FairvecError
from fairvec.release.files import MANIFEST

FORMAT = "fairvec-release/1"
NAME = "fairvec-vectors"
VERSION = re.compile(r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)")
# A member name: relative, "/"-separated, no empty, "." or ".." part, no leading dot, and
# only characters that mean the same on every file system and in every shell.
MEMBER_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*(/[A-Za-z0-9_][A-Za-z0-9._-]*)*")


def parse_version(text: str, where: str) -> tuple[int, int, int]:
    match = VERSION.fullmatch(text)
    if match is None:
        raise FairvecError(f"{where}: {text!r} is not a version MAJOR.MINOR.PATCH (e.g. 1.2.0)")
    major, minor, patch = (int(part) for part in match.groups())
    return major, minor, patch


@dataclass(frozen=True)
class Entry:
    path: str
    sha256: str
    size: int


@dataclass(frozen=True)
class Manifest:
    version: str
    generator_version: str
    suite_digest: str
    vectors: int
    files: tuple[Entry, ...]

    def to_bytes(self) -> bytes:
        """Canonical text (sorted keys, two-space indent, one final newline), so the same
        release always has byte-identical manifests and so byte-identical signatures."""
        data = {
            "format": FORMAT,
            "name": NAME,
            "version": self.version,
            "generator": {"name": "fairvec", "version": self.generator_version},
            "suite_digest": self.suite_digest,
            "vectors": self.vectors,
            "files": [vars(entry) for entry in self.files],
        }
        return (json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()

    def entry(self, path: str) -> Entry | None:
        return self._by_path().get(path)

    def _by_path(self) -> dict[str, Entry]:
        return {entry.path: entry for entry in self.files}


@cache
def manifest_schema() -> dict[str, Any]:
    text = resources.files("fairvec.release").joinpath("manifest.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def parse_manifest(data: bytes, where: str) -> Manifest:
    """The manifest, or a FairvecError naming what is wrong with it."""
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise FairvecError(f"{where}: {MANIFEST} is not JSON ({error})") from None
    validator = jsonschema.Draft202012Validator(manifest_schema())
    problem = jsonschema.exceptions.best_match(validator.iter_errors(value))
    if problem is not None:
        at = "/".join(str(part) for part in problem.absolute_path) or "(top level)"
        raise FairvecError(f"{where}: {MANIFEST}: {at}: {problem.message}")
    files = tuple(Entry(f["path"], f["sha256"], f["size"]) for f in value["files"])
    _check_paths(files, where)
    return Manifest(
        value["version"],
        value["generator"]["version"],
        value["suite_digest"],
        value["vectors"],
        files,
    )


def _check_paths(files: tuple[Entry, ...], where: str) -> None:
    """Unique, sorted, not MANIFEST.json, and no path a folder of another: the manifest
    alone then guarantees an extraction that cannot collide with itself."""
    paths = [entry.path for entry in files]
    if paths != sorted(set(paths)):
        raise FairvecError(f"{where}: {MANIFEST}: files are not sorted and unique")
    folded: dict[str, str] = {}
    for path in paths:
        other = folded.setdefault(path.casefold(), path)
        if other != path:
            raise FairvecError(
                f"{where}: {MANIFEST}: {other!r} and {path!r} differ only in case (a case "
                "collision: one file on a case-insensitive file system)"
            )
    if MANIFEST in paths:
        raise FairvecError(f"{where}: {MANIFEST}: lists itself among the files")
    parts = [path.split("/") for path in paths]
    folders = {"/".join(part[:end]) for part in parts for end in range(1, len(part))}
    clash = next((path for path in paths if path in folders), None)
    if clash is not None:
        raise FairvecError(f"{where}: {MANIFEST}: {clash!r} is both a file and a folder")
