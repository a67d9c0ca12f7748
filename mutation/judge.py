"""One mutant's verdict: the test command Stryker's command runner and cosmic-ray run.

The mutated port is already in place (Stryker: the mutant switched on by
``__STRYKER_ACTIVE_MUTANT__`` in its sandbox; cosmic-ray: the file rewritten in its
sandbox); this script asks fairvec, in order, the three stages of docs/mutation.md and
stops at the first that fails:

1. ``fixed``: the fixed vectors of the algorithms the mutant's file serves (--tier none);
2. ``accumulated``: their accumulated vectors (the default tier);
3. ``fuzz``: a fixed-seed fuzz against the (unmutated) reference.

A stage stopped by a crash or a timeout (exit status 2) while its processes mostly waited
for a CPU is asked once more with ten times the limit before it counts: a loaded machine
delays an answer, a loop never gives one.

Exit 1 when a stage kills the mutant, 0 when it survives every stage (the tools read
only that). The stage is printed on a last line (``fairvec-mutation-verdict: {json}``,
which cosmic-ray keeps in its session database) and, under Stryker, appended to the
file FAIRVEC_MUTATION_VERDICTS with the mutant's id. Standard library only, run as a
script by path: it starts in a few milliseconds, and the sandbox's working folder is
never on its import path.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Sequence

VERDICT_PREFIX = "fairvec-mutation-verdict: "
STRYKER_MUTANT = "__STRYKER_ACTIVE_MUTANT__"
# Stryker's command runner cannot be told to skip a mutant: a shard's judge answers
# "not in this shard" (exit 0) for the others, and the driver leaves them out.
NOT_IN_SHARD = "not-in-shard"
# Per-vector time limit: a mutant that loops is killed by the runner's timeout (an
# error on its vector), in seconds instead of the default 10. The drivers raise it to
# what the unmutated port's baseline run needs (mutation/limits.py, --vector-timeout):
# a chain walk of ten million steps takes more than 50 s (10 x 5 s) on a loaded machine.
VECTOR_TIMEOUT = 5.0
# fairvec run's status when it stopped at the first crash or timeout (--max-crashes and
# --max-timeouts 1, below). On a loaded machine the unmutated port's answer can take
# longer than the limit: it waits for a core, not for a loop. Such a stage, if its
# processes used less than WAITED of its time on a CPU (a loop computes all the time it
# runs; a starved port mostly waits), is run once more with PATIENCE times the limit,
# and its verdict is that run's; a mutant that loops or crashes stops it again. Without
# this, the sixth campaign (docs/mutation.md) counted starved answers as kills and had to
# find and judge them again by hand.
STOPPED = 2
PATIENCE = 10
WAITED = 0.5


def parse_shard(text: str) -> tuple[int, int]:
    """``K/N`` (1 <= K <= N) as (K, N)."""
    try:
        index, count = (int(part) for part in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: a shard is K/N, e.g. 2/8") from None
    if not 1 <= index <= count:
        raise argparse.ArgumentTypeError(f"{text!r}: K must be 1 to N")
    return index, count


def positive_seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not 0 < seconds < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: give seconds above 0, e.g. 5 or 12.5")
    return seconds


def in_shard(mutant_id: str, shard: tuple[int, int] | None) -> bool:
    """Stryker numbers its mutants 0, 1, 2... in a fixed order: shard K of N takes those
    whose number is K - 1 modulo N (round robin, so every shard gets every file)."""
    if shard is None or not mutant_id.isdigit():
        return True
    index, count = shard
    return int(mutant_id) % count == index - 1


def changed_lines(original: list[str], mutated: list[str]) -> set[int]:
    """The lines (1-based, of the unmutated file) the mutant replaced or removed; where it
    only inserted, the line it inserted before."""
    lines: set[int] = set()
    matcher = difflib.SequenceMatcher(a=original, b=mutated, autojunk=False)
    for tag, first, last, _, _ in matcher.get_opcodes():
        if tag != "equal":
            lines.update(range(first + 1, max(last, first + 1) + 1))
    return lines


def scoped_algorithms(scope_file: str) -> tuple[list[str], set[str]] | None:
    """The algorithms a Python mutant can reach, and those of them with accumulated
    vectors, from the driver's scope file (mutation/reach.py): the unmutated file is
    compared with the mutated one in place. None: judge the whole family (no change seen,
    as in the baseline run, or a change no statement maps to an algorithm)."""
    with open(scope_file, encoding="utf-8") as stream:
        scope = json.load(stream)
    with open(scope["original"], encoding="utf-8") as stream:
        original = stream.read().splitlines()
    with open(scope["mutated"], encoding="utf-8") as stream:
        mutated = stream.read().splitlines()
    lines = changed_lines(original, mutated)
    found: set[str] = set()
    for line in lines:
        reached = [names for first, last, names in scope["statements"] if first <= line <= last]
        if not reached or not reached[0]:
            return None
        found.update(reached[0])
    if not found:
        return None
    return sorted(found), found & set(scope["accumulated"])


def fairvec(words: Sequence[str]) -> list[str]:
    # -P: the working folder (a sandbox holding a mutated fairvec/) is never imported;
    # the runner and the fuzz oracle are the installed, unmutated fairvec.
    return [sys.executable, "-P", "-m", "fairvec", *words]


def stage_commands(
    arguments: argparse.Namespace,
    reached: tuple[list[str], set[str]] | None = None,
    patience: float = 1,
) -> list[tuple[str, list[str]]]:
    """The stages in order, each a (name, command). ``reached``: the algorithms the
    mutant can reach (and those with accumulated vectors), judged instead of the
    family's: the others run no mutated code, so their vectors answer as the unmutated
    port's do and the verdict is the same. ``patience``: the limit's multiple (the
    second asking of a stopped stage)."""
    globs = reached[0] if reached else arguments.algorithm
    selection = [word for glob in globs for word in ("--algorithm", glob)]
    adapter = ["--", *arguments.adapter]
    # --fail-on-skip: a mutant that unregisters an algorithm (the port then answers
    # "unsupported", which a port may) has still changed the port: killed, not skipped.
    # --max-crashes/--max-timeouts 1: the unmutated port never crashes nor hangs, so the
    # first crash or hang already kills the mutant (else a port that crashes on every
    # vector is restarted hundreds of times: minutes for one verdict).
    limit = f"{arguments.vector_timeout * patience:g}"
    quiet = ["--no-progress", "--fail-on-skip", "-j", "1", "--timeout", limit]
    quiet += ["--max-crashes", "1", "--max-timeouts", "1"]
    # the baseline (the unmutated port) reports each vector's time: the drivers scale the
    # limit to it (mutation/limits.py)
    report = ["--json", arguments.baseline_report] if arguments.baseline_report else []
    fixed = ["run", "--tier", "none", *quiet, *report, *selection, *adapter]
    stages = [("fixed", fairvec(fixed))]
    if arguments.accumulated and (reached is None or reached[1]):
        accumulated = ["run", "--tag", "accumulated", *quiet, *selection, *adapter]
        stages.append(("accumulated", fairvec(accumulated)))
    if arguments.fuzz_count > 0:
        fuzz = ["fuzz", "--seed", str(arguments.fuzz_seed), "--count", str(arguments.fuzz_count)]
        fuzz += ["--timeout", limit, *selection, *adapter]
        stages.append(("fuzz", fairvec(fuzz)))
    return stages


def status_of(command: list[str]) -> tuple[int, bool]:
    """The command's exit status, and whether it mostly waited: its processes' CPU (the
    runner's and the adapters' it reaped) under WAITED of its wall time."""
    cpu_before, wall_before = _children_cpu(), time.monotonic()
    finished = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cpu, wall = _children_cpu() - cpu_before, time.monotonic() - wall_before
    return finished.returncode, cpu < WAITED * wall


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def judge(
    stages: list[tuple[str, list[str]]], patient: dict[str, list[str]] | None = None
) -> tuple[str, int, list[str]]:
    """The first stage whose command fails, with its exit status, and the stages asked
    again (``patient``: each stage's command with PATIENCE times the limit, run when the
    first stopped on a crash or timeout while it mostly waited); ("survived", 0, [...])
    when none fails."""
    again: list[str] = []
    for name, command in stages:
        status, waited = status_of(command)
        if status == STOPPED and waited and patient is not None:
            again.append(name)
            status, _ = status_of(patient[name])
        if status != 0:
            return name, status, again
    return "survived", 0, again


def record(verdict: dict[str, object]) -> None:
    """The verdict on stdout's last line, and in FAIRVEC_MUTATION_VERDICTS (one JSON
    line a mutant, appended: one line is written whole by a single write)."""
    print(VERDICT_PREFIX + json.dumps(verdict, sort_keys=True), flush=True)
    path = os.environ.get("FAIRVEC_MUTATION_VERDICTS")
    if path:
        with open(path, "a", encoding="utf-8") as verdicts:
            verdicts.write(json.dumps(verdict, sort_keys=True) + "\n")


def parser() -> argparse.ArgumentParser:
    words = argparse.ArgumentParser(prog="judge.py", description=__doc__.split("\n\n")[0])
    words.add_argument("--algorithm", action="append", required=True, metavar="GLOB")
    words.add_argument("--no-accumulated", dest="accumulated", action="store_false")
    words.add_argument("--fuzz-seed", type=int, default=20261128)
    words.add_argument("--fuzz-count", type=int, default=50, metavar="N")
    words.add_argument("--shard", type=parse_shard, metavar="K/N")
    words.add_argument(
        "--vector-timeout",
        type=positive_seconds,
        default=VECTOR_TIMEOUT,
        metavar="SECONDS",
        help=f"each vector's limit (default {VECTOR_TIMEOUT:g}; slow vectors get ten times it)",
    )
    words.add_argument(
        "--baseline-report",
        metavar="FILE",
        help="write the fixed stage's JSON report here (the drivers' baseline run)",
    )
    words.add_argument(
        "--scope",
        metavar="FILE",
        help="judge only the algorithms the mutant reaches (the driver's JSON: original, "
        "mutated, statements, accumulated; Python campaign)",
    )
    words.add_argument(
        "--stryker",
        action="store_true",
        help="run by Stryker: with no active mutant (its dry run), the fixed stage alone",
    )
    words.add_argument("adapter", nargs="+", help="-- the adapter command")
    return words


def main(argv: Sequence[str] | None = None) -> int:
    arguments = parser().parse_args(argv)
    mutant = os.environ.get(STRYKER_MUTANT, "")
    if not in_shard(mutant, arguments.shard):
        record({"mutant": mutant, "stage": NOT_IN_SHARD, "status": 0, "seconds": 0.0})
        return 0
    reached = scoped_algorithms(arguments.scope) if arguments.scope else None
    stages = stage_commands(arguments, reached)
    if arguments.stryker and not mutant:
        stages = stages[:1]  # the dry run: the unmutated port passes its fixed vectors
    # a baseline (the unmutated port, whose report the drivers scale the limit to) and
    # Stryker's dry run are asked once: their limits are already generous
    patient = None
    if not arguments.baseline_report and not (arguments.stryker and not mutant):
        patient = dict(stage_commands(arguments, reached, PATIENCE))
    started = time.monotonic()
    stage, status, again = judge(stages, patient)
    seconds = round(time.monotonic() - started, 3)
    verdict: dict[str, object] = {"mutant": mutant, "stage": stage, "status": status}
    verdict["seconds"] = seconds
    if again:
        verdict["asked_again"] = again
    if reached:
        verdict["algorithms"] = reached[0]
    record(verdict)
    return 1 if stage != "survived" else 0


if __name__ == "__main__":
    sys.exit(main())
