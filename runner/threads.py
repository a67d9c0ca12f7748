"""What the runner's threads share."""

from __future__ import annotations

import threading


def join_awake(thread: threading.Thread) -> None:
    """Join ``thread``, waking now and then: a bare join() blocks the main thread in C,
    where Python runs no signal handler, so Ctrl-C and SIGTERM would wait for the thread."""
    while thread.is_alive():
        thread.join(0.1)
