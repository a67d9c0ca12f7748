"""``fairvec list``: what the suite holds, per algorithm: its variants, its fixed and
accumulated vectors, and the tags they carry (``--json`` for scripts).

    fairvec list                          # the installed suite, one line per algorithm
    fairvec list --algorithm 'casino.*'   # some of it
    fairvec list --json                   # the same, as one JSON object

Read from the vector files' indexes as ``fairvec run`` chooses its vectors (each vector's
id, variant and tags: fairvec.vectorfiles, skeletal), so it costs what choosing does.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from fairvec.errors import FairvecError
from fairvec.vectorfiles import VectorFile, default_vectors_root, load_vector_files


def add_list_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    listing = commands.add_parser(
        "list",
        help="list the suite's algorithms, variants, vector counts and tags",
        description="List every algorithm of the suite with its variants, how many fixed "
        "and accumulated vectors it has, and the tags its vectors carry (with how many "
        "carry each). Algorithm ids and tags are what `fairvec run --algorithm/--tag/"
        "--exclude-tag` take.",
    )
    listing.add_argument(
        "--vectors", type=Path, metavar="DIR", help="vector folder (default: the installed vectors)"
    )
    listing.add_argument(
        "--algorithm",
        action="append",
        default=[],
        metavar="GLOB",
        help="only algorithms matching (e.g. 'battle.*'); repeatable",
    )
    listing.add_argument("--json", action="store_true", help="print one JSON object instead")
    listing.set_defaults(handler=run_list)


def run_list(arguments: argparse.Namespace) -> int:
    root: Path = arguments.vectors or default_vectors_root()
    patterns: list[str] = arguments.algorithm or ["*"]

    def wanted(algorithm: str) -> bool:
        return any(fnmatch.fnmatchcase(algorithm, pattern) for pattern in patterns)

    files = load_vector_files(root, wanted, skeletal=True)
    if not files:
        raise FairvecError(
            f"--algorithm {' '.join(patterns)}: no algorithm of {root} matches "
            "(`fairvec list` alone lists them all)"
        )
    listing = suite_listing(files, root)
    if arguments.json:
        json.dump(listing, sys.stdout, ensure_ascii=False, indent=1)
        print()
    else:
        print(render_listing(listing), end="")
    return 0


def algorithm_entry(file: VectorFile) -> dict[str, Any]:
    """One algorithm: title, variants, vector counts and tag counts (fixed and accumulated)."""
    fixed = file.chosen_by
    accumulated = file.data.get("accumulated", [])
    tags = Counter(tag for vector in [*fixed, *accumulated] for tag in vector.get("tags", []))
    tiers = Counter(str(vector["tier"]) for vector in accumulated)
    return {
        "id": file.algorithm,
        "title": file.data["title"],
        "variants": [variant["id"] for variant in file.data["variants"]],
        "vectors": len(fixed),
        "accumulated": len(accumulated),
        "accumulated_tiers": dict(sorted(tiers.items())),
        "tags": dict(sorted(tags.items())),
    }


def suite_listing(files: list[VectorFile], root: Path) -> dict[str, Any]:
    algorithms = [algorithm_entry(file) for file in files]
    tags: Counter[str] = Counter()
    for entry in algorithms:
        tags.update(entry["tags"])
    return {
        "vectors_folder": str(root),
        "algorithms": algorithms,
        "totals": {
            "algorithms": len(algorithms),
            "vectors": sum(entry["vectors"] for entry in algorithms),
            "accumulated": sum(entry["accumulated"] for entry in algorithms),
            "tags": dict(sorted(tags.items())),
        },
    }


def render_listing(listing: dict[str, Any]) -> str:
    """One line per algorithm, then the totals and every tag with its count."""
    rows = [("algorithm", "variants", "vectors", "accumulated", "tags")]
    for entry in listing["algorithms"]:
        rows.append(
            (
                entry["id"],
                ", ".join(entry["variants"]) or "-",
                f"{entry['vectors']:,}",
                f"{entry['accumulated']:,}",
                " ".join(entry["tags"]) or "-",
            )
        )
    widths = [max(len(row[column]) for row in rows) for column in range(4)]
    lines = [
        "  ".join(
            [row[0].ljust(widths[0]), row[1].ljust(widths[1]), row[2].rjust(widths[2]),
             row[3].rjust(widths[3]), row[4]]
        ).rstrip()
        for row in rows
    ]  # fmt: skip
    totals = listing["totals"]
    lines += [
        "",
        f"{totals['algorithms']} algorithms, {totals['vectors']:,} fixed vectors, "
        f"{totals['accumulated']:,} accumulated vectors",
        "tags (vectors carrying each): "
        + ", ".join(f"{tag} {count:,}" for tag, count in totals["tags"].items()),
    ]
    return "\n".join(lines) + "\n"
