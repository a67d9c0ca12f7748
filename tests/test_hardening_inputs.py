"""Issue 34 §5: integers typed as text past Python's int-string bound, and where the cache
goes when HOME or XDG_CACHE_HOME cannot be used."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import pytest

from fairvec.analysis.cli import _int
from fairvec.fuzz.cli import _seed
from fairvec.release.cli import _size
from fairvec.runner.arguments import bounded_count, positive_int, whole_number
from fairvec.vectorfiles import cache_folder

DIGITS = "9" * 5000  # past the 4,300 digits Python's int() converts


def test_an_integer_past_the_digit_bound_is_refused_saying_so() -> None:
    from fairvec.jsonio import TooManyDigits, int_of_text

    with pytest.raises(TooManyDigits, match="5,000 digits, more than the 4,300"):
        int_of_text(DIGITS)
    assert int_of_text("9" * 4300) == int("9" * 4300)  # the bound itself is read


@pytest.mark.parametrize("option", [whole_number, positive_int, bounded_count, _seed, _size, _int])
def test_every_integer_option_says_too_many_digits_in_one_short_line(
    option: Callable[[str], int],
) -> None:
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        option(DIGITS)
    said = str(refused.value)
    assert "5,000 digits" in said and len(said) < 200 and "\n" not in said


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("FAIRVEC_NO_CACHE", "FAIRVEC_CACHE_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@pytest.mark.parametrize(
    ("home", "xdg", "folder"),
    [
        ("/home/ann", None, "/home/ann/.cache/fairvec"),
        ("/home/ann", "/var/cache/ann", "/var/cache/ann/fairvec"),
        ("/home/ann", "", "/home/ann/.cache/fairvec"),  # empty: as unset
        ("/home/ann", "relative/cache", "/home/ann/.cache/fairvec"),  # relative: ignored
        ("", None, None),  # HOME set but empty: was /.cache/fairvec, at the root
        ("/", None, None),
        ("relative", None, None),  # was ./relative/.cache/fairvec
        ("", "relative/cache", None),  # was ./relative/cache/fairvec
        ("", "/var/cache/ann", "/var/cache/ann/fairvec"),
    ],
)
def test_the_cache_is_where_the_rules_say_or_nowhere(
    environment: pytest.MonkeyPatch, home: str, xdg: str | None, folder: str | None
) -> None:
    environment.setenv("HOME", home)
    if xdg is not None:
        environment.setenv("XDG_CACHE_HOME", xdg)
    assert cache_folder() == (None if folder is None else Path(folder))


def test_with_no_usable_place_a_run_writes_no_cache(
    environment: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """HOME empty and XDG_CACHE_HOME relative, from a folder of the test's: nothing is
    written there (nor at the root, which the test cannot watch but the rule above covers)."""
    from fairvec.cli import main

    environment.setenv("HOME", "")
    environment.setenv("XDG_CACHE_HOME", "cache")
    environment.chdir(tmp_path)
    status = main(["run", "--algorithm", "casino.dice", "--tier", "none", "--no-progress",
                   "--bundled", "python"])  # fmt: skip
    assert status == 0
    assert list(tmp_path.iterdir()) == []
