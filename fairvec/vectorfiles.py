"""Vector files: their schema, reading them, and the digest that names a set of vectors."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

from fairvec.errors import FairvecError
from fairvec.jsonio import digest, read_json


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
    others are not even opened (validating all of them costs seconds)."""
    if not root.is_dir():
        raise FairvecError(f"{root}: no vectors folder here (pass --vectors DIR)")
    paths = sorted(root.glob("*/*.json"))
    if not paths:
        raise FairvecError(f"{root}: no vector files (expected <family>/<algorithm>.json)")
    files = []
    for path in paths:
        if not wanted(algorithm_of(path)):
            continue
        data = read_json(path, "a vector file")
        validate_vector_file(data, str(path))
        if data["algorithm"] != algorithm_of(path):
            raise FairvecError(
                f"{path}: algorithm: is {data['algorithm']!r} but the file's place says "
                f"{algorithm_of(path)!r} (regenerate with fairvec generate)"
            )
        files.append(VectorFile(path, data))
    return files


def vectors_digest(vectors: list[dict[str, Any]]) -> str:
    """One hash for the exact vectors run: ids, variants, inputs and expectations."""
    return digest([[v["id"], v["variant"], v["input"], v["expected"]] for v in vectors])
