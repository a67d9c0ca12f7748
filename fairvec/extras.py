"""The optional extras (pyproject.toml), checked before a command does any work.

A command that needs an extra's package says so at once, in one line naming the extra to
install, rather than working for a minute and then failing on an import (issue 16: ``fairvec
generate --check`` without NumPy used to end in "internal error" after a minute).
"""

from __future__ import annotations

import fnmatch
import importlib
from collections.abc import Iterable

from fairvec.errors import FairvecError

# Each extra, and the importable modules it brings (pyproject.toml [project.optional-dependencies]).
EXTRAS: dict[str, tuple[str, ...]] = {
    "analysis": ("numpy", "matplotlib"),
    "release": ("cryptography",),
    "vx": ("py_arkworks_bls12381",),
}
# The algorithms whose reference needs an extra's module: videopoker.analysis counts every
# deal with NumPy (reference/videopoker.py analyze_table); bustabit's Vx-era signing and
# verifying use arkworks' BLS12-381 (reference/bustabit.py _bls; bustabit.vx_crash
# needs no pairing). tests/test_hardening_cli.py runs every algorithm's reference with these
# modules hidden, so a new such algorithm cannot be missed here.
ALGORITHMS_NEEDING: dict[str, tuple[str, str]] = {
    "bustabit.vx_game": ("vx", "py_arkworks_bls12381"),
    "bustabit.vx_signature": ("vx", "py_arkworks_bls12381"),
    "bustabit.vx_verify": ("vx", "py_arkworks_bls12381"),
    "videopoker.analysis": ("analysis", "numpy"),
}


def importable(module: str) -> bool:
    """Whether ``module`` imports. Imported for real, not only looked up: a broken or
    blocked install is found now, not later (the caller is about to import it anyway)."""
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def require(extra: str, module: str, purpose: str) -> None:
    """Refuse ``purpose`` at once when ``module`` of ``extra`` does not import."""
    if not importable(module):
        raise FairvecError(
            f"{purpose} needs {module}, from the '{extra}' extra: "
            f"pip install 'fairvec[{extra}]'"
        )


def missing_for(algorithm: str) -> str | None:
    """The extra ``algorithm``'s reference needs and does not have here, or None."""
    needed = ALGORITHMS_NEEDING.get(algorithm)
    if needed is None or importable(needed[1]):
        return None
    return needed[0]


def require_for_algorithms(algorithms: Iterable[str], purpose: str) -> None:
    """Refuse ``purpose`` when any of ``algorithms`` (ids or globs) needs a missing extra."""
    patterns = list(algorithms)
    for algorithm, (extra, module) in ALGORITHMS_NEEDING.items():
        if any(fnmatch.fnmatchcase(algorithm, pattern) for pattern in patterns):
            require(extra, module, f"{purpose} ({algorithm})")
