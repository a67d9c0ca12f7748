"""Fixtures shared by the tests (helpers live in support.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from inner_loop import mark_heavy

# fairvec run prints a progress line every 10 s when stderr is not a terminal (a CI log):
# in tests it never is, and many compare stderr whole, so a run slowed past 10 s by a
# loaded machine would fail them. The lines are tested with a short interval of their own
# (tests/test_progress.py), which sets this itself.
os.environ.setdefault("FAIRVEC_PROGRESS_SECONDS", "86400")


@pytest.hookimpl(tryfirst=True)  # before -m deselects by the markers added here
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The inner loop's rule (tests/inner_loop.py): every test that runs a port is heavy."""
    mark_heavy(items)


@pytest.hookimpl(tryfirst=True)  # before the test's fixtures, a module's among them
def pytest_runtest_setup(item: pytest.Item) -> None:
    """support.fairvec calls fairvec in process unless the test is marked own_process."""
    import support

    support.IN_PROCESS["allowed"] = item.get_closest_marker("own_process") is None


@pytest.fixture
def report_path(tmp_path: Path) -> Path:
    return tmp_path / "report.json"


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: half again as many workers as CPUs. A third of the suite's time is spent
    waiting, not computing (adapters that hang until a timeout, runs that stall on
    purpose): with one worker a CPU, the two CPUs of CI were busy 170 % of the time and the
    tests took 406 s; with three workers, 197 % and 365 s (2026-11-26)."""
    import os

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, (cpus or 1) * 3 // 2)
