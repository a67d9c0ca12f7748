"""One adapter process: its pipes, read and written by threads, so a silent, hung or
chatty adapter can never block the runner. Everything it says arrives as an
:class:`Event` on one queue, which the session reads with a deadline."""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import subprocess
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Literal

EventKind = Literal["stdout", "stderr", "stdout-closed"]
STDERR_KEPT = 20  # lines of stderr kept for the report of a crash


@dataclass(frozen=True)
class Event:
    kind: EventKind
    line: str = ""


class AdapterProcess:
    def __init__(self, command: Sequence[str]) -> None:
        self.command = list(command)
        self.events: queue.Queue[Event] = queue.Queue()
        self._outgoing: queue.Queue[bytes | None] = queue.Queue()
        self.stderr_tail: list[str] = []
        try:
            self._process = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
                # its own process group, so killing it also kills whatever it started
                # (a shell wrapper's child would otherwise keep the pipes open)
                start_new_session=True,
            )
        except OSError as error:
            raise AdapterStartError(f"cannot start {self.command[0]!r}: {error.strerror}") from None
        assert self._process.stdin and self._process.stdout and self._process.stderr
        self._start_thread(self._read, self._process.stdout, "stdout")
        self._start_thread(self._read, self._process.stderr, "stderr")
        self._start_thread(self._write, self._process.stdin)

    @staticmethod
    def _start_thread(target: object, *arguments: object) -> None:
        threading.Thread(target=target, args=arguments, daemon=True).start()  # type: ignore[arg-type]

    def _read(self, stream: IO[bytes], kind: EventKind) -> None:
        for raw in stream:
            line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            if kind == "stderr":
                self.stderr_tail = [*self.stderr_tail[-(STDERR_KEPT - 1) :], line]
            self.events.put(Event(kind, line))
        if kind == "stdout":
            self.events.put(Event("stdout-closed"))

    def _write(self, stream: IO[bytes]) -> None:
        while (chunk := self._outgoing.get()) is not None:
            try:
                stream.write(chunk)
                stream.flush()
            except (BrokenPipeError, OSError, ValueError):
                return  # the process is gone; its stdout closing reports that

    def send(self, line: str) -> None:
        self._outgoing.put(line.encode("utf-8") + b"\n")

    def exit_status(self, wait: float = 0.0) -> int | None:
        try:
            return self._process.wait(timeout=wait) if wait else self._process.poll()
        except subprocess.TimeoutExpired:
            return None

    def stop(self) -> None:
        """Close stdin (a polite adapter exits), then kill whatever is left."""
        self._outgoing.put(None)
        if self._process.stdin:
            with contextlib.suppress(OSError):
                self._process.stdin.close()
        if self.exit_status(wait=1.0) is None:
            self.kill()

    def kill(self) -> None:
        self._outgoing.put(None)
        try:
            os.killpg(self._process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            self._process.kill()
        self._process.wait()


class AdapterStartError(Exception):
    """The adapter could not be started or did not greet properly."""
