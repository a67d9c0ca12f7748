"""Which algorithms a mutated file serves: the family its vectors are chosen by."""

from __future__ import annotations

import json
from pathlib import Path

# Files that serve every family (the protocol loop, input checks, the registry): their
# mutants are judged by every algorithm's vectors, the campaign's dearest mutants.
SHARED = "shared"
# A file named after no family but serving one.
FAMILY_OF_HELPER = {"_videopoker_solver": "videopoker"}


def family_of(path: str, families: set[str]) -> str:
    """``adapters/node/families/battle.js`` and ``reference/battle.py``: battle;
    ``reference/_videopoker_solver.py``: videopoker; anything else: shared."""
    stem = Path(path).name.split(".")[0]
    stem = FAMILY_OF_HELPER.get(stem, stem)
    return stem if stem in families else SHARED


def known_families(vectors: Path) -> set[str]:
    """The families with vectors: the folders of the vector tree."""
    return {folder.name for folder in vectors.iterdir() if folder.is_dir()}


def algorithm_globs(family: str) -> list[str]:
    return ["*"] if family == SHARED else [f"{family}.*"]


def has_accumulated(vectors: Path, family: str) -> bool:
    """Whether any of the family's files holds accumulated vectors: the judge's second
    stage is left out where none does (fairvec run selects nothing and exits 2)."""
    folders = sorted(vectors.iterdir()) if family == SHARED else [vectors / family]
    for folder in folders:
        for file in sorted(folder.glob("*.json")) if folder.is_dir() else []:
            if json.loads(file.read_text(encoding="utf-8")).get("accumulated"):
                return True
    return False


def accumulated_algorithms(vectors: Path, family: str) -> list[str]:
    """The family's algorithms whose vector file holds accumulated vectors (the judge
    leaves the accumulated stage out for a mutant that reaches none of them)."""
    found = []
    for file in sorted((vectors / family).glob("*.json")) if family != SHARED else []:
        document = json.loads(file.read_text(encoding="utf-8"))
        if document.get("accumulated"):
            found.append(f"{family}.{file.stem}")
    return found
