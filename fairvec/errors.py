"""The exceptions the command line turns into a one-line message and an exit status."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class FairvecError(Exception):
    """Bad input to fairvec itself: the message names the place and the fix (exit 2)."""


class Interrupted(BaseException):
    """fairvec was sent SIGTERM or SIGHUP (exit 128 + the signal's number). A BaseException,
    like KeyboardInterrupt, so no ``except Exception`` swallows it on the way out."""

    def __init__(self, signal_number: int, name: str) -> None:
        super().__init__(name)
        self.signal_number = signal_number
        self.name = name


# The signals that stop fairvec as Ctrl-C (SIGINT) does (stopping_signals_raise)
STOPPING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


@contextmanager
def stopping_signals_raise() -> Iterator[None]:
    """SIGTERM and SIGHUP end the block as Ctrl-C does, by an exception (Interrupted), so
    every ``finally`` and context manager on the way out runs: an adapter and what it
    started are killed, a half-written file is removed (fairvec exits 128 + N). Outside the
    main thread, where Python cannot set a handler, the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(number: int, _frame: FrameType | None) -> None:
        raise Interrupted(number, signal.Signals(number).name)

    previous = {number: signal.signal(number, stop) for number in STOPPING_SIGNALS}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
