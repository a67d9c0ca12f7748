"""``python -m mutation``: run a campaign (or a shard of one, or only changed code),
merge shard reports, write the summary, check the survivors file (docs/mutation.md)."""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import math
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mutation import node_port, python_port, report, scope, survivors

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_REPORT = ROOT / "mutation" / "report.json"
DEFAULT_SURVIVORS = ROOT / "mutation" / "survivors.yaml"
FUZZ_SEED = 20261128
FUZZ_COUNT = 50
ERRORS = (
    report.ReportError,
    scope.ScopeError,
    survivors.SurvivorsError,
    node_port.NodeCampaignError,
    python_port.PythonCampaignError,
)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = parser().parse_args(argv)
    try:
        status: int = arguments.handler(arguments)
    except ERRORS as error:
        print(f"mutation: error: {error}", file=sys.stderr)
        return 2
    return status


def stop_on_sigterm() -> None:
    """SIGTERM (a CI job cancelled) as an exception, as Ctrl-C is: the tools the campaign
    started lead sessions of their own, and are stopped on the way out
    (python_port.wait_until). For the command (mutation/__main__.py), not for a caller."""
    signal.signal(signal.SIGTERM, _terminated)


def _terminated(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


def parser() -> argparse.ArgumentParser:
    words = argparse.ArgumentParser(prog="python -m mutation", description=__doc__)
    commands = words.add_subparsers(required=True, metavar="COMMAND")
    run = commands.add_parser("run", help="judge mutants of the bundled ports")
    run.add_argument("--port", action="append", choices=("node", "python"), required=True)
    run.add_argument(
        "--file",
        action="append",
        default=[],
        metavar="PATH",
        help="only this file of the port (repeatable; default: every file)",
    )
    run.add_argument("--shard", type=_shard, metavar="K/N", help="the K-th of N shards")
    run.add_argument("--since", metavar="REV", help="only mutants in code changed since REV")
    run.add_argument(
        "--sample",
        type=int,
        metavar="N",
        help="only the first N mutants of each Python file (the tests' sample)",
    )
    run.add_argument(
        "--mutant",
        action="append",
        default=[],
        metavar="KEY",
        help="only this mutant, by its key in the report (repeatable; its file is implied): "
        "judge chosen mutants again, e.g. after their vectors landed",
    )
    run.add_argument("--fuzz-seed", type=int, default=FUZZ_SEED)
    run.add_argument("--fuzz-count", type=int, default=FUZZ_COUNT, metavar="N")
    run.add_argument("--vectors", type=Path, default=ROOT / "vectors")
    run.add_argument("--work", type=Path, default=ROOT / "mutation" / ".work", metavar="DIR")
    run.add_argument(
        "--stop-after",
        type=_seconds,
        metavar="SECONDS",
        help="stop judging after this long and write what was judged, marked partial "
        "(Python campaign; a CI job's time limit): go on later with --resume",
    )
    run.add_argument(
        "--resume",
        action="store_true",
        help="go on with the sessions a stopped run left in --work (same settings, code and "
        "vectors; Python campaign): the part written holds every verdict of the session",
    )
    _outputs(run)
    run.set_defaults(handler=run_command)
    merge = commands.add_parser("merge", help="one report from shard (or part) reports")
    merge.add_argument("reports", nargs="+", type=Path)
    merge.add_argument(
        "--allow-partial",
        action="store_true",
        help="accept a split with shards missing (the report names them under 'partial')",
    )
    merge.add_argument(
        "--rejudged",
        action="store_true",
        help="a mutant in more than one part takes the verdict of the last part naming it "
        "(parts made with run --mutant after the first verdicts); implies --mixed-sources",
    )
    merge.add_argument(
        "--judged-again",
        action="store_true",
        help="a file a later part judged whole (every shard, not --mutant) loses the earlier "
        "parts' verdicts, judged_at and partial entries (its keys were renumbered by an "
        "edit); implies --mixed-sources",
    )
    merge.add_argument(
        "--mixed-sources",
        action="store_true",
        help="accept parts judged at other code or vectors (the report says which files "
        "were judged at which source digest, under 'judged_at')",
    )
    _outputs(merge)
    merge.set_defaults(handler=merge_command)
    check = commands.add_parser("check-survivors", help="every survivor has an entry")
    check.add_argument("--report", type=Path, default=DEFAULT_REPORT)
    check.add_argument("--survivors", type=Path, default=DEFAULT_SURVIVORS)
    check.add_argument(
        "--vectors", type=Path, default=ROOT / "vectors", help="where `landed` vectors are"
    )
    check.set_defaults(handler=check_command)
    return words


def _outputs(command: argparse.ArgumentParser) -> None:
    command.add_argument("--json", type=Path, required=True, metavar="FILE")
    command.add_argument("--markdown", type=Path, metavar="FILE")


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not 0 <= seconds < math.inf:
        raise argparse.ArgumentTypeError(f"{text!r}: give seconds, 0 or more, e.g. 18000")
    return seconds


def _shard(text: str) -> scope.Shard:
    try:
        return scope.parse_shard(text)
    except scope.ScopeError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def source_digest(repo: Path) -> str:
    """What the verdicts depend on: both ports' code, the vectors and the judge, as they
    are in the working tree (parts of one campaign must agree on it; the commit need not:
    a report is committed after the run that made it)."""
    digest = hashlib.sha256()
    paths = [*node_port.default_files(repo), *python_port.default_files(repo)]
    paths += [str(path.relative_to(repo)) for path in sorted((repo / "vectors").rglob("*.json"))]
    for path in sorted([*paths, "mutation/judge.py"]):
        digest.update(f"{path}\0".encode())
        digest.update(hashlib.sha256((repo / path).read_bytes()).digest())
    return digest.hexdigest()


def commit(repo: Path) -> str:
    finished = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True
    )
    return finished.stdout.strip() or "unknown"


def files_of(port: str, chosen: list[str]) -> list[str]:
    """The port's files the run mutates: those given that belong to it, or all of them."""
    every = node_port.default_files(ROOT) if port == "node" else python_port.default_files(ROOT)
    if not chosen:
        return every
    unknown = sorted(set(chosen) - set(every) - set(_other_port_files(port)))
    if unknown:
        raise report.ReportError(
            f"--file {unknown[0]}: not a file of either port (give a path "
            "from the checkout's root, e.g. reference/battle.py)"
        )
    return [file for file in every if file in chosen]


def _other_port_files(port: str) -> list[str]:
    if port == "node":
        return python_port.default_files(ROOT)
    return node_port.default_files(ROOT)


def run_command(arguments: argparse.Namespace) -> int:
    started = time.monotonic()
    if "node" in arguments.port and (arguments.resume or arguments.stop_after is not None):
        raise report.ReportError(
            "--resume and --stop-after: the Python campaign's only (Stryker's verdicts are "
            "written at its end): run --port node without them"
        )
    mutants: list[report.Mutant] = []
    partial: list[str] = []
    files: list[str] = []
    places = [scope.key_place(key) for key in arguments.mutant]
    for port in sorted(set(arguments.port)):
        named = sorted({file for owner, file, _ in places if owner == port})
        if places and not named:
            continue  # --mutant names none of this port's mutants
        chosen = files_of(port, [*arguments.file, *named])
        files += chosen
        judged, stopped = run_port(port, chosen, arguments, started)
        mutants += judged
        partial += stopped
    meta = run_meta(arguments, files, time.monotonic() - started)
    if partial:
        meta["partial"] = partial
    return write_outputs(report.build(mutants, meta), arguments)


def run_port(
    port: str, files: list[str], arguments: argparse.Namespace, started: float
) -> tuple[list[report.Mutant], list[str]]:
    """The port's verdicts, and a partial line for each file --stop-after left unfinished."""
    common: dict[str, Any] = {
        "repo": ROOT,
        "work": arguments.work.resolve() / port,
        "vectors": arguments.vectors.resolve(),
        "fuzz_seed": arguments.fuzz_seed,
        "fuzz_count": arguments.fuzz_count,
        "shard": arguments.shard,
        "since": arguments.since,
    }
    chosen = frozenset(arguments.mutant) if arguments.mutant else None
    settings = scope.Settings(**common, sample=arguments.sample, mutants=chosen)
    if port == "node":
        return node_port.campaign(settings, files), []
    stop = arguments.stop_after
    settings = dataclasses.replace(
        settings,
        deadline=None if stop is None else started + stop,
        resume=arguments.resume,
        source=source_digest(ROOT),
    )
    return python_port.campaign(settings, files)


def run_meta(arguments: argparse.Namespace, files: list[str], seconds: float) -> dict[str, Any]:
    """What the run was: the keys merge compares and keeps (report.SHARED_SETTINGS), the
    files, the shard and the clock."""
    return {
        "commit": commit(ROOT),
        "source": source_digest(ROOT),
        "base": arguments.since,
        "fuzz_seed": arguments.fuzz_seed,
        "fuzz_count": arguments.fuzz_count,
        "sample": arguments.sample,
        **({"chosen_mutants": sorted(arguments.mutant)} if arguments.mutant else {}),
        "files": sorted(files),
        "shard": str(arguments.shard) if arguments.shard else None,
        "wall_seconds": round(seconds, 3),
    }


def merge_command(arguments: argparse.Namespace) -> int:
    reports = [report.load(path) for path in arguments.reports]
    merged = report.merge(
        reports,
        allow_partial=arguments.allow_partial,
        mixed_sources=arguments.mixed_sources or arguments.rejudged or arguments.judged_again,
        rejudged=arguments.rejudged,
        judged_again=arguments.judged_again,
    )
    return write_outputs(merged, arguments)


def write_outputs(result: report.Report, arguments: argparse.Namespace) -> int:
    report.write_atomically(arguments.json, report.to_json(result))
    if arguments.markdown:
        report.write_atomically(arguments.markdown, report.markdown(result))
    figures = result["figures"]
    for port, families in figures.items():
        for family, counts in families.items():
            print(
                f"{port} {family}: {counts['mutants']} mutants, {counts['fixed']} killed by "
                f"fixed vectors, {counts[report.SURVIVED]} survivors"
            )
    return 0


def check_command(arguments: argparse.Namespace) -> int:
    entries = survivors.load(arguments.survivors)
    found = survivors.problems(report.load(arguments.report), entries)
    found += survivors.landed_problems(entries, arguments.vectors)
    for line in found:
        print(f"{arguments.survivors}: {line}", file=sys.stderr)
    return 1 if found else 0
