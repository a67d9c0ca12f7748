"""``fairvec release diff OLD NEW``: what changed, by vector id, and whether the version
bump follows the rules of docs/releases.md:

- major: an existing vector's expected value, input or variant changed; a vector, an
  algorithm or a variant removed; an algorithm's input or output schema changed; any
  schema file (spec, vectors, protocol, report) changed, added or removed;
- minor: vectors, algorithms or variants added;
- patch: anything else (tags, provenance, titles, spec prose, the protocol document).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from fairvec.release.keys import load_trusted_key
from fairvec.release.manifest import parse_version
from fairvec.release.suite import is_vector_file
from fairvec.release.verify import Limits, VerifiedSuite, open_suite

LEVELS = ("patch", "minor", "major")
VECTOR_MAJOR = ("expected", "input", "variant")  # what a vector checks
ALGORITHM_MAJOR = ("input_schema", "output_schema")  # what an adapter must accept and answer


@dataclass
class Side:
    version: str
    files: dict[str, str]  # path -> sha256, from the manifest
    vectors: dict[str, dict[str, Any]] = field(default_factory=dict)
    algorithms: dict[str, dict[str, Any]] = field(default_factory=dict)  # without "vectors"


@dataclass
class Diff:
    old: str
    new: str
    signed: bool
    vectors_added: list[str] = field(default_factory=list)
    vectors_removed: list[str] = field(default_factory=list)
    vectors_changed: list[tuple[str, list[str]]] = field(default_factory=list)
    algorithms_added: list[str] = field(default_factory=list)
    algorithms_removed: list[str] = field(default_factory=list)
    variants_added: list[str] = field(default_factory=list)
    variants_removed: list[str] = field(default_factory=list)
    algorithms_changed: list[tuple[str, list[str]]] = field(default_factory=list)
    files_changed: list[str] = field(default_factory=list)
    reasons: list[tuple[str, str]] = field(default_factory=list)  # (level, why)

    @property
    def required(self) -> str | None:
        levels = [LEVELS.index(level) for level, _why in self.reasons]
        return LEVELS[max(levels)] if levels else None

    @property
    def bump(self) -> str | None:
        """The level of OLD -> NEW, or None when NEW is not higher."""
        old, new = parse_version(self.old, "OLD"), parse_version(self.new, "NEW")
        if new <= old:
            return None
        return "major" if new[0] > old[0] else "minor" if new[1] > old[1] else "patch"

    @property
    def bump_ok(self) -> bool:
        if self.bump is None:
            return self.old == self.new and self.required is None
        return self.required is None or LEVELS.index(self.bump) >= LEVELS.index(self.required)


def _side(suite: VerifiedSuite) -> Side:
    side = Side(suite.version, {entry.path: entry.sha256 for entry in suite.manifest.files})
    for path in sorted(side.files, key=lambda name: name.split("/")):
        if not is_vector_file(path):
            continue
        data = json.loads(suite.root.joinpath(*path.split("/")).read_text("utf-8"))
        for vector in data.pop("vectors"):
            side.vectors[vector["id"]] = vector
        side.algorithms[data["algorithm"]] = data
    return side


def diff_releases(
    old: Path, new: Path, trusted_key: Path | None, limits: Limits | None = None
) -> Diff:
    """Both archives are opened as carefully as ``release verify`` does; with a trusted
    key their signatures are checked too."""
    trusted = load_trusted_key(trusted_key) if trusted_key else None
    with open_suite(old, trusted, limits=limits) as first:
        before = _side(first)
    with open_suite(new, trusted, limits=limits) as second:
        after = _side(second)
    return compare(before, after, signed=trusted is not None)


def compare(before: Side, after: Side, *, signed: bool) -> Diff:
    diff = Diff(before.version, after.version, signed)
    _compare_vectors(before, after, diff)
    _compare_algorithms(before, after, diff)
    _compare_files(before, after, diff)
    return diff


def _compare_vectors(before: Side, after: Side, diff: Diff) -> None:
    diff.vectors_added = sorted(after.vectors.keys() - before.vectors.keys())
    diff.vectors_removed = sorted(before.vectors.keys() - after.vectors.keys())
    for vector_id in sorted(before.vectors.keys() & after.vectors.keys()):
        old, new = before.vectors[vector_id], after.vectors[vector_id]
        fields = sorted(key for key in old.keys() | new.keys() if old.get(key) != new.get(key))
        if fields:
            diff.vectors_changed.append((vector_id, fields))
    changed_checks = [v for v, fields in diff.vectors_changed if set(fields) & set(VECTOR_MAJOR)]
    _reason(diff, "major", changed_checks, "existing vector(s) check something else now")
    _reason(diff, "major", diff.vectors_removed, "vector(s) removed")
    _reason(diff, "minor", diff.vectors_added, "vector(s) added")
    others = [v for v, fields in diff.vectors_changed if not set(fields) & set(VECTOR_MAJOR)]
    _reason(diff, "patch", others, "vector(s) with new tags or metadata")


def _variants(data: dict[str, Any]) -> set[str]:
    return {str(variant["id"]) for variant in data.get("variants", [])}


def _compare_algorithms(before: Side, after: Side, diff: Diff) -> None:
    diff.algorithms_added = sorted(after.algorithms.keys() - before.algorithms.keys())
    diff.algorithms_removed = sorted(before.algorithms.keys() - after.algorithms.keys())
    for name in sorted(before.algorithms.keys() & after.algorithms.keys()):
        old, new = before.algorithms[name], after.algorithms[name]
        diff.variants_added += [f"{name}: {v}" for v in sorted(_variants(new) - _variants(old))]
        diff.variants_removed += [f"{name}: {v}" for v in sorted(_variants(old) - _variants(new))]
        fields = sorted(key for key in old.keys() | new.keys() if old.get(key) != new.get(key))
        if fields:
            diff.algorithms_changed.append((name, fields))
    _reason(diff, "major", diff.algorithms_removed, "algorithm(s) removed")
    _reason(diff, "major", diff.variants_removed, "variant(s) removed")
    schemas = [n for n, fields in diff.algorithms_changed if set(fields) & set(ALGORITHM_MAJOR)]
    _reason(diff, "major", schemas, "algorithm(s) with a new input or output schema")
    _reason(diff, "minor", diff.algorithms_added, "algorithm(s) added")
    _reason(diff, "minor", diff.variants_added, "variant(s) added")
    prose = [n for n, fields in diff.algorithms_changed if not set(fields) & set(ALGORITHM_MAJOR)]
    _reason(diff, "patch", prose, "algorithm(s) with new descriptions or metadata")


def _compare_files(before: Side, after: Side, diff: Diff) -> None:
    """Files besides the vector files: schemas, spec files, the protocol document."""
    paths = sorted(before.files.keys() | after.files.keys())
    changed = [
        p for p in paths if not is_vector_file(p) and before.files.get(p) != after.files.get(p)
    ]
    diff.files_changed = changed
    schemas = [path for path in changed if path.endswith(".schema.json")]
    _reason(diff, "major", schemas, "schema file(s) changed")
    _reason(
        diff, "patch", [p for p in changed if p not in schemas], "spec or document file(s) changed"
    )


def _reason(diff: Diff, level: str, items: list[str], why: str) -> None:
    if items:
        diff.reasons.append((level, f"{len(items)} {why}"))


def write_diff(out: TextIO, diff: Diff) -> None:
    checked = "signatures checked" if diff.signed else "signatures NOT checked (no --trusted-key)"
    out.write(f"fairvec-vectors {diff.old} -> {diff.new} ({checked})\n")
    out.write(
        f"vectors: {len(diff.vectors_added)} added, {len(diff.vectors_removed)} removed, "
        f"{len(diff.vectors_changed)} changed\n"
    )
    for vector_id in diff.vectors_added:
        out.write(f"  added    {vector_id}\n")
    for vector_id in diff.vectors_removed:
        out.write(f"  removed  {vector_id}\n")
    for vector_id, fields in diff.vectors_changed:
        out.write(f"  changed  {vector_id}: {', '.join(fields)}\n")
    for title, items in (
        ("algorithms added", diff.algorithms_added),
        ("algorithms removed", diff.algorithms_removed),
        ("variants added", diff.variants_added),
        ("variants removed", diff.variants_removed),
        ("algorithms changed", [f"{n}: {', '.join(f)}" for n, f in diff.algorithms_changed]),
        ("other files changed", diff.files_changed),
    ):
        out.write(f"{title}: {', '.join(items) if items else 'none'}\n")
    _write_verdict(out, diff)


def _write_verdict(out: TextIO, diff: Diff) -> None:
    why = "; ".join(f"{level}: {text}" for level, text in diff.reasons) or "nothing changed"
    out.write(f"required bump: {diff.required or 'none'} ({why})\n")
    if diff.bump_ok:
        out.write(f"version bump: {diff.bump or 'none'}: follows the rules\n")
    elif diff.bump is None:
        out.write(f"version bump: none: {diff.new} must be higher than {diff.old}\n")
    else:
        out.write(
            f"version bump: {diff.bump}: too small, the rules need {diff.required} "
            "(docs/releases.md)\n"
        )
