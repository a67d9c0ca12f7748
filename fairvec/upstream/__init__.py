"""Loaders that turn real data under shared/upstream/ into vectors.

A spec names a loader as ``module:function``; the function takes the ``shared/``
folder and yields :class:`UpstreamCase` items. The values in ``states`` come from the
data itself and the reference must reproduce them, exactly as for a document's worked
example.
"""

from __future__ import annotations

from typing import Any, TypedDict


class UpstreamCase(TypedDict):
    name: str  # stable within the set, e.g. "2010081709gm-00a9-0000-fe3371ad-hand-03"
    input: dict[str, Any]
    states: dict[str, Any]  # output fields as the data states them
    provenance: dict[str, Any]  # file (relative to shared/) and where in it


class UpstreamDataError(Exception):
    """Upstream data that cannot be read; the message names the file and what is wrong."""
