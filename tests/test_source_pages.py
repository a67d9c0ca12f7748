"""The source pages (docs/sources/): every source a spec cites has a page a clone can read,
and the page lists every worked example the specs take from it, with the stated values."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support import REPO

from fairvec.errors import FairvecError
from fairvec.source_pages import MARKER, stale_pages
from fairvec.specs import load_spec, load_specs, source_page


@pytest.mark.heavy  # every cited source
def test_every_cited_source_has_a_current_page() -> None:
    """Fails when a spec cites a source without a page, or a page misses (or misstates) a
    worked example, quirk or algorithm: `python -m fairvec.source_pages --write`."""
    assert stale_pages(REPO) == []


def test_each_worked_example_is_on_its_page_with_its_values() -> None:
    """The list the pages are checked against: the specs' `document: {section, states}`."""
    for spec in load_specs(REPO / "spec"):
        page = (REPO / source_page(spec.source["document"])).read_text(encoding="utf-8")
        assert spec.source["page"] == source_page(spec.source["document"])
        for case in spec.cases:
            if "document" not in case:
                continue
            assert f"`{spec.id}/{case['name']}`" in page, (spec.id, case["name"])
            for key, value in case["document"]["states"].items():
                stated = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
                assert f'"{key}": {stated}' in page, (spec.id, case["name"], key)


def _copied_family(tmp_path: Path, family: str) -> Path:
    """A repository root holding one family's specs and the source pages, free to edit."""
    (tmp_path / "spec").mkdir()
    shutil.copy(REPO / "spec" / "spec.schema.json", tmp_path / "spec")
    shutil.copytree(REPO / "spec" / family, tmp_path / "spec" / family)
    shutil.copytree(REPO / "docs" / "sources", tmp_path / "docs" / "sources")
    return tmp_path


def test_a_spec_without_a_page_is_refused(tmp_path: Path) -> None:
    root = _copied_family(tmp_path, "nardy")
    path = root / "spec" / "nardy" / "cuts.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("  page: docs/sources/003_c4a62d84289b5613.md\n", ""), "utf-8")
    with pytest.raises(FairvecError, match="source: 'page' is a required property"):
        load_spec(path, root / "spec")
    path.write_text(text.replace("sources/003_", "sources/004_"), "utf-8")
    with pytest.raises(FairvecError, match=r"source/page: .*its source's page is"):
        load_spec(path, root / "spec")


def test_a_page_missing_or_missing_an_example_is_stale(tmp_path: Path) -> None:
    root = _copied_family(tmp_path, "nardy")
    page = root / "docs" / "sources" / "003_c4a62d84289b5613.md"
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace('"mask": "100101",', '"mask": "100100",'), "utf-8")
    assert stale_pages(root) == ["docs/sources/003_c4a62d84289b5613.md: stale"]
    page.write_text(text[text.index(MARKER) :], "utf-8")
    assert stale_pages(root) == [
        "docs/sources/003_c4a62d84289b5613.md: no hand-written part above the generated marker"
    ]
    page.unlink()
    assert stale_pages(root) == [
        "docs/sources/003_c4a62d84289b5613.md: missing (a spec cites its source)"
    ]
