"""What the runner knows of each vector: the work to do and how it ended."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

STATUSES = ("pass", "fail", "error", "skip")


@dataclass
class Result:
    vector: dict[str, Any]
    algorithm: str
    status: str  # pass | fail | error | skip
    message: str = ""
    got: Any = None
    stderr: list[str] = field(default_factory=list)
    known_failure: bool = False
    unexpected_pass: bool = False

    @property
    def id(self) -> str:
        return str(self.vector["id"])


@dataclass
class Work:
    vector: dict[str, Any]
    algorithm: str
    output_schema: dict[str, Any]
