"""What a user meets: licence, metadata, and README and docs links that work in a clone."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import metadata
from pathlib import Path

import pytest
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


def _markdown_pages() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def test_readme_links_to_its_files_relatively() -> None:
    """A link to the repository's address opens the hosted copy (or nothing, offline and
    on a fork), not the file beside the README: in a clone every link must be relative."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    links = LINK.findall(readme)
    assert links, "the README links to its docs"
    absolute = [link for link in links if link.startswith(repository())]
    assert not absolute, f"README.md: link relatively, not to {absolute[0]!r}"


def test_every_relative_link_in_readme_and_docs_resolves() -> None:
    """Every relative link of README.md and docs/ names a file or folder that is there."""
    broken = []
    for page in _markdown_pages():
        text = page.read_text(encoding="utf-8")
        for link in LINK.findall(text):
            target = link.split("#", 1)[0].strip()
            if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target):  # an anchor, a URL
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(REPO)}: {link}")
    assert not broken, f"links to nothing: {broken[:10]}"


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


# Sentences of the docs that count algorithms but not the suite's (a limit, an example),
# by page: every other "N algorithms" must be the suite's count. docs/benchmarks.md records
# measurements, each with the suite of its day, and is not checked.
NOT_THE_SUITE = {
    "docs/adapter-protocol.md": ["At most 1,000 algorithms"],
    "docs/vector-format.md": ["a port of 5 algorithms"],
}
COUNTED = re.compile(r"(\d[\d,]*) algorithms")


@pytest.mark.heavy  # the suite
def test_every_count_of_algorithms_the_docs_state_is_the_suites() -> None:
    """The docs said 77 algorithms while the runner counted 84 (issue 36): one count."""
    from fairvec.specs import load_specs

    specs = load_specs(REPO / "spec")
    wrong = []
    for page in _markdown_pages():
        where = page.relative_to(REPO).as_posix()
        if where == "docs/benchmarks.md":
            continue
        text = " ".join(page.read_text(encoding="utf-8").split())
        for allowed in NOT_THE_SUITE.get(where, []):
            assert allowed in text, f"{where}: {allowed!r} is gone; drop it from NOT_THE_SUITE"
            text = text.replace(allowed, "")
        wrong += [f"{where}: {m[0]}" for m in COUNTED.finditer(text) if m[1] != f"{len(specs):,}"]
    assert not wrong, f"the suite has {len(specs)} algorithms: {wrong}"
    most = max(len(spec.variants) for spec in specs)
    protocol = " ".join((REPO / "docs" / "adapter-protocol.md").read_text("utf-8").split())
    assert f"none with more than {most} variants" in protocol


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
