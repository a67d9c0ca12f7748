"""A test adapter that answers with the reference, except where told to misbehave.

Usage: misbehaving.py [OPTION VALUE ...] [START-UP MODE] [MODE:VECTOR_ID ...]

Per-vector modes (MODE:VECTOR_ID): crash, hang, garbage, wrong-id, skip, stderr,
wrong-output, wrong-error, unsupported-false, unsupported-null, unsupported-reason,
deep-stdout, deep-stderr, long-line (a line of 100,000 bytes), later-id (answers with the
next request's id, then answers that one), duplicate, partial-exit (half a line, then
exit 3), close-stdout (closes stdout and sleeps), ansi-stderr (colour codes and control
characters on stderr, then crash), panic (a Rust panic and 60 backtrace lines, then exit
101), raise (log lines, then a real Python traceback), echo (output = the input received),
grandchildren (starts a child and a setsid'd child, records their pids, then hangs),
flood (200 answers to ids nobody asked, then the right answer), two-ahead (answers with the
id of the request two after it, then answers those two), stderr-late (answers the next two
requests on stdout first, then this one on stderr), huge-integer (an output integer of 5,000
digits), nan, infinity, minus-infinity, overflow (1e400) (that literal in the output),
duplicate-key (a key twice inside the output), duplicate-output (the key "output" twice,
the right answer last), sleep (sleeps --sleep seconds, default 1.5, then answers),
move-text (the output's "move" is --move TEXT), huge-move (the output's "move" is 100,000
letters), say-crash (writes --say TEXT on stderr, then exits 1), drip (the right answer in
10 pieces, --drip seconds apart, default 1.5).

Start-up modes: no-hello, bad-hello, exit-before-hello, hello-then-exit, all-unsupported,
log-after-hello (a line naming no request in the hello's write), note-after-hello (a line
on stderr right after the hello),
escape-at-start (starts a child and a setsid'd child, records their pids, goes on),
crash-after-restart (crashes on every start after the first, via a marker file given as
the next word).

Options: --algorithms JSON (the hello's algorithms instead of the reference's);
--pids FILE (append this process's pid, and any it starts, one a line); --crash-one-in N
(crash on the vectors whose id's CRC-32 is 0 modulo N, whichever process gets them);
--many-algorithms N (the hello also names N algorithms the suite does not have);
--greet-late FILE (every instance started after the first, as FILE.first remembers, waits 2 s
before its hello; each instance appends "hello TIME" and "request TIME", its first
request's, to FILE).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
import zlib
from pathlib import Path
from typing import Any

PANIC_FRAMES = 60
FLOOD = 200  # lines to ids nobody asked, in flood mode
# Numbers in an output that are not JSON (the json module writes and reads them anyway).
LITERALS = {"nan": "NaN", "infinity": "Infinity", "minus-infinity": "-Infinity"}
LITERALS["overflow"] = "1e400"  # reads as infinity


def reference_answer(request: dict[str, Any]) -> dict[str, Any]:
    from fairvec.reference import InvalidInput, compute  # only when answering: fast start

    try:
        output = compute(request["algorithm"], request["input"], request["variant"])
        return {"id": request["id"], "output": output}
    except InvalidInput as error:
        return {"id": request["id"], "error": {"code": error.code}}


def emit(message: object, stream: Any = sys.stdout) -> None:
    stream.write((message if isinstance(message, str) else json.dumps(message)) + "\n")
    stream.flush()


def record_pid(pids: str | None, pid: int) -> None:
    if pids:
        with open(pids, "a", encoding="ascii") as listing:
            listing.write(f"{pid}\n")


def options(arguments: list[str]) -> tuple[dict[str, str], list[str]]:
    found: dict[str, str] = {}
    rest = []
    words = iter(arguments)
    for word in words:
        if word.startswith("--"):
            found[word[2:]] = next(words)
        else:
            rest.append(word)
    return found, rest


def start_up(startup: str, words: list[str]) -> None:
    if startup == "exit-before-hello":
        print("cannot start: missing runtime", file=sys.stderr)
        sys.exit(4)
    if startup == "no-hello":
        time.sleep(60)
    if startup == "bad-hello":
        emit({"type": "hi"})
        time.sleep(60)
    if startup == "escape-at-start":  # a child and a setsid'd child left running, then on
        start_grandchildren(GIVEN.get("pids"), hang=False)
    if startup == "crash-after-restart":
        marker = Path(words[1])
        if marker.exists():
            sys.exit(5)
        marker.write_text("started once")


def make_mistake(mistakes: str, word: str) -> None:
    """Load the Python file ``mistakes`` and let its make_mistake(word) patch the reference."""
    sys.path.insert(0, str(Path(mistakes).resolve().parent))
    spec = importlib.util.spec_from_file_location("mistakes", mistakes)
    assert spec is not None and spec.loader is not None, mistakes
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.make_mistake(word)


def hello(algorithms: str | None, many: int = 0) -> dict[str, Any]:
    if algorithms is None:
        from fairvec.reference import registry

        listed = {name: list(a.variants) for name, a in registry().items()}
    else:
        listed = json.loads(algorithms)
    listed.update({f"nosuch.algorithm_{number}": [] for number in range(many)})
    return {"type": "hello", "protocol": 1, "name": GIVEN.get("name", "misbehaving"),
            "version": GIVEN.get("version", "0"), "algorithms": listed}  # fmt: skip


def start_grandchildren(pids: str | None, *, hang: bool = True) -> None:
    sleeper = [sys.executable, "-c", "import time; time.sleep(300)"]
    child = subprocess.Popen(sleeper)
    escaped = subprocess.Popen(sleeper, start_new_session=True)  # leaves our process group
    record_pid(pids, child.pid)
    record_pid(pids, escaped.pid)
    if hang:
        time.sleep(300)


def misbehave(mode: str, request: dict[str, Any], pids: str | None) -> bool:
    """Act out ``mode`` on ``request``; False when the mode is not one of these."""
    if mode == "crash":
        os._exit(3)
    if mode == "hang":
        time.sleep(60)
    elif mode == "garbage":
        emit("this is not JSON")
    elif mode == "wrong-id":
        emit({**reference_answer(request), "id": "no-such-vector"})
    elif mode == "skip":
        pass
    elif mode == "stderr":
        emit(reference_answer(request), sys.stderr)
        # before the next answer: stdout and stderr are two pipes, and which the runner reads
        # first, when both have a line, is a race (each order is charged in its own words)
        time.sleep(0.3)
    elif mode == "wrong-output":
        emit({"id": request["id"], "output": {"ticket": -1, "move": "stone"}})
    elif mode == "wrong-error":
        emit({"id": request["id"], "error": {"code": "something-else", "message": "nope"}})
    elif mode in ("unsupported-false", "unsupported-null"):
        emit({"id": request["id"], "unsupported": mode == "unsupported-null" and None})
    elif mode == "unsupported-reason":
        emit({"id": request["id"], "unsupported": True, "reason": "no big integers in this port"})
    elif mode == "deep-stdout":
        emit("[" * 1000)
    elif mode == "deep-stderr":
        emit("[" * 1000, sys.stderr)
        emit("{" * 1000 + '"id"', sys.stderr)
        emit(reference_answer(request))
    elif mode == "long-line":
        emit(json.dumps({"id": request["id"], "output": "x" * 100_000}))
    elif mode == "duplicate":
        emit(reference_answer(request))
        emit(reference_answer(request))
    elif mode == "echo":
        emit({"id": request["id"], "output": request["input"]})
    elif mode in ("move-text", "huge-move"):
        answer = reference_answer(request)
        move = GIVEN["move"] if mode == "move-text" else "A" * 100_000
        emit({**answer, "output": {**answer["output"], "move": move}})
    elif mode == "say-crash":
        emit(GIVEN["say"], sys.stderr)
        os._exit(1)
    elif not misbehave_in_json(mode, request):
        return misbehave_fatally(mode, pids)
    return True


def ticket_of(request: dict[str, Any], number: str) -> str:
    """An answer whose output's ticket is ``number``, written as it is."""
    return '{"id": ' + json.dumps(request["id"]) + ', "output": {"ticket": ' + number + "}}"


def misbehave_in_json(mode: str, request: dict[str, Any]) -> bool:
    """The modes that write what is not quite JSON; False when the mode is not one of these."""
    right = json.dumps(reference_answer(request))
    if mode == "flood":
        for number in range(FLOOD):
            emit({"id": f"nobody-asked-{number}", "output": {"ticket": number}})
        emit(right)
    elif mode == "huge-integer":
        emit(ticket_of(request, "7" * 5000))
    elif mode in LITERALS:
        emit(ticket_of(request, LITERALS[mode]))
    elif mode == "duplicate-key":  # inside the output: last wins, and is the right value
        emit(right.replace('"output": {', '"output": {"move": "stone", ', 1))
    elif mode == "duplicate-output":  # a wrong output, then the right one
        emit(right.replace('"output": ', '"output": {"move": "stone"}, "output": ', 1))
    elif mode == "sleep":
        time.sleep(float(GIVEN.get("sleep", 1.5)))
        emit(right)
    elif mode == "drip":  # the right answer in 10 pieces, --drip seconds apart
        line = right + "\n"
        for at in range(0, len(line), -(-len(line) // 10)):
            sys.stdout.write(line[at : at - (-len(line) // 10)])
            sys.stdout.flush()
            time.sleep(float(GIVEN.get("drip", 1.5)))
    else:
        return False
    return True


def misbehave_fatally(mode: str, pids: str | None) -> bool:
    """The modes after which the adapter does not answer again."""
    if mode == "partial-exit":
        sys.stdout.write('{"id": "half a li')
        sys.stdout.flush()
        os._exit(3)
    if mode == "close-stdout":
        sys.stdout.close()
        os.close(1)
        time.sleep(300)
    if mode == "ansi-stderr":
        emit("\x1b[31merror:\x1b[0m bad \x00 byte \x07 bell \x0b tab \ufffe end", sys.stderr)
        os._exit(3)
    if mode == "panic":
        emit("thread 'main' panicked at src/main.rs:12:5:", sys.stderr)
        emit("attempt to subtract with overflow", sys.stderr)
        for frame in range(PANIC_FRAMES):
            emit(f"  {frame}: std::rt::lang_start_internal::frame_{frame}", sys.stderr)
        os._exit(101)
    if mode == "raise":
        for number in range(10):
            emit(f"log line {number}", sys.stderr)
        raise ValueError("the port gave up")
    if mode == "grandchildren":
        start_grandchildren(pids)
    return False


def greet_late(log: str) -> None:
    """Every instance but the first started greets 2 s late. The first is the one started
    first (fairvec starts it before loading the vectors, and the others once it has):
    another instance of this command that started before this one, and still runs, makes
    this one late. (Which one claimed a file first was a race the runner's own start-up
    could win or lose on a loaded machine.)"""
    if _an_earlier_instance_runs():
        time.sleep(2.0)
    note(log, "hello")


def _started(pid: int | str) -> tuple[int, int]:
    """When process ``pid`` started (clock ticks since boot), then its pid: the order in
    which two processes started (a pid breaks a tie within one tick)."""
    fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
    return int(fields[19]), int(pid)


def _an_earlier_instance_runs() -> bool:
    me = os.getpid()
    mine = Path(f"/proc/{me}/cmdline").read_bytes()
    started = _started(me)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            if (entry / "cmdline").read_bytes() == mine and _started(entry.name) < started:
                return True
        except OSError:  # gone meanwhile
            continue
    return False


def note(log: str, event: str) -> None:
    with open(log, "a", encoding="ascii") as stream:
        stream.write(f"{event} {time.time()!r}\n")


GIVEN: dict[str, str] = {}  # the options, for the modes that take one


def answer_ahead(mode: str, request: dict[str, Any], lines: Any) -> None:
    """The modes that read the next two requests before answering this one."""
    following = [json.loads(next(lines)), json.loads(next(lines))]
    if mode == "two-ahead":
        emit({**reference_answer(request), "id": following[1]["id"]})
        for later in following:
            emit(reference_answer(later))
    else:  # stderr-late: the later answers on stdout, then this one on stderr
        for later in following:
            emit(reference_answer(later))
        # the runner reads those first: a budget a loaded machine meets (0.3 s was not, at
        # load 20 on 2 cores: the stderr line was read first, and charged as plain stderr)
        time.sleep(2.0)
        emit(reference_answer(request), sys.stderr)


def main(arguments: list[str]) -> None:
    given, words = options(arguments)
    GIVEN.update(given)
    pids = given.get("pids")
    record_pid(pids, os.getpid())
    startup = words[0] if words and ":" not in words[0] else ""
    start_up(startup, words)
    one_in = int(given.get("crash-one-in", 0))
    modes = {vector: mode for mode, vector in (w.split(":", 1) for w in words if ":" in w)}
    if "mistakes" in given:
        make_mistake(given["mistakes"], given["mistake"])
    late = given.get("greet-late")
    if late:
        greet_late(late)
    greeting = json.dumps(hello(given.get("algorithms"), int(given.get("many-algorithms", 0))))
    if startup == "log-after-hello":  # one write: the runner reads both lines at once
        greeting += '\n{"log": "ready"}'
    emit(greeting)
    if startup == "note-after-hello":
        emit("adapter ready", sys.stderr)
    if startup == "hello-then-exit":
        return
    lines = iter(sys.stdin)
    for line in lines:
        request = json.loads(line)
        if "mark" in given:
            Path(given["mark"]).touch()
        if late:
            note(late, "request")
            late = None
        mode = modes.get(request["id"])
        if one_in and zlib.crc32(request["id"].encode()) % one_in == 0:
            os._exit(3)
        if startup == "all-unsupported":
            emit({"id": request["id"], "unsupported": True})
        elif mode == "later-id":
            following = json.loads(next(lines))
            emit({**reference_answer(request), "id": following["id"]})
            emit(reference_answer(following))
        elif mode == "swap":  # the next request's right answer first, then this one's
            following = json.loads(next(lines))
            emit(reference_answer(following))
            emit(reference_answer(request))
        elif mode in ("two-ahead", "stderr-late"):
            answer_ahead(mode, request, lines)
        elif mode is None or not misbehave(mode, request, pids):
            emit(reference_answer(request))


if __name__ == "__main__":
    main(sys.argv[1:])
