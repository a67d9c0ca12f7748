"""The optional extras (pyproject.toml), checked before a command does any work.

A command that needs an extra's package says so at once, in one line naming the extra to
install, rather than working for a minute and then failing on an import (issue 16: ``fairvec
generate --check`` without NumPy used to end in "internal error" after a minute).
"""

from __future__ import annotations

import fnmatch
import importlib
import importlib.metadata
import json
import urllib.parse
from collections.abc import Iterable

from fairvec.errors import FairvecError

# Each extra, and the importable modules it brings (pyproject.toml [project.optional-dependencies]).
EXTRAS: dict[str, tuple[str, ...]] = {
    "analysis": ("numpy", "matplotlib"),
    "release": ("cryptography",),
    "vx": ("py_arkworks_bls12381",),
    "archive": ("pyzipper", "py7zr"),
}
# The algorithms whose reference needs an extra's module: videopoker.analysis counts every
# deal with NumPy (reference/videopoker.py analyze_table); bustabit's Vx-era signing and
# verifying use arkworks' BLS12-381 (reference/bustabit.py _bls; bustabit.vx_crash
# needs no pairing); nardy.archive opens ZIP and 7z archives with pyzipper and py7zr (every
# module of the extra is checked: modules_of). tests/test_hardening_cli.py runs every
# algorithm's reference with these modules hidden, so a new such algorithm cannot be missed.
ALGORITHMS_NEEDING: dict[str, tuple[str, str]] = {
    "bustabit.vx_game": ("vx", "py_arkworks_bls12381"),
    "bustabit.vx_signature": ("vx", "py_arkworks_bls12381"),
    "bustabit.vx_verify": ("vx", "py_arkworks_bls12381"),
    "nardy.archive": ("archive", "py7zr"),
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
            f"{purpose} needs {module}, from the '{extra}' extra: {install_hint(extra)}"
        )


def install_hint(extra: str) -> str:
    """How to add ``extra`` where fairvec came from: the clone it was installed from (which
    the package index's form would not update: issue 36), else the index, with a clone's
    form beside it for a user who has one."""
    index = f"pip install 'fairvec[{extra}]'"
    clone = installed_from_folder()
    if clone is None:
        return f"{index} (in a clone of fairvec: pip install '.[{extra}]' at its root)"
    folder, editable = clone
    local = f"pip install {'-e ' if editable else ''}'{folder}[{extra}]'"
    return f"{local} (the clone fairvec was installed from; from the package index: {index})"


def installed_from_folder() -> tuple[str, bool] | None:
    """The folder fairvec was installed from and whether editably, as pip records it
    (PEP 610, direct_url.json); None for an install from the package index or a wheel."""
    # every record of fairvec on the path: run from a clone's root, its own fairvec.egg-info
    # (which has no direct_url.json) comes before the installed one
    recorded = [
        dist.read_text("direct_url.json")
        for dist in importlib.metadata.distributions(name="fairvec")
    ]
    try:
        place = json.loads(next((text for text in recorded if text), "null"))
    except ValueError:
        return None
    if not isinstance(place, dict) or "dir_info" not in place:
        return None  # an archive or a VCS address: the index's form is the one to give
    url = urllib.parse.urlparse(str(place.get("url", "")))
    if url.scheme != "file":
        return None
    dir_info = place["dir_info"] if isinstance(place["dir_info"], dict) else {}
    return urllib.parse.unquote(url.path), bool(dir_info.get("editable"))


def modules_of(extra: str, module: str) -> tuple[str, ...]:
    """Every module ``extra`` brings (``module`` first): an algorithm may need more than one."""
    return (module, *(other for other in EXTRAS.get(extra, ()) if other != module))


def missing_for(algorithm: str) -> str | None:
    """The extra ``algorithm``'s reference needs and does not have here, or None."""
    needed = ALGORITHMS_NEEDING.get(algorithm)
    if needed is None or all(importable(module) for module in modules_of(*needed)):
        return None
    return needed[0]


def require_for_algorithms(algorithms: Iterable[str], purpose: str) -> None:
    """Refuse ``purpose`` when any of ``algorithms`` (ids or globs) needs a missing extra."""
    patterns = list(algorithms)
    for algorithm, (extra, module) in ALGORITHMS_NEEDING.items():
        if any(fnmatch.fnmatchcase(algorithm, pattern) for pattern in patterns):
            for each in modules_of(extra, module):
                require(extra, each, f"{purpose} ({algorithm})")
