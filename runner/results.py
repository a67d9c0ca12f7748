"""What the runner knows of each vector: the work to do and how it ended."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# not-run: the run stopped before the vector was tried (the adapter kept crashing, or
# could not be restarted); the run then exits 2.
STATUSES = ("pass", "fail", "error", "skip", "not-run")


@dataclass
class Result:
    vector: dict[str, Any]
    algorithm: str
    status: str  # one of STATUSES
    message: str = ""
    got: Any = None
    stderr: list[str] = field(default_factory=list)
    known_failure: bool = False
    unexpected_pass: bool = False
    seconds: float = 0.0  # from becoming the oldest unanswered request to its end
    answered_unsupported: bool = False  # a skip the adapter asked for, not one from the hello

    @property
    def id(self) -> str:
        return str(self.vector["id"])


@dataclass
class Work:
    vector: dict[str, Any]
    algorithm: str
    output_schema: dict[str, Any]
