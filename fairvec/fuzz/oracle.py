"""The expected answer to a fuzz input: the reference's, computed in-process.

Only this module of the fuzzer imports the reference.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fairvec.errors import FairvecError
from fairvec.reference import InvalidInput, compute

if TYPE_CHECKING:  # types only: loading fairvec.data_model costs 2 ms of start-up
    from fairvec.data_model import Expected


@dataclass
class ReferenceFailure:
    """The reference raised something other than its coded error: a bug in fairvec."""

    algorithm: str
    input: dict[str, Any]
    variant: str | None
    error: str  # the exception and where it was raised, on one line


def expected(algorithm: str, inputs: dict[str, Any], variant: str | None) -> Expected:
    """``{"output": ...}`` or ``{"error": code}``, as a vector's ``expected``; raises
    :class:`ReferenceBroke` for any other exception."""
    try:
        return {"output": compute(algorithm, inputs, variant)}
    except InvalidInput as error:
        return {"error": error.code}
    except FairvecError:  # a spec the reference cannot use: a setup problem, said in one line
        raise
    except Exception as error:  # any other exception is the finding itself
        frame = traceback.extract_tb(error.__traceback__)[-1]
        where = f"{frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}"
        raise ReferenceBroke(
            ReferenceFailure(
                algorithm, inputs, variant, f"{type(error).__name__} at {where}: {error}"
            )
        ) from None


class ReferenceBroke(Exception):
    def __init__(self, failure: ReferenceFailure) -> None:
        super().__init__(failure.error)
        self.failure = failure
