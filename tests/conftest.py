"""Fixtures shared by the tests (helpers live in support.py)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def report_path(tmp_path: Path) -> Path:
    return tmp_path / "report.json"
