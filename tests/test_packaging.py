"""What a user meets on the package index: licence, metadata and README links that work there."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import metadata

from support import REPO

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
LINK = re.compile(r"\]\(([^)]+)\)")


def repository() -> str:
    return str(PYPROJECT["project"]["urls"]["Source"]).rstrip("/")


def test_the_licence_the_metadata_claims_is_there() -> None:
    assert PYPROJECT["project"]["license"] == "MIT"
    for name in PYPROJECT["project"]["license-files"]:
        assert "Permission is hereby granted" in (REPO / name).read_text(encoding="utf-8"), name
    assert metadata("fairvec")["License-Expression"] == "MIT"


def test_readme_links_are_absolute_and_point_at_files_that_exist() -> None:
    """Relative links break on the package index page; absolute ones must name real files."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    links = LINK.findall(readme)
    assert links, "the README links to its docs"
    prefix = f"{repository()}/"
    for link in links:
        assert link.startswith(("https://", "http://")), f"relative link {link!r} breaks on PyPI"
        if not link.startswith(prefix):
            continue
        kind, branch, *path = link[len(prefix) :].split("/")
        assert (kind, branch) in {("blob", "main"), ("tree", "main")}, link
        target = REPO.joinpath(*path)
        assert target.is_file() if kind == "blob" else target.is_dir(), link


def test_the_readme_counts_the_fixed_vectors_there_are() -> None:
    """The README's main command says how many fixed vectors it runs: adding an algorithm
    changes the count, and a stale figure would go unnoticed without this."""
    import json

    count = sum(
        len(json.loads(path.read_text(encoding="utf-8"))["vectors"])
        for path in sorted((REPO / "vectors").glob("*/*.json"))
    )
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert f"{count:,} fixed vectors" in " ".join(readme.split()), (
        f"README.md: say {count:,} fixed vectors in the main command's paragraph"
    )
