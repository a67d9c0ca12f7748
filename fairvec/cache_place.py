"""Where fairvec keeps what it may recompute (the vector files' remembered hashes, the
answer memo, the spec files known valid): one rule for every cache, kept apart from
fairvec.vectorfiles so that the spec reader (the reference's foundation) can use it too."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cache_folder"]


def cache_folder() -> Path | None:
    """Where fairvec keeps what it may recompute; None when turned off, or when no usable
    place is known (then every run reads as if the cache were empty, and writes nothing).

    The rules (docs/vector-format.md, "Where the cache is"): FAIRVEC_NO_CACHE (not empty) turns it
    off; FAIRVEC_CACHE_DIR (not empty) is the folder itself; else $XDG_CACHE_HOME/fairvec
    if XDG_CACHE_HOME is an absolute path (the XDG Base Directory rules: a relative value
    is ignored), else $HOME/.cache/fairvec if HOME is an absolute path other than "/".
    HOME set but empty made Python's Path.home() "/", and the cache /.cache/fairvec at
    the filesystem root; a relative value put it under whatever folder the run started
    in (issue 34). HOME unset: the account's home directory, by the same rule."""
    if os.environ.get("FAIRVEC_NO_CACHE"):
        return None
    if os.environ.get("FAIRVEC_CACHE_DIR"):
        return Path(os.environ["FAIRVEC_CACHE_DIR"])
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg):
        return Path(xdg) / "fairvec"
    home = _home()
    if home is None:
        return None
    return home / ".cache" / "fairvec"


def _home() -> Path | None:
    """The user's home folder, if it is a usable place for a cache: an absolute path, not
    the filesystem root (what an empty or unset HOME comes to in containers)."""
    if "HOME" in os.environ:
        text = os.environ["HOME"]
    else:
        try:
            text = str(Path.home())  # the account's entry (pwd)
        except (RuntimeError, KeyError):  # no entry for this user id
            return None
    if not os.path.isabs(text) or Path(text) == Path(text).parent:
        return None
    return Path(text)
