"""The judge's per-vector time limit, scaled to what the unmutated port needs.

A fixed 5 s limit (ten times that for a vector tagged ``slow``) killed unmutated ports on a
loaded machine: bustabit's ten-million-step chain walk took more than 50 s at load 20, so
every mutant of the family would have been "killed" by a timeout the port itself earns.
Each driver therefore runs the unmutated port's fixed stage once, with a JSON report, and
gives every mutant's judge ``--vector-timeout``: HEADROOM times the slowest vector's time
(a slow one's divided by the runner's SLOW_FACTOR, since the runner multiplies it back),
never below the judge's 5 s. A mutant that loops still dies at the first hang; one that
merely slows the port by HEADROOM or more is killed as a timeout.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from fairvec.runner.attribution import SLOW_FACTOR, SLOW_TAG
from mutation.judge import VECTOR_TIMEOUT

# The load may grow while a campaign runs (other jobs start): four times the baseline's
# slowest vector still kills a loop within minutes.
HEADROOM = 4


class LimitError(Exception):
    """A baseline report that cannot be read: one line for the user."""


def slow_vectors(vectors: Path) -> set[str]:
    """The ids of every fixed vector tagged slow, across the vector tree."""
    found: set[str] = set()
    for file in sorted(vectors.glob("*/*.json")):
        document = json.loads(file.read_text(encoding="utf-8"))
        found.update(
            vector["id"]
            for vector in document.get("vectors", [])
            if SLOW_TAG in vector.get("tags", ())
        )
    return found


def vector_timeout(report: Path, vectors: Path) -> float:
    """The per-vector limit for the judges of mutants of the port the baseline ``report``
    (``fairvec run --json``) was made with."""
    try:
        results: list[dict[str, Any]] = json.loads(report.read_text(encoding="utf-8"))["results"]
        timed = [(str(result["id"]), float(result["seconds"])) for result in results]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise LimitError(
            f"{report}: not a fairvec run report with per-vector seconds ({error}); "
            "run the baseline again"
        ) from None
    slow = slow_vectors(vectors)
    needed = max(
        (seconds / (SLOW_FACTOR if vector_id in slow else 1) for vector_id, seconds in timed),
        default=0.0,
    )
    return max(VECTOR_TIMEOUT, float(math.ceil(HEADROOM * needed)))
