"""mutation/survivors.yaml: every survivor of the committed report, argued.

Each entry, keyed by the mutant's key, says what the mutant does and one verdict:
``needs-vector`` (a blind spot: ``vector`` says the algorithm, the input and why it kills
the mutant, and ``vector.landed`` the vector ids once it has landed; once the campaign is
run again, the mutant is killed and its entry goes), ``equivalent`` (no input tells it
apart: ``argument`` says why) or ``rare`` (inputs that tell it apart exist but are too
rare to draw: ``argument`` says how rare).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from mutation import report

VERDICTS = {"needs-vector": "vector", "equivalent": "argument", "rare": "argument"}


class SurvivorsError(Exception):
    """A survivors file that cannot be read."""


def load(path: Path) -> dict[str, dict[str, Any]]:
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as error:
        raise SurvivorsError(f"{path}: cannot be read as YAML ({error})") from None
    entries = document.get("survivors") if isinstance(document, dict) else None
    if not isinstance(entries, dict):
        raise SurvivorsError(f"{path}: expected a mapping `survivors:` of mutant key -> entry")
    return entries


def entry_problem(entry: Any) -> str | None:
    """What is wrong with one entry, or None."""
    if not isinstance(entry, dict):
        return "the entry is not a mapping"
    verdict = entry.get("verdict")
    if verdict not in VERDICTS:
        return f"verdict must be one of {', '.join(VERDICTS)}"
    if not str(entry.get("what") or "").strip():
        return "no `what` (what the mutant changes)"
    needed = VERDICTS[verdict]
    if not entry.get(needed):
        return f"a {verdict} entry needs `{needed}`"
    if verdict == "needs-vector":
        vector = entry[needed]
        fields = ("algorithm", "input", "why")
        if not isinstance(vector, dict) or not all(vector.get(field) for field in fields):
            return "`vector` needs algorithm, input and why"
        landed = vector.get("landed", [])
        if not isinstance(landed, list) or not all(isinstance(id_, str) for id_ in landed):
            return "`vector.landed` must be a list of vector ids"
    return None


def landed_problems(entries: dict[str, dict[str, Any]], vectors: Path) -> list[str]:
    """One line per `vector.landed` id that is not a vector of the entry's algorithm in
    ``vectors`` (a vector renamed or dropped after it was recorded as landed)."""
    found = []
    for key, entry in sorted(entries.items()):
        vector = entry.get("vector") if isinstance(entry, dict) else None
        if not isinstance(vector, dict) or not isinstance(vector.get("landed"), list):
            continue
        algorithm = str(vector.get("algorithm"))
        held = _vector_ids(vectors, algorithm)
        found += [
            f"{key}: landed vector {id_} is not among {algorithm}'s vectors in {vectors}"
            for id_ in vector["landed"]
            if id_ not in held
        ]
    return found


def _vector_ids(vectors: Path, algorithm: str) -> set[str]:
    """The ids in vectors/FAMILY/NAME.json of algorithm FAMILY.NAME (none if unreadable)."""
    family, _, name = algorithm.partition(".")
    try:
        document = json.loads((vectors / family / f"{name}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    return {str(vector.get("id")) for vector in document.get("vectors", [])}


def problems(committed: report.Report, entries: dict[str, dict[str, Any]]) -> list[str]:
    """One line per survivor without a sound entry, and per entry naming no survivor."""
    survivors = {m["key"] for m in committed["mutants"] if m["stage"] == report.SURVIVED}
    found = [
        f"{key}: a survivor with no entry in the survivors file"
        for key in sorted(survivors - set(entries))
    ]
    for key in sorted(survivors & set(entries)):
        problem = entry_problem(entries[key])
        if problem:
            found.append(f"{key}: {problem}")
    found += [
        f"{key}: an entry for no survivor of the report (killed now? remove it)"
        for key in sorted(set(entries) - survivors)
    ]
    return found
