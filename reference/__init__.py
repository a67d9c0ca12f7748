"""The executable reference: one module per algorithm family.

Each public algorithm is a function decorated with :func:`algorithm`, named after
the last part of its spec id (``battle.move`` is ``fairvec.reference.battle.move``),
taking the spec's input fields as keyword arguments and returning the spec's output
object. Helper functions are named after the spec's ``steps``.

This package knows nothing of the runner or the vectors. It reads one thing from each
spec file: the ``inputs`` schema, which ``compute`` checks every input against before
calling the function (``_inputs.py`` says why and in which order).
"""

from fairvec.reference._algorithm import (
    Algorithm,
    InvalidInput,
    algorithm,
    compute,
    registry,
)

__all__ = ["Algorithm", "InvalidInput", "algorithm", "compute", "registry"]
