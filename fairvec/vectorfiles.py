"""Vector files: their schema, reading them, and the digest that names a set of vectors.

Validating the 18 MB of vector files against their schema takes seconds; reading them, a
fraction of that. So a file's validation is remembered, in the user's cache folder, keyed
by the SHA-256 of the file's exact bytes, the schema and fairvec's version: each run still
reads and hashes every selected file, and any changed byte is a cache miss (the file is
validated again). The cache says only "these exact bytes were valid"; it never holds data.
A tampered cache can therefore only make fairvec skip validating a file that someone who
can write the user's cache could equally have made valid by editing the installed package;
a cache that cannot be read or parsed is ignored, and one that cannot be written is not
an error. FAIRVEC_CACHE_DIR moves it; FAIRVEC_NO_CACHE=1 turns it off.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

from fairvec import __version__
from fairvec.errors import FairvecError
from fairvec.jsonio import (
    digest,
    orjson_agrees,
    read_json,
    trusted_loads,
    write_atomically,
)

# A cache entry: the file is valid, and whether orjson reads it exactly as json does.
_FAST, _PLAIN = "orjson", "json"


@dataclass(frozen=True)
class VectorFile:
    path: Path
    data: dict[str, Any]

    @property
    def algorithm(self) -> str:
        return str(self.data["algorithm"])

    @property
    def vectors(self) -> list[dict[str, Any]]:
        vectors: list[dict[str, Any]] = self.data["vectors"]
        return vectors


@cache
def vector_schema() -> dict[str, Any]:
    text = resources.files("fairvec").joinpath("vectors", "vectors.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def validate_vector_file(data: Any, where: str) -> None:
    validator = jsonschema.Draft202012Validator(vector_schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        at = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        raise FairvecError(f"{where}: {at}: {error.message} (regenerate with fairvec generate)")


def default_vectors_root() -> Path:
    return Path(str(resources.files("fairvec").joinpath("vectors")))


def algorithm_of(path: Path) -> str:
    """A vector file's place names its algorithm: battle/move.json is battle.move."""
    return f"{path.parent.name}.{path.stem}"


def load_vector_files(
    root: Path, wanted: Callable[[str], bool] = lambda _id: True
) -> list[VectorFile]:
    """Read and validate the vector files of the algorithms ``wanted`` accepts; the
    others are not even opened. A file validated before (same bytes) is not validated
    again (see the module's docstring)."""
    if not root.is_dir():
        raise FairvecError(f"{root}: no vectors folder here (pass --vectors DIR)")
    paths = sorted(root.glob("*/*.json"))
    if not paths:
        raise FairvecError(f"{root}: no vector files (expected <family>/<algorithm>.json)")
    known = ValidationCache.open()
    files = [_load_one(path, known) for path in paths if wanted(algorithm_of(path))]
    known.save()
    return files


def _load_one(path: Path, known: ValidationCache) -> VectorFile:
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise FairvecError(f"{path}: cannot read a vector file: {error.strerror}") from None
    key = hashlib.sha256(raw).hexdigest()
    how = known.get(key)
    if how is not None:
        data = trusted_loads(raw) if how == _FAST else json.loads(raw)
    else:
        data = read_json(path, "a vector file")  # json: the verdict and the message
        validate_vector_file(data, str(path))
        known.add(key, _FAST if orjson_agrees(raw, data) else _PLAIN)
    if data["algorithm"] != algorithm_of(path):  # the place, not the bytes: always checked
        raise FairvecError(
            f"{path}: algorithm: is {data['algorithm']!r} but the file's place says "
            f"{algorithm_of(path)!r} (regenerate with fairvec generate)"
        )
    return VectorFile(path, data)


def cache_folder() -> Path | None:
    """Where fairvec keeps what it may recompute; None when turned off."""
    if os.environ.get("FAIRVEC_NO_CACHE"):
        return None
    if os.environ.get("FAIRVEC_CACHE_DIR"):
        return Path(os.environ["FAIRVEC_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "fairvec"


class ValidationCache:
    """The SHA-256s of vector files found valid, for one schema and one fairvec version."""

    def __init__(self, path: Path | None, entries: dict[str, str]) -> None:
        self.path = path
        self.entries = entries
        self.changed = False

    @classmethod
    def open(cls) -> ValidationCache:
        folder = cache_folder()
        if folder is None:
            return cls(None, {})
        schema = hashlib.sha256(json.dumps(vector_schema(), sort_keys=True).encode()).hexdigest()
        name = f"validated-{__version__}-{schema[:16]}.json"
        path = folder / name.replace("/", "_")
        return cls(path, _read_entries(path))

    def get(self, key: str) -> str | None:
        return self.entries.get(key)

    def add(self, key: str, how: str) -> None:
        self.entries[key] = how
        self.changed = True

    def save(self) -> None:
        """Best effort: a read-only or full disk only costs the next run the validation."""
        if self.path is None or not self.changed:
            return
        with contextlib.suppress(OSError):
            write_atomically(self.path, json.dumps(self.entries, sort_keys=True, indent=0))


def _read_entries(path: Path) -> dict[str, str]:
    """The cache's entries; anything unreadable or malformed is simply not a hit."""
    try:
        value = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(value, dict):
        return {}
    return {
        key: how
        for key, how in value.items()
        if isinstance(key, str) and len(key) == 64 and how in (_FAST, _PLAIN)
    }


def vectors_digest(vectors: list[dict[str, Any]]) -> str:
    """One hash for the exact vectors run: ids, variants, inputs and expectations."""
    return digest([[v["id"], v["variant"], v["input"], v["expected"]] for v in vectors])
