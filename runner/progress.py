"""How far a run has come, for a person on a terminal (a bar) and for a log (a line now and
then): counted in cases, so that a 10,000-case accumulated stream weighs 10,000, not one
vector (issue 35: the bar sat at 100% for 37 s of a 48 s run, and a CI log showed nothing
for 11.8 minutes).

A fixed vector is one case; an accumulated vector is its ``count`` cases, which move on
as each block's checkpoint comes (from the adapter, or from the runner streaming the
cases) and are all counted when its result comes.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TextIO

INTERVAL_VARIABLE = "FAIRVEC_PROGRESS_SECONDS"  # the lines' interval (tests make it short)
DEFAULT_INTERVAL = 10.0  # seconds between two progress lines in a log


class Progress:
    """The counts, and what shows them: ``draw(done_cases)`` after each change (a bar), or
    a line on ``out`` every ``interval`` seconds from a thread of its own (a log)."""

    def __init__(self, vectors: int, streams: Mapping[str, tuple[int, int]]) -> None:
        """``streams``: each accumulated vector's id -> (its cases, the cases of a block)."""
        self.vectors = vectors + len(streams)
        self.cases = vectors + sum(count for count, _block in streams.values())
        self._streams = dict(streams)
        self._advanced: dict[str, int] = {}  # a stream's cases counted so far
        self.vectors_done = 0
        self.cases_done = 0
        self.draw: Callable[[int], None] = lambda _cases: None
        self._note: Callable[[str], None] = lambda _text: None
        self._retotal: Callable[[int], None] = lambda _cases: None
        self._lock = threading.Lock()

    def add_streams(self, streams: Mapping[str, tuple[int, int]]) -> None:
        """Streams known only once the hello is read (the fresh ones, runner/fresh_streams.py):
        counted in the totals from now on."""
        with self._lock:
            new = {id_: size for id_, size in streams.items() if id_ not in self._streams}
            self._streams.update(new)
            self.vectors += len(new)
            self.cases += sum(count for count, _block in new.values())
            self._retotal(self.cases)

    def vector_done(self) -> None:
        """A fixed vector's result."""
        with self._lock:
            self.vectors_done += 1
            self.cases_done += 1
            self.draw(1)

    def block_done(self, vector_id: str, block: int) -> None:
        """An accumulated vector's block ``block`` (1-based) is answered."""
        count, size = self._streams.get(vector_id, (0, 1))
        self._move_to(vector_id, min(count, block * size))

    def stream_done(self, vector_id: str) -> None:
        """An accumulated vector's result: the cases not yet counted are."""
        with self._lock:
            self.vectors_done += 1
        self._move_to(vector_id, self._streams.get(vector_id, (1, 1))[0])

    def _move_to(self, vector_id: str, cases: int) -> None:
        with self._lock:
            before = self._advanced.get(vector_id, 0)
            if cases > before:  # (a block streamed again after a fault is not counted twice)
                self._advanced[vector_id] = cases
                self.cases_done += cases - before
                self.draw(cases - before)

    def note(self, text: str) -> None:
        """Beside the bar: the stream being computed."""
        with self._lock:
            self._note(text)

    def line(self, elapsed: float) -> str:
        """``fairvec run: 12,000 of 232,847 cases (52%), 400 of 22,820 vectors, 1,200
        cases/s, about 3 min 13 s left``."""
        rate = self.cases_done / elapsed if elapsed > 0 else 0.0
        share = self.cases_done / self.cases if self.cases else 1.0
        text = (
            f"fairvec run: {self.cases_done:,} of {self.cases:,} cases ({share:.0%}), "
            f"{self.vectors_done:,} of {self.vectors:,} vectors, {rate:,.0f} cases/s"
        )
        if rate > 0 and self.cases_done < self.cases:
            text += f", about {_duration((self.cases - self.cases_done) / rate)} left"
        return text


def _duration(seconds: float) -> str:
    whole = round(seconds)
    minutes, rest = divmod(whole, 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


def interval_seconds() -> float:
    """The lines' interval: FAIRVEC_PROGRESS_SECONDS if it is a positive number, else 10."""
    try:
        value = float(os.environ.get(INTERVAL_VARIABLE, ""))
    except ValueError:
        return DEFAULT_INTERVAL
    return value if value > 0 else DEFAULT_INTERVAL


def kind(asked: bool, out: TextIO) -> str:
    """"bar" for a person at a terminal (not in CI), "lines" for a log, or "none"
    (--no-progress)."""
    if not asked:
        return "none"
    if out.isatty() and not os.environ.get("CI"):
        return "bar"
    return "lines"


@contextmanager
def shown(progress: Progress, how: str, out: TextIO | None = None) -> Iterator[Progress]:
    """``progress`` drawn as ``how`` says (see :func:`kind`) while the block runs."""
    out = out or sys.stderr
    if how == "bar":
        with _bar(progress, out):
            yield progress
    elif how == "lines":
        with _lines(progress, out, interval_seconds()):
            yield progress
    else:
        yield progress


@contextmanager
def _bar(progress: Progress, out: TextIO) -> Iterator[None]:
    from tqdm import tqdm  # only on a terminal (most runs are CI's: no bar)

    bar: Any = tqdm(total=progress.cases, unit="case", unit_scale=True, file=out, leave=False)
    def retotal(cases: int) -> None:
        bar.total = cases
        bar.refresh()

    progress.draw, progress._note, progress._retotal = bar.update, bar.set_postfix_str, retotal
    try:
        yield
    finally:
        progress.draw, progress._note = (lambda _cases: None), (lambda _text: None)
        progress._retotal = lambda _cases: None
        bar.close()


@contextmanager
def _lines(progress: Progress, out: TextIO, interval: float) -> Iterator[None]:
    started = time.monotonic()
    stop = threading.Event()

    def tell() -> None:
        while not stop.wait(interval):
            print(progress.line(time.monotonic() - started), file=out, flush=True)

    teller = threading.Thread(target=tell, name="fairvec-progress", daemon=True)
    teller.start()
    try:
        yield
    finally:
        stop.set()
        teller.join()
