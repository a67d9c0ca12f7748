"""What a user meets on the package index: licence, metadata and README links that work there."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import metadata
from pathlib import Path

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


# the rooms fairvec/ links to, shipped as package data (pyproject.toml)
PACKAGED_ROOMS = ("adapters", "docs", "reference", "runner", "spec", "vectors")


def _files_under(folder: Path) -> set[str]:
    return {
        path.relative_to(folder).as_posix()
        for path in folder.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


def test_the_installed_package_holds_every_file_of_its_rooms() -> None:
    """A wheel carries only the package data pyproject.toml names: a file type left out (the
    vendored Node modules' LICENSE files, the CI recipe's script) went missing from every
    install while the checkout, where the tests used to look, still had it."""
    import fairvec

    installed = Path(fairvec.__file__).resolve().parent
    for room in PACKAGED_ROOMS:
        missing = _files_under(REPO / room) - _files_under(installed / room)
        assert not missing, f"{room}/: not installed: {sorted(missing)[:5]} (pyproject.toml)"
    vendor = installed / "adapters" / "node" / "vendor" / "node_modules" / "@noble"
    for module in ("curves", "hashes"):
        assert "MIT License" in (vendor / module / "LICENSE").read_text(encoding="utf-8")
