"""The suite digest of a release's vector files, computed exactly as ``fairvec run`` does."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from fairvec.errors import FairvecError
from fairvec.vectorfiles import vectors_digest

if TYPE_CHECKING:  # types only: loading fairvec.data_model costs 2 ms of start-up
    from fairvec.data_model import Vector

DIGESTED = {"id", "variant", "input", "expected"}  # the fields vectors_digest covers


def is_vector_file(name: str) -> bool:
    """vectors/<family>/<algorithm>.json: the files ``fairvec run`` loads."""
    parts = name.split("/")
    return len(parts) == 3 and parts[0] == "vectors" and parts[2].endswith(".json")


def suite_digest(members: Iterable[tuple[str, bytes]], where: str) -> tuple[str, int]:
    """(digest, vector count) over every vector, in the runner's order: files sorted as
    paths (part by part, as sorted(Path.glob) does), vectors in file order."""
    picked = sorted((name.split("/"), data) for name, data in members if is_vector_file(name))
    vectors: list[Vector] = []
    for parts, data in picked:
        name = "/".join(parts)
        try:
            found = json.loads(data.decode("utf-8"))["vectors"]
        except (ValueError, KeyError, TypeError):
            found = None
        if not isinstance(found, list) or not all(_digestible(v) for v in found):
            raise FairvecError(f"{where}: {name}: not a vector file fairvec can read")
        vectors.extend(found)
    return vectors_digest(vectors), len(vectors)


def _digestible(vector: Any) -> bool:
    return isinstance(vector, dict) and vector.keys() >= DIGESTED
