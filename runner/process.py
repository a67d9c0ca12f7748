"""One adapter process, driven without threads: its three pipes are non-blocking and one
``selectors`` loop reads and writes them, so a silent, hung or chatty adapter never blocks
the runner, nothing is left behind when it is replaced (no thread, no descriptor), and a
single read hands over every complete line that arrived (the throughput the runner needs
comes from batches, not from a call per line).

Lines are bytes (the JSON decoder takes UTF-8 bytes as they are); a line longer than the
cap is reported once, as soon as it passes the cap, and the rest of it is dropped, so an
adapter can never make the runner hold more than about one cap of its output.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from functools import partial
from itertools import repeat
from typing import Literal, NamedTuple

try:
    import fcntl
except ImportError:  # not POSIX: the pipes stay as they are
    fcntl = None  # type: ignore[assignment]

EventKind = Literal["stdout", "stderr", "too-long", "stdout-closed"]
DEFAULT_MAX_LINE = 16 * 1024 * 1024  # bytes; --max-line-bytes
CHUNK = 256 * 1024  # bytes read per system call
SHOWN_BYTES = 200  # bytes of an over-long line kept to quote in the report
KILL_GRACE_SECONDS = 1.0  # a polite adapter exits this soon after its stdin closes
PR_SET_CHILD_SUBREAPER = 36  # <linux/prctl.h>


class Event(NamedTuple):
    """What the adapter did. ``line`` holds a stdout line, a stderr line, the start of an
    over-long line ("too-long", on stdout or stderr as ``stream`` says), or for
    "stdout-closed" the bytes written after the last newline (a partial line), if any.
    (A named tuple, not a dataclass: one is made per line, and a tuple is made faster.)"""

    kind: EventKind
    line: bytes = b""
    stream: str = "stdout"


class Matched(NamedTuple):
    """How far stdout went as expected (AdapterProcess.read_expected)."""

    lines: int  # whole expected lines that came, byte for byte
    progress: list[tuple[int, float]]  # (lines come so far, when) at each read that ended one
    events: list[Event]  # what came after them, as poll makes it


# Event(kind, line) as C makes it, without the named tuple's __new__ in Python: a tuple of
# the three fields given the class (10,000 lines: 1.8 ms, against 3.2).
_EVENT = partial(tuple.__new__, Event)


class _LineSplitter:
    """Bytes in, complete lines out, never holding more than ``max_line`` bytes."""

    def __init__(self, stream: str, max_line: int) -> None:
        self.stream = stream
        self.max_line = max_line
        self.partial = bytearray()
        self.dropping = False  # inside an over-long line, already reported
        self.open = True  # until the stream ends (or the adapter's exit ends it)

    def feed(self, chunk: bytes, events: list[Event]) -> None:
        kind: EventKind = "stdout" if self.stream == "stdout" else "stderr"
        pieces = chunk.split(b"\n")
        rest = pieces.pop()  # after the last newline: the start of the next line
        if (
            not (self.partial or self.dropping)
            and max(map(len, pieces), default=0) <= self.max_line
        ):
            # the usual chunk, whole lines of a sane length: each made an event by C
            events += map(_EVENT, zip(repeat(kind), pieces, repeat("stdout")))
            pieces = []
        for index, piece in enumerate(pieces):
            if index == 0 and (self.partial or self.dropping):
                if self.dropping:  # the end of the over-long line: drop it
                    self.dropping = False
                    continue
                self.partial += piece
                piece = bytes(self.partial)
                self.partial.clear()
            if len(piece) > self.max_line:
                events.append(Event("too-long", piece[:SHOWN_BYTES], self.stream))
            else:
                events.append(Event(kind, piece))
        if self.dropping:
            return
        self.partial += rest
        if len(self.partial) > self.max_line:
            events.append(Event("too-long", bytes(self.partial[:SHOWN_BYTES]), self.stream))
            self.partial.clear()
            self.dropping = True

    def leftover(self) -> bytes:
        """What came after the last newline, at end of stream."""
        left = bytes(self.partial)
        self.partial.clear()
        return left


# Bytes of a replay's expected answers kept once matched: beyond, the whole lines matched
# are cut off the front (a bytearray does that in place), so that a run of files chained
# does not grow one buffer of their answers (5 MB a session for a fast port's 34 files).
EXPECTED_KEPT = 1024 * 1024


def _forget_matched(expected: bytearray, position: int) -> int:
    """Cut the whole lines before ``position`` off ``expected``; the position after."""
    line_end = expected.rfind(b"\n", 0, position) + 1
    del expected[:line_end]
    return position - line_end


def _continues(expected: bytearray, position: int, chunk: bytes) -> bool:
    """Whether ``chunk`` is what ``expected`` holds at ``position``, within it."""
    return position + len(chunk) <= len(expected) and expected.startswith(chunk, position)


PIPE_BYTES = 1024 * 1024  # asked for both pipes of the protocol (Linux; 64 KiB by default)


def _widen(*pipes: int) -> None:
    """Ask Linux for PIPE_BYTES in each pipe. A 64 KiB pipe holds about 60 answers of
    casino.mines: the adapter then blocks on a full stdout and the runner on a full stdin
    every few dozen lines, and both pay the wake-ups (docs/benchmarks.md has the figures).
    Elsewhere, or past the system's limit (/proc/sys/fs/pipe-max-size), the pipes stay as
    they are."""
    if fcntl is None:
        return
    setting = getattr(fcntl, "F_SETPIPE_SZ", None)  # Linux only
    if setting is None:
        return
    for pipe in pipes:
        with contextlib.suppress(OSError):
            fcntl.fcntl(pipe, setting, PIPE_BYTES)


class AdapterProcess:
    def __init__(self, command: Sequence[str], *, max_line: int = DEFAULT_MAX_LINE) -> None:
        self.command = list(command)
        # Under the lock, with the add below: reap_adopted() (another session's, with -j)
        # must never see this child before it is known as ours, or it kills it as an orphan.
        with _CHILDREN_LOCK:
            try:
                self._process = subprocess.Popen(
                    self.command,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    bufsize=0,
                    env={**os.environ, "PYTHONUNBUFFERED": "1"},
                    # its own process group, so killing it also kills whatever it started
                    # (a shell wrapper's child would otherwise keep the pipes open)
                    start_new_session=True,
                )
            except OSError as error:
                if error.errno in (errno.EMFILE, errno.ENFILE, errno.EAGAIN, errno.ENOMEM):
                    raise RunnerResourceError(
                        f"cannot start the adapter: {error.strerror}"
                    ) from None
                raise AdapterStartError(
                    f"cannot start {self.command[0]!r}: {error.strerror}"
                ) from None
            self.pid = self._process.pid
            _LIVE_PIDS.add(self.pid)
        assert self._process.stdin and self._process.stdout and self._process.stderr
        self._stdin: int | None = self._process.stdin.fileno()
        self._outgoing = bytearray()
        self._written = 0  # bytes of _outgoing already written (cut off now and then)
        self._selector = selectors.DefaultSelector()
        self._splitters: dict[int, _LineSplitter] = {}
        for stream, name in ((self._process.stdout, "stdout"), (self._process.stderr, "stderr")):
            os.set_blocking(stream.fileno(), False)
            self._splitters[stream.fileno()] = _LineSplitter(name, max_line)
            self._selector.register(stream.fileno(), selectors.EVENT_READ)
        os.set_blocking(self._stdin, False)
        _widen(self._stdin, self._process.stdout.fileno())
        # Readable once the adapter exits: something it started may hold its stdout open
        # (a helper in the background, a setsid daemon), and the exit would otherwise be
        # seen only when the timeout ran out (an accumulated vector's: hours).
        self._exited_fd = _exit_descriptor(self.pid)
        if self._exited_fd is not None:
            self._selector.register(self._exited_fd, selectors.EVENT_READ)
        self.stdout_open = True
        self.stderr_open = True
        self.closed = False
        self._held: list[Event] = []  # read by peek(), for the next poll to return

    # -- writing ---------------------------------------------------------------------------

    def send(self, data: bytes | memoryview) -> None:
        """Queue bytes for the adapter's stdin and write what the pipe takes now."""
        if self._stdin is None:
            return  # the adapter closed its stdin; its end of stdout reports that
        self._outgoing += data
        self._flush()

    def _flush(self) -> None:
        assert self._stdin is not None
        try:
            with memoryview(self._outgoing) as outgoing:
                written = os.write(self._stdin, outgoing[self._written :])
        except BlockingIOError:
            written = 0
        except OSError:  # EPIPE: the adapter is gone or closed stdin
            self._close_stdin()
            return
        self._written += written
        if self._written == len(self._outgoing):
            self._outgoing.clear()
            self._written = 0
        elif self._written >= PIPE_BYTES:  # cut off now and then, not at every write: a
            del self._outgoing[: self._written]  # block of 7 MB would be moved 7 times
            self._written = 0
        self._watch_stdin(bool(self._outgoing))

    def _watch_stdin(self, wanted: bool) -> None:
        assert self._stdin is not None
        registered = self._stdin in self._selector.get_map()
        if wanted and not registered:
            self._selector.register(self._stdin, selectors.EVENT_WRITE)
        elif not wanted and registered:
            self._selector.unregister(self._stdin)

    def close_stdin(self) -> None:
        """Tell the adapter there is nothing more to do."""
        self._close_stdin()

    def _close_stdin(self) -> None:
        if self._stdin is None:
            return
        if self._stdin in self._selector.get_map():
            self._selector.unregister(self._stdin)
        self._outgoing.clear()
        self._written = 0
        self._stdin = None
        assert self._process.stdin
        with contextlib.suppress(OSError):
            self._process.stdin.close()

    # -- reading ---------------------------------------------------------------------------

    def poll(self, timeout: float | None) -> list[Event]:
        """Wait up to ``timeout`` seconds (None: no limit) for the adapter to say something
        and return every event that is ready: often many lines at once, none on timeout."""
        if self._held:  # what peek() read: returned first, and at once
            events, self._held = self._held, []
            return events
        return self._poll(timeout)

    def peek(self) -> list[Event]:
        """Every event ready so far, without waiting, left for the next poll to return: a
        look at what the adapter has said (its hello, fairvec run's selection asks) that
        takes nothing from whoever reads it next."""
        self._held += self._poll(0)
        return self._held

    def _poll(self, timeout: float | None) -> list[Event]:
        events: list[Event] = []
        deadline = None if timeout is None else time.monotonic() + timeout
        while not events and self._reading():
            remaining = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            for key, _mask in self._selector.select(remaining):
                if key.fd == self._stdin:
                    self._flush()
                elif key.fd == self._exited_fd:
                    self._exited(events)
                elif key.fd in self._splitters and self._splitters[key.fd].open:
                    self._read(key.fd, events)
            if deadline is not None and time.monotonic() >= deadline:
                break
        return events

    def drain_stderr(self) -> list[Event]:
        """The stderr lines already written, without waiting. An adapter writes a line to
        stderr before the next one to stdout, so once we have read a stdout line, whatever
        it wrote to stderr before that is in the pipe: this makes their order knowable."""
        events: list[Event] = []
        fd = self._process.stderr.fileno() if self._process.stderr else -1
        while self.stderr_open and not self.closed:
            before = len(events)
            if not self._read(fd, events) or len(events) == before:
                break
        return events

    def read_expected(
        self, expected: bytearray, patience: float, feed: Callable[[int], None] | None = None
    ) -> Matched:
        """Read stdout, writing what is queued for stdin meanwhile, for as long as it is
        byte for byte ``expected`` (whole lines): until all of it has come, or something
        else has (a byte that differs, the end of stdout, a line on stderr, left unread
        for poll), or no line for ``patience`` seconds (as a head's clock, it starts again
        only when a line ends). Compared as bytes, never split into lines: a replayed block
        (runner/session.py) costs the runner a few system calls, not a line each. ``feed``:
        called first and whenever lines come, with how many have, to send more requests
        (and extend ``expected`` with their answers: it may append only, for the lines
        matched are cut off its front as they come). What came after the last whole line
        that was as expected is returned as events, as poll would have made them."""
        stdout = self._process.stdout.fileno() if self._process.stdout else -1
        stderr = self._process.stderr.fileno() if self._process.stderr else -1
        splitter = self._splitters.get(stdout)
        progress: list[tuple[int, float]] = []
        if splitter is None or splitter.partial or splitter.dropping or not self.stdout_open:
            return Matched(0, progress, [])  # (mid-line: never, in practice)
        position, lines = 0, 0
        if feed is not None:
            feed(0)
        deadline = time.monotonic() + patience
        while position < len(expected) and not self.closed:
            ready = self._selector.select(max(deadline - time.monotonic(), 0.0))
            if not ready or any(key.fd in (stderr, self._exited_fd) for key, _mask in ready):
                break  # a stall (the session charges it), stderr or an exit (poll reads it)
            for key, _mask in ready:
                if key.fd == self._stdin:
                    self._flush()
                    continue
                try:
                    chunk = os.read(stdout, CHUNK)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                if not chunk:
                    return self._matched(expected, position, lines, b"", progress, ended=True)
                if not _continues(expected, position, chunk):
                    return self._matched(expected, position, lines, chunk, progress)
                position += len(chunk)
                if ended := chunk.count(b"\n"):
                    lines += ended
                    deadline = time.monotonic() + patience
                    progress.append((lines, deadline - patience))
                    if position >= EXPECTED_KEPT:
                        position = _forget_matched(expected, position)
                    if feed is not None:
                        feed(lines)
        return self._matched(expected, position, lines, b"", progress)

    def _matched(
        self,
        expected: bytearray,
        position: int,
        lines: int,
        other: bytes,
        progress: list[tuple[int, float]],
        *,
        ended: bool = False,
    ) -> Matched:
        """``expected[:position]``, holding ``lines`` whole lines, came, then ``other``
        (and, ``ended``, the end of stdout): the rest after those lines made events."""
        line_end = expected.rfind(b"\n", 0, position) + 1
        events: list[Event] = []
        stdout = self._process.stdout.fileno() if self._process.stdout else -1
        rest = bytes(expected[line_end:position]) + other
        if rest:
            self._splitters[stdout].feed(rest, events)
        if ended:
            self._ended(stdout, events)
        return Matched(lines, progress, events)

    def _reading(self) -> bool:
        return not self.closed and (self.stdout_open or self.stderr_open)

    def _read(self, fd: int, events: list[Event]) -> bool:
        """One read; False when nothing was there."""
        splitter = self._splitters[fd]
        try:
            chunk = os.read(fd, CHUNK)
        except BlockingIOError:
            return False
        except OSError:
            chunk = b""
        if chunk:
            splitter.feed(chunk, events)
            return True
        self._ended(fd, events)
        return True

    def _exited(self, events: list[Event]) -> None:
        """The adapter exited: what it wrote to stdout is read, and stdout ends there, even
        if something it started still holds the pipe (it is killed with the adapter)."""
        assert self._exited_fd is not None and self._process.stdout
        self._selector.unregister(self._exited_fd)
        stdout = self._process.stdout.fileno()
        # what the pipe holds, at most (a descendant may go on writing: it is not waited for)
        for _ in range(PIPE_BYTES // CHUNK + 1):
            if not (self.stdout_open and self._read(stdout, events)):
                break
        if self.stdout_open:
            self._ended(stdout, events)

    def _ended(self, fd: int, events: list[Event]) -> None:
        """Stream ``fd`` reached its end: what was left of a line, and (stdout) the event."""
        splitter = self._splitters[fd]
        splitter.open = False
        self._selector.unregister(fd)
        leftover = splitter.leftover()
        if splitter.stream == "stdout":
            self.stdout_open = False
            events.append(Event("stdout-closed", leftover))
        else:
            self.stderr_open = False
            if leftover:
                events.append(Event("stderr", leftover))

    # -- ending ----------------------------------------------------------------------------

    def exit_status(self) -> int | None:
        """The exit status if the adapter has ended, without reaping it (so its process
        group id cannot be reused before we kill the group)."""
        if self._process.returncode is not None:
            return self._process.returncode
        try:
            found = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return self._process.poll()
        if found is None:
            return None
        if found.si_code == os.CLD_EXITED:
            return found.si_status
        return -found.si_status

    def wait_exit(self, seconds: float) -> int | None:
        deadline = time.monotonic() + seconds
        while (status := self.exit_status()) is None and time.monotonic() < deadline:
            time.sleep(0.005)
        return status

    def stop(self) -> None:
        """Close stdin (a polite adapter exits), then kill whatever is left."""
        if not self.closed:
            self._close_stdin()
            self.wait_exit(KILL_GRACE_SECONDS)
        self.kill()

    def kill(self) -> None:
        """Kill the adapter's whole process group, reap it, and close every descriptor."""
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)  # the leader is unreaped: the id is still ours
        with contextlib.suppress(ProcessLookupError):
            self._process.kill()
        self._process.wait()
        _LIVE_PIDS.discard(self.pid)
        self._close_stdin()
        self._selector.close()
        if self._exited_fd is not None:
            os.close(self._exited_fd)
        for stream in (self._process.stdout, self._process.stderr):
            if stream:
                stream.close()
        reap_adopted()

    @property
    def returncode(self) -> int | None:
        return self._process.returncode


class AdapterStartError(Exception):
    """The adapter could not be started or did not greet properly."""


class RunnerResourceError(Exception):
    """The runner itself ran out of something (descriptors, processes): not the adapter's fault."""


def _exit_descriptor(pid: int) -> int | None:
    """A descriptor readable once process ``pid`` exits (Linux 5.3's pidfd), or None where
    there is none: the exit is then seen when stdout ends, as before."""
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return None
    try:
        return int(opener(pid))
    except OSError:  # an older kernel (ENOSYS), or no descriptor left
        return None


def describe_status(status: int | None) -> str:
    """How the adapter ended, as a verb phrase: its exit status, or (None) that it had not
    exited when its stdout closed (it is killed then)."""
    if status is None:
        return "closed its stdout"
    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        return f"was killed by {name}"
    return f"exited (status {status})"


# -- orphans -------------------------------------------------------------------------------
# An adapter's descendants share its process group and die with it, unless one calls setsid
# (or setpgid). On Linux the runner makes itself a child subreaper: such an escaped process
# is re-parented to the runner, not to init, when its parent dies, and reap_adopted() kills
# it. What stays out of reach is documented in docs/adapter-protocol.md.

_LIVE_PIDS: set[int] = set()  # adapters the runner is still driving: never reaped here
# Held while an adapter is spawned and recorded, and while orphans are looked for and killed:
# with -j, one session's reaping must not take another's adapter, started a moment before,
# for an orphan (it was killed by SIGKILL before its hello: a run stopped at random).
_CHILDREN_LOCK = threading.Lock()
_SUBREAPER = [False]  # set once by become_subreaper()


def become_subreaper() -> bool:
    """Adopt every orphaned descendant (Linux 3.4+); False where that is not available.
    Only the command line calls this: a library caller's process is not ours to change."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        # the program's own symbols, libc's among them: find_library("c") would run
        # ldconfig in a subprocess first (9 ms of every run, before the first request)
        libc = ctypes.CDLL(None, use_errno=True)
        _SUBREAPER[0] = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False
    return _SUBREAPER[0]


def _adopted_children() -> list[int]:
    """Our children that are not adapters we are driving: orphans re-parented to us."""
    me = str(os.getpid())
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) in _LIVE_PIDS:
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        if fields[1].decode() == me:  # fields: state, ppid, ...
            found.append(int(entry.name))
    return found


def reap_adopted(rounds: int = 20) -> None:
    """Kill and reap every orphan adopted through the subreaper, and theirs in turn (each
    killed orphan's own children are adopted next, hence the rounds)."""
    if not _SUBREAPER[0]:
        return
    with _CHILDREN_LOCK:
        _reap_adopted(rounds)


def _reap_adopted(rounds: int) -> None:
    for _ in range(rounds):
        orphans = _adopted_children()
        if not orphans:
            return
        for pid in orphans:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        for pid in orphans:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
