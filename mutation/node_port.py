"""The Node port's campaign: Stryker (mutation/node/stryker.config.mjs), its command
runner calling mutation/judge.py, one Stryker run per mutated file."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from mutation import families, limits, report, scope
from mutation.scope import Settings

PORT = "node"
PORT_FOLDER = Path("adapters") / "node"
HERE = Path(__file__).resolve().parent
STRYKER = HERE / "node" / "node_modules" / ".bin" / "stryker"
CONFIG = HERE / "node" / "stryker.config.mjs"
JUDGE = HERE / "judge.py"
# The baseline run's own per-vector limit: generous, it only proves the port passes
BASELINE_TIMEOUT = 600
# Stryker's status -> the report's stage (Killed: the judge's own stage, read back).
STATUS_STAGE = {
    "Survived": report.SURVIVED,
    "Timeout": "timeout",
    "RuntimeError": "error",
    "CompileError": "error",
    "Ignored": report.IGNORED,
}


class NodeCampaignError(Exception):
    """Stryker missing or failed: one line saying what to do."""


def default_files(repo: Path) -> list[str]:
    """Every JavaScript file of the port but the vendored library."""
    folder = repo / PORT_FOLDER
    return sorted(
        str(path.relative_to(repo))
        for path in folder.rglob("*.js")
        if "vendor" not in path.relative_to(folder).parts
    )


def judge_command(settings: Settings, family: str, vector_timeout: float | None = None) -> str:
    words = [sys.executable, str(JUDGE), "--stryker"]
    if vector_timeout is not None:
        words += ["--vector-timeout", f"{vector_timeout:g}"]
    for glob in families.algorithm_globs(family):
        words += ["--algorithm", glob]
    if not families.has_accumulated(settings.vectors, family):
        words.append("--no-accumulated")
    words += ["--fuzz-seed", str(settings.fuzz_seed), "--fuzz-count", str(settings.fuzz_count)]
    if settings.shard:
        words += ["--shard", str(settings.shard)]
    # the sandbox (Stryker's copy of adapters/node) is the command's working folder
    return shlex.join([*words, "--", "node", "adapter.js"])


def mutate_patterns(settings: Settings, file: str) -> list[str]:
    """Stryker's --mutate for one file: the whole file, or its changed line ranges."""
    inside = str(Path(file).relative_to(PORT_FOLDER))
    if settings.mutants is not None:  # chosen mutants: their lines (collect keeps them only)
        lines = {
            line
            for key in settings.mutants
            for _, named, line in [scope.key_place(key)]
            if named == file
        }
        return [f"{inside}:{first}-{last}" for first, last in scope.line_ranges(lines)]
    if settings.since is None:
        return [inside]
    changed = scope.changed_lines(settings.repo, settings.since, file)
    return [f"{inside}:{first}-{last}" for first, last in scope.line_ranges(changed)]


def prepare_work(folder: Path, vectors: Path) -> None:
    """A fresh folder whose Stryker sandboxes (two levels down) find ../../vectors, where
    the port reads its input schemas (adapters/node/inputs.js)."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / "vectors").symlink_to(vectors.resolve())


def stryker_words(settings: Settings, file: str) -> list[str]:
    """Stryker's command line for one file. Its --mutate is one comma-separated list: given
    twice, the last would replace the first (Stryker 9.5's CLI), and a run over several
    changed ranges or chosen mutants would mutate only the last one."""
    patterns = ",".join(mutate_patterns(settings, file))
    return [str(STRYKER), "run", str(CONFIG), "--mutate", patterns]


def baseline_limit(settings: Settings, family: str, folder: Path) -> float:
    """The unmutated port's fixed stage, timed: the per-vector limit of its mutants'
    judges (mutation/limits.py). Stryker's own dry run proves the sandbox passes."""
    baseline = folder / "baseline.json"
    words = shlex.split(judge_command(settings, family))
    # only the fixed stage, with a generous limit of its own, reporting each vector's time
    extra = ["--fuzz-count", "0", "--no-accumulated", "--vector-timeout", str(BASELINE_TIMEOUT)]
    words[words.index("--") : words.index("--")] = [*extra, "--baseline-report", str(baseline)]
    words.remove("--stryker")
    finished = subprocess.run(words, cwd=settings.repo / PORT_FOLDER, capture_output=True)
    if finished.returncode != 0:
        raise NodeCampaignError(f"the unmutated {PORT_FOLDER} fails the fixed vectors of {family}")
    try:
        return limits.vector_timeout(baseline, settings.vectors)
    except limits.LimitError as error:
        raise NodeCampaignError(str(error)) from None


def run_stryker(settings: Settings, file: str, family: str, folder: Path) -> None:
    if not STRYKER.exists():
        raise NodeCampaignError(
            f"{STRYKER} is missing: run `npm ci` in {STRYKER.parents[2]} (docs/mutation.md)"
        )
    limit = baseline_limit(settings, family, folder)
    environment = dict(
        os.environ,
        FAIRVEC_MUTATION_COMMAND=judge_command(settings, family, limit),
        FAIRVEC_MUTATION_STRYKER_TMP=str(folder / "stryker"),
        FAIRVEC_MUTATION_STRYKER_REPORT=str(folder / "stryker-report.json"),
        FAIRVEC_MUTATION_VERDICTS=str(folder / "verdicts.jsonl"),
    )
    with open(folder / "stryker.log", "w", encoding="utf-8") as log:
        finished = subprocess.run(
            stryker_words(settings, file),
            cwd=settings.repo / PORT_FOLDER,
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    if finished.returncode != 0:
        raise NodeCampaignError(f"Stryker failed on {file}: see {folder / 'stryker.log'}")


def read_verdicts(path: Path) -> dict[str, dict[str, Any]]:
    verdicts: dict[str, dict[str, Any]] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            verdict = json.loads(line)
            verdicts[verdict["mutant"]] = verdict
    return verdicts


def mutant_key(file: str, mutant: dict[str, Any]) -> str:
    """Stable across runs and shards: the place, the mutator and a digest of the
    replacement (Stryker's own ids number the mutants of one run)."""
    start, end = mutant["location"]["start"], mutant["location"]["end"]
    digest = hashlib.sha256(
        f"{end['line']}:{end['column']}|{mutant.get('replacement', '')}".encode()
    ).hexdigest()[:8]
    return f"{PORT}:{file}:{start['line']}:{start['column']}:{mutant['mutatorName']}:{digest}"


def stage_of(
    mutant: dict[str, Any],
    verdicts: dict[str, dict[str, Any]],
    shard: scope.Shard | None = None,
) -> tuple[str, float]:
    """The report's stage and the judge's seconds; ("", 0) for another shard's mutant."""
    verdict = verdicts.get(mutant["id"], {})
    if verdict.get("stage") == "not-in-shard":
        return "", 0.0
    if shard and str(mutant["id"]).isdigit() and not shard.takes(int(mutant["id"])):
        # never run, so the judge never said "not in this shard" (an ignored message):
        # split by its number like the others, else every shard would report it
        return "", 0.0
    seconds = float(verdict.get("seconds", 0.0))
    if mutant["status"] == "Killed":
        return str(verdict.get("stage", "error")), seconds
    if mutant["status"] not in STATUS_STAGE:
        raise NodeCampaignError(
            f"Stryker mutant {mutant['id']}: unexpected status {mutant['status']}"
        )
    return STATUS_STAGE[mutant["status"]], seconds


def collect(
    folder: Path,
    file: str,
    family: str,
    shard: scope.Shard | None = None,
    chosen: frozenset[str] | None = None,
) -> list[report.Mutant]:
    """The report's records from one Stryker run's JSON report and the judge's verdicts."""
    stryker = json.loads((folder / "stryker-report.json").read_text(encoding="utf-8"))
    verdicts = read_verdicts(folder / "verdicts.jsonl")
    records = []
    for mutants in stryker["files"].values():
        for mutant in mutants["mutants"]:
            stage, seconds = stage_of(mutant, verdicts, shard)
            if not stage or (chosen is not None and mutant_key(file, mutant) not in chosen):
                continue
            location = mutant["location"]
            records.append(
                report.mutant_record(
                    key=mutant_key(file, mutant),
                    port=PORT,
                    family=family,
                    file=file,
                    lines=(location["start"]["line"], location["end"]["line"]),
                    mutator=mutant["mutatorName"],
                    replacement=mutant.get("replacement", ""),
                    stage=stage,
                    seconds=seconds,
                )
            )
    return records


def campaign(settings: Settings, files: list[str]) -> list[report.Mutant]:
    known = families.known_families(settings.vectors)
    records: list[report.Mutant] = []
    for file in files:
        if not mutate_patterns(settings, file):
            continue  # incremental: nothing changed in this file
        family = families.family_of(file, known)
        folder = settings.work / f"node-{Path(file).stem}"
        prepare_work(folder, settings.vectors)
        run_stryker(settings, file, family, folder)
        records += collect(folder, file, family, settings.shard, settings.mutants)
    return records
