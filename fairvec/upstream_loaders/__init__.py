"""Loaders that turn real data under upstream/ into vectors.

The data is vendored in the repository's ``upstream/`` folder (PROVENANCE.md there says
where each file came from, and that it is unmodified). A spec names a loader as
``module:function``; the function takes the folder that holds ``upstream/`` (the
repository root) and yields :class:`UpstreamCase` items. The values in ``states`` come from the
data itself and the reference must reproduce them, exactly as for a document's worked
example.
"""

from __future__ import annotations

from typing import Any, TypedDict


class UpstreamCase(TypedDict):
    name: str  # stable within the set, e.g. "2010081709gm-00a9-0000-fe3371ad-hand-03"
    input: dict[str, Any]
    states: dict[str, Any]  # output fields as the data states them
    provenance: dict[str, Any]  # file (relative to the repository root) and where in it


class UpstreamDataError(Exception):
    """Upstream data that cannot be read; the message names the file and what is wrong."""
