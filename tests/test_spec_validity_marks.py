"""Spec files known valid (fairvec/specs.py, VALID_SPECS): a spec file that passed the spec
schema is marked, by a digest of its bytes, in the cache folder; a later read of the same
bytes skips jsonschema (its import was most of the start of a process answering with the
reference, issue 35). A mark never vouches for other bytes, and a cache that cannot be
used costs the check, never an error."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import REPO

from fairvec import specs
from fairvec.errors import FairvecError

DICE = Path("stake") / "dice.yaml"


@pytest.fixture
def spec_root(tmp_path: Path) -> Path:
    """A spec folder of the test's own holding stake.dice's spec alone."""
    root = tmp_path / "repo" / "spec"
    (root / DICE).parent.mkdir(parents=True)
    shutil.copyfile(REPO / "spec" / DICE, root / DICE)
    return root


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("FAIRVEC_CACHE_DIR", str(folder))
    monkeypatch.delenv("FAIRVEC_NO_CACHE", raising=False)
    return folder


def marks(cache: Path) -> list[str]:
    folder = cache / specs.VALID_SPECS
    return sorted(path.name for path in folder.iterdir()) if folder.is_dir() else []


def checks_counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The spec schema checks made from now on (where each was), the real check still run."""
    made: list[str] = []
    check = specs._validate_against_schema

    def counted(data: object, where: str) -> None:
        made.append(where)
        check(data, where)

    monkeypatch.setattr(specs, "_validate_against_schema", counted)
    return made


def test_a_valid_spec_is_checked_once_then_known_by_its_bytes(
    spec_root: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = checks_counted(monkeypatch)
    first = specs.load_spec(spec_root / DICE, spec_root)
    assert len(marks(cache)) == 1 and len(made) == 1
    again = specs.load_spec(spec_root / DICE, spec_root)
    assert len(made) == 1, "a spec known valid was checked again"
    assert again.data == first.data


def test_a_mark_never_vouches_for_an_edited_spec(
    spec_root: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same path with other bytes: the mark of the valid text must not let a broken
    one through (a mark by path would)."""
    specs.load_spec(spec_root / DICE, spec_root)
    text = (spec_root / DICE).read_text(encoding="utf-8")
    assert "\ntitle: " in text
    (spec_root / DICE).write_text(text.replace("\ntitle: ", "\ntitel: ", 1), encoding="utf-8")
    with pytest.raises(FairvecError, match=r"^spec/stake/dice\.yaml: "):
        specs.load_spec(spec_root / DICE, spec_root)
    assert len(marks(cache)) == 1  # the broken text got no mark


def test_a_spec_the_schema_refuses_is_never_marked(spec_root: Path, cache: Path) -> None:
    text = (spec_root / DICE).read_text(encoding="utf-8")
    (spec_root / DICE).write_text(text.replace("\ntitle: ", "\ntitel: ", 1), encoding="utf-8")
    for _ in range(2):  # refused each time, not only the first
        with pytest.raises(FairvecError, match="'title' is a required property"):
            specs.load_spec(spec_root / DICE, spec_root)
    assert marks(cache) == []


@pytest.mark.parametrize("how", ["no-cache", "a-file-in-the-way"])
def test_a_cache_that_cannot_be_used_costs_the_check_not_an_error(
    spec_root: Path, cache: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """FAIRVEC_NO_CACHE, or a file where the marks' folder goes (a folder fairvec cannot
    write: CI runs as root, whom no mode stops)."""
    if how == "no-cache":
        monkeypatch.setenv("FAIRVEC_NO_CACHE", "1")
    else:
        cache.mkdir()
        (cache / specs.VALID_SPECS).write_text("not a folder", encoding="utf-8")
    made = checks_counted(monkeypatch)
    for _ in range(2):
        specs.load_spec(spec_root / DICE, spec_root)
    assert len(made) == 2, "with no usable cache every read is checked"
    if how == "no-cache":
        assert not cache.exists(), "FAIRVEC_NO_CACHE, yet something was written"
    else:
        assert (cache / specs.VALID_SPECS).read_text(encoding="utf-8") == "not a folder"


def test_a_process_answering_from_known_specs_never_imports_jsonschema(
    tmp_path: Path,
) -> None:
    """What the marks are for: the second process to compute stake.dice (a valid input)
    leaves jsonschema unimported; the first, which checks the spec, imports it."""
    code = (
        "import sys\n"
        "from fairvec.reference import compute\n"
        "compute('stake.dice', {'server_seed': 'a', 'client_seed': 'b', 'nonce': 0}, None)\n"
        "print('jsonschema' in sys.modules)\n"
    )
    environment = {"FAIRVEC_CACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    imported = [
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True,
            env=environment, cwd=tmp_path,
        ).stdout.strip()
        for _ in range(2)
    ]  # fmt: skip
    assert imported == ["True", "False"]
